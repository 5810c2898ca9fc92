// Eigen-decompositions per second of 6x6 nonsymmetric matrices (eigenvalues
// only), the size of the four-bar's reduced Jacobian.
//
// Methods:
//   per-thread CPU   hs::eigenvalues<6> (kernels/eigen/small_eigen.hpp) over
//                    the batch with OpenMP, on 1 thread and on all cores
//   Eigen            Eigen::EigenSolver<Matrix<double,6,6>>, eigenvalues only,
//                    1 thread (the host reference; it does not balance)
//   per-thread GPU   the same kernel function, one CUDA thread per matrix
//                    (timed with the host<->device copies)       [device only]
//   cuSOLVER loop    cusolverDnXgeev once per matrix (timed with the copies;
//                    on at most --geev-matrices matrices)         [device only]
//
// Matrix sets (deterministic, splitmix64):
//   random     entries N(0,1)
//   jacobian   the hydraulic four-bar's reduced Jacobian at equilibrium
//              (states: angle, rate, p1, p2, p3, spool; rows from 1e-5 to
//              1e10) with every nonzero entry scaled by U(0.8, 1.2)
//
//   bench_eigen_throughput [--matrices N] [--geev-matrices M] [--repeats R] [--out FILE]
// writes bench/results/eigen-throughput-<device>.json.
#include "host/eigen_dense.hpp"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/run/batch.hpp"
#include "host/run/eigen_batch.hpp"

namespace {

const char* kUsage =
    "usage: bench_eigen_throughput [--matrices N] [--geev-matrices M] [--repeats R] [--out FILE]\n"
    "  --matrices N       matrices per set (default 200000)\n"
    "  --geev-matrices M  matrices for the cuSOLVER Xgeev loop (default 2000)\n"
    "  --repeats R        timed runs per method, the fastest is kept (default 3)\n"
    "  --out FILE         result file (default bench/results/eigen-throughput-<device>.json)\n";

using Mat6 = hs::Mat<double, 6, 6>;

std::vector<Mat6> random_set(long n, uint64_t seed) {
  namespace hb = hs::bench;
  std::vector<Mat6> out(static_cast<size_t>(n));
  uint64_t state = seed;
  for (auto& A : out)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        // Box–Muller from two uniforms.
        const double u1 = 1.0 - hb::uniform01(state), u2 = hb::uniform01(state);
        A(i, j) = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      }
  return out;
}

// tests/test_eigen.cpp (HydraulicFourBarJacobian) has the same template.
std::vector<Mat6> jacobian_set(long n, uint64_t seed) {
  namespace hb = hs::bench;
  const double J[6][6] = {
      {0.0, 1.0, 0.0, 0.0, 0.0, 0.0},
      {-12.0, -0.8, 3.1e-5, -1.7e-5, 0.0, 0.0},
      {0.9e9, -2.3e9, -350.0, 0.0, 120.0, 1.1e10},
      {-0.6e9, 1.9e9, 0.0, -410.0, 0.0, -0.9e10},
      {0.0, 0.0, 260.0, 0.0, -520.0, 0.0},
      {0.0, 0.0, 0.0, 0.0, 0.0, -220.0},
  };
  std::vector<Mat6> out(static_cast<size_t>(n));
  uint64_t state = seed;
  for (auto& A : out)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = J[i][j] * (0.8 + 0.4 * hb::uniform01(state));
  return out;
}

volatile double g_sink = 0.0;

struct Point {
  std::string set, method;
  int threads = 0;  // 0: GPU
  long matrices = 0;
  bool skipped = false;
  std::string reason;
  double wall_s = 0;
  long failed = 0;
  double mean_qr_steps = -1;  // per-thread kernel only
  double rate() const { return wall_s > 0 ? matrices / wall_s : 0; }
};
Point point(const std::string& set, const std::string& method, int threads, long matrices) {
  Point p;
  p.set = set;
  p.method = method;
  p.threads = threads;
  p.matrices = matrices;
  return p;
}

// Failures and mean QR sweeps of a per-thread batch (CPU or GPU).
void count_per_thread(const std::vector<hs::EigenResult<6>>& out, Point& p) {
  long steps = 0;
  for (const auto& r : out) {
    p.failed += r.status != hs::eigen_ok;
    steps += r.iterations;
  }
  p.mean_qr_steps = static_cast<double>(steps) / p.matrices;
}

// Fastest of `repeats` runs of f [s].
double time_best(int repeats, const std::function<void()>& f) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  namespace hb = hs::bench;
  const hb::Args args(argc, argv);
  args.check_known({"--matrices", "--geev-matrices", "--repeats", "--out"}, {}, kUsage);
  const long n = static_cast<long>(args.number("--matrices", 200000));
  const long n_geev = std::min(n, static_cast<long>(args.number("--geev-matrices", 2000)));
  const int repeats = static_cast<int>(args.number("--repeats", 3));
  if (n < 1 || n_geev < 1 || repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string why_no_gpu;
  const bool cuda = hs::backend_available(hs::Backend::cuda, &why_no_gpu);
  const std::string device = cuda ? hs::backend_device(hs::Backend::cuda) : hb::cpu_model();
  const std::string tag = cuda ? hb::slug(device.substr(0, device.find(" ("))) : hb::machine_tag();
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/eigen-throughput-" + tag + ".json");
  const int cores = hb::logical_cores();

  std::printf("bench_eigen_throughput: 6x6 eigenvalues, %ld matrices per set, fastest of %d; %s (%d logical cores)\n", n,
              repeats, hb::cpu_model().c_str(), cores);
  if (!cuda) std::printf("GPU methods skipped: %s\n", why_no_gpu.c_str());
  std::printf("%-9s %-22s %8s %10s %10s %16s %8s %9s\n", "set", "method", "threads", "matrices", "wall [s]",
              "matrices/s", "failed", "QR steps");

  std::vector<Point> points;
  auto report = [&](const Point& p) {
    if (p.skipped)
      std::printf("%-9s %-22s %8s %10ld %10s %16s %8s %9s  (%s)\n", p.set.c_str(), p.method.c_str(), "-", p.matrices, "-",
                  "skipped", "-", "-", p.reason.c_str());
    else
      std::printf("%-9s %-22s %8d %10ld %10.4f %16.4g %8ld %9s\n", p.set.c_str(), p.method.c_str(), p.threads,
                  p.matrices, p.wall_s, p.rate(), p.failed,
                  p.mean_qr_steps >= 0 ? std::to_string(p.mean_qr_steps).substr(0, 5).c_str() : "-");
    std::fflush(stdout);
    points.push_back(p);
  };

  const struct {
    const char* name;
    std::vector<Mat6> matrices;
  } sets[] = {{"random", random_set(n, 2024)}, {"jacobian", jacobian_set(n, 2025)}};

  for (const auto& s : sets) {
    // Per-thread kernel on the CPU, 1 thread and all cores.
    std::vector<int> threads{1};
    if (cores > 1) threads.push_back(cores);
    for (int t : threads) {
      std::vector<hs::EigenResult<6>> out;
      hs::eigenvalues_batch_cpu<6>(std::vector<Mat6>(s.matrices.begin(), s.matrices.begin() + std::min(n, 1000L)), true,
                                   t);  // warm-up: thread pool, pages
      Point p = point(s.name, "per-thread-cpu", t, n);
      p.wall_s = time_best(repeats, [&] { out = hs::eigenvalues_batch_cpu<6>(s.matrices, true, t); });
      count_per_thread(out, p);
      report(p);
    }

    // Eigen, 1 thread, fixed-size 6x6, eigenvalues only.
    {
      Point p = point(s.name, "eigen-eigensolver", 1, n);
      long failed = 0;
      double sink = 0.0;
      p.wall_s = time_best(repeats, [&] {
        failed = 0;
        Eigen::EigenSolver<Eigen::Matrix<double, 6, 6>> es;
        for (const auto& A : s.matrices) {
          const Eigen::Map<const Eigen::Matrix<double, 6, 6, Eigen::RowMajor>> M(&A.a[0][0]);
          es.compute(M, false);
          failed += es.info() != Eigen::Success;
          sink += es.eigenvalues()(0).real();
        }
      });
      p.failed = failed;
      g_sink = sink;  // keep the results observable
      report(p);
    }

#ifdef HYDROSWEEP_HAVE_CUDA
    if (cuda) {
      {
        std::vector<hs::EigenResult<6>> out;
        hs::eigenvalues_batch_cuda<6>(s.matrices);  // warm-up: context, module load
        Point p = point(s.name, "per-thread-gpu", 0, n);
        p.wall_s = time_best(repeats, [&] { out = hs::eigenvalues_batch_cuda<6>(s.matrices); });
        count_per_thread(out, p);
        report(p);
      }
      {
        const std::vector<Mat6> subset(s.matrices.begin(), s.matrices.begin() + n_geev);
        std::vector<hs::EigenResult<6>> out;
        hs::cusolver_geev_loop<6>(std::vector<Mat6>(subset.begin(), subset.begin() + std::min(n_geev, 10L)));
        Point p = point(s.name, "cusolver-xgeev-loop", 0, n_geev);
        p.wall_s = time_best(repeats, [&] { out = hs::cusolver_geev_loop<6>(subset); });
        for (const auto& r : out) p.failed += r.status != 0;
        report(p);
      }
    }
#endif
    if (!cuda) {
      for (const char* m : {"per-thread-gpu", "cusolver-xgeev-loop"}) {
        Point p = point(s.name, m, 0, std::string(m) == "per-thread-gpu" ? n : n_geev);
        p.skipped = true;
        p.reason = why_no_gpu;
        report(p);
      }
    }
  }

  hb::Json j;
  j.begin_object().field("benchmark", "eigen_throughput");
  hb::write_machine(j);
  j.field("device", device);
  j.begin_object("workload")
      .field("problem", "all eigenvalues of a real nonsymmetric 6x6 matrix (no eigenvectors), FP64")
      .field("sets", "random: N(0,1) entries; jacobian: hydraulic four-bar reduced Jacobian, nonzeros scaled by U(0.8, 1.2)")
      .field("per_thread", "kernels/eigen/small_eigen.hpp: balancing, Householder Hessenberg, Francis double-shift QR")
      .field("eigen", "Eigen::EigenSolver<Matrix<double,6,6>>::compute(A, false), no balancing")
      .field("timing", "fastest repeat, whole batch call (GPU: including host-device copies)")
      .field("repeats", repeats)
      .end_object();
  j.begin_array("results");
  for (const auto& p : points) {
    j.begin_object().field("set", p.set).field("method", p.method).field("threads", p.threads).field("matrices", p.matrices);
    if (p.skipped) j.field("skipped", true).field("reason", p.reason);
    else {
      j.field("wall_s", p.wall_s).field("matrices_per_s", p.rate()).field("failed", p.failed);
      if (p.mean_qr_steps >= 0) j.field("mean_qr_steps", p.mean_qr_steps);
    }
    j.end_object();
  }
  j.end_array().end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return 0;
}
