// Cost per step and Newton iterations of the trapezoidal formulations and
// friction laws on every mechanism, in one run (issue 13 item 4; seed 001
// §6 compares the formulations, seed 002 §6 the laws).
//
// Workload per (mechanism, formulation, friction law): N instances of the
// model's default cycle (dt = 1 ms, 10 s; the model defaults), the Coulomb
// force perturbed by ±10 % so each is a distinct trajectory, run by the CPU
// backend on one thread (hs::run_batch_cpu); the fastest of R repeats.
//
// Reported per combination:
//   µs per step         BatchResult::wall_seconds / successful steps (one thread)
//   Newton iterations   mean and max per step
//   energy drift        max over instances of peak drift / max cylinder work
//   |Φ|∞                max constraint violation
// and the ranking of the laws by cost per step and of the formulations by
// iterations, beside the papers' (seed 002: Brown–McPhee fastest, then
// Bengisu–Akay, LuGre, modified LuGre; seed 001: penalty 1.56 vs double step
// 1.39 mean iterations on its four-bar, 1.57 vs 1.49 on the quick-return).
//
//   bench_formulations [--instances N] [--duration S] [--repeats R] [--tangent exact|finite-difference] [--out FILE]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "host/run/batch.hpp"

namespace hb = hs::bench;

namespace {

const char* kUsage =
    "usage: bench_formulations [--instances N] [--duration S] [--repeats R] [--tangent T] [--out FILE]\n"
    "  --instances N  instances per combination (default 2)\n"
    "  --duration S   simulated seconds per instance (default 10, one cycle)\n"
    "  --repeats R    timed runs per combination, the fastest is kept (default 3)\n"
    "  --tangent T    exact (default) or finite-difference (the papers' forward differences)\n"
    "  --out FILE     result file (default bench/results/formulations-<machine>.json)\n";

const char* kModels[] = {"four-bar", "four-bar-seed001", "quick-return", "four-bar-3d"};
const char* kFormulations[] = {"double-step", "penalty"};
const char* kLaws[] = {"brown-mcphee", "bengisu-akay", "lugre", "modified-lugre"};

struct Measurement {
  std::string model, formulation, law;
  double wall_seconds = 0.0;
  long steps = 0, failed = 0, newton_iterations = 0;
  int max_newton_iterations = 0;
  double worst_drift = 0.0, worst_violation = 0.0;
  double us_per_step() const { return 1e6 * wall_seconds / static_cast<double>(steps); }
  double mean_iterations() const { return static_cast<double>(newton_iterations) / static_cast<double>(steps); }
};

hs::BatchSpec batch(const char* model, const char* formulation, const char* law, long n, double duration,
                    hs::Tangent tangent) {
  const hs::ModelDescriptor& m = *hs::find_model(model);
  hs::BatchSpec spec;
  spec.model = &m;
  spec.friction = law;
  spec.formulation = formulation;
  spec.settings.duration = duration;
  spec.settings.tangent = tangent;
  spec.trajectory_stride = 0;
  spec.threads = 1;
  spec.lanes = 1;  // one instance's step, as the papers compare them (lanes: bench_lanes)
  const int coulomb = m.find_parameter("friction.coulomb_force")->index;
  uint64_t state = 2024;
  for (long i = 0; i < n; ++i) {
    std::vector<double> row = m.defaults;
    row[coulomb] *= 1.0 + 0.1 * (2.0 * hb::uniform01(state) - 1.0);
    spec.parameters.insert(spec.parameters.end(), row.begin(), row.end());
  }
  return spec;
}

Measurement measure(const hs::BatchSpec& spec, int repeats) {
  Measurement m;
  m.model = spec.model->name;
  m.formulation = spec.formulation;
  m.law = spec.friction;
  for (int r = 0; r < repeats; ++r) {
    const hs::BatchResult res = hs::run_batch_cpu(spec);
    if (r > 0 && res.wall_seconds >= m.wall_seconds) continue;
    m.wall_seconds = res.wall_seconds;
    m.steps = static_cast<long>(hb::column_sum(res, *spec.model, "steps"));
    m.newton_iterations = static_cast<long>(hb::column_sum(res, *spec.model, "newton_iterations"));
    m.max_newton_iterations = static_cast<int>(hb::column_max(res, *spec.model, "max_newton_iterations"));
    m.failed = res.failed();
    m.worst_violation = hb::column_max(res, *spec.model, "max_constraint_violation");
    const long drift = spec.model->summary_column("peak_energy_drift");
    const long work = spec.model->summary_column("max_cylinder_work");
    m.worst_drift = 0.0;
    for (long i = 0; i < res.instance_count(); ++i)
      m.worst_drift = std::max(m.worst_drift, res.summary(i, drift) / res.summary(i, work));
  }
  return m;
}

// The laws of one (mechanism, formulation) ordered by cost per step.
std::string ranking(const std::vector<Measurement>& all, const std::string& model, const std::string& formulation) {
  std::vector<const Measurement*> v;
  for (const auto& m : all)
    if (m.model == model && m.formulation == formulation) v.push_back(&m);
  std::sort(v.begin(), v.end(), [](const Measurement* a, const Measurement* b) { return a->us_per_step() < b->us_per_step(); });
  std::string s;
  for (const auto* m : v) s += (s.empty() ? "" : " < ") + m->law;
  return s;
}

const Measurement* find(const std::vector<Measurement>& all, const std::string& model, const std::string& formulation,
                        const std::string& law) {
  for (const auto& m : all)
    if (m.model == model && m.formulation == formulation && m.law == law) return &m;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--instances", "--duration", "--repeats", "--tangent", "--out"}, {}, kUsage);
  const long n = static_cast<long>(args.number("--instances", 2));
  const double duration = args.number("--duration", 10.0);
  const int repeats = static_cast<int>(args.number("--repeats", 3));
  const std::string tangent_name = args.get("--tangent", std::string("exact"));
  const std::string tag = hb::machine_tag();
  const std::string out_path = args.get(
      "--out", std::string(HS_SOURCE_DIR) + "/bench/results/formulations-" +
                   (tangent_name == "exact" ? std::string() : tangent_name + "-") + tag + ".json");
  if (n < 1 || !(duration > 0.0) || repeats < 1 || (tangent_name != "exact" && tangent_name != "finite-difference")) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const hs::Tangent tangent = tangent_name == "exact" ? hs::Tangent::exact : hs::Tangent::finite_difference;
  std::printf("bench_formulations: %ld instances x %.3g s per combination, dt = 1 ms, %s tangent, 1 thread, %s\n", n,
              duration, tangent_name.c_str(), hb::cpu_model().c_str());

  std::vector<Measurement> all;
  std::printf("\n%-17s %-12s %-15s %10s %9s %5s %12s %10s %7s\n", "mechanism", "formulation", "friction", "us/step",
              "Newton", "max", "drift/W_max", "|Phi|", "failed");
  for (const char* model : kModels)
    for (const char* formulation : kFormulations)
      for (const char* law : kLaws) {
        const hs::BatchSpec spec = batch(model, formulation, law, n, duration, tangent);
        {  // warm-up: code and data pages
          hs::BatchSpec warm = spec;
          warm.settings.duration = std::min(duration, 0.2);
          hs::run_batch_cpu(warm);
        }
        all.push_back(measure(spec, repeats));
        const Measurement& m = all.back();
        std::printf("%-17s %-12s %-15s %10.2f %9.4f %5d %12.2e %10.2e %7ld\n", model, formulation, law, m.us_per_step(),
                    m.mean_iterations(), m.max_newton_iterations, m.worst_drift, m.worst_violation, m.failed);
        std::fflush(stdout);
      }

  std::printf("\nFriction laws by cost per step (fastest first); seed 002 (penalty, four-bar): "
              "brown-mcphee < bengisu-akay < lugre < modified-lugre\n");
  for (const char* model : kModels)
    for (const char* formulation : kFormulations)
      std::printf("  %-17s %-12s %s\n", model, formulation, ranking(all, model, formulation).c_str());
  std::printf("\nMean Newton iterations per step, penalty vs double step (Brown-McPhee); seed 001: four-bar 1.56 vs "
              "1.39, quick-return 1.57 vs 1.49 (finite-difference tangent)\n");
  for (const char* model : kModels) {
    const Measurement* p = find(all, model, "penalty", "brown-mcphee");
    const Measurement* d = find(all, model, "double-step", "brown-mcphee");
    std::printf("  %-17s %.3f vs %.3f (max %d vs %d); cost per step %.1f vs %.1f us\n", model, p->mean_iterations(),
                d->mean_iterations(), p->max_newton_iterations, d->max_newton_iterations, p->us_per_step(),
                d->us_per_step());
  }

  hb::Json j;
  j.begin_object().field("benchmark", "formulations");
  hb::write_machine(j);
  j.begin_object("workload")
      .field("models", "four-bar, four-bar-seed001, quick-return, four-bar-3d (model defaults and cycles)")
      .field("dt_s", 1e-3)
      .field("duration_s", duration)
      .field("instances", n)
      .field("threads", 1)
      .field("tangent", tangent_name)
      .field("perturbation", "friction.coulomb_force scaled by U(0.9, 1.1), splitmix64 seed 2024")
      .field("repeats", repeats)
      .field("timing", "fastest repeat of BatchResult::wall_seconds (instance loop only) / successful steps")
      .end_object();
  j.begin_array("results");
  for (const auto& m : all)
    j.begin_object()
        .field("mechanism", m.model)
        .field("formulation", m.formulation)
        .field("friction", m.law)
        .field("us_per_step", m.us_per_step())
        .field("mean_newton_iterations", m.mean_iterations())
        .field("max_newton_iterations", m.max_newton_iterations)
        .field("max_drift_over_max_cylinder_work", m.worst_drift)
        .field("max_constraint_violation_m", m.worst_violation)
        .field("failed", m.failed)
        .end_object();
  j.end_array();
  j.begin_object("rankings_by_cost_per_step");
  for (const char* model : kModels)
    for (const char* formulation : kFormulations)
      j.field((std::string(model) + " / " + formulation).c_str(), ranking(all, model, formulation));
  j.end_object();
  j.field("papers",
          "seed 002: brown-mcphee fastest, then bengisu-akay, lugre, modified-lugre (penalty, four-bar); seed 001: "
          "mean Newton iterations penalty 1.56 vs double step 1.39 (four-bar), 1.57 vs 1.49 (quick-return)");
  j.end_object();
  return hb::save_result(out_path, j) ? 0 : 1;
}
