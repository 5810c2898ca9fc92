// Seed 003's constrained systems through the ordinary `hydrosweep stability`
// and `check` commands (host/constrained/points.hpp): maps with each
// [stability] method, per-point status at a singular configuration, the
// memory refusal at check time, the backends they run on.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

std::string nloop_study(const std::string& method, const std::string& grid) {
  return "[study]\nmodel = \"nloop-linkage\"\n[stability]\nmethod = \"" + method + "\"\n" + grid;
}

}  // namespace

// Seed 003 Table 1 through the command, for each method: the map's crank
// angle is φ_eq (the table's d), its frequency Im s_1.
TEST(ConstrainedCli, Table1ThroughTheStabilityCommandForEachMethod) {
  TempDir tmp;
  const double table[3][2] = {{2.2343, 2.1477}, {1.8922, 1.5455}, {1.8454, 1.4352}};
  for (const char* method : {"mcs", "rcs", "ucs"}) {
    SCOPED_TRACE(method);
    const fs::path study = tmp.path / (std::string(method) + ".toml"), out = tmp.path / method;
    write_file(study, nloop_study(method, "[[grid]]\nparameter = \"linkage.loops\"\nvalues = [1, 5, 10]\n"));
    const Result r = hydrosweep("stability '" + study.string() + "' --out '" + out.string() + "' -q", tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    H5File f(out / "stability.h5");
    ASSERT_GE(f.id, 0);
    const auto status = read_doubles(f.id, "/stability/status");
    const auto phi = read_doubles(f.id, "/stability/crank_angle");
    const auto freq = read_doubles(f.id, "/stability/frequency");
    const auto max_real = read_doubles(f.id, "/stability/max_real");
    ASSERT_EQ(status.size(), 3u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(status[i], 0.0) << i;
      EXPECT_NEAR(phi[i], table[i][0], 5e-5) << i;
      EXPECT_NEAR(freq[i], table[i][1], 5e-5) << i;
      EXPECT_LE(std::fabs(max_real[i]), 1e-6) << i;  // undamped: on the imaginary axis (UCS: ~3e-7)
    }
  }
}

// The singular configuration is flagged per point (MCS cannot), the other
// point of the map completes; RCS computes both.
TEST(ConstrainedCli, SingularPointIsFlaggedAndTheOthersComplete) {
  TempDir tmp;
  const std::string grid = R"([parameters]
"linkage.spring_stiffness" = 0.0
"linkage.gravity_x" = 9.81
"linkage.angle_guess" = 0.0
[[grid]]
parameter = "linkage.gravity_y"
values = [0.0, -9.81]
)";
  for (const char* method : {"mcs", "rcs"}) {
    SCOPED_TRACE(method);
    const fs::path study = tmp.path / (std::string(method) + ".toml"), out = tmp.path / method;
    write_file(study, nloop_study(method, grid));
    const Result r = hydrosweep("stability '" + study.string() + "' --out '" + out.string() + "'", tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    H5File f(out / "stability.h5");
    const auto status = read_doubles(f.id, "/stability/status");
    const auto phi = read_doubles(f.id, "/stability/crank_angle");
    const auto freq = read_doubles(f.id, "/stability/frequency");
    ASSERT_EQ(status.size(), 2u);
    if (std::string(method) == "mcs") {
      EXPECT_EQ(status[0], 4.0);  // constraint_failure: rank Φ_q = 3 < m = 4 at φ = 0
      EXPECT_NE(r.out.find("1 failed"), std::string::npos) << r.out;
    } else {
      EXPECT_EQ(status[0], 0.0);
      // The dominant pair is the one with the largest Re s; both lie on the
      // imaginary axis (Re ~ ±1e-15), so which one is reported follows the
      // rounding of the build (the sanitizer build picks the other): either
      // √(6g/5) or √(2g).
      const double w1 = std::sqrt(6 * 9.81 / 5), w2 = std::sqrt(2 * 9.81);
      EXPECT_LT(std::min(std::fabs(freq[0] - w1), std::fabs(freq[0] - w2)), 1e-9) << freq[0];
    }
    // Gravity along (1, −1): the linkage hangs at φ = −π/4, a regular configuration.
    EXPECT_EQ(status[1], 0.0);
    EXPECT_NEAR(phi[1], -M_PI / 4, 1e-12);
  }
}

// A linkage whose dense matrices do not fit is refused by `check` (and
// `stability`) before anything is allocated, naming the key and the bytes.
TEST(ConstrainedCli, CheckRefusesASizeOverTheMemoryBudget) {
  TempDir tmp;
  const fs::path study = tmp.path / "big.toml";
  write_file(study, "[study]\nmodel = \"nloop-linkage\"\n[parameters]\n\"linkage.loops\" = 200\n");
  const Result ok = hydrosweep("check '" + study.string() + "'", tmp.path);
  EXPECT_EQ(ok.code, 0) << ok.err;
  setenv("HYDROSWEEP_MEMORY_LIMIT", "40M", 1);
  const Result small = hydrosweep("check '" + study.string() + "'", tmp.path);
  const Result stab = hydrosweep("stability '" + study.string() + "' --out '" + (tmp.path / "o").string() + "'", tmp.path);
  unsetenv("HYDROSWEEP_MEMORY_LIMIT");
  EXPECT_EQ(small.code, 2) << small.err;
  EXPECT_NE(small.err.find("linkage.loops needs"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("n = 403 coordinates"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("memory budget of 40 MiB"), std::string::npos) << small.err;
  EXPECT_EQ(stab.code, 2) << stab.err;
  EXPECT_FALSE(fs::exists(tmp.path / "o"));
}

// The backends: Kokkos never, CUDA only for a model with per-thread code
// (the linkage, method mcs, N <= 3; check_device_constrained, tested in
// test_gpu's GpuBackendCodePath); on this machine without a device the
// linkage's --backend cuda is refused for the missing device.
TEST(ConstrainedCli, RunsOnTheHostPathOnly) {
  TempDir tmp;
  const fs::path linkage = tmp.path / "s.toml", pendulum = tmp.path / "p.toml";
  write_file(linkage, "[study]\nmodel = \"nloop-linkage\"\n");
  write_file(pendulum, "[study]\nmodel = \"flexible-pendulum\"\n");
  auto stability = [&](const fs::path& study, const char* backend) {
    return hydrosweep("stability '" + study.string() + "' --out '" + (tmp.path / "o").string() + "' --backend " + backend,
                      tmp.path);
  };
  for (const Result& r : {stability(linkage, "kokkos"), stability(pendulum, "kokkos"), stability(pendulum, "cuda")}) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("is linearized on the host"), std::string::npos) << r.err;
  }
  const Result cuda = stability(linkage, "cuda");
  if (cuda.code == 2) EXPECT_NE(cuda.err.find("backend cuda"), std::string::npos) << cuda.err;
  else EXPECT_EQ(cuda.code, 0) << cuda.err;  // a machine with a device
  const Result r = hydrosweep("parameters --model flexible-pendulum", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("pendulum.elements"), std::string::npos) << r.out;
}
