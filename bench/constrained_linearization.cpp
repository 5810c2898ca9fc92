// Seed 003's linearization times (terms + eigenproblem, equilibrium excluded,
// seed 003 §5) per method against N (the N-loop linkage) and n_p (the
// flexible pendulum), beside the paper's Tables 1 and 4 (MATLAB on an Intel
// i7-4790K), and the batched throughput of the host path: a 10 000-point
// sweep of N = 5 linkages (spring stiffness x damping) on one and on all
// cores, equilibrium included; and the size switch: N = 3 linkages by MCS on
// the per-thread code against the host path.
//
//   bench_constrained_linearization [--quick] [--out FILE]
// writes bench/results/seed003-linearization-<machine>.json by default.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/registry/models.hpp"
#include "host/constrained/points.hpp"
#include "kernels/models/flexible_pendulum.hpp"
#include "kernels/models/nloop_linkage.hpp"

using namespace hs;

namespace {

const ConstrainedMethod kMethods[] = {ConstrainedMethod::mcs, ConstrainedMethod::rcs, ConstrainedMethod::ucs};

// Median of `repeats` linearizations (terms + eigenproblem) in seconds.
template <class Model>
double median_seconds(const typename Model::Params& p, ConstrainedMethod method, const ConstrainedSettings& S,
                      int repeats, double* s1) {
  ConstrainedSystem sys(Model::coordinates(p), Model::constraint_count(p));
  Model::build(p, sys);
  Eigen::VectorXd q0(sys.n());
  Model::initial_guess(p, q0.data());
  const ConstrainedEquilibrium eq = lagrange_equilibrium(sys, q0, S);
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const ConstrainedLinearization L = linearize_constrained(sys, eq, method, S);
    t.push_back(L.seconds);
    if (s1) *s1 = L.eigenvalues.empty() ? NAN : L.eigenvalues[0].imag();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string out = std::string(HS_SOURCE_DIR) + "/bench/results/seed003-linearization-" + hs::bench::machine_tag() + ".json";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--out FILE]\n", argv[0]);
      return 2;
    }
  }
  hs::bench::Json j;
  j.begin_object();
  hs::bench::write_machine(j);
  j.field("what", "seed 003 linearization: terms + eigenproblem per method (equilibrium excluded), ms; batched host path");

  // --- N-loop linkage (seed 003 Table 1) ---
  const double paper_nloop[3][4] = {{1, 0.115, 0.108, 0.185}, {5, 0.188, 0.356, 0.548}, {10, 0.313, 0.954, 1.684}};
  std::printf("N-loop four-bar linkage: linearization time [ms] (median), this machine vs seed 003 Table 1 (i7-4790K, MATLAB)\n");
  std::printf("%4s %4s %10s | %9s %9s %9s | %9s %9s %9s\n", "N", "n", "Im s_1", "MCS", "RCS", "UCS", "paper MCS", "RCS", "UCS");
  j.begin_array("nloop");
  for (int N : {1, 5, 10, 15, 20}) {
    NLoopLinkageParams p;
    p.loops = N;
    ConstrainedSettings S;
    double t[3], s1 = NAN;
    for (int k = 0; k < 3; ++k) t[k] = 1e3 * median_seconds<NLoopLinkage>(p, kMethods[k], S, quick ? 5 : 51, k == 0 ? &s1 : nullptr);
    const double* paper = nullptr;
    for (const auto& row : paper_nloop)
      if (row[0] == N) paper = row;
    std::printf("%4d %4d %10.6f | %9.4f %9.4f %9.4f | ", N, 2 * N + 3, s1, t[0], t[1], t[2]);
    if (paper) std::printf("%9.3f %9.3f %9.3f\n", paper[1], paper[2], paper[3]);
    else std::printf("%9s %9s %9s\n", "-", "-", "-");
    j.begin_object().field("N", N).field("n", 2 * N + 3).field("s1_imag", s1).field("mcs_ms", t[0]).field("rcs_ms", t[1]).field("ucs_ms", t[2]);
    if (paper) j.field("paper_mcs_ms", paper[1]).field("paper_rcs_ms", paper[2]).field("paper_ucs_ms", paper[3]);
    j.end_object();
  }
  j.end_array();

  // --- Flexible pendulum (seed 003 Table 4) ---
  const double paper_ffr[5][4] = {{10, 0.015, 0.020, 0.019}, {25, 0.185, 0.176, 0.170}, {50, 1.338, 1.229, 1.219},
                                  {75, 6.411, 5.800, 5.388}, {100, 17.940, 16.072, 14.228}};
  std::printf("\nFlexible double pendulum: linearization time [s], this machine vs seed 003 Table 4 (i7-4790K, MATLAB)\n");
  std::printf("%4s %4s %12s | %9s %9s %9s | %9s %9s %9s\n", "n_p", "n", "s_1 [rad/s]", "MCS", "RCS", "UCS", "paper MCS", "RCS", "UCS");
  j.begin_array("pendulum");
  for (const auto& row : paper_ffr) {
    const int np = static_cast<int>(row[0]);
    if (quick && np > 25) break;
    FlexiblePendulumParams p;
    p.elements = np;
    ConstrainedSettings S;
    S.penalty.alpha = 1e7;
    double t[3], s1 = NAN;
    for (int k = 0; k < 3; ++k) t[k] = median_seconds<FlexiblePendulum>(p, kMethods[k], S, np >= 50 ? 1 : 3, k == 0 ? &s1 : nullptr);
    std::printf("%4d %4d %12.7f | %9.4f %9.4f %9.4f | %9.3f %9.3f %9.3f\n", np, 6 * np + 12, s1, t[0], t[1], t[2], row[1],
                row[2], row[3]);
    j.begin_object().field("n_p", np).field("n", 6 * np + 12).field("s1_imag", s1).field("mcs_s", t[0]).field("rcs_s", t[1])
        .field("ucs_s", t[2]).field("paper_mcs_s", row[1]).field("paper_rcs_s", row[2]).field("paper_ucs_s", row[3]).end_object();
  }
  j.end_array();

  // --- Batched host path: 10 000 linkages ---
  const ModelDescriptor& linkage = *find_model("nloop-linkage");
  const ConstrainedModel& model = *linkage.constrained;
  const long points = quick ? 1000 : 10000;
  const long P = linkage.parameter_count();
  std::vector<double> rows;
  const int loops_col = linkage.find_parameter("linkage.loops")->index;
  const int k_col = linkage.find_parameter("linkage.spring_stiffness")->index;
  const int c_col = linkage.find_parameter("linkage.damping")->index;
  for (long i = 0; i < points; ++i) {
    std::vector<double> r = linkage.defaults;
    r[loops_col] = 5;
    r[k_col] = 15.0 + 20.0 * static_cast<double>(i % 100) / 99.0;
    r[c_col] = 2.0 * static_cast<double>(i / 100) / 99.0 * (100.0 / static_cast<double>(points / 100));
    rows.insert(rows.end(), r.begin(), r.end());
  }
  std::printf("\nBatched host path: %ld N = 5 linkages (k_f x c_f), equilibrium + linearization + eigenvalues per point\n", points);
  j.begin_array("batched");
  for (ConstrainedMethod m : kMethods) {
    ConstrainedSettings S;
    S.penalty = model.default_penalty;
    StabilitySettings figures;
    for (int threads : {1, omp_get_max_threads()}) {
      long failed = 0;
      const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) reduction(+ : failed)
      for (long i = 0; i < points; ++i)
        failed += constrained_stability_point(model, rows.data() + i * P, m, S, figures).status != 0;
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("  %s, %d thread(s): %.4g problems/s (%ld failed)\n", method_name(m), threads, points / wall, failed);
      j.begin_object().field("method", method_name(m)).field("threads", threads).field("points", points)
          .field("problems_per_second", points / wall).field("failed", failed).end_object();
      if (omp_get_max_threads() == 1) break;
    }
  }
  j.end_array();

  // --- The size switch: N = 3 linkages (n = 9) by MCS, per-thread code vs host path ---
  for (long i = 0; i < points; ++i) rows[i * P + loops_col] = 3;
  std::printf("\nSize switch: %ld N = 3 linkages (n = 9), MCS, per-thread code (kernels/linearize/constrained_per_thread.hpp) "
              "vs host path, equilibrium included\n", points);
  j.begin_array("size_switch");
  for (const char* path : {"per-thread", "host"}) {
    ConstrainedSettings S;
    StabilitySettings figures;
    for (int threads : {1, omp_get_max_threads()}) {
      long failed = 0;
      const bool per_thread = std::strcmp(path, "per-thread") == 0;
      const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) reduction(+ : failed)
      for (long i = 0; i < points; ++i) {
        const double* row = rows.data() + i * P;
        const StabilityRecord r = per_thread
                                      ? constrained_stability_point(model, row, ConstrainedMethod::mcs, S, figures)
                                      : constrained_stability_point_host(model, row, ConstrainedMethod::mcs, S, figures);
        failed += r.status != 0;
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("  %s, %d thread(s): %.4g problems/s (%ld failed)\n", path, threads, points / wall, failed);
      j.begin_object().field("path", path).field("threads", threads).field("points", points)
          .field("problems_per_second", points / wall).field("failed", failed).end_object();
      if (omp_get_max_threads() == 1) break;
    }
  }
  j.end_array();
  j.end_object();
  if (!quick) hs::bench::save_result(out, j);
  return 0;
}
