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
#include <csignal>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "host/registry/models.hpp"
#include "host/run/batch.hpp"
#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

// The checks every successful run must pass; returns the CSV rows.
std::vector<std::vector<std::string>> check_outputs(const fs::path& dir, const fs::path& study, long n,
                                                    const std::vector<std::string>& varied, long samples) {
  EXPECT_TRUE(fs::exists(dir / "results.h5"));
  EXPECT_TRUE(fs::exists(dir / "summary.csv"));
  for (const auto& e : fs::directory_iterator(dir))  // no temporaries left behind
    EXPECT_TRUE(e.path().filename() == "results.h5" || e.path().filename() == "summary.csv" ||
                e.path().filename() == "summary.columns.csv")
        << e.path();

  const auto rows = read_csv(dir / "summary.csv");
  // A plain table (no comment line); its sidecar names every column, in order, with a unit.
  std::string comment;
  const auto columns = read_csv(dir / "summary.columns.csv", &comment);
  EXPECT_TRUE(comment.empty()) << comment;
  if (!rows.empty() && !columns.empty()) {
    EXPECT_EQ(columns[0], (std::vector<std::string>{"column", "unit", "description"}));
    EXPECT_EQ(columns.size(), rows[0].size() + 1);
    for (size_t k = 0; k + 1 < columns.size() && k < rows[0].size(); ++k) {
      EXPECT_EQ(columns[k + 1].at(0), rows[0][k]);
      EXPECT_FALSE(columns[k + 1].at(1).empty()) << rows[0][k];
    }
  }
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

// Lockstep lanes (docs/models/lanes.md): the CPU backend's default for the
// four-bar is 8 lanes, and the outputs (summary and trajectories) are the
// same bytes with one instance at a time (--lanes 1) and with 4 lanes; the run says which lanes ran and
// their utilization; --lanes outside 1, 4, 8 is a usage error.
TEST(Cli, LanesGiveTheSameResultsAsOneInstanceAtATime) {
  TempDir tmp;
  std::string text = read_file(kRoot + "/studies/grid_friction_bulk.toml");
  const std::regex duration(R"(duration = [0-9.eE+-]+)");
  text = std::regex_replace(text, duration, "duration = 1.2");  // past the valve opening at 1 s
  // 5 x 5 x 5 = 125 instances, not a multiple of 4 or 8, so partly filled
  // lane groups run too. (The full 1000-instance grid took over
  // 300 s under the sanitizer flavour, whose -O1 lane loops run ~9x slower
  // than one instance at a time.)
  text = std::regex_replace(text, std::regex(R"(count = 10)"), "count = 5");
  // Trajectories too: each lane's samples as its scalar run's (lockstep.hpp).
  text = std::regex_replace(text, std::regex(R"(trajectory_stride = 0)"), "trajectory_stride = 100");
  ASSERT_NE(text.find("trajectory_stride = 100"), std::string::npos);
  const fs::path study = tmp.path / "grid.toml";
  write_file(study, text);
  std::map<std::string, std::map<std::string, std::string>> h5;
  std::map<std::string, std::string> csv;
  std::vector<std::string> built = {"1", "default"};
  for (int w : {4, 8}) {
    const std::string flag = " --lanes " + std::to_string(w);
    if (hs::lanes_built(w)) {
      built.push_back(std::to_string(w));
      continue;
    }
    // A width this build lacks (CMake HYDROSWEEP_LANE_WIDTHS) is refused by name, nothing written.
    const fs::path out = tmp.path / ("unbuilt" + std::to_string(w));
    const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "'" + flag, tmp.path);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("is not built here (this build has lanes " + hs::built_lane_widths()), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out / "results.h5"));
  }
  for (const std::string& lanes : built) {
    const fs::path out = tmp.path / ("out" + lanes);
    const std::string flag = lanes == "default" ? "" : " --lanes " + lanes;
    const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' -j 2" + flag, tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string width = lanes == "default" ? std::to_string(hs::widest_lanes()) : lanes;
    const std::string expect_lanes = width == "1" ? "" : width + "-lane";
    if (expect_lanes.empty()) EXPECT_EQ(r.out.find("-lane lockstep"), std::string::npos) << r.out;
    else EXPECT_NE(r.out.find(expect_lanes + " lockstep (lane utilization "), std::string::npos) << r.out;
    h5[lanes] = h5_results(out / "results.h5");
    csv[lanes] = read_file(out / "summary.csv");
  }
  EXPECT_GT(h5["1"].size(), 20u);
  for (const std::string& lanes : built) {
    EXPECT_EQ(csv[lanes], csv["1"]) << lanes;
    expect_same(h5["1"], h5[lanes], std::string("--lanes 1 against ") + lanes);
  }
  const Result bad = hydrosweep("run '" + study.string() + "' --out '" + (tmp.path / "bad").string() + "' --lanes 3",
                                tmp.path);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--lanes"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(tmp.path / "bad"));
}

// A shipped study's text with each (pattern, replacement) applied; each must
// take (the replacement is then in the text).
std::string study_with(const std::string& file, const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = read_file(file);
  for (const auto& edit : edits) {
    text = std::regex_replace(text, std::regex(edit.first), edit.second);
    EXPECT_NE(text.find(edit.second), std::string::npos) << file << ": " << edit.first;
  }
  return text;
}

// A study run one instance at a time (--lanes 1) and by default (the widest
// lanes built, where the model has them): each run's summary.csv and
// results.h5 datasets, keyed "1" and "default".
struct LaneRuns {
  std::map<std::string, std::string> csv;
  std::map<std::string, std::map<std::string, std::string>> h5;
};
LaneRuns run_with_and_without_lanes(const TempDir& tmp, const fs::path& study) {
  LaneRuns runs;
  for (const std::string lanes : {"1", "default"}) {
    const fs::path out = tmp.path / ("out" + lanes);
    const std::string flag = lanes == "default" ? "" : " --lanes 1";
    const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' -j 2" + flag, tmp.path);
    EXPECT_EQ(r.code, 0) << r.err;
    if (r.code != 0) return runs;
    if (lanes == "default" && hs::widest_lanes() > 1) {
      EXPECT_NE(r.out.find(std::to_string(hs::widest_lanes()) + "-lane lockstep (lane utilization "), std::string::npos)
          << r.out;
    }
    runs.csv[lanes] = read_file(out / "summary.csv");
    runs.h5[lanes] = h5_results(out / "results.h5");
  }
  return runs;
}

// A model file's study runs on lanes too (docs/models/lanes.md §10): the boom
// and arm under their two PI stroke controllers, a Monte Carlo of 21
// instances (a ragged group), 2.5 s (both references moving), trajectories
// recorded: summary.csv (the controllers' reports and the named points among
// its columns) and results.h5 the same bits with --lanes 1 and by default.
TEST(Cli, ModelFileStudyRunsOnLanesWithTheSameResults) {
  TempDir tmp;
  const fs::path study = tmp.path / "boom_arm.toml";
  write_file(study, study_with(kRoot + "/studies/excavator_boom_arm_monte_carlo.toml",
                               {{R"(model_file = "\.\./models/)", "model_file = \"" + kRoot + "/models/"},
                                {R"(duration = [0-9.eE+-]+)", "duration = 2.5"},
                                {R"(count = 1000)", "count = 21"},
                                {R"(trajectory_stride = 0)", "trajectory_stride = 50"}}));
  auto [csv, h5] = run_with_and_without_lanes(tmp, study);
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_GT(h5["1"].size(), 20u);
  EXPECT_NE(csv["1"].find("control_error_rms_1"), std::string::npos);
  EXPECT_NE(csv["1"].find("arm_tip_x"), std::string::npos);
  EXPECT_EQ(csv["default"], csv["1"]);
  expect_same(h5["1"], h5["default"], "a model file: --lanes 1 against the default");
}

// The manipulator under its VDC runs on lanes (docs/models/lanes.md §11):
// the Monte Carlo study (payload, bulk moduli, valves, friction and the gain
// varied per instance against the controller's nominal model), 13 instances
// (a ragged group), 2 s (start → A under way), trajectories with the
// controller's probe recorded: summary.csv (the controller's report among
// its columns) and results.h5 the same bits with --lanes 1 and by default.
TEST(Cli, ManipulatorStudyRunsOnLanesWithTheSameResults) {
  TempDir tmp;
  const fs::path study = tmp.path / "manipulator.toml";
  write_file(study, study_with(kRoot + "/studies/manipulator_monte_carlo.toml",
                               {{R"(duration = [0-9.eE+-]+)", "duration = 2.0"},
                                {R"(count = 10000)", "count = 13"},
                                {R"(trajectory_stride = 0)", "trajectory_stride = 50"}}));
  auto [csv, h5] = run_with_and_without_lanes(tmp, study);
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_GT(h5["1"].size(), 10u);
  EXPECT_NE(csv["1"].find("tcp_error_rms"), std::string::npos);
  EXPECT_EQ(csv["default"], csv["1"]);
  expect_same(h5["1"], h5["default"], "the manipulator: --lanes 1 against the default");
}

// The penalty formulation runs on lanes too (PenaltyTrapezoidal<Model,
// Lanes<W>>, docs/models/lanes.md §7): by default on the widest width built,
// with the same files, bit for bit, as one instance at a time.
TEST(Cli, PenaltyFormulationRunsOnLanesWithTheSameResults) {
  TempDir tmp;
  std::string text = read_file(kRoot + "/studies/grid_friction_bulk.toml");
  text = std::regex_replace(text, std::regex(R"(duration = [0-9.eE+-]+)"), "duration = 1.2");
  text = std::regex_replace(text, std::regex(R"(count = 10)"), "count = 3");  // 27 instances: a ragged group
  text = std::regex_replace(text, std::regex(R"(friction = "brown-mcphee")"),
                            "friction = \"brown-mcphee\"\nformulation = \"penalty\"");
  ASSERT_NE(text.find("formulation = \"penalty\""), std::string::npos);
  text = std::regex_replace(text, std::regex(R"(trajectory_stride = 0)"), "trajectory_stride = 25");
  const fs::path study = tmp.path / "penalty.toml";
  write_file(study, text);
  std::map<std::string, std::map<std::string, std::string>> h5;
  std::map<std::string, std::string> csv;
  for (const std::string lanes : {"1", "default"}) {
    const fs::path out = tmp.path / ("out" + lanes);
    const std::string flag = lanes == "default" ? "" : " --lanes 1";
    const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' -j 2" + flag, tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    if (lanes == "default")
      EXPECT_NE(r.out.find(std::to_string(hs::widest_lanes()) + "-lane lockstep (lane utilization "), std::string::npos)
          << r.out;
    else
      EXPECT_EQ(r.out.find("-lane lockstep"), std::string::npos) << r.out;
    h5[lanes] = h5_results(out / "results.h5");
    csv[lanes] = read_file(out / "summary.csv");
  }
  EXPECT_GT(h5["1"].size(), 20u);
  EXPECT_EQ(csv["default"], csv["1"]);
  expect_same(h5["1"], h5["default"], "penalty: --lanes 1 against the default");
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
  // --out naming an existing file: the output cannot be written, exit 1
  // (test_runner_edges covers the other ways).
  write_file(tmp.path / "file", "x");
  const Result r = hydrosweep("run " + study + " --out '" + (tmp.path / "file").string() + "'", tmp.path);
  EXPECT_EQ(r.code, 1) << r.err;
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
  EXPECT_EQ(r.out.rfind("Model four-bar: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Supports: model four-bar supports commands run, stability; formulations double-step, penalty, index1-baumgarte; friction laws "
                       "brown-mcphee, bengisu-akay, lugre, modified-lugre, none; index1-baumgarte integrates brown-mcphee, "
                       "bengisu-akay, none; stability linearizes brown-mcphee, bengisu-akay, none"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n| Parameter | Unit | Range | Default (four-bar) | Description |\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `circuit.oil_bulk_modulus` | Pa | (0, 1e+12] | 1.5e+09 |"), std::string::npos) << r.out;
  EXPECT_EQ(hydrosweep("parameters --model nope", tmp.path).code, 2);
  const Result c = hydrosweep("check '" + kRoot + "/studies/grid_friction_bulk.toml'", tmp.path);
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("1000 instances"), std::string::npos) << c.out;
}

// ---- study engine: resume, interruption, isolation of failures ---------------

namespace {

// A small grid with trajectories and an analysis, in chunks of 3.
const char* kChunkedStudy = R"([integrator]
duration = 2.0
[[grid]]
parameter = "friction.coulomb_force"
values = [100.0, 200.0, 300.0, 400.0]
[[grid]]
parameter = "circuit.oil_bulk_modulus"
values = [1.0e9, 1.5e9, 2.0e9]
[analysis]
quantities = ["p2_max", "tracking_rms"]
bootstrap = 50
[analysis.limit]
quantity = "p2_max"
above = 4.5e6
[output]
trajectory_stride = 100
[execution]
chunk_size = 3
)";

}  // namespace

// A run killed with SIGKILL mid-way and resumed writes the same results as an
// uninterrupted run: every dataset and attribute byte for byte (inputs,
// outputs, trajectories, analysis, metadata) and the same summary.csv. Only
// the run record in /metadata (wall time, date, resumed count) may differ.
TEST(Cli, ResumeAfterSigkillGivesIdenticalResults) {
  TempDir tmp;
  const fs::path study = tmp.path / "chunked.toml";
  write_file(study, kChunkedStudy);
  const Result whole = hydrosweep("run '" + study.string() + "' --out '" + (tmp.path / "whole").string() + "' -j 1", tmp.path);
  ASSERT_EQ(whole.code, 0) << whole.err;

  const fs::path out = tmp.path / "killed";
  // One instance at a time (the same bits as lanes, docs/models/lanes.md §4): ~45 ms a chunk, so the
  // run is still going when its second chunk file appears (each file is written while the next chunk runs).
  const pid_t pid = spawn({"run", study.string(), "--out", out.string(), "-j", "1", "--lanes", "1", "--progress", "none"},
                          tmp.path / "log");
  wait_for_chunks(out / ".hydrosweep-partial", 2, pid);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed; make the study longer";
  EXPECT_FALSE(fs::exists(out / "results.h5"));
  EXPECT_FALSE(fs::exists(out / "summary.csv"));
  EXPECT_TRUE(fs::exists(out / ".hydrosweep-partial" / "manifest"));

  // Without --resume the interrupted run is not silently overwritten.
  const Result again = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "'", tmp.path);
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;

  const Result resumed = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' --resume -j 2", tmp.path);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed from the interrupted run"), std::string::npos) << resumed.out;
  EXPECT_FALSE(fs::exists(out / ".hydrosweep-partial"));

  const auto a = h5_results(tmp.path / "whole" / "results.h5"), b = h5_results(out / "results.h5");
  EXPECT_GT(a.size(), 40u);
  EXPECT_TRUE(a.count("/trajectories/q1") && a.count("/analysis/statistics/p2_max/quantiles") &&
              a.count("/metadata@study_text"));
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_TRUE(b.at(name) == bytes) << name << " differs after resume";
  }
  EXPECT_EQ(read_file(tmp.path / "whole" / "summary.csv"), read_file(out / "summary.csv"));
  H5File f(out / "results.h5");
  EXPECT_GT(int_attribute(f.id, "/metadata", "resumed_instances"), 0);
  EXPECT_EQ(int_attribute(f.id, "/metadata", "chunks"), 4);
  EXPECT_DOUBLE_EQ(read_doubles(f.id, "/analysis/statistics/p2_max/quantile_levels")[1], 0.5);
}

// Ctrl-C stops cleanly (exit 130, finished chunks kept), a changed study
// cannot resume someone else's chunks, and --resume completes the run.
TEST(Cli, InterruptStopsCleanlyAndResumeChecksTheStudy) {
  TempDir tmp;
  const fs::path study = tmp.path / "chunked.toml";
  write_file(study, kChunkedStudy);
  const fs::path out = tmp.path / "o";
  // One instance at a time, as above: the run is still going when its first chunk file appears.
  const pid_t pid = spawn({"run", study.string(), "--out", out.string(), "-j", "1", "--lanes", "1", "--progress", "lines"},
                          tmp.path / "log");
  wait_for_chunks(out / ".hydrosweep-partial", 1, pid);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(tmp.path / "log");
  EXPECT_NE(read_file(tmp.path / "log").find("--resume"), std::string::npos) << read_file(tmp.path / "log");
  EXPECT_FALSE(fs::exists(out / "results.h5"));
  for (const auto& e : fs::directory_iterator(out / ".hydrosweep-partial"))
    EXPECT_NE(e.path().extension(), ".tmp") << "a half-written chunk was left: " << e.path();

  const fs::path changed = tmp.path / "changed.toml";
  write_file(changed, std::string(kChunkedStudy) + "# a comment changes the study text\n");
  const Result wrong = hydrosweep("run '" + changed.string() + "' --out '" + out.string() + "' --resume", tmp.path);
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("different study text"), std::string::npos) << wrong.err;

  const Result resumed = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' --resume", tmp.path);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(read_csv(out / "summary.csv").size(), 13u);
}

// An instance that fails mid-run (here: a valve gain of 100 drives p2 out of
// range after about 1 s) is flagged, and every other instance's results are
// bit-identical to a run without it.
TEST(Cli, FailedInstanceDoesNotDisturbTheOthers) {
  TempDir tmp;
  auto study = [&](const std::string& values) {
    const fs::path p = tmp.path / ("s" + std::to_string(values.size()) + ".toml");
    write_file(p, "[integrator]\nduration = 3.0\n[[grid]]\nparameter = \"input.gain\"\nvalues = [" + values +
                      "]\n[execution]\nchunk_size = 2\n");
    return p;
  };
  const fs::path with = study("1.0, 100.0, 1.5, 0.5"), without = study("1.0, 1.5, 0.5");
  ASSERT_EQ(hydrosweep("run '" + with.string() + "' --out '" + (tmp.path / "a").string() + "'", tmp.path).code, 0);
  ASSERT_EQ(hydrosweep("run '" + without.string() + "' --out '" + (tmp.path / "b").string() + "'", tmp.path).code, 0);
  const auto a = read_csv(tmp.path / "a" / "summary.csv"), b = read_csv(tmp.path / "b" / "summary.csv");
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(a[2][1], "pressure_out_of_range") << "the extreme instance should fail";
  const std::vector<std::pair<int, int>> same = {{1, 1}, {3, 2}, {4, 3}};
  for (const auto& [ia, ib] : same)
    for (size_t c = 1; c < a[ia].size(); ++c) EXPECT_EQ(a[ia][c], b[ib][c]) << a[0][c] << " of instance " << ia;
}

// A sampled study end to end: Monte Carlo design with a scale factor and a
// derived parameter; the inputs in the outputs follow the study's rules.
TEST(Cli, MonteCarloStudyWithScaleAndDerivedParameter) {
  TempDir tmp;
  const fs::path study = tmp.path / "mc.toml";
  write_file(study, R"([integrator]
duration = 1.0
[sample]
method = "monte-carlo"
count = 12
seed = 5
[[factor]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force"]
min = 0.5
max = 2.0
[[factor]]
parameter = "circuit.oil_bulk_modulus"
distribution = "truncated-normal"
mean = 1.5e9
std = 2e8
min = 1.2e9
max = 1.8e9
[derived]
"friction.viscous_coefficient" = "2 * friction.coulomb_force"
[analysis]
quantities = ["p2_max"]
bootstrap = 50
)");
  const Result r = hydrosweep("run '" + study.string() + "' --out '" + (tmp.path / "o").string() + "'", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  H5File f(tmp.path / "o" / "results.h5");
  const auto scale = read_doubles(f.id, "/inputs/friction_scale");
  const auto bulk = read_doubles(f.id, "/inputs/circuit.oil_bulk_modulus");
  const auto sigma2 = read_doubles(f.id, "/inputs/friction.viscous_coefficient");
  ASSERT_EQ(scale.size(), 12u);
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_GE(scale[i], 0.5);
    EXPECT_LE(scale[i], 2.0);
    EXPECT_GE(bulk[i], 1.2e9);
    EXPECT_LE(bulk[i], 1.8e9);
    EXPECT_DOUBLE_EQ(sigma2[i], 2 * 210.0 * scale[i]);  // derived from the scaled Coulomb force
  }
  EXPECT_EQ(string_attribute(f.id, "/metadata", "sample_method"), "monte-carlo");
  // Same seed, same sample.
  const Result again = hydrosweep("run '" + study.string() + "' --out '" + (tmp.path / "p").string() + "'", tmp.path);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(read_file(tmp.path / "o" / "summary.csv"), read_file(tmp.path / "p" / "summary.csv"));
}

// ---- plots ---------------------------------------------------------------------


// `hydrosweep plot DIR` on a real (small) Monte Carlo study with trajectories,
// an analysis and a failure limit: every plot the issue asks for is written.
TEST(Cli, PlotWritesThePngsOfAFinishedStudy) {
  if (!python_plotting_available()) GTEST_SKIP() << "python3 with h5py, matplotlib and numpy is needed (scripts/setup.sh installs them)";
  TempDir tmp;
  const fs::path study = tmp.path / "mc.toml";
  write_file(study, R"([integrator]
duration = 2.0
[sample]
method = "monte-carlo"
count = 16
[[factor]]
parameter = "circuit.oil_bulk_modulus"
relative = 0.2
[analysis]
quantities = ["p2_max"]
bootstrap = 50
[analysis.limit]
quantity = "p2_max"
above = 4.4e6
[output]
trajectory_stride = 20
)");
  const fs::path out = tmp.path / "o";
  ASSERT_EQ(hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' -q", tmp.path).code, 0);
  const Result r = hydrosweep("plot '" + out.string() + "'", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"histogram_p2_max.png", "cdf_p2_max.png", "scatter_p2_max.png", "time_histories.png"}) {
    EXPECT_TRUE(is_png(out / "plots" / name)) << name << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(name), std::string::npos) << r.out;
  }
  EXPECT_EQ(hydrosweep("plot '" + (tmp.path / "nothing").string() + "'", tmp.path).code, 2);
  // --quantity picks the outputs, --format the file type; --slice is for maps.
  const fs::path pdf = tmp.path / "pdf";
  const Result q = hydrosweep("plot '" + out.string() + "' --quantity q1 --format pdf --out '" + pdf.string() + "'", tmp.path);
  ASSERT_EQ(q.code, 0) << q.err;
  for (const char* name : {"histogram_q1.pdf", "cdf_q1.pdf", "scatter_q1.pdf", "time_histories.pdf"})
    EXPECT_EQ(read_file(pdf / name).rfind("%PDF", 0), 0u) << name << "\n" << q.out << q.err;
  EXPECT_FALSE(fs::exists(pdf / "histogram_p2_max.pdf"));
  const Result s = hydrosweep("plot '" + out.string() + "' --slice a=1", tmp.path);
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("--slice holds an axis of a stability map"), std::string::npos) << s.err;
  EXPECT_EQ(hydrosweep("plot '" + out.string() + "' --format jpg", tmp.path).code, 2);
}

// The plot script on synthetic files of every design (grid heat maps, Sobol
// bars, edge cases: one instance, zero variance, NaN columns, sparse metadata).
TEST(Cli, PlotScriptHandlesEveryDesign) {
  if (!python_plotting_available()) GTEST_SKIP() << "python3 with h5py, matplotlib and numpy is needed (scripts/setup.sh installs them)";
  TempDir tmp;
  const Result r = [&] {
    const fs::path out = tmp.path / "log.txt";
    const int status = std::system(("bash '" + kRoot + "/tests/plot_study_test.sh' >'" + out.string() + "' 2>&1").c_str());
    return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), ""};
  }();
  EXPECT_EQ(r.code, 0) << r.out;
}

// ---- every model, every command ---------------------------------------------------

// Every registered model through every command it supports, from the command
// line: `parameters --model M` lists its table, `check` reads a small study of
// it, `run` integrates it (0.5 s of its work cycle, two instances, trajectories),
// `plot` draws the results, `stability` maps it. A new model in the catalog
// is covered here without a line of this test changing.
TEST(Cli, EveryModelRunsEveryCommandItSupports) {
  TempDir tmp;
  for (const auto& m : hs::models()) {
    SCOPED_TRACE(m.name);
    const Result p = hydrosweep("parameters --model " + m.name, tmp.path);
    EXPECT_EQ(p.code, 0) << p.err;
    EXPECT_NE(p.out.find("| `" + m.parameters.front().name + "` |"), std::string::npos) << p.out;
    // A grid over the first sweepable parameter with a positive default: x1 and x1.1.
    std::string grid;
    for (const auto& q : m.parameters)
      if (q.role == hs::ParameterInfo::Role::parameter && m.defaults[q.index] > 0 && q.admits(1.1 * m.defaults[q.index])) {
        grid = "[[grid]]\nname = \"scale\"\nscales = [\"" + q.name + "\"]\nvalues = [1.0, 1.1]\n";
        break;
      }
    const fs::path study = tmp.path / (m.name + ".toml");
    write_file(study, "[study]\nmodel = \"" + m.name + "\"\n[integrator]\nduration = 0.5\n[output]\ntrajectory_stride = 50\n" +
                          grid);
    const std::string s = "'" + study.string() + "'";
    const Result c = hydrosweep("check " + s, tmp.path);
    EXPECT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("model " + m.name), std::string::npos) << c.out;
    if (m.supports_command("run")) {
      const fs::path out = tmp.path / (m.name + "-run");
      const Result r = hydrosweep("run " + s + " --out '" + out.string() + "' -q", tmp.path);
      EXPECT_EQ(r.code, 0) << r.err;
      EXPECT_TRUE(fs::exists(out / "results.h5"));
      H5File f(out / "results.h5");
      EXPECT_EQ(read_doubles(f.id, "/outputs/status"), std::vector<double>(2, 0.0));
      if (python_plotting_available()) {
        const Result pl = hydrosweep("plot '" + out.string() + "'", tmp.path);
        EXPECT_EQ(pl.code, 0) << pl.err;
        EXPECT_TRUE(is_png(out / "plots" / "time_histories.png")) << pl.out << pl.err;
      }
    }
    if (m.supports_command("stability")) {
      const fs::path out = tmp.path / (m.name + "-stability");
      const Result r = hydrosweep("stability " + s + " --out '" + out.string() + "' -q", tmp.path);
      EXPECT_EQ(r.code, 0) << r.err;
      EXPECT_TRUE(fs::exists(out / "stability.h5"));
    }
  }
}
