// CPU batch throughput of the double-step trapezoidal integrator.
//
// Workload: the default model (seed 002 four-bar, Brown–McPhee friction,
// dt = 1 ms, the 10 s seed 002 work cycle), N instances whose Coulomb
// friction force is perturbed by ±10 % so that each one is a distinct
// trajectory, run through the CPU backend (hs::run_batch_cpu) on one thread
// and on all cores.
//
// Reported per thread count:
//   instance-steps/s  successful trapezoidal steps, summed over instances, per wall second
//   work cycles/s     simulated seconds / 10 s, per wall second
//   mean Newton iterations per step
// The wall time is BatchResult::wall_seconds: the instance loop only
// (no parameter set-up, no output), which is what a study pays per batch.
//
//   bench_cpu_throughput [--instances N] [--duration S] [--repeats R] [--out FILE]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/run/batch.hpp"

namespace hb = hs::bench;

namespace {

const char* kUsage =
    "usage: bench_cpu_throughput [--instances N] [--duration S] [--repeats R] [--out FILE]\n"
    "  --instances N  batch size (default 512)\n"
    "  --duration S   simulated seconds per instance (default 10, one work cycle)\n"
    "  --repeats R    timed runs per thread count, the fastest is kept (default 3)\n"
    "  --out FILE     result file (default bench/results/cpu-throughput-<machine>.json)\n";

struct Measurement {
  int threads = 0;
  double wall_seconds = 0.0;  // fastest of the repeats
  long instances = 0, failed = 0;
  long steps = 0;             // successful steps, all instances
  long newton_iterations = 0;
  int max_newton_iterations = 0;
  double simulated_seconds = 0.0;
  int lanes = 1;                  // lockstep SIMD lanes the CPU backend ran with (docs/models/lanes.md)
  double lane_utilization = 0.0;  // lanes still iterating over lanes × Newton iterations run

  double instance_steps_per_second() const { return steps / wall_seconds; }
  double work_cycles_per_second() const { return simulated_seconds / hs::bench::kWorkCycleSeconds / wall_seconds; }
  double mean_newton_iterations() const { return steps > 0 ? static_cast<double>(newton_iterations) / steps : 0.0; }
};

Measurement measure(const hs::BatchSpec& base, int threads, int repeats) {
  hs::BatchSpec spec = base;
  spec.threads = threads;
  Measurement m;
  m.threads = threads;
  for (int r = 0; r < repeats; ++r) {
    const hs::BatchResult res = hs::run_batch_cpu(spec);
    if (r > 0 && res.wall_seconds >= m.wall_seconds) continue;
    // The work is deterministic, so the counters are the same in every
    // repeat; only the wall time varies.
    m = Measurement{};
    m.threads = res.threads_used;
    m.wall_seconds = res.wall_seconds;
    m.instances = res.instance_count();
    m.failed = res.failed();
    m.steps = static_cast<long>(hb::column_sum(res, *spec.model, "steps"));
    m.newton_iterations = static_cast<long>(hb::column_sum(res, *spec.model, "newton_iterations"));
    m.max_newton_iterations = static_cast<int>(hb::column_max(res, *spec.model, "max_newton_iterations"));
    m.simulated_seconds = m.steps * spec.settings.dt;
    m.lanes = res.lanes_used;
    m.lane_utilization = res.lane_iterations > 0 ? static_cast<double>(res.active_lane_iterations) /
                                                       static_cast<double>(res.lane_iterations)
                                                 : 0.0;
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--instances", "--duration", "--repeats", "--out"}, {}, kUsage);
  const long n_instances = static_cast<long>(args.number("--instances", 512));
  const double duration = args.number("--duration", 10.0);
  const int repeats = static_cast<int>(args.number("--repeats", 3));
  const std::string tag = hb::machine_tag();
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/cpu-throughput-" + tag + ".json");
  if (n_instances < 1 || !(duration > 0.0) || repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }

  hs::BatchSpec spec = hb::perturbed_batch(n_instances);
  spec.settings.duration = duration;  // dt = 1 ms and the rest: IntegratorSettings defaults
  spec.trajectory_stride = 0;  // summaries only: measure the integrator, not trajectory storage

  const int cores = hb::logical_cores();
  std::vector<int> thread_counts{1};
  if (cores > 1) thread_counts.push_back(cores);

  std::printf("bench_cpu_throughput: %ld instances x %.3g s, dt = %g ms, brown-mcphee, %s (%d logical cores)\n",
              n_instances, duration, 1e3 * spec.settings.dt, hb::cpu_model().c_str(), cores);

  // Warm-up: start the OpenMP thread pool and fault in the code and data
  // pages, so that the first timed run does not pay for them.
  {
    hs::BatchSpec warm = spec;
    warm.parameters.resize(static_cast<size_t>(std::min<long>(n_instances, 2 * cores) * spec.model->parameter_count()));
    warm.settings.duration = std::min(duration, 0.5);
    warm.threads = cores;
    hs::run_batch_cpu(warm);
  }

  std::vector<Measurement> results;
  for (int threads : thread_counts) results.push_back(measure(spec, threads, repeats));
  const double single = results.front().instance_steps_per_second();

  std::printf("\n%8s %6s %10s %18s %15s %13s %12s %8s\n", "threads", "lanes", "wall [s]", "instance-steps/s",
              "work cycles/s", "per thread", "Newton/step", "failed");
  for (const auto& m : results)
    std::printf("%8d %6d %10.3f %18.4g %15.4g %13.4g %12.3f %8ld\n", m.threads, m.lanes, m.wall_seconds,
                m.instance_steps_per_second(), m.work_cycles_per_second(), m.work_cycles_per_second() / m.threads,
                m.mean_newton_iterations(), m.failed);
  if (results.size() > 1)
    std::printf("parallel speedup on %d threads: %.2fx\n", results.back().threads,
                results.back().instance_steps_per_second() / single);
  for (const auto& m : results)
    if (m.failed > 0)
      std::printf("warning: %ld of %ld instances failed on %d thread(s); only their successful steps count\n",
                  m.failed, m.instances, m.threads);

  hb::Json j;
  j.begin_object().field("benchmark", "cpu_throughput");
  hb::write_machine(j);
  j.begin_object("workload")
      .field("model", "four-bar (seed 002)")
      .field("friction", "brown-mcphee")
      .field("formulation", "double-step trapezoidal, exact (dual-number) Newton tangent")
      .field("dt_s", spec.settings.dt)
      .field("duration_s", duration)
      .field("instances", n_instances)
      .field("perturbation", "friction.coulomb_force scaled by U(0.9, 1.1), splitmix64 seed 2024")
      .field("repeats", repeats)
      .field("timing", "fastest repeat of BatchResult::wall_seconds (instance loop only)")
      .end_object();
  j.begin_array("results");
  for (const auto& m : results) {
    j.begin_object()
        .field("threads", m.threads)
        .field("lanes", m.lanes)
        .field("lane_utilization", m.lane_utilization)
        .field("wall_s", m.wall_seconds)
        .field("instance_steps_per_s", m.instance_steps_per_second())
        .field("work_cycles_per_s", m.work_cycles_per_second())
        .field("work_cycles_per_s_per_thread", m.work_cycles_per_second() / m.threads)
        .field("real_time_factor", m.work_cycles_per_second() * hb::kWorkCycleSeconds)
        .field("mean_newton_iterations_per_step", m.mean_newton_iterations())
        .field("max_newton_iterations", m.max_newton_iterations)
        .field("instance_steps", m.steps)
        .field("failed_instances", m.failed)
        .field("speedup_vs_1_thread", m.instance_steps_per_second() / single)
        .end_object();
  }
  j.end_array().end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return 0;
}
