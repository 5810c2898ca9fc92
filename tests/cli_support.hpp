// Helpers of the end-to-end CLI tests: run the built executable, scratch
// directories, CSV and HDF5 read-back, plot prerequisites.
#pragma once
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host/build_paths.hpp"

namespace cli_test {
namespace fs = std::filesystem;

inline const std::string kExe = HYDROSWEEP_EXE;
inline const std::string kRoot = HYDROSWEEP_SOURCE_DIR;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
inline void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// A fresh directory under the system temp dir, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("hydrosweep_" + std::string(info->test_suite_name()) + "_" + std::string(info->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

struct Result {
  int code;
  std::string out, err;
};

// Run hydrosweep with `args` (already shell-quoted where needed).
inline Result hydrosweep(const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string cmd = "'" + kExe + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

// CSV rows; lines starting with '#' are comments.
inline std::vector<std::vector<std::string>> read_csv(const fs::path& p, std::string* comment = nullptr) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) {
      if (comment) *comment += line;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// ---- HDF5 read-back ----------------------------------------------------------

struct H5File {
  hid_t id;
  explicit H5File(const fs::path& p) : id(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5File() { if (id >= 0) H5Fclose(id); }
};

inline std::vector<hsize_t> dims_of(hid_t file, const std::string& name) {
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (d < 0) return {};
  const hid_t sp = H5Dget_space(d);
  std::vector<hsize_t> dims(H5Sget_simple_extent_ndims(sp));
  H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
  H5Sclose(sp);
  H5Dclose(d);
  return dims;
}

inline std::vector<double> read_doubles(hid_t file, const std::string& name) {
  hsize_t n = 1;
  for (hsize_t d : dims_of(file, name)) n *= d;
  std::vector<double> v(n);
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
  H5Dclose(d);
  return v;
}

inline std::string string_attribute(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return "<missing>";
  const hid_t t = H5Aget_type(a);  // variable-length UTF-8 string
  EXPECT_GT(H5Tis_variable_str(t), 0) << object << "/" << name;
  char* p = nullptr;
  H5Aread(a, t, &p);
  std::string s = p ? p : "";
  H5free_memory(p);
  H5Tclose(t);
  H5Aclose(a);
  return s;
}

inline hsize_t attribute_length(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return 0;
  const hid_t sp = H5Aget_space(a);
  const hssize_t n = H5Sget_simple_extent_npoints(sp);
  H5Sclose(sp);
  H5Aclose(a);
  return n < 0 ? 0 : hsize_t(n);
}

inline long long int_attribute(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  long long v = -1;
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
  }
  return v;
}

inline double double_attribute(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  double v = NAN;
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
  }
  return v;
}

inline bool python_plotting_available() {
  return std::system("python3 -c 'import h5py, matplotlib, numpy' >/dev/null 2>&1") == 0;
}
inline bool is_png(const fs::path& p) { return read_file(p).substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8); }

}  // namespace cli_test

// ---- more read-back (end-to-end value checks) ----------------------------------

namespace cli_test {

// Whether every link of an absolute path ("/a/b/c") exists.
inline bool h5_exists(hid_t file, const std::string& path) {
  for (size_t at = path.find('/', 1);; at = path.find('/', at + 1)) {
    const std::string prefix = path.substr(0, at);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (at == std::string::npos) return true;
  }
}

// Names of the links in a group, in name order.
inline std::vector<std::string> h5_members(hid_t file, const std::string& group) {
  std::vector<std::string> names;
  H5Literate_by_name(
      file, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names, H5P_DEFAULT);
  return names;
}

// An integer dataset, read as int64 (exact, unlike read_doubles).
inline std::vector<long long> read_int64s(hid_t file, const std::string& name) {
  hsize_t n = 1;
  for (hsize_t d : dims_of(file, name)) n *= d;
  std::vector<long long> v(n);
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
  H5Dclose(d);
  return v;
}

// A 1-D array of variable-length strings (empty if missing).
inline std::vector<std::string> string_array_attribute(hid_t file, const std::string& object, const std::string& name) {
  std::vector<std::string> out;
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return out;
  const hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
  const hssize_t n = H5Sget_simple_extent_npoints(sp);
  if (n > 0) {
    std::vector<char*> p(static_cast<size_t>(n), nullptr);
    EXPECT_GE(H5Aread(a, t, p.data()), 0) << object << "/" << name;
    for (char* s : p) {
      out.emplace_back(s ? s : "");
      H5free_memory(s);
    }
  }
  H5Sclose(sp);
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

// A CSV number as printed with %.17g (exact round trip; "nan", "-nan", "inf").
inline double csv_double(const std::string& cell) {
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  EXPECT_TRUE(!cell.empty() && end == cell.c_str() + cell.size()) << "not a number: \"" << cell << "\"";
  return v;
}

// Index of a column in a CSV header (fails the test and returns size() if absent).
inline size_t csv_column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t c = 0; c < header.size(); ++c)
    if (header[c] == name) return c;
  ADD_FAILURE() << "no CSV column " << name;
  return header.size();
}

}  // namespace cli_test

// ---- runs in the background, shell settings, whole-file comparisons ------------

#include <algorithm>
#include <csignal>
#include <map>
#include <set>

namespace cli_test {

// Run hydrosweep with `args` after the shell commands `setup` (e.g. "cd DIR",
// "ulimit -f 64"), which apply to this run only.
inline Result hydrosweep_after(const std::string& setup, const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string cmd = "(" + setup + " && exec '" + kExe + "' " + args + ") >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

// Start hydrosweep in the background, its stderr to `log`; returns its pid.
inline pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<std::string> all = {kExe};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!std::freopen(log.c_str(), "w", stderr)) ::_exit(127);
    ::execv(kExe.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Wait until `dir` holds at least `count` chunk files (or the process ended).
inline void wait_for_chunks(const fs::path& dir, int count, pid_t pid) {
  for (int spin = 0; spin < 6000; ++spin) {
    int n = 0;
    std::error_code ec;
    if (fs::exists(dir, ec))
      for (const auto& e : fs::directory_iterator(dir, ec)) n += e.path().extension() == ".bin";
    if (n >= count) return;
    int status;
    if (::waitpid(pid, &status, WNOHANG) == pid) return;
    ::usleep(10000);
  }
}

// Every regular file under `dir` (recursively, hidden ones too) by relative
// path, with its bytes: a snapshot to show that a refusal changed nothing.
inline std::map<std::string, std::string> file_tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) files[fs::relative(it->path(), dir).string()] = read_file(it->path());
  return files;
}

namespace detail {
// The value of a dataset or attribute as the bytes of its stored type;
// variable-length strings as their text, NUL-terminated. read(type, buffer).
template <class Read>
std::string h5_value(hid_t type, hid_t space, Read read) {
  const size_t n = static_cast<size_t>(std::max<hssize_t>(H5Sget_simple_extent_npoints(space), 0));
  if (n == 0) return "";
  if (H5Tis_variable_str(type) > 0) {
    std::vector<char*> strings(n, nullptr);
    EXPECT_GE(read(type, strings.data()), 0);
    std::string text;
    for (char* s : strings) {
      text += std::string(s ? s : "") + '\0';
      H5free_memory(s);
    }
    return text;
  }
  std::string bytes(n * H5Tget_size(type), '\0');
  EXPECT_GE(read(type, bytes.data()), 0);
  return bytes;
}

struct H5Visit {
  std::map<std::string, std::string> contents;
  std::string object;  // the object whose attributes are being read
};

inline herr_t h5_attribute(hid_t object, const char* name, const H5A_info_t*, void* data) {
  auto& visit = *static_cast<H5Visit*>(data);
  const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  visit.contents[visit.object + "@" + name] = h5_value(type, space, [&](hid_t t, void* buf) { return H5Aread(a, t, buf); });
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  return 0;
}

inline herr_t h5_object(hid_t file, const char* name, const H5O_info_t* info, void* data) {
  auto& visit = *static_cast<H5Visit*>(data);
  visit.object = std::string(name) == "." ? "/" : "/" + std::string(name);
  const hid_t object = H5Oopen(file, name, H5P_DEFAULT);
  H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, h5_attribute, &visit);
  if (info->type == H5O_TYPE_DATASET) {
    const hid_t type = H5Dget_type(object), space = H5Dget_space(object);
    visit.contents[visit.object] = h5_value(
        type, space, [&](hid_t t, void* buf) { return H5Dread(object, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); });
    H5Sclose(space);
    H5Tclose(type);
  }
  H5Oclose(object);
  return 0;
}
}  // namespace detail

// Every dataset and attribute of an HDF5 file, keyed "/group/dataset" and
// "/object@attribute" ("/@name" for the root's), as the bytes of its stored
// type: equal maps mean equal files, value for value.
inline std::map<std::string, std::string> h5_contents(const fs::path& path) {
  detail::H5Visit visit;
  H5File f(path);
  EXPECT_GE(f.id, 0) << path;
  if (f.id >= 0) H5Ovisit2(f.id, H5_INDEX_NAME, H5_ITER_INC, detail::h5_object, &visit, H5O_INFO_BASIC);
  return visit.contents;
}

// The run record of results.h5 and stability.h5 (host/results/output.hpp): how, when
// and in what pieces a run was made, not what it computed. Everything else
// depends only on the study text and the build.
inline const std::set<std::string> kRunRecord = {
    "/metadata@wall_seconds", "/metadata@created",           "/metadata@threads",          "/metadata@chunk_size",
    "/metadata@chunks",       "/metadata@resumed_instances", "/metadata@points_per_second", "/metadata@ranks"};

// h5_contents without the run record.
inline std::map<std::string, std::string> h5_results(const fs::path& path) {
  std::map<std::string, std::string> all = h5_contents(path);
  for (const auto& key : kRunRecord) all.erase(key);
  return all;
}

// Equal maps, reporting each key that differs or is missing on one side.
void expect_same(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b,
                 const std::string& what) {
  for (const auto& [key, value] : a) {
    const auto it = b.find(key);
    if (it == b.end()) {
      ADD_FAILURE() << what << ": " << key << " only in the first";
    } else {
      EXPECT_TRUE(it->second == value) << what << ": " << key << " differs";
    }
  }
  for (const auto& [key, value] : b)
    if (!a.count(key)) ADD_FAILURE() << what << ": " << key << " only in the second";
}

// 8 x 3 = 24 instances of the 10 s work cycle with trajectories, statistics
// and a failure limit; a valve gain of 60 drives the third column out of the
// pressure range, so failed instances (NaN trajectories, excluded from the
// statistics) are part of every comparison.
inline const char* const kFailingGridStudy = R"([integrator]
duration = 10.0
[[grid]]
parameter = "friction.coulomb_force"
values = [100.0, 150.0, 200.0, 250.0, 300.0, 350.0, 400.0, 450.0]
[[grid]]
parameter = "input.gain"
values = [0.5, 1.0, 60.0]
[analysis]
quantities = ["p2_max", "tracking_rms"]
bootstrap = 100
[analysis.limit]
quantity = "p2_max"
above = 4.5e6
[output]
trajectory_stride = 100
)";

// A stability map of 6 x 5 points of the 3D model.
inline const char* const kStabilityGridStudy = R"([study]
model = "four-bar-3d"
[[grid]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force", "friction.viscous_coefficient"]
min = 1e-3
max = 1.0
count = 6
spacing = "log"
[[grid]]
parameter = "circuit.oil_bulk_modulus"
min = 0.5e9
max = 2e9
count = 5
)";

}  // namespace cli_test
