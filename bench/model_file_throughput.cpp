// Throughput of the models described in model files against the compiled
// models they re-describe (issue 38's goal: ≥ 0.5× on the CPU), measured in
// one process, one thread, one instance at a time (lanes = 1), and then each
// on the widest lockstep lanes of the build (the file models' lanes,
// docs/models/lanes.md §10, against the compiled models').
//
// Workload per pair: N instances (Coulomb force scaled by U(0.9, 1.1), as
// bench_cpu_throughput), the 10 s work cycle at dt = 1 ms, Brown–McPhee
// friction, the double step. Each repeat runs the compiled model then the
// file model back to back; the ratio is taken per repeat and the median kept
// (this machine's speed drifts between minutes, not within a pair).
//
// Second part: what the model files' friction policy for the laws with states
// costs (DynamicFrictionChoice, docs/models/friction.md §10): the compiled
// four-bar's double step with LuGre and modified LuGre compiled alone against
// the same law through the choice (one instance, the 10 s cycle, alternated,
// the fastest of R runs each; the results are the same bits).
//
//   bench_model_file_throughput [--instances N] [--repeats R] [--out FILE]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <chrono>

#include "bench/bench_common.hpp"
#include "host/registry/model_file.hpp"
#include "host/run/batch.hpp"
#include "kernels/friction/law_choice.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/four_bar.hpp"

namespace hb = hs::bench;

namespace {

const char* kUsage =
    "usage: bench_model_file_throughput [--instances N] [--repeats R] [--out FILE]\n"
    "  --instances N  batch size per model (default 64)\n"
    "  --repeats R    timed pairs per model (default 5; the median ratio is reported)\n"
    "  --out FILE     result file (default bench/results/model-file-throughput-<machine>.json)\n";

// One 10 s run of the default four-bar with `law` through friction policy F [s].
template <class F>
double four_bar_run_seconds(const char* law) {
  using Integrator = hs::DoubleStepTrapezoidal<hs::HydraulicFourBar<F>>;
  hs::FourBarParams P = hs::seed002_four_bar();
  for (auto& a : P.actuator) a.friction.law_code = hs::friction_law_code_of(hs::FrictionLawRegistry{}, law);
  hs::IntegratorSettings S;
  S.duration = 10.0;
  const auto t0 = std::chrono::steady_clock::now();
  const auto summary = hs::run_instance<Integrator>(P, S, hs::RunOptions{}, [](long, const auto&) {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (summary.status != hs::Status::ok) std::printf("  (%s run ended %s)\n", law, hs::status_name(summary.status));
  return seconds;
}
struct ChoiceCost {
  const char* law;
  double alone = 1e300, chosen = 1e300;  // fastest run [s]
};
template <class Law>
ChoiceCost friction_choice_cost(int repeats) {
  using Choice = hs::DynamicFrictionChoice<hs::LuGre, hs::ModifiedLuGre>;
  ChoiceCost c{Law::name};
  for (int r = 0; r < repeats; ++r) {
    c.alone = std::min(c.alone, four_bar_run_seconds<Law>(Law::name));
    c.chosen = std::min(c.chosen, four_bar_run_seconds<Choice>(Law::name));
  }
  return c;
}

struct Pair {
  std::string compiled, file;
  double compiled_rate = 0, file_rate = 0, compiled_lanes_rate = 0, file_lanes_rate = 0, ratio = 0;
  int lanes = 1, file_lanes = 1;
};

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--instances", "--repeats", "--out"}, {}, kUsage);
  const long n = static_cast<long>(args.number("--instances", 64));
  const int repeats = static_cast<int>(args.number("--repeats", 5));
  const std::string out_path = args.get(
      "--out", std::string(HS_SOURCE_DIR) + "/bench/results/model-file-throughput-" + hb::machine_tag() + ".json");
  if (n < 1 || repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::vector<Pair> pairs = {{"four-bar", "four_bar.toml"},
                             {"four-bar-seed001", "four_bar_seed001.toml"},
                             {"quick-return", "quick_return.toml"}};
  std::printf("bench_model_file_throughput: %ld instances x 10 s, dt = 1 ms, brown-mcphee, double step, 1 thread, %s\n",
              n, hb::cpu_model().c_str());
  std::printf("\n%-18s %20s %20s %7s %24s %24s %7s\n", "model", "compiled [steps/s]", "model file [steps/s]", "ratio",
              "compiled, lanes [steps/s]", "model file, lanes", "ratio");
  for (auto& p : pairs) {
    std::shared_ptr<const hs::ModelDescriptor> file_model;
    try {
      file_model = hs::load_model_file(std::string(HS_SOURCE_DIR) + "/models/" + p.file);
    } catch (const hs::ModelFileError& e) {
      std::printf("%-18s not run: %s\n", p.compiled.c_str(), e.what());
      continue;
    }
    hs::BatchSpec compiled = hb::perturbed_batch(n, p.compiled);
    hs::BatchSpec file = hb::perturbed_batch(n, *file_model);
    for (hs::BatchSpec* s : {&compiled, &file}) {
      s->threads = 1;
      s->lanes = 1;
      s->trajectory_stride = 0;
    }
    hs::BatchSpec lanes = compiled, file_lanes = file;
    lanes.lanes = file_lanes.lanes = 0;  // the widest this build has, where the model has lanes
    hb::steps_per_second(compiled);  // warm-up: code and data pages
    hb::steps_per_second(file);
    std::vector<double> c, f, ratio;
    for (int r = 0; r < repeats; ++r) {
      c.push_back(hb::steps_per_second(compiled));
      f.push_back(hb::steps_per_second(file));
      ratio.push_back(f.back() / c.back());
    }
    p.compiled_rate = hb::median(c);
    p.file_rate = hb::median(f);
    p.ratio = hb::median(ratio);
    std::vector<double> cl, fl;
    for (int r = 0; r < repeats; ++r) {
      const hs::BatchResult lr = hs::run_batch_cpu(lanes);
      const hs::BatchResult fr = hs::run_batch_cpu(file_lanes);
      p.lanes = lr.lanes_used;
      p.file_lanes = fr.lanes_used;
      cl.push_back(hb::column_sum(lr, *lanes.model, "steps") / lr.wall_seconds);
      fl.push_back(hb::column_sum(fr, *file_lanes.model, "steps") / fr.wall_seconds);
    }
    p.compiled_lanes_rate = hb::median(cl);
    p.file_lanes_rate = hb::median(fl);
    std::printf("%-18s %20.4g %20.4g %6.2fx %19.4g (%d) %19.4g (%d) %6.2fx\n", p.compiled.c_str(), p.compiled_rate,
                p.file_rate, p.ratio, p.compiled_lanes_rate, p.lanes, p.file_lanes_rate, p.file_lanes,
                p.file_lanes_rate / p.compiled_lanes_rate);
  }

  // The laws with states through the model files' one policy.
  const int choice_repeats = 5 * repeats;
  const std::vector<ChoiceCost> choice = {friction_choice_cost<hs::LuGre>(choice_repeats),
                                          friction_choice_cost<hs::ModifiedLuGre>(choice_repeats)};
  std::printf("\nthe four-bar's double step, one instance x 10 s, fastest of %d runs each:\n", choice_repeats);
  for (const auto& c : choice)
    std::printf("  %-15s compiled alone %.4f s, through DynamicFrictionChoice %.4f s: %.3fx\n", c.law, c.alone,
                c.chosen, c.chosen / c.alone);

  hb::Json j;
  j.begin_object().field("benchmark", "model_file_throughput");
  hb::write_machine(j);
  j.begin_object("workload")
      .field("instances", n)
      .field("duration_s", 10.0)
      .field("dt_s", 1e-3)
      .field("friction", "brown-mcphee")
      .field("formulation", "double-step")
      .field("threads", 1)
      .field("repeats", repeats)
      .field("timing", "median over repeats of (compiled, file) pairs run back to back; instance loop only; "
                       "lanes: median over repeats of each batch's wall time")
      .end_object();
  j.begin_array("results");
  for (const auto& p : pairs)
    j.begin_object()
        .field("compiled_model", p.compiled)
        .field("model_file", "models/" + p.file)
        .field("compiled_instance_steps_per_s", p.compiled_rate)
        .field("file_instance_steps_per_s", p.file_rate)
        .field("file_over_compiled", p.ratio)
        .field("compiled_lanes", p.lanes)
        .field("compiled_with_lanes_instance_steps_per_s", p.compiled_lanes_rate)
        .field("file_lanes", p.file_lanes)
        .field("file_with_lanes_instance_steps_per_s", p.file_lanes_rate)
        .field("file_lanes_over_file_one_at_a_time", p.file_lanes_rate / p.file_rate)
        .end_object();
  j.end_array();
  j.begin_array("friction_choice");
  for (const auto& c : choice)
    j.begin_object()
        .field("law", c.law)
        .field("model", "four-bar (compiled), double step, one instance, 10 s")
        .field("runs", choice_repeats)
        .field("alone_fastest_s", c.alone)
        .field("through_dynamic_friction_choice_fastest_s", c.chosen)
        .field("choice_over_alone", c.chosen / c.alone)
        .end_object();
  j.end_array().end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return 0;
}
