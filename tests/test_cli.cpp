// End-to-end tests of the `hydrosweep` executable: run small and
// 1000-instance grids, read summary.csv and results.h5 back (HDF5 C API),
// and check that bad studies and bad command lines exit 2 and write nothing.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::string kExe = HYDROSWEEP_EXE;
const std::string kRoot = HYDROSWEEP_SOURCE_DIR;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// A fresh directory under the system temp dir, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("hydrosweep_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
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
Result hydrosweep(const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string cmd = "'" + kExe + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
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

std::vector<hsize_t> dims_of(hid_t file, const std::string& name) {
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (d < 0) return {};
  const hid_t sp = H5Dget_space(d);
  std::vector<hsize_t> dims(H5Sget_simple_extent_ndims(sp));
  H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
  H5Sclose(sp);
  H5Dclose(d);
  return dims;
}

std::vector<double> read_doubles(hid_t file, const std::string& name) {
  hsize_t n = 1;
  for (hsize_t d : dims_of(file, name)) n *= d;
  std::vector<double> v(n);
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
  H5Dclose(d);
  return v;
}

std::string string_attribute(hid_t file, const std::string& object, const std::string& name) {
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

hsize_t attribute_length(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return 0;
  const hid_t sp = H5Aget_space(a);
  const hssize_t n = H5Sget_simple_extent_npoints(sp);
  H5Sclose(sp);
  H5Aclose(a);
  return n < 0 ? 0 : hsize_t(n);
}

long long int_attribute(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  long long v = -1;
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
  }
  return v;
}

// The checks every successful run must pass; returns the CSV rows.
std::vector<std::vector<std::string>> check_outputs(const fs::path& dir, const fs::path& study, long n,
                                                    const std::vector<std::string>& varied, long samples) {
  EXPECT_TRUE(fs::exists(dir / "results.h5"));
  EXPECT_TRUE(fs::exists(dir / "summary.csv"));
  for (const auto& e : fs::directory_iterator(dir))  // no temporaries left behind
    EXPECT_TRUE(e.path().filename() == "results.h5" || e.path().filename() == "summary.csv") << e.path();

  const auto rows = read_csv(dir / "summary.csv");
  EXPECT_EQ(static_cast<long>(rows.size()), n + 1);
  std::vector<std::string> head = {"index", "status"};
  head.insert(head.end(), varied.begin(), varied.end());
  EXPECT_TRUE(std::equal(head.begin(), head.end(), rows.at(0).begin())) << "header starts " << rows[0][0];
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].size(), rows[0].size()) << "row " << i;
    EXPECT_EQ(rows[i][0], std::to_string(i - 1));
  }

  H5File f(dir / "results.h5");
  EXPECT_GE(f.id, 0);
  EXPECT_EQ(dims_of(f.id, "/outputs/status"), (std::vector<hsize_t>{hsize_t(n)}));
  for (const char* out : {"t_end", "steps", "q1", "p2_max", "peak_energy_drift", "mean_newton_iterations"})
    EXPECT_EQ(dims_of(f.id, std::string("/outputs/") + out), (std::vector<hsize_t>{hsize_t(n)})) << out;
  const auto all = dims_of(f.id, "/inputs/all");
  EXPECT_EQ(all, (std::vector<hsize_t>{hsize_t(n), attribute_length(f.id, "/inputs/all", "columns")}));
  EXPECT_GT(attribute_length(f.id, "/inputs/all", "columns"), 50u);  // every parameter, not just the varied ones
  for (size_t k = 0; k < varied.size(); ++k) {
    const auto v = read_doubles(f.id, "/inputs/" + varied[k]);
    EXPECT_EQ(static_cast<long>(v.size()), n);
    for (long i = 0; i < n && i < static_cast<long>(v.size()); ++i)  // CSV %.17g reads back exactly
      EXPECT_EQ(std::strtod(rows[i + 1][2 + k].c_str(), nullptr), v[i]) << varied[k] << " row " << i;
  }
  if (samples > 0) {
    EXPECT_EQ(dims_of(f.id, "/trajectories/t"), (std::vector<hsize_t>{hsize_t(n), hsize_t(samples)}));
    EXPECT_EQ(dims_of(f.id, "/trajectories/p2"), (std::vector<hsize_t>{hsize_t(n), hsize_t(samples)}));
  } else {
    EXPECT_LT(H5Lexists(f.id, "/trajectories", H5P_DEFAULT), 1);
  }
  EXPECT_EQ(string_attribute(f.id, "/metadata", "study_text"), read_file(study));
  EXPECT_EQ(string_attribute(f.id, "/metadata", "study_path"), study.string());
  EXPECT_EQ(string_attribute(f.id, "/metadata", "backend"), "cpu");
  EXPECT_EQ(int_attribute(f.id, "/metadata", "instance_count"), n);
  EXPECT_FALSE(string_attribute(f.id, "/metadata", "hydrosweep_version").empty());
  EXPECT_NE(string_attribute(f.id, "/metadata", "created").find('T'), std::string::npos);
  return rows;
}

}  // namespace

TEST(Cli, SmallGridWithTrajectories) {
  TempDir tmp;
  const fs::path study = tmp.path / "small.toml";
  write_file(study, R"(
[study]
friction = "bengisu-akay"
[integrator]
dt = 1e-3
duration = 0.5
[input]
times = [0.0, 0.1]
values = [0.0, 10.0]
[[grid]]
parameter = "friction.coulomb_force"
values = [100.0, 300.0]
[[grid]]
parameter = "circuit.oil_bulk_modulus"
values = [1e9, 1.5e9]
[[grid]]
parameter = "circuit.valve_time_constant"
min = 0.002
max = 0.02
count = 2
spacing = "log"
[output]
trajectory_stride = 50
)");
  const fs::path out = tmp.path / "out" / "nested";  // created, parents too
  const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' --threads 2", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("8 instances"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("instance-steps/s"), std::string::npos) << r.out;

  const std::vector<std::string> varied = {"friction.coulomb_force", "circuit.oil_bulk_modulus", "circuit.valve_time_constant"};
  const auto rows = check_outputs(out, study, 8, varied, 1 + 500 / 50);
  // Grid order: first axis slowest.
  const double values[3][2] = {{100.0, 300.0}, {1e9, 1.5e9}, {0.002, 0.02}};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(rows[i + 1][1], "ok") << "instance " << i;
    EXPECT_EQ(std::strtod(rows[i + 1][2].c_str(), nullptr), values[0][(i >> 2) & 1]);
    EXPECT_EQ(std::strtod(rows[i + 1][3].c_str(), nullptr), values[1][(i >> 1) & 1]);
    EXPECT_EQ(std::strtod(rows[i + 1][4].c_str(), nullptr), values[2][i & 1]);
  }
  H5File f(out / "results.h5");
  const auto t = read_doubles(f.id, "/trajectories/t");
  ASSERT_EQ(t.size(), 8u * 11u);
  EXPECT_EQ(t[0], 0.0);
  EXPECT_NEAR(t[10], 0.5, 1e-9);
  EXPECT_EQ(string_attribute(f.id, "/metadata", "friction"), "bengisu-akay");

  // A second run into the same directory replaces the files.
  const Result again = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' --quiet", tmp.path);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, "");
  check_outputs(out, study, 8, varied, 11);
}

// The shipped 1000-instance study, shortened to 0.05 s to keep CI fast.
TEST(Cli, ThousandInstanceGrid) {
  TempDir tmp;
  std::string text = read_file(kRoot + "/studies/grid_friction_bulk.toml");
  const std::regex duration(R"(duration = [0-9.eE+-]+)");
  ASSERT_TRUE(std::regex_search(text, duration));
  text = std::regex_replace(text, duration, "duration = 0.05");
  const fs::path study = tmp.path / "grid_short.toml";
  write_file(study, text);
  const fs::path out = tmp.path / "out";
  const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "'", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1000 instances"), std::string::npos) << r.out;

  const std::vector<std::string> varied = {"friction.coulomb_force", "circuit.oil_bulk_modulus", "circuit.valve_time_constant"};
  const auto rows = check_outputs(out, study, 1000, varied, 0);
  // Independent expansion: linear 50..500, log 5e8..2e9, log 0.002..0.05.
  for (int i = 0; i < 1000; ++i) {
    const int a = i / 100, b = (i / 10) % 10, c = i % 10;
    const double want[3] = {50.0 + 50.0 * a, 5e8 * std::pow(4.0, b / 9.0), 0.002 * std::pow(25.0, c / 9.0)};
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(std::strtod(rows[i + 1][2 + k].c_str(), nullptr) / want[k], 1.0, 1e-13) << "instance " << i << " axis " << k;
  }
  H5File f(out / "results.h5");
  const auto steps = read_doubles(f.id, "/outputs/steps");
  const auto status = read_doubles(f.id, "/outputs/status");
  for (int i = 0; i < 1000; ++i) {  // U_ref = 0 until 1 s: every instance holds its load
    EXPECT_EQ(status[i], 0.0) << i;
    EXPECT_EQ(steps[i], 50.0) << i;
  }
}

// Instances that fail are results: exit 0, flagged in both files.
TEST(Cli, FailedInstancesAreFlaggedNotErrors) {
  TempDir tmp;
  const fs::path study = tmp.path / "fail.toml";
  // p3 overshoots 3.6 MPa when the valve opens at t = 1 s.
  write_file(study, R"(
[integrator]
duration = 1.5
pressure_max = 3.6e6
[[grid]]
parameter = "friction.coulomb_force"
values = [100.0, 200.0]
[output]
trajectory_stride = 100
)");
  const fs::path out = tmp.path / "out";
  const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "'", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("failed: 2 of 2 (pressure_out_of_range 2)"), std::string::npos) << r.out;
  const auto rows = check_outputs(out, study, 2, {"friction.coulomb_force"}, 16);
  for (int i = 1; i <= 2; ++i) EXPECT_EQ(rows[i][1], "pressure_out_of_range");
  H5File f(out / "results.h5");
  const auto status = read_doubles(f.id, "/outputs/status");
  const auto t_end = read_doubles(f.id, "/outputs/t_end");
  const auto t = read_doubles(f.id, "/trajectories/t");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(status[i], 3.0);  // Status::pressure_out_of_range
    EXPECT_GT(t_end[i], 1.0);
    EXPECT_LT(t_end[i], 1.5);
    EXPECT_TRUE(std::isnan(t[i * 16 + 15])) << "samples after the failure are NaN";
  }
}

// Every bad study: exit 2, "hydrosweep: error: FILE...", nothing in --out.
TEST(Cli, BadStudiesExit2AndWriteNothing) {
  TempDir tmp;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kRoot + "/tests/data/bad")) {
    if (entry.path().extension() != ".toml") continue;
    ++n;
    const fs::path out = tmp.path / ("out_" + entry.path().stem().string());
    const Result r = hydrosweep("run '" + entry.path().string() + "' --out '" + out.string() + "'", tmp.path);
    EXPECT_EQ(r.code, 2) << entry.path() << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("hydrosweep: error: " + entry.path().string(), 0), 0u) << r.err;
    // The key from the file's first "# expect:" line is named on stderr.
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    EXPECT_NE(r.err.find(first.substr(10)), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << out;
  }
  EXPECT_GE(n, 15);

  // An existing empty --out stays empty.
  const fs::path out = tmp.path / "existing";
  fs::create_directories(out);
  const Result r = hydrosweep("run '" + kRoot + "/tests/data/bad/negative_bulk_modulus.toml' --out '" + out.string() + "'", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("oil_bulk_modulus"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(0, 1e+12]"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(out));
}

TEST(Cli, MissingStudyFile) {
  TempDir tmp;
  const Result r = hydrosweep("run '" + (tmp.path / "nope.toml").string() + "' --out '" + (tmp.path / "o").string() + "'", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nope.toml: no such study file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path / "o"));
}

TEST(Cli, UsageErrorsExit2) {
  TempDir tmp;
  const std::string study = "'" + kRoot + "/studies/seed002_work_cycle.toml'";
  const std::string out = "'" + (tmp.path / "o").string() + "'";
  const std::vector<std::string> bad_lines = {"", "run " + study, "run " + study + " --out " + out + " --threads 0",
                                             "run " + study + " --out " + out + " --bogus", "frobnicate"};
  for (const std::string& args : bad_lines) {
    const Result r = hydrosweep(args, tmp.path);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("hydrosweep: error: ", 0), 0u) << args << "\n" << r.err;
  }
  // --out naming an existing file.
  write_file(tmp.path / "file", "x");
  const Result r = hydrosweep("run " + study + " --out '" + (tmp.path / "file").string() + "'", tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(tmp.path / "file"), "x");
  EXPECT_FALSE(fs::exists(tmp.path / "o"));
}

TEST(Cli, HelpAndParameterTable) {
  TempDir tmp;
  EXPECT_EQ(hydrosweep("--help", tmp.path).code, 0);
  EXPECT_EQ(hydrosweep("--version", tmp.path).code, 0);
  const Result r = hydrosweep("parameters", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("| Parameter | Unit | Range | Default (four-bar) | Description |", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("| `circuit.oil_bulk_modulus` | Pa | (0, 1e+12] | 1.5e+09 |"), std::string::npos) << r.out;
  EXPECT_EQ(hydrosweep("parameters --model nope", tmp.path).code, 2);
  const Result c = hydrosweep("check '" + kRoot + "/studies/grid_friction_bulk.toml'", tmp.path);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("1000 instances"), std::string::npos) << c.out;
}
