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
