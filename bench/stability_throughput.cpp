// Stability-map points per second: one point = static equilibrium +
// reduced Jacobian (dual numbers) + eigenvalues (per-thread Hessenberg/QR)
// + the map figures, kernels/linearize/stability.hpp: stability_point.
//
// Workload: the default stability study's design (friction scale 1e-3…1,
// log × oil bulk modulus 0.5…2 GPa, seed 000 four-bar at φ2 = 60°, Brown–
// McPhee friction), as many points as asked, for both formulations of the
// mechanism: planar (3 relative joint coordinates, 2 constraints) and the
// 3D model of seed 000 (10 coordinates, 9 constraints). Backends: CPU on 1
// thread and on all cores (host/run/stability_map.cpp, OpenMP), one point at a
// time ("cpu") and W points in lockstep lanes ("cpu-lanesW", the default of
// `hydrosweep stability`: kernels/linearize/lockstep_stability.hpp, the same
// records; docs/models/lanes.md §12), CUDA (one thread
// per point, host/run/backends/cuda_stability.cu) when a device is present,
// timed with the host↔device copies. And the map a study waits for: seed
// 004's manipulator under its sampled controller (kernels/linearize/
// sampled_loop.hpp), studies/stability_manipulator.toml's 12 288 points
// through run_stability as the CLI runs them (the study check included),
// on the CPU (docs/performance.md §3).
//
//   bench_stability_throughput [--points N] [--gpu-points M] [--repeats R] [--model M] [--out FILE]
// writes bench/results/stability-throughput-<device>.json.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/run/batch.hpp"
#include "host/registry/models.hpp"
#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"

namespace {

namespace hb = hs::bench;

const char* kUsage =
    "usage: bench_stability_throughput [--points N] [--gpu-points M] [--repeats R] [--model M] [--out FILE]\n"
    "  --points N      map points per CPU measurement (default 20000)\n"
    "  --gpu-points M  map points per GPU measurement (default 1000000)\n"
    "  --repeats R     timed runs per method, the fastest is kept (default 3)\n"
    "  --model M       only this map: planar, 3d or lift-tilt (default all three; for profiling one)\n"
    "  --out FILE      result file (default bench/results/stability-throughput-<device>.json)\n";

// The default study's grid, cycled to n points (deterministic).
// The points as a stability batch of the registered model (parameter rows).
hs::StabilityBatch map_points(long n, const char* model, const hs::StabilitySettings& settings, int threads) {
  const hs::ModelDescriptor& m = *hs::find_model(model);
  hs::StabilityBatch b;
  b.model = &m;
  b.friction = "brown-mcphee";
  b.settings = settings;
  b.threads = threads;
  const int nf = 41, nb = 31;
  for (long i = 0; i < n; ++i) {
    hs::FourBarParams P = hs::seed002_four_bar();
    const double scale = std::pow(10.0, -3.0 + 3.0 * ((i / nb) % nf) / (nf - 1.0));
    hs::scale_friction(P.actuator[0].friction, scale);
    P.actuator[0].circuit.oil_bulk_modulus = 0.5e9 + 1.5e9 * (i % nb) / (nb - 1.0);
    const std::vector<double> row = hs::pack_row(m.parameters, P);
    b.parameters.insert(b.parameters.end(), row.begin(), row.end());
  }
  return b;
}

struct Point {
  std::string model, method;
  int threads = 0;
  long points = 0;
  double wall_s = 0.0;
  long failed = 0;
  bool skipped = false;
  std::string reason;
  double rate() const { return points / wall_s; }
};

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--points", "--gpu-points", "--repeats", "--model", "--out"}, {}, kUsage);
  const std::string only = args.get("--model", "");
  if (!only.empty() && only != "planar" && only != "3d" && only != "lift-tilt") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  auto wanted = [&](const std::string& model) { return only.empty() || only == model; };
  const long n = static_cast<long>(args.number("--points", 20000));
  const long n_gpu = static_cast<long>(args.number("--gpu-points", 1000000));
  const int repeats = static_cast<int>(args.number("--repeats", 3));
  if (n < 1 || n_gpu < 1 || repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string why_no_gpu;
  bool cuda = hs::backend_available(hs::Backend::cuda, &why_no_gpu);
#ifndef HYDROSWEEP_HAVE_CUDA_STABILITY
  if (cuda) why_no_gpu = "this build has no CUDA stability kernel";
  cuda = false;
#endif
  const std::string device = cuda ? hs::backend_device(hs::Backend::cuda) : hb::cpu_model();
  const std::string tag = cuda ? hb::slug(device.substr(0, device.find(" ("))) : hb::machine_tag();
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/stability-throughput-" + tag + ".json");
  const int cores = hb::logical_cores();
  const hs::StabilitySettings settings{};

  std::printf("bench_stability_throughput: equilibrium + reduced Jacobian + eigenvalues per point, fastest of %d; "
              "%s (%d logical cores)\n", repeats, hb::cpu_model().c_str(), cores);
  if (!cuda) std::printf("GPU skipped: %s\n", why_no_gpu.c_str());
  std::printf("%-9s %-11s %8s %10s %10s %14s %8s\n", "model", "method", "threads", "points", "wall [s]", "points/s",
              "failed");
  std::vector<Point> results;
  auto timed = [&](Point p, const std::function<std::vector<hs::StabilityPoint>()>& run) {
    double best = 1e300;
    long failed = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto out = run();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      failed = std::count_if(out.begin(), out.end(), [](const hs::StabilityPoint& s) { return s.status != 0; });
    }
    p.wall_s = best;
    p.failed = failed;
    std::printf("%-9s %-11s %8d %10ld %10.3f %14.4g %8ld\n", p.model.c_str(), p.method.c_str(), p.threads, p.points,
                p.wall_s, p.rate(), p.failed);
    results.push_back(p);
  };
  for (bool spatial : {false, true}) {
    const std::string model = spatial ? "3d" : "planar";
    const char* registered = spatial ? "four-bar-3d" : "four-bar";
    if (!wanted(model)) continue;
    for (int threads : {1, cores}) {
      hs::StabilityBatch cpu_points = map_points(n, registered, settings, threads);
      std::vector<int> widths{1};
      if (hs::widest_lanes() > 1) widths.push_back(hs::widest_lanes());
      for (int lanes : widths) {
        cpu_points.lanes = lanes;
        Point p{model, lanes == 1 ? "cpu" : "cpu-lanes" + std::to_string(lanes), threads, n, 0.0, 0, false, {}};
        timed(p, [&] { return hs::run_stability_cpu(cpu_points); });
        if (lanes > 1 && results.size() >= 2)
          std::printf("%-9s %-11s %8d   lanes / one point at a time: %.2fx\n", "", "", threads,
                      results[results.size() - 1].rate() / results[results.size() - 2].rate());
      }
      if (cores == 1) break;
    }
    Point g{model, "cuda", 0, n_gpu, 0.0, 0, false, {}};
#ifdef HYDROSWEEP_HAVE_CUDA_STABILITY
    if (cuda) {
      const hs::StabilityBatch gpu_points = map_points(n_gpu, registered, settings, 0);
      timed(g, [&] { return hs::run_stability_cuda(gpu_points); });
      continue;
    }
#endif
    g.skipped = true;
    g.reason = why_no_gpu;
    results.push_back(g);
  }

  if (wanted("lift-tilt")) {
    // The manipulator's closed-loop map, the study file as the CLI reads it.
    const hs::Study study = hs::load_study(std::string(HS_SOURCE_DIR) + "/studies/stability_manipulator.toml");
    for (int threads : {1, cores}) {
      Point p{"lift-tilt", "cpu", threads, study.instance_count(), 0.0, 0, false, {}};
      timed(p, [&] { return hs::run_stability(study.record(), study.design(), hs::Backend::cpu, threads); });
      if (cores == 1) break;
    }
  }

  hb::Json j;
  j.begin_object().field("benchmark", "stability_throughput");
  hb::write_machine(j);
  j.field("device", device);
  j.begin_object("workload")
      .field("point", "equilibrium at phi2 = 60 deg + reduced Jacobian (6x6, dual numbers) + eigenvalues + map figures, FP64")
      .field("design", "friction scale 1e-3..1 (log, 41) x oil bulk modulus 0.5..2 GPa (31), cycled; Brown-McPhee")
      .field("models", "planar: 3 coordinates, 2 constraints; 3d: seed 000, 10 coordinates, 9 constraints; "
                       "lift-tilt: studies/stability_manipulator.toml (sampled closed loop, 10 x 10 monodromy, "
                       "four sign patterns), through run_stability with the study check")
      .field("timing", "fastest repeat, whole batch call (GPU: including host-device copies)")
      .field("repeats", repeats)
      .end_object();
  j.begin_array("results");
  for (const auto& p : results) {
    j.begin_object().field("model", p.model).field("method", p.method).field("threads", p.threads).field("points", p.points);
    if (p.skipped) j.field("skipped", true).field("reason", p.reason);
    else j.field("wall_s", p.wall_s).field("points_per_s", p.rate()).field("failed", p.failed);
    j.end_object();
  }
  j.end_array().end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return 0;
}
