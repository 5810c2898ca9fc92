// Throughput versus batch size for every backend this build has:
// CPU on 1 core and on all cores, Kokkos (default execution space), CUDA.
//
// Workload: the default four-bar (seed 002) with Brown–McPhee friction,
// FP64, dt = 1 ms, the first `duration` seconds of the work cycle (default
// 2 s: rest, then the valve opening at t = 1 s), instances perturbed by
// ±10 % in the Coulomb force; --model lift-tilt runs seed 004's manipulator
// with its controller in the kernel instead (same perturbation, every
// actuator). --backends keeps only the named configurations. Timed: BatchResult::wall_seconds, the
// instance loop including host<->device copies for the GPU. A point whose
// estimated time (from the previous batch size's rate) exceeds
// --max-seconds is skipped and recorded as such.
//
//   bench_throughput [--model M] [--backends LIST] [--sizes 100,1000,...] [--duration S] [--max-seconds T] [--out FILE]
// writes bench/results/throughput-<device>.json and, when python3 with
// matplotlib is present, the PNG next to it (bench/plot_throughput.py).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/run/batch.hpp"

namespace {

const char* kUsage =
    "usage: bench_throughput [--model M] [--backends LIST] [--sizes LIST] [--duration S] [--max-seconds T] [--out FILE]\n"
    "  --model M        registered model (default four-bar; lift-tilt runs its controller)\n"
    "  --backends LIST  comma-separated: cpu-1-core, cpu-all-cores, kokkos, cuda (default: all this build has)\n"
    "  --sizes LIST     comma-separated batch sizes (default 100,1000,10000,100000,1000000)\n"
    "  --duration S     simulated seconds per instance (default 2)\n"
    "  --max-seconds T  skip a point estimated to take longer (default 60)\n"
    "  --out FILE       result file (default bench/results/throughput-<device>.json)\n";

struct Point {
  std::string backend;
  int threads = 0;
  long instances = 0;
  bool skipped = false;
  double wall_s = 0, steps = 0;
  long failed = 0;
  double rate() const { return wall_s > 0 ? steps / wall_s : 0; }
};

}  // namespace

int main(int argc, char** argv) {
  namespace hb = hs::bench;
  const hb::Args args(argc, argv);
  args.check_known({"--model", "--backends", "--sizes", "--duration", "--max-seconds", "--out"}, {}, kUsage);
  const std::string model = args.get("--model", "four-bar");
  std::vector<std::string> wanted;
  {
    std::stringstream in(args.get("--backends", "cpu-1-core,cpu-all-cores,kokkos,cuda"));
    for (std::string item; std::getline(in, item, ',');) {
      if (item != "cpu-1-core" && item != "cpu-all-cores" && item != "kokkos" && item != "cuda") {
        std::fprintf(stderr, "bench_throughput: --backends: unknown '%s'\n%s", item.c_str(), kUsage);
        return 2;
      }
      wanted.push_back(item);
    }
  }
  auto want = [&](const char* name) { return std::find(wanted.begin(), wanted.end(), name) != wanted.end(); };
  std::vector<long> sizes;
  {
    std::stringstream in(args.get("--sizes", "100,1000,10000,100000,1000000"));
    for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stol(item));
  }
  const double duration = args.number("--duration", 2.0);
  const double max_seconds = args.number("--max-seconds", 60.0);
  const bool cuda = hs::backend_available(hs::Backend::cuda);
  const std::string device = cuda ? hs::backend_device(hs::Backend::cuda) : hb::cpu_model();
  const std::string tag = cuda ? hb::slug(device.substr(0, device.find(" ("))) : hb::machine_tag();
  const std::string model_tag = model == "four-bar" ? "" : model + "-";
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/throughput-" + model_tag + tag + ".json");
  const int cores = hb::logical_cores();

  struct Config {
    std::string name;
    hs::Backend backend;
    int threads;
  };
  std::vector<Config> configs;
  if (want("cpu-1-core")) configs.push_back({"cpu-1-core", hs::Backend::cpu, 1});
  if (cores > 1 && want("cpu-all-cores")) configs.push_back({"cpu-" + std::to_string(cores) + "-cores", hs::Backend::cpu, cores});
  if (hs::backend_available(hs::Backend::kokkos) && want("kokkos"))
    configs.push_back({"kokkos-" + hs::backend_device(hs::Backend::kokkos).substr(7), hs::Backend::kokkos, 0});
  if (cuda && want("cuda")) configs.push_back({"cuda", hs::Backend::cuda, 0});

  std::printf("bench_throughput: %s, brown-mcphee, FP64, dt = 1 ms, %.3g s per instance; %s\n", model.c_str(), duration,
              device.c_str());
  std::printf("%-22s %10s %10s %18s %8s\n", "backend", "instances", "wall [s]", "instance-steps/s", "failed");
  std::vector<Point> points;
  for (const auto& c : configs) {
    double rate = 0;  // of the previous size, for the time estimate
    for (long n : sizes) {
      Point p;
      p.backend = c.name;
      p.threads = c.threads;
      p.instances = n;
      const double steps = n * duration / 1e-3;
      if (rate > 0 && steps / rate > max_seconds) {
        p.skipped = true;
        points.push_back(p);
        std::printf("%-22s %10ld %10s %18s %8s (estimated %.0f s > --max-seconds)\n", c.name.c_str(), n, "-", "skipped", "-",
                    steps / rate);
        continue;
      }
      hs::BatchSpec spec = hb::perturbed_batch(n, model);
      spec.settings.duration = duration;
      spec.threads = c.threads;
      const hs::BatchResult r = hs::run_batch(spec, c.backend);
      p.wall_s = r.wall_seconds;
      p.steps = static_cast<long>(hb::column_sum(r, *spec.model, "steps"));
      p.failed = r.failed();
      rate = p.rate();
      points.push_back(p);
      std::printf("%-22s %10ld %10.3f %18.4g %8ld\n", c.name.c_str(), n, p.wall_s, p.rate(), p.failed);
      std::fflush(stdout);
    }
  }

  hb::Json j;
  j.begin_object().field("benchmark", "throughput");
  hb::write_machine(j);
  j.field("device", device);
  j.begin_object("workload")
      .field("model", model == "four-bar" ? std::string("four-bar (seed 002)") : model)
      .field("friction", "brown-mcphee")
      .field("precision", "FP64")
      .field("dt_s", 1e-3)
      .field("duration_s", duration)
      .field("perturbation", "every actuator's friction.coulomb_force scaled by one U(0.9, 1.1) draw")
      .field("timing", "BatchResult::wall_seconds: instance loop, including host-device copies for CUDA")
      .end_object();
  j.begin_array("results");
  for (const auto& p : points) {
    j.begin_object().field("backend", p.backend).field("threads", p.threads).field("instances", p.instances);
    if (p.skipped) j.field("skipped", true);
    else j.field("wall_s", p.wall_s).field("instance_steps_per_s", p.rate()).field("failed_instances", p.failed);
    j.end_object();
  }
  j.end_array().end_object();
  if (!hb::save_result(out_path, j)) return 1;
  const std::string plot = "python3 '" + std::string(HS_SOURCE_DIR) + "/bench/plot_throughput.py' '" + out_path + "'";
  if (std::system(plot.c_str()) != 0) std::printf("(no plot: run %s)\n", plot.c_str());
  return 0;
}
