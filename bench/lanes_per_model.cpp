// Lockstep lanes against one instance at a time, for every model of the
// catalog and every formulation it runs (issue 40: "lanes vs one at a time
// for each model"), in one run, one thread.
//
// Workload per (model, formulation): up to N instances of the model's default
// instance (fewer where one at a time would take over ~0.5 s: at least 16,
// two groups of 8 lanes; measured on a first run of 8), every actuator's Coulomb force scaled by 1 ± 10 % (one draw per
// instance, bench_common.hpp perturbed_batch), the model's first friction law,
// dt = 1 ms, S simulated seconds; the CPU backend on one thread, --lanes 1
// and the widest width built (automatic), run back to back `--repeats` times
// and the median of the ratios kept. A combination without lanes runs one
// instance at a time both ways (lanes 1 in the table, ratio ~1): what is left
// to vectorize (docs/models/lanes.md §5). Nothing is asserted.
//
//   bench_lanes [--instances N] [--duration S] [--repeats R] [--model NAME]
//               [--formulation F] [--out FILE]
// Writes bench/results/lanes-<machine>.json (with --model or --formulation:
// lanes-<machine>-<filter>.json, so that a focused run keeps the full table).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/registry/models.hpp"
#include "host/run/batch.hpp"

namespace hb = hs::bench;

namespace {

const char* kUsage =
    "usage: bench_lanes [--instances N] [--duration S] [--repeats R] [--model NAME] [--formulation F] [--out FILE]\n"
    "  --instances N  most instances per combination (default 64; at least 16, fewer for the slow models)\n"
    "  --duration S   simulated seconds per instance (default 2)\n"
    "  --repeats R    (one at a time, lanes) pairs per combination, the median ratio is kept (default 3)\n"
    "  --model NAME   only this catalog model (e.g. lift-tilt, quick-return)\n"
    "  --formulation F  only this formulation (double-step or penalty)\n"
    "  --out FILE     result file (default bench/results/lanes-<machine>[-<model>][-<formulation>].json)\n";

struct Row {
  std::string model, formulation, law;
  int lanes = 1;
  long instances = 0, failed = 0;
  double one_rate = 0.0, lanes_rate = 0.0, ratio = 0.0;  // instance-steps/s, median over the repeats
  double utilization = 0.0;
};

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--instances", "--duration", "--repeats", "--model", "--formulation", "--out"}, {}, kUsage);
  const long n = static_cast<long>(args.number("--instances", 64));
  const double duration = args.number("--duration", 2.0);
  const int repeats = static_cast<int>(args.number("--repeats", 3));
  const std::string only_model = args.get("--model", std::string()),
                    only_formulation = args.get("--formulation", std::string());
  std::string tag = hb::machine_tag();
  if (!only_model.empty()) tag += "-" + only_model;
  if (!only_formulation.empty()) tag += "-" + only_formulation;
  const std::string out_path = args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/lanes-" + tag + ".json");
  if (n < 1 || !(duration > 0.0) || repeats < 1 ||
      (!only_formulation.empty() && only_formulation != "double-step" && only_formulation != "penalty")) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (!only_model.empty() && !hs::find_model(only_model)) {
    std::fprintf(stderr, "bench_lanes: --model '%s' is not in the catalog (hydrosweep parameters lists the models)\n",
                 only_model.c_str());
    return 2;
  }
  std::printf("bench_lanes: %ld instances x %.3g s, dt = 1 ms, 1 thread, lanes built: %s, %s\n", n, duration,
              hs::built_lane_widths().c_str(), hb::cpu_model().c_str());
  std::printf("\n%-18s %-12s %-15s %9s %6s %18s %18s %8s %12s\n", "model", "formulation", "friction", "instances",
              "lanes", "one [steps/s]", "lanes [steps/s]", "ratio", "utilization");
  std::vector<Row> rows;
  for (const hs::ModelDescriptor& m : hs::models()) {
    if (!m.supports_command("run")) continue;
    if (!only_model.empty() && m.name != only_model) continue;
    for (const std::string& formulation : m.formulations) {
      if (formulation != "double-step" && formulation != "penalty") continue;  // the trapezoidal formulations
      if (!only_formulation.empty() && formulation != only_formulation) continue;
      hs::BatchSpec one = hb::perturbed_batch(n, m);
      one.formulation = formulation;
      one.friction = m.friction_laws.front();
      one.settings.duration = duration;
      one.threads = 1;
      one.trajectory_stride = 0;
      one.lanes = 1;
      hs::BatchSpec wide = one;
      wide.lanes = 0;  // the widest width built, where the combination has lanes
      Row row{m.name, formulation, one.friction};
      // Warm-up (code and data pages) on 8 instances, which also sizes the
      // batch: about 0.5 s one at a time.
      {
        hs::BatchSpec probe = one;
        const long p = static_cast<long>(m.parameter_count());
        probe.parameters.resize(static_cast<size_t>(std::min<long>(n, 8) * p));
        const double steps_per_instance = duration / one.settings.dt;
        const long fit = static_cast<long>(0.5 * hb::steps_per_second(probe) / steps_per_instance);
        const long count = std::min(n, std::max<long>(16, fit));
        one.parameters.resize(static_cast<size_t>(count * p));
        wide.parameters = one.parameters;
      }
      std::vector<double> o, w, ratio;
      hs::BatchResult last;
      for (int r = 0; r < repeats; ++r) {
        o.push_back(hb::steps_per_second(one));
        w.push_back(hb::steps_per_second(wide, &last));
        ratio.push_back(w.back() / o.back());
      }
      row.one_rate = hb::median(o);
      row.lanes_rate = hb::median(w);
      row.ratio = hb::median(ratio);
      row.lanes = last.lanes_used;
      row.failed = last.failed();
      row.instances = last.instance_count();
      row.utilization = last.lane_iterations > 0 ? static_cast<double>(last.active_lane_iterations) /
                                                       static_cast<double>(last.lane_iterations)
                                                 : 0.0;
      std::printf("%-18s %-12s %-15s %9ld %6d %18.4g %18.4g %7.2fx %12.3f%s\n", row.model.c_str(),
                  row.formulation.c_str(), row.law.c_str(), row.instances, row.lanes, row.one_rate, row.lanes_rate, row.ratio, row.utilization,
                  row.failed ? "  (some instances failed)" : "");
      rows.push_back(row);
    }
  }

  hb::Json j;
  j.begin_object().field("benchmark", "lanes_per_model");
  hb::write_machine(j);
  j.begin_object("workload")
      .field("instances", n)
      .field("duration_s", duration)
      .field("dt_s", 1e-3)
      .field("threads", 1)
      .field("repeats", repeats)
      .field("lanes_built", hs::built_lane_widths())
      .field("timing", "median over repeats of (one at a time, lanes) pairs run back to back; instance loop only")
      .end_object();
  j.begin_array("results");
  for (const auto& r : rows)
    j.begin_object()
        .field("model", r.model)
        .field("formulation", r.formulation)
        .field("friction", r.law)
        .field("instances", r.instances)
        .field("lanes", r.lanes)
        .field("one_at_a_time_instance_steps_per_s", r.one_rate)
        .field("lanes_instance_steps_per_s", r.lanes_rate)
        .field("lanes_over_one", r.ratio)
        .field("lane_utilization", r.utilization)
        .field("failed_instances", r.failed)
        .end_object();
  j.end_array().end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return 0;
}
