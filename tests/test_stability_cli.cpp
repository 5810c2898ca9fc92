// `hydrosweep stability` end to end (run the built executable, read
// stability.h5 and stability.csv back), the [stability] table of study files,
// and the CPU dispatch of host/run/stability_map.cpp.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"
#include "kernels/models/four_bar.hpp"

#include "tests/cli_support.hpp"
#include "tests/stability_checks.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// The planar and 3D formulations give the same eigenvalues up to the
// eigensolver's backward error, ~eps·ρ(J) with ρ the spectral radius
// (tests/test_linearize.cpp, kEigenAgreement): the least damped one, max Re λ,
// measured ≤ 0.11 eps·ρ (≤ 2e-13 1/s at ρ ≈ 1e4 1/s) on these grids, with and
// without -march=native: bound eps·ρ.
double spectral_radius(const double* re, const double* im, int n) {
  double radius = 0.0;
  for (int k = 0; k < n; ++k) radius = std::max(radius, std::hypot(re[k], im[k]));
  return radius;
}
// The crank angle of every point: the driving coordinate is held, not solved.
const double kCrankAngle = hs::seed002_four_bar().mechanism.initial_angle[0];

// 5 friction scales (x1/1000 .. x1, with x1/100 and x1 on the grid) x 4 bulk moduli.
std::string small_grid(const std::string& model, const std::string& extra = "") {
  return "[study]\nmodel = \"" + model + "\"\nfriction = \"brown-mcphee\"\n" + R"([[grid]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force", "friction.viscous_coefficient"]
values = [1e-3, 1e-2, 1e-1, 0.3, 1.0]
[[grid]]
parameter = "circuit.oil_bulk_modulus"
min = 0.5e9
max = 2e9
count = 4
)" + extra;
}

}  // namespace

// ---- study files ----------------------------------------------------------------

TEST(StabilityStudy, TableDefaultsMatchTheKernelAndValuesAreRead) {
  const hs::Study plain = hs::parse_study("", "x.toml");
  const hs::StabilitySettings kernel;
  const hs::StabilitySettings from_study = hs::stability_settings(plain.stability);
  EXPECT_EQ(from_study.zero_tolerance, kernel.zero_tolerance);
  EXPECT_EQ(from_study.oscillatory_tolerance, kernel.oscillatory_tolerance);

  const hs::Study s = hs::parse_study("[stability]\nzero_tolerance = 1e-3\noscillatory_tolerance = 1e-4\n", "x.toml");
  EXPECT_EQ(s.stability.zero_tolerance, 1e-3);
  EXPECT_EQ(s.stability.oscillatory_tolerance, 1e-4);
}

TEST(StabilityStudy, ThreeDimensionalModelIsKnown) {
  const hs::Study s = hs::parse_study("[study]\nmodel = \"four-bar-3d\"\n", "x.toml");
  EXPECT_EQ(s.model, "four-bar-3d");
  ASSERT_NE(s.descriptor, nullptr);
  EXPECT_EQ(s.descriptor->physics, "spatial-four-bar");
  EXPECT_TRUE(s.descriptor->supports_command("stability"));
  EXPECT_TRUE(s.descriptor->supports_command("run"));
  EXPECT_EQ(hs::find_model("four-bar")->physics, "planar-four-bar");
  EXPECT_TRUE(hs::find_model("four-bar")->supports_command("run"));
}

// ---- CPU dispatch -----------------------------------------------------------------

TEST(StabilityCpu, EveryFrictionLawAndBothFormulations) {
  for (const char* friction : {"brown-mcphee", "bengisu-akay", "none"}) {
    std::vector<double> max_real[2];
    double radius = 0.0;
    for (int spatial = 0; spatial < 2; ++spatial) {
      const hs::Study s = hs::parse_study(std::string("[study]\nmodel = \"") + (spatial ? "four-bar-3d" : "four-bar") +
                                              "\"\nfriction = \"" + friction + "\"\n",
                                          "x.toml");
      const auto pts = hs::run_stability_cpu(s.record(), s.design(), 1);
      ASSERT_EQ(pts.size(), 1u);
      EXPECT_EQ(pts[0].status, 0) << friction;
      EXPECT_EQ(pts[0].structural_zeros, 2) << friction;
      EXPECT_LT(pts[0].max_real, 0.0) << friction;
      EXPECT_EQ(pts[0].crank_angle, kCrankAngle) << friction;
      max_real[spatial].push_back(pts[0].max_real);
      radius = spectral_radius(pts[0].re, pts[0].im, 6);
    }
    EXPECT_NEAR(max_real[0][0], max_real[1][0], kEps * radius) << friction;
  }
}

TEST(StabilityCpu, InadmissibleInstancesAreFlaggedAndTheOthersComputed) {
  // A derived rod diameter: at the second grid value the rod is thicker than the piston.
  const hs::Study d = hs::parse_study(R"toml([[grid]]
parameter = "mechanism.initial_angle1"
values = [1.0471975511965976, 1.6]
[derived]
"circuit.rod_diameter" = "circuit.piston_diameter * (mechanism.initial_angle1 - 0.5)"
)toml",
                                      "x.toml");
  const auto pts = hs::run_stability_cpu(d.record(), d.design(), 2);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].status, 0);
  EXPECT_EQ(pts[1].status, static_cast<int>(hs::Status::invalid_parameters));
  EXPECT_TRUE(std::isnan(pts[1].max_real));
}

// The CPU's points in lockstep lanes (host/run/backends/cpu_stability_lanes.cpp,
// docs/models/lanes.md §12) against one point at a time: every record bit for
// bit, for each model whose point has lanes — the planar four-bar, the
// quick-return (inline grids of 21 points with a rod thicker than the
// piston: invalid_parameters among the four-bar's points), the 3D four-bar around its crank
// circle and both excavator model files (two cylinders: the statics' LU on
// lanes) — and for the lift-tilt's closed loop, which has no lanes and must
// give the same record through the same call.
// Grids of 21 … 1512 points: ragged last groups.
namespace {
void expect_same_records(const std::vector<hs::StabilityPoint>& a, const std::vector<hs::StabilityPoint>& b,
                         const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  long differing = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string field = hs::stability_checks::first_difference(a[i], b[i]);
    if (!field.empty() && differing++ < 5)
      ADD_FAILURE() << what << ": point " << i << " differs in " << field << " (status " << a[i].status << ")";
  }
  EXPECT_EQ(differing, 0) << what;
}
}  // namespace

TEST(StabilityCpu, LanesGiveTheSameRecordsAsOnePointAtATime) {
  if (hs::widest_lanes() == 1) GTEST_SKIP() << "this build has no lanes";
  // A rod thicker than the piston (the last value; the study flags such an
  // instance, the batch computes it): no pressure holds the load.
  const std::string grid = R"([[grid]]
parameter = "circuit.rod_diameter"
values = [0.02, 0.035, 0.09]
[[grid]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force", "friction.viscous_coefficient"]
values = [1e-3, 1e-2, 1e-1, 0.3, 1.0, 2.0, 5.0]
)";
  std::vector<std::pair<std::string, hs::Study>> studies;
  for (const char* model : {"four-bar", "quick-return"})
    for (const char* friction : {"brown-mcphee", "bengisu-akay", "none"})
      studies.emplace_back(std::string(model) + " " + friction,
                           hs::parse_study(std::string("[study]\nmodel = \"") + model + "\"\nfriction = \"" + friction +
                                               "\"\n" + grid,
                                           "x.toml"));
  for (const char* shipped :
       {"stability_crank_friction.toml", "stability_excavator_boom_arm.toml", "stability_excavator_bucket.toml"})
    studies.emplace_back(shipped, hs::load_study((fs::path(kRoot) / "studies" / shipped).string()));
  studies.emplace_back("stability_lift-tilt", hs::parse_study("[study]\nmodel = \"lift-tilt\"\n", "x.toml"));
  for (const auto& [what, study] : studies) {
    hs::StabilityBatch batch = hs::stability_batch(study.record(), study.design(), 2);
    batch.lanes = 1;
    const auto one = hs::run_stability_cpu(batch);
    batch.lanes = 0;
    const auto lanes = hs::run_stability_cpu(batch);
    expect_same_records(lanes, one, what);
    // The grids hold points that fail and points that do not.
    const long ok = std::count_if(one.begin(), one.end(), [](const hs::StabilityPoint& p) { return p.status == 0; });
    EXPECT_GT(ok, 0) << what;
    if (what.rfind("four-bar", 0) == 0) {
      EXPECT_LT(ok, static_cast<long>(one.size())) << what;
    }
  }
}

TEST(StabilityCpu, LanesOptionRefusesWidthsThisBuildLacks) {
  const hs::Study s = hs::parse_study("[study]\nmodel = \"four-bar\"\n", "x.toml");
  hs::StabilityBatch batch = hs::stability_batch(s.record(), s.design(), 1);
  batch.lanes = 3;
  EXPECT_THROW(hs::run_stability_cpu(batch), std::invalid_argument);
  for (int w : {4, 8}) {
    batch.lanes = w;
    if (hs::lanes_built(w)) {
      EXPECT_EQ(hs::run_stability_cpu(batch).at(0).status, 0);
    } else {
      EXPECT_THROW(hs::run_stability_cpu(batch), std::invalid_argument);
    }
  }
}

// ---- end to end -------------------------------------------------------------------

// `hydrosweep stability` on lanes by default and with --lanes 1: the same
// stability.csv bytes; the summary line names the lanes as `run`'s does
// ("8-lane lockstep") when the model's points ran on them, and not for the
// lift-tilt's closed loop (no lanes) or with --lanes 1; --lanes 3 is refused.
TEST(StabilityCli, LanesAreReportedAndGiveTheSameFiles) {
  TempDir tmp;
  const fs::path study = tmp.path / "map.toml";
  write_file(study, small_grid("four-bar"));
  const std::string lockstep = "-lane lockstep";
  const Result lanes = hydrosweep("stability '" + study.string() + "' --out '" + (tmp.path / "lanes").string() + "'", tmp.path);
  ASSERT_EQ(lanes.code, 0) << lanes.err;
  const Result one = hydrosweep("stability '" + study.string() + "' --out '" + (tmp.path / "one").string() + "' --lanes 1", tmp.path);
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(read_file(tmp.path / "lanes" / "stability.csv"), read_file(tmp.path / "one" / "stability.csv"));
  if (hs::widest_lanes() > 1) {
    EXPECT_NE(lanes.out.find(", " + std::to_string(hs::widest_lanes()) + lockstep + ")"), std::string::npos) << lanes.out;
  }
  EXPECT_EQ(one.out.find(lockstep), std::string::npos) << one.out;
  const fs::path closed_loop = tmp.path / "closed.toml";
  write_file(closed_loop, "[study]\nmodel = \"lift-tilt\"\n");
  const Result closed = hydrosweep("stability '" + closed_loop.string() + "' --out '" + (tmp.path / "closed").string() + "'", tmp.path);
  EXPECT_EQ(closed.code, 0) << closed.err;
  EXPECT_EQ(closed.out.find(lockstep), std::string::npos) << closed.out;
  const Result bad = hydrosweep("stability '" + study.string() + "' --out '" + (tmp.path / "bad").string() + "' --lanes 3", tmp.path);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("must be 1, 4 or 8"), std::string::npos) << bad.err;
}

TEST(StabilityCli, SmallGridEndToEnd) {
  TempDir tmp;
  const fs::path study = tmp.path / "map.toml", out = tmp.path / "o";
  write_file(study, small_grid("four-bar-3d"));
  const Result r = hydrosweep("stability '" + study.string() + "' --out '" + out.string() + "' --threads 2", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  // The 3D four-bar's points run on the build's widest lanes.
  const std::string lanes = hs::widest_lanes() > 1 ? ", " + std::to_string(hs::widest_lanes()) + "-lane lockstep" : "";
  EXPECT_NE(r.out.find("stability: 20 points (four-bar-3d, brown-mcphee) on cpu (2 threads" + lanes + ")"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0 failed, 20 stable, 0 unstable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("points/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find((out / "stability.h5").string()), std::string::npos) << r.out;

  ASSERT_TRUE(fs::exists(out / "stability.h5"));
  ASSERT_TRUE(fs::exists(out / "stability.csv"));
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_TRUE(e.path().filename() == "stability.h5" || e.path().filename() == "stability.csv" ||
                e.path().filename() == "stability.columns.csv" || e.path().filename() == "stability_map.png")
        << e.path();
  if (python_plotting_available()) {
    EXPECT_TRUE(is_png(out / "stability_map.png")) << r.err;
  } else {
    EXPECT_NE(r.err.find("warning"), std::string::npos) << "a missing matplotlib is a warning, not an error";
  }

  H5File f(out / "stability.h5");
  ASSERT_GE(f.id, 0);
  const std::vector<hsize_t> n{20}, n6{20, 6}, n3{20, 3};
  for (const char* d : {"max_real", "damping_ratio", "frequency", "overdamped", "structural_zeros", "status", "crank_angle"})
    EXPECT_EQ(dims_of(f.id, std::string("/stability/") + d), n) << d;
  EXPECT_EQ(dims_of(f.id, "/stability/eigenvalues_real"), n6);
  EXPECT_EQ(dims_of(f.id, "/stability/eigenvalues_imag"), n6);
  EXPECT_EQ(dims_of(f.id, "/stability/pressure"), n3);
  EXPECT_EQ(dims_of(f.id, "/inputs/friction_scale"), n);
  EXPECT_EQ(dims_of(f.id, "/inputs/circuit.oil_bulk_modulus"), n);

  const auto status = read_doubles(f.id, "/stability/status");
  const auto zeros = read_doubles(f.id, "/stability/structural_zeros");
  const auto over = read_doubles(f.id, "/stability/overdamped");
  const auto max_real = read_doubles(f.id, "/stability/max_real");
  const auto zeta = read_doubles(f.id, "/stability/damping_ratio");
  const auto freq = read_doubles(f.id, "/stability/frequency");
  const auto scale = read_doubles(f.id, "/inputs/friction_scale");
  const auto re = read_doubles(f.id, "/stability/eigenvalues_real");
  const auto crank = read_doubles(f.id, "/stability/crank_angle");
  const auto p = read_doubles(f.id, "/stability/pressure");
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(status[i], 0.0) << i;
    EXPECT_EQ(zeros[i], 2.0) << i;
    EXPECT_LT(max_real[i], 0.0) << i;
    EXPECT_EQ(crank[i], kCrankAngle) << i;
    EXPECT_EQ(p[3 * i + 2], 3.5e6) << i;       // p3 prescribed
    EXPECT_EQ(p[3 * i], p[3 * i + 1]) << i;    // p1 = p2 (no flow through the throttle)
    for (int k = 1; k < 6; ++k) EXPECT_GE(re[6 * i + k - 1], re[6 * i + k]) << i;  // decreasing real part
    if (scale[i] == 1.0) {  // seed 000 friction x1: real λ3..λ5
      EXPECT_EQ(over[i], 1.0) << i;
      EXPECT_TRUE(std::isnan(zeta[i]) && std::isnan(freq[i])) << i;
    }
    if (scale[i] == 1e-2) {  // x1/100: a lightly damped complex pair
      EXPECT_EQ(over[i], 0.0) << i;
      EXPECT_GT(zeta[i], 0.0) << i;
      EXPECT_LT(zeta[i], 0.1) << i;
      EXPECT_GT(freq[i], 0.0) << i;
    }
  }
  EXPECT_EQ(string_attribute(f.id, "/metadata", "model"), "four-bar-3d");
  EXPECT_EQ(string_attribute(f.id, "/metadata", "friction"), "brown-mcphee");
  EXPECT_EQ(string_attribute(f.id, "/metadata", "backend"), "cpu");
  EXPECT_EQ(string_attribute(f.id, "/metadata", "kind"), "stability");
  EXPECT_EQ(string_attribute(f.id, "/metadata", "study_text"), read_file(study));
  EXPECT_EQ(double_attribute(f.id, "/metadata", "zero_tolerance"), 1e-9);
  EXPECT_EQ(double_attribute(f.id, "/metadata", "oscillatory_tolerance"), 1e-6);
  EXPECT_GT(double_attribute(f.id, "/metadata", "points_per_second"), 0.0);
  EXPECT_NE(string_attribute(f.id, "/metadata", "hydrosweep_version"), "<missing>");

  // CSV: a plain table, the header and 20 rows agreeing with the HDF5 file;
  // its sidecar stability.columns.csv gives every column's unit.
  std::string comment;
  const auto rows = read_csv(out / "stability.csv", &comment);
  EXPECT_TRUE(comment.empty()) << comment;
  ASSERT_EQ(rows.size(), 21u);
  const auto columns = read_csv(out / "stability.columns.csv");
  ASSERT_EQ(columns.size(), rows[0].size() + 1);
  std::map<std::string, std::string> unit;
  for (size_t k = 1; k < columns.size(); ++k) {
    EXPECT_EQ(columns[k].at(0), rows[0][k - 1]);
    unit[columns[k].at(0)] = columns[k].at(1);
  }
  EXPECT_EQ(unit["max_real"], "1/s");
  EXPECT_EQ(unit["frequency_hz"], "Hz");
  EXPECT_EQ(unit["lambda6_im"], "1/s");
  EXPECT_EQ(unit["circuit.oil_bulk_modulus"], "Pa");
  std::vector<std::string> head = {"index", "friction_scale", "circuit.oil_bulk_modulus", "status", "max_real",
                                   "damping_ratio", "frequency_hz", "overdamped", "structural_zeros"};
  for (int k = 1; k <= 6; ++k) {
    head.push_back("lambda" + std::to_string(k) + "_re");
    head.push_back("lambda" + std::to_string(k) + "_im");
  }
  EXPECT_EQ(rows[0], head);
  for (size_t i = 0; i < 20; ++i) {
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), head.size());
    EXPECT_EQ(row[0], std::to_string(i));
    EXPECT_EQ(row[3], "ok");
    EXPECT_EQ(std::stod(row[4]), max_real[i]);
    if (!std::isnan(freq[i])) {
      // %.17g round-trips; one rounding of frequency/(2π) either way (measured: bitwise equal).
      EXPECT_NEAR(std::stod(row[6]), freq[i] / (2 * M_PI), 2 * kEps * freq[i] / (2 * M_PI));
    }
    EXPECT_EQ(row[8], "2");
  }
}

// Seed 002's planar four-bar and seed 000's 3D formulation of it: same eigenvalues.
TEST(StabilityCli, PlanarAndSpatialFormulationsAgree) {
  TempDir tmp;
  std::vector<double> max_real[2], zeta[2], re, im;
  int k = 0;
  for (const char* model : {"four-bar", "four-bar-3d"}) {
    const fs::path study = tmp.path / (std::string(model) + ".toml"), out = tmp.path / model;
    write_file(study, small_grid(model));
    const Result r = hydrosweep("stability '" + study.string() + "' --out '" + out.string() + "' -q", tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "") << "--quiet prints nothing";
    H5File f(out / "stability.h5");
    max_real[k] = read_doubles(f.id, "/stability/max_real");
    zeta[k] = read_doubles(f.id, "/stability/damping_ratio");
    re = read_doubles(f.id, "/stability/eigenvalues_real");
    im = read_doubles(f.id, "/stability/eigenvalues_imag");
    ++k;
  }
  ASSERT_EQ(max_real[0].size(), 20u);
  ASSERT_EQ(max_real[1].size(), 20u);
  ASSERT_EQ(re.size(), 120u);
  ASSERT_EQ(im.size(), 120u);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_NEAR(max_real[0][i], max_real[1][i], kEps * spectral_radius(&re[6 * i], &im[6 * i], 6)) << i;
    EXPECT_EQ(std::isnan(zeta[0][i]), std::isnan(zeta[1][i])) << i;
  }
}

// `hydrosweep run` on the 3D model (seed 000's 10 coordinates, through the
// double step's DAE adapter) and on the planar model, same study otherwise:
// the 3D crank angle φ2 (/outputs/q6) is the planar z1 (/outputs/q1) and the
// pressures agree, for every instance of a small grid over 2 s of the work
// cycle. Measured: crank angles within 1e-12 rad, pressures within 1e-4 Pa
// (tests/test_dae_integration.cpp has the 10 s cycle at dt = 0.5 ms).
TEST(StabilityCli, RunIntegratesTheThreeDimensionalModelLikeThePlanarOne) {
  TempDir tmp;
  const std::string grid = R"(
[integrator]
duration = 2.0
[[grid]]
parameter = "circuit.oil_bulk_modulus"
values = [0.8e9, 1.5e9]
[[grid]]
parameter = "friction.coulomb_force"
values = [100.0, 400.0]
)";
  std::map<std::string, std::vector<double>> q, p2;
  for (const std::string model : {"four-bar", "four-bar-3d"}) {
    const fs::path study = tmp.path / (model + ".toml"), out = tmp.path / model;
    write_file(study, "[study]\nmodel = \"" + model + "\"\n" + grid);
    const Result r = hydrosweep("run '" + study.string() + "' --out '" + out.string() + "' -q", tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    H5File f(out / "results.h5");
    const auto status = read_doubles(f.id, "/outputs/status");
    EXPECT_EQ(status, std::vector<double>(4, 0.0)) << model;
    q[model] = read_doubles(f.id, model == "four-bar" ? "/outputs/q1" : "/outputs/q6");
    p2[model] = read_doubles(f.id, "/outputs/p2");
  }
  ASSERT_EQ(q["four-bar"].size(), 4u);
  ASSERT_EQ(q["four-bar-3d"].size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(q["four-bar-3d"][i], q["four-bar"][i], 1e-11) << i;
    EXPECT_NEAR(p2["four-bar-3d"][i], p2["four-bar"][i], 1e-3) << i;
    EXPECT_NE(q["four-bar"][i], 0.0);
  }
}

TEST(StabilityCli, BadStabilityTablesAndCommandLinesExit2) {
  TempDir tmp;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kRoot + "/tests/data/bad")) {
    if (entry.path().filename().string().rfind("stability_", 0) != 0) continue;
    ++n;
    const fs::path out = tmp.path / ("out_" + entry.path().stem().string());
    const Result r = hydrosweep("stability '" + entry.path().string() + "' --out '" + out.string() + "'", tmp.path);
    EXPECT_EQ(r.code, 2) << entry.path() << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("hydrosweep: error: " + entry.path().string(), 0), 0u) << r.err;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("# expect: ", 0) == 0) {
        EXPECT_NE(r.err.find(line.substr(10)), std::string::npos) << r.err;
      }
    }
    EXPECT_FALSE(fs::exists(out)) << out;
  }
  EXPECT_GE(n, 3);

  const fs::path study = tmp.path / "map.toml";
  write_file(study, small_grid("four-bar-3d"));
  const std::string s = "'" + study.string() + "'", o = "'" + (tmp.path / "o").string() + "'";
  for (const std::string& args : {"stability " + s, "stability " + s + " --out " + o + " --backend nope",
                                  "stability " + s + " --out " + o + " --threads 0"}) {
    const Result r = hydrosweep(args, tmp.path);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("hydrosweep: error: ", 0), 0u) << r.err;
  }
  // --backend cuda: runs where the build has the CUDA stability kernel and a
  // device, else exit 2 naming why.
  const Result r = hydrosweep("stability " + s + " --out " + o + " --backend cuda -q", tmp.path);
  if (r.code != 0) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("backend cuda: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp.path / "o"));
  }
}

// The map for every design shape, and `hydrosweep plot DIR` on a stability directory.
TEST(StabilityCli, PlotsEveryDesignShape) {
  if (!python_plotting_available()) GTEST_SKIP() << "python3 with h5py, matplotlib and numpy is needed (scripts/setup.sh installs them)";
  TempDir tmp;
  const std::vector<std::pair<std::string, std::string>> studies = {
      {"one_point", "[study]\nmodel = \"four-bar-3d\"\n"},
      {"one_axis", "[[grid]]\nparameter = \"friction.coulomb_force\"\nmin = 0.2\nmax = 210.0\ncount = 6\nspacing = \"log\"\n"},
      {"three_axes", small_grid("four-bar", "[[grid]]\nparameter = \"circuit.valve_time_constant\"\nvalues = [0.002, 0.01]\n")},
      {"with_failures",
       "[[grid]]\nparameter = \"mechanism.initial_angle1\"\nvalues = [1.0471975511965976, 1.6]\n"
       "[[grid]]\nparameter = \"circuit.oil_bulk_modulus\"\nvalues = [1e9, 2e9]\n"
       "[derived]\n\"circuit.rod_diameter\" = \"circuit.piston_diameter * (mechanism.initial_angle1 - 0.5)\"\n"},
      {"sampled", "[sample]\nmethod = \"lhs\"\ncount = 12\n[[factor]]\nparameter = \"circuit.oil_bulk_modulus\"\nmin = 1e9\nmax = 2e9\n"
                  "[[factor]]\nparameter = \"friction.coulomb_force\"\nmin = 1.0\nmax = 210.0\n"},
  };
  for (const auto& [name, text] : studies) {
    const fs::path study = tmp.path / (name + ".toml"), out = tmp.path / name;
    write_file(study, text);
    const Result r = hydrosweep("stability '" + study.string() + "' --out '" + out.string() + "'", tmp.path);
    ASSERT_EQ(r.code, 0) << name << "\n" << r.err;
    EXPECT_TRUE(is_png(out / "stability_map.png")) << name << "\n" << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << name << "\n" << r.err;
    if (name == "with_failures") {
      EXPECT_NE(r.out.find("2 failed"), std::string::npos) << r.out;
    }
  }
  // hydrosweep plot DIR redraws the map (into --out when given).
  const fs::path dir = tmp.path / "one_axis";
  fs::remove(dir / "stability_map.png");
  Result r = hydrosweep("plot '" + dir.string() + "'", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(is_png(dir / "stability_map.png"));
  r = hydrosweep("plot '" + dir.string() + "' --out '" + (tmp.path / "plots").string() + "'", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(is_png(tmp.path / "plots" / "stability_map.png"));

  // Every slice of a map is reachable: --slice holds the third axis at its
  // second value (the nearest to the value given), said in the title; other
  // formats by --format.
  const fs::path three = tmp.path / "three_axes";
  r = hydrosweep("plot '" + three.string() + "' --slice circuit.valve_time_constant=0.009 --format svg --out '" +
                     (tmp.path / "slice").string() + "'",
                 tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = read_file(tmp.path / "slice" / "stability_map.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("circuit.valve_time_constant = 0.01 s"), std::string::npos);
  r = hydrosweep("plot '" + three.string() + "' --format pdf --out '" + (tmp.path / "pdf").string() + "'", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(tmp.path / "pdf" / "stability_map.pdf").rfind("%PDF", 0), 0u);
  // A slice of an axis the map does not hold, and of a map without a third axis: exit 2, named.
  r = hydrosweep("plot '" + three.string() + "' --slice circuit.valve_time=0.01 --out '" + (tmp.path / "x").string() + "'",
                 tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--slice circuit.valve_time: not an axis held in the map (the axes beyond the first two: "
                       "circuit.valve_time_constant)"),
            std::string::npos)
      << r.err;
  r = hydrosweep("plot '" + dir.string() + "' --slice friction.coulomb_force=10", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--slice selects a slice of a grid map with more than two axes"), std::string::npos) << r.err;
}
