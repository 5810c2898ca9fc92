// REGRESSION TEST — the values it compares against were recorded from this
// code itself, not from an independent reference. Its job is to catch a
// number that moves when the engine is rewritten (issue 12, "one engine for
// every model"): every shipped study in studies/ must give the results it
// gave before the redesign.
//
// Recorded from commit 28bce77 (with this test added on top) (issue 11 landed, the last
// commit before the model-generic redesign), on the 2-core AMD EPYC VM, in the
// build without FMA contraction (-DHYDROSWEEP_NATIVE=OFF, x86-64 baseline).
// Since the actuator components (issue 12 item 2) every C++ build compiles
// with -ffp-contract=off (CMakeLists.txt): contraction placement depended on
// the inlining context (the same step gave other last bits called through
// run_instance than called directly), and the chaotic stick-slip of the
// friction laws amplified that to ~4e-12 relative in p1_min. Without
// contraction every build -- -march=native or not, -O3 or the sanitizer's
// -O1 -- performs the same IEEE operations, so every build must reproduce
// these recordings bit for bit. (The recordings the FMA build made at
// 28bce77 were dropped with that change: no build contracts any more.)
//
// What is compared, per shipped study:
//   run studies (every studies/*.toml but stability_*): a spread of ~20
//     instances (the first, the last, every N/16-th), each run directly
//     (run_batch_cpu, the study's reference trajectory for tracking_rms):
//     status identical, every summary column bit for bit (or both NaN);
//   stability studies (studies/stability_*.toml): every 7th point and the
//     last, run_stability_cpu: status, structural zeros and overdamped
//     identical; eigenvalues, max_real, damping ratio, frequency, crank angle
//     and pressures bit for bit (kRelative = 0: a later change that regroups
//     arithmetic on purpose may loosen it to 1e-12 of the spectral radius /
//     value, and must say why).
// A study shipped later is recorded when it is added, at the commit that
// adds it: manipulator_payload_mismatch.csv (2026-11-28, issue 41's quoted
// figures; a regression value of this build, not a reference),
// seed002_energy_sensitivity.csv (2026-11-28, issue 41 item 1). The
// manipulator recordings gained the column performance_index when the
// controller began to report it (issue 41 item 3; every other column
// unchanged, bit for bit), and were recorded again on 2026-11-30 when the
// controller's J and J̇q̇_d became closed forms of the TCP chain instead of
// jets on the forward kinematics (issue 40, docs/models/manipulator.md
// §11.1: the same quantities rounded differently): the tracking, pressure
// and state columns moved by at most 2e-9 of themselves, the energy drifts
// (differences of much larger energies) by up to 8e-3 of themselves; every
// other study unchanged, bit for bit.
// Files: tests/data/regression/<study>.csv (%.17g). To record
// again (only when a change of the numbers is intended and explained):
//   HYDROSWEEP_RECORD_REGRESSION=1 ./test_regression_shipped_studies
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "host/build_paths.hpp"
#include "host/results/output.hpp"
#include "host/cli/run_study.hpp"
#include "host/run/reference_run.hpp"
#include "host/constrained/points.hpp"
#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"

namespace {
namespace fs = std::filesystem;

constexpr double kRelative = 0.0;

const fs::path kRoot = HYDROSWEEP_SOURCE_DIR;
bool recording() { return std::getenv("HYDROSWEEP_RECORD_REGRESSION") != nullptr; }

// A table of named columns, one row per selected instance.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
};

fs::path table_path(const std::string& study) {
  return kRoot / "tests" / "data" / "regression" / (study + ".csv");
}

void write_table(const fs::path& path, const Table& t) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << "# REGRESSION values recorded by tests/test_regression_shipped_studies.cpp (" << "build without contraction)\n";
  for (size_t k = 0; k < t.columns.size(); ++k) out << (k ? "," : "") << t.columns[k];
  out << "\n";
  char buf[40];
  for (const auto& row : t.rows) {
    for (size_t k = 0; k < row.size(); ++k) {
      std::snprintf(buf, sizeof buf, "%.17g", row[k]);
      out << (k ? "," : "") << buf;
    }
    out << "\n";
  }
}

Table read_table(const fs::path& path) {
  Table t;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream s(line);
    std::string cell;
    if (t.columns.empty()) {
      while (std::getline(s, cell, ',')) t.columns.push_back(cell);
      continue;
    }
    std::vector<double> row;
    while (std::getline(s, cell, ',')) row.push_back(std::strtod(cell.c_str(), nullptr));
    t.rows.push_back(row);
  }
  return t;
}

bool same(double recorded, double now, double scale, double relative = kRelative) {
  if (std::isnan(recorded) || std::isnan(now)) return std::isnan(recorded) && std::isnan(now);
  return recorded == now || std::fabs(recorded - now) <= relative * scale;
}
// Seed 003's constrained systems (host/constrained/): their matrices come from
// Eigen's blocked products and LAPACK's blocked QZ / dsygvd, whose summation
// order follows the SIMD width Eigen is compiled for (-march=native or not),
// not only the IEEE operations of our own code: 1e-10 of the spectral radius
// (or of the value), far below any physical change and far above the
// regrouping (~1e-15).
constexpr double kRelativeConstrained = 1e-10;

// The VDC controller's TCP tracking errors (lift-tilt, kernels/control/
// vdc.hpp) are bit for bit too. They once had a bound of their own (1e-14 m):
// GCC 12's basic-block vectorizer fused the planar rotations of the forward
// kinematics into vfmaddsub despite -ffp-contract=off in the -march=native
// build only, which an earlier note here took for glibc's sincos. With that
// vectorizer off (CMakeLists.txt) and no C library trig in the kernels, the
// native, baseline and sanitizer builds agree bit for bit.

// Compares `now` with the recording (or records it). `exact` columns must be
// identical; `scale(row, column)` gives the scale of the relative bound.
template <class Scale>
void compare_or_record(const std::string& study, const Table& now, const std::set<std::string>& exact, Scale scale,
                       double relative = kRelative) {
  const fs::path path = table_path(study);
  if (recording()) {
    write_table(path, now);
    std::printf("recorded %s (%zu rows)\n", path.c_str(), now.rows.size());
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing: record it (see the file comment)";
  const Table old = read_table(path);
  ASSERT_EQ(old.columns, now.columns) << path;
  ASSERT_EQ(old.rows.size(), now.rows.size()) << path;
  for (size_t r = 0; r < now.rows.size(); ++r)
    for (size_t k = 0; k < now.columns.size(); ++k) {
      const std::string& c = now.columns[k];
      const double a = old.rows[r][k], b = now.rows[r][k];
      if (exact.count(c)) {
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
            << study << " row " << r << " (instance " << now.rows[r][0] << ") " << c << ": recorded " << a << ", now " << b;
      } else {
        EXPECT_TRUE(same(a, b, scale(now.rows[r], k, b), relative))
            << study << " row " << r << " (instance " << now.rows[r][0] << ") " << c << ": recorded " << a << ", now " << b;
      }
    }
}

std::vector<long> spread(long n) {
  std::set<long> idx{0, n - 1};
  const long step = std::max<long>(1, n / 16);
  for (long i = 0; i < n; i += step) idx.insert(i);
  return {idx.begin(), idx.end()};
}

std::vector<fs::path> shipped(bool stability) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kRoot / "studies"))
    if (e.path().extension() == ".toml" && (e.path().filename().string().rfind("stability_", 0) == 0) == stability)
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RegressionShippedStudies, RunStudiesGiveTheirRecordedSummaries) {
  const auto studies = shipped(false);
  ASSERT_GE(studies.size(), 4u);
  for (const auto& path : studies) {
    const hs::Study study = hs::load_study(path.string());
    hs::BatchSpec spec = hs::batch_spec(study.record(), study.design(), 0, 0, 0);
    spec.trajectory_stride = 0;
    if (study.analysis.reference_run) spec.reference = hs::reference_trajectory(study.record(), study.design());
    const std::vector<long> picked = spread(study.instance_count());
    for (long i : picked) {
      const std::vector<double> row = study.instance(i);
      spec.parameters.insert(spec.parameters.end(), row.begin(), row.end());
    }
    hs::BatchResult r = hs::run_batch_cpu(spec);
    Table t;
    t.columns = {"instance", "status"};
    std::set<std::string> exact{"instance", "status"};
    const auto& columns = study.descriptor->summary_columns;
    for (const auto& c : columns) {
      t.columns.push_back(c.name);
      if (c.integer) exact.insert(c.name);
    }
    for (size_t j = 0; j < picked.size(); ++j) {
      // An instance the host refuses is flagged, whatever the kernel made of it.
      if (!study.instance_problem(spec.row(static_cast<long>(j))).empty())
        r.mark_unstarted(static_cast<long>(j), hs::Status::invalid_parameters);
      std::vector<double> row{double(picked[j]), double(static_cast<int>(r.status[j]))};
      for (size_t c = 0; c < columns.size(); ++c) row.push_back(r.summary(static_cast<long>(j), static_cast<long>(c)));
      t.rows.push_back(row);
    }
    compare_or_record(path.stem().string(), t, exact, [](const std::vector<double>&, size_t, double v) { return std::fabs(v); });
  }
}

TEST(RegressionShippedStudies, StabilityStudiesGiveTheirRecordedPoints) {
  const auto studies = shipped(true);
  ASSERT_GE(studies.size(), 2u);
  for (const auto& path : studies) {
    const hs::Study study = hs::load_study(path.string());
    const std::vector<hs::StabilityPoint> points = hs::run_stability_cpu(study.record(), study.design(), 0);
    Table t;
    t.columns = {"instance", "status", "structural_zeros", "overdamped", "max_real", "damping_ratio", "frequency",
                 "crank_angle", "p1", "p2", "p3"};
    for (int k = 1; k <= 6; ++k) {
      t.columns.push_back("lambda" + std::to_string(k) + "_re");
      t.columns.push_back("lambda" + std::to_string(k) + "_im");
    }
    const long n = static_cast<long>(points.size());
    for (long i = 0; i < n; ++i) {
      if (i % 7 != 0 && i != n - 1) continue;
      const hs::StabilityPoint& p = points[i];
      std::vector<double> row{double(i),          double(p.status),      double(p.structural_zeros), double(p.overdamped),
                              p.max_real,         p.damping_ratio,       p.frequency,                p.crank_angle,
                              p.pressure[0],      p.pressure[1],         p.pressure[2]};
      for (int k = 0; k < 6; ++k) {
        row.push_back(p.re[k]);
        row.push_back(p.im[k]);
      }
      t.rows.push_back(row);
    }
    // Eigenvalue figures against the spectral radius (the structural zeros sit
    // at eps·ρ and move by that much); the others against their own value.
    const auto scale = [](const std::vector<double>& row, size_t k, double v) {
      if (k == 5) return 1.0;                       // the damping ratio: dimensionless, |ζ| <= 1
      if (k >= 7 && k <= 10) return std::fabs(v);   // crank angle, pressures
      double rho = 0.0;                             // max_real, frequency, eigenvalues
      for (size_t j = 11; j + 1 < row.size(); j += 2) rho = std::max(rho, std::hypot(row[j], row[j + 1]));
      return rho;
    };
    compare_or_record(path.stem().string(), t, {"instance", "status", "structural_zeros", "overdamped"}, scale,
                      study.descriptor->constrained ? kRelativeConstrained : kRelative);
  }
}

}  // namespace
