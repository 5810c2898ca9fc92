// Seed 000's timing of its two Jacobians (docs/models/linearization.md §7):
// the reduced Jacobian (6x6 for the 3D four-bar, eq 64) against the
// counterpart's full one (24x24, eq 99: exactly on Dual<24>, and by central
// differences, eq 100, h = 1e-5), each at the overdamped scenario's
// equilibrium, the equilibrium solve excluded. Seed 000 reports 0.005 s and
// 0.016 s (MATLAB, i7-6700HQ): a ratio of 3.2. Median of R batches of K
// Jacobians each, one thread; the eigenvalues of each (the per-thread
// routine) timed the same way.
//
//   bench_seed000_jacobians [--repeats R] [--out FILE]
// writes bench/results/seed000-jacobians-<machine>.json by default.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "kernels/eigen/small_eigen.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/counterpart.hpp"
#include "kernels/linearize/stability.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/spatial_four_bar.hpp"

namespace hb = hs::bench;
using namespace hs;
using System = ActuatedSystem<SpatialFourBarDae, BrownMcPhee>;
using Form = Index1Form<System>;

namespace {

const char* kUsage =
    "usage: bench_seed000_jacobians [--repeats R] [--out FILE]\n"
    "  --repeats R  batches per figure, the median kept (default 15)\n"
    "  --out FILE   result file (default bench/results/seed000-jacobians-<machine>.json)\n";

volatile double g_sink;  // keeps every timed result alive

// Median seconds of one call of `work`, over `repeats` batches sized to take ~20 ms each.
template <class F>
double median_seconds(int repeats, F&& work) {
  using clock = std::chrono::steady_clock;
  long batch = 1;
  for (;;) {  // size the batch
    const auto t0 = clock::now();
    for (long k = 0; k < batch; ++k) work();
    if (std::chrono::duration<double>(clock::now() - t0).count() > 0.02 || batch > (1L << 24)) break;
    batch *= 2;
  }
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = clock::now();
    for (long k = 0; k < batch; ++k) work();
    t.push_back(std::chrono::duration<double>(clock::now() - t0).count() / batch);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--repeats", "--out"}, {}, kUsage);
  const int repeats = static_cast<int>(args.number("--repeats", 15));
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/seed000-jacobians-" + hb::machine_tag() + ".json");
  if (repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const FourBarParams P = seed002_four_bar();  // seed 000's 3D four-bar, the overdamped scenario
  Equilibrium<System> eq;
  if (solve_equilibrium<System>(P, eq) != Status::ok) {
    std::fprintf(stderr, "bench_seed000_jacobians: the default 3D four-bar has no equilibrium\n");
    return 1;
  }
  double X0[Form::N];
  Form::state_of(eq, X0);

  Mat<double, 6, 6> J6;
  Mat<double, Form::N, Form::N> JN;
  const double reduced = median_seconds(repeats, [&] {
    reduced_jacobian<System>(P, eq, J6);
    g_sink = J6(0, 0);
  });
  const double exact = median_seconds(repeats, [&] {
    if (!Form::jacobian_exact(P, eq.K, X0, Form::Forcing{}, JN)) g_sink = -1.0;
    g_sink = JN(0, 0);
  });
  const double central = median_seconds(repeats, [&] {
    if (!Form::jacobian_central(P, eq.K, X0, Form::Forcing{}, 1e-5, JN)) g_sink = -1.0;
    g_sink = JN(0, 0);
  });
  reduced_jacobian<System>(P, eq, J6);
  Form::jacobian_exact(P, eq.K, X0, Form::Forcing{}, JN);
  const double eigen6 = median_seconds(repeats, [&] { g_sink = eigenvalues<6>(J6).re[0]; });
  const double eigenN = median_seconds(repeats, [&] { g_sink = eigenvalues<Form::N>(JN).re[0]; });

  std::printf("bench_seed000_jacobians: the 3D four-bar at its equilibrium, one thread, median of %d batches, %s\n\n",
              repeats, hb::cpu_model().c_str());
  std::printf("  %-48s %12s %14s\n", "", "us per call", "/ reduced");
  std::printf("  %-48s %12.2f %14s\n", "reduced Jacobian, 6x6 (eq 64)", reduced * 1e6, "1");
  std::printf("  %-48s %12.2f %13.2fx\n", "counterpart Jacobian, 24x24, exact (Dual<24>)", exact * 1e6, exact / reduced);
  std::printf("  %-48s %12.2f %13.2fx\n", "counterpart Jacobian, 24x24, central differences", central * 1e6,
              central / reduced);
  std::printf("  %-48s %12.2f\n", "eigenvalues of the reduced Jacobian", eigen6 * 1e6);
  std::printf("  %-48s %12.2f %13.2fx\n", "eigenvalues of the counterpart Jacobian", eigenN * 1e6, eigenN / eigen6);
  std::printf("\n  seed 000 (MATLAB, i7-6700HQ): reduced 5000 us, counterpart 16000 us: 3.2x\n");

  hb::Json j;
  j.begin_object().field("benchmark", "seed000_jacobians");
  hb::write_machine(j);
  j.field("threads", 1).field("repeats", repeats);
  j.field("reduced_jacobian_seconds", reduced)
      .field("counterpart_exact_seconds", exact)
      .field("counterpart_central_seconds", central)
      .field("reduced_eigenvalues_seconds", eigen6)
      .field("counterpart_eigenvalues_seconds", eigenN)
      .field("seed000_reduced_seconds", 0.005)
      .field("seed000_counterpart_seconds", 0.016)
      .end_object();
  hb::save_result(out_path, j);
  return 0;
}
