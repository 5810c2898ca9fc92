// Shared by the backend tests (test_backends: Kokkos vs CPU, test_gpu: CUDA
// vs CPU) and the end-to-end value checks (test_end_to_end_values): a batch
// of random instances of the default work cycle (some of which fail on
// purpose), and the comparison of two backends' flat results column by
// column, with each column's scale. (The end-to-end checks read the kernel's
// RunSummary and Sample structs directly, so a swapped column in the flat
// layout is caught there, not here.)
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "host/run/batch.hpp"
#include "host/build_paths.hpp"
#include "host/registry/model_file.hpp"
#include "host/registry/models.hpp"

namespace hs::backend_test {

// Scales below which a difference is judged absolutely: the size of the
// field's values in the default four-bar (seed 002: links of 2–8 m, crank
// rates ~1 rad/s, pressures of a few MPa, static cylinder force 386 N, the
// valve reference ±10 V). A field that passes through 0 (a rate at rest, the
// spool at the end of the cycle) has no relative precision there; its
// rounding error follows the scale of the motion instead.
constexpr double kAngleScale = 1.0;      // rad
constexpr double kRateScale = 1.0;       // rad/s
constexpr double kPressureScale = 1e6;   // Pa
constexpr double kSpoolScale = 1.0;      // V
constexpr double kLengthScale = 1.0;     // m (also the scale of the loop-closure residual)
constexpr double kSpeedScale = 1.0;      // m/s
constexpr double kForceScale = 1e3;      // N
constexpr double kTimeScale = 1.0;       // s
constexpr double kEnergyFloor = 1.0;     // J; the energy scale is max(W_max, this), W_max ~ 62 J in the cycle

// The absolute scale of a column (per instance: energies scale with that
// instance's max_t |W_cyl| in the reference), from its name: the model's
// summary columns and trajectory channels (kernels/integrators/run_columns.hpp).
// Integer columns and the status are compared exactly (scale 0).
inline double column_scale(const std::string& name, double max_cylinder_work) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (name == "status" || name == "steps" || name == "newton_iterations" || name == "max_newton_iterations") return 0.0;
  if (name == "t_end" || name == "t" || name == "settling_time") return kTimeScale;
  if (starts("qd")) return kRateScale;
  if (starts("q") || name == "tracking_rms") return kAngleScale;
  if (starts("p") && name != "piston_force" && name != "peak_energy_drift") return kPressureScale;
  if (name == "U") return kSpoolScale;
  if (name == "s" || name == "max_constraint_violation") return kLengthScale;
  if (name == "sdot") return kSpeedScale;
  if (name == "piston_force" || name == "friction_force") return kForceScale;
  if (name == "mean_newton_iterations") return 1.0;
  return std::max(max_cylinder_work, kEnergyFloor);  // works and energy drifts
}

inline const ModelDescriptor& four_bar() { return *find_model("four-bar"); }

// The same double, bit for bit (so +0 and −0 differ), or both NaN.
inline bool identical(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// |a − b| in units of max(|a|, |b|, scale): 0 when identical(a, b), +inf when
// only one is NaN.
inline double scaled_difference(double a, double b, double scale) {
  if (identical(a, b)) return 0.0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
  return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), scale, 1e-300});
}

// n instances around the seed 002 defaults: friction, bulk modulus, valve
// time constant, supply pressure and valve gain drawn at random; a gain of
// up to 60 makes a few leave the pressure range mid-run. The reference of
// tracking_rms is the nominal instance's crank angle (as a study's
// reference run), so that field is compared with real values. duration: of
// the run [s] (the work cycle's last switch is at 8 s).
inline BatchSpec random_batch(long n, unsigned seed, int stride, double duration = 10.0) {
  const ModelDescriptor& m = four_bar();
  BatchSpec spec;
  spec.model = &m;
  spec.friction = m.friction_laws.front();
  spec.formulation = m.formulations.front();
  auto at = [&](const char* name) { return m.find_parameter(name)->index; };
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (long i = 0; i < n; ++i) {
    std::vector<double> p = m.defaults;
    p[at("friction.coulomb_force")] *= 0.5 + u(rng);
    p[at("friction.static_force")] *= 0.5 + u(rng);
    p[at("circuit.oil_bulk_modulus")] *= 0.7 + 0.6 * u(rng);
    p[at("circuit.valve_time_constant")] *= 0.5 + u(rng);
    p[at("circuit.supply_pressure")] *= 0.8 + 0.4 * u(rng);
    p[at("input.gain")] = u(rng) < 0.05 ? 20.0 + 40.0 * u(rng) : 0.8 + 0.4 * u(rng);
    spec.parameters.insert(spec.parameters.end(), p.begin(), p.end());
  }
  spec.settings.duration = duration;
  spec.trajectory_stride = stride;
  spec.threads = 2;
  BatchSpec nominal = spec;
  nominal.parameters = m.defaults;
  nominal.trajectory_stride = 1;
  const BatchResult r = run_batch_cpu(nominal);
  const long q1 = 1;  // channel "q1" (after "t")
  EXPECT_EQ(m.trajectory_channels[q1].name, "q1");
  for (long k = 0; k < r.samples_per_instance; ++k) spec.reference.push_back(r.sample(0, k)[q1]);
  return spec;
}

// n instances of a registered model around its defaults (oil bulk modulus
// and Coulomb force drawn in ±30 %), its first friction law and
// formulation, `duration` seconds of its work cycle, samples every `stride`
// steps: the batch every backend must run identically, for any model.
inline BatchSpec model_batch(const ModelDescriptor& m, long n, unsigned seed, int stride, double duration,
                             const std::string& friction = "") {
  BatchSpec spec;
  spec.model = &m;
  spec.friction = friction.empty() ? m.friction_laws.front() : friction;
  spec.formulation = m.formulations.front();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.7, 1.3);
  // Every actuator's bulk modulus and Coulomb force ("circuit.oil_bulk_modulus",
  // or "actuator<k>.circuit.oil_bulk_modulus" with several actuators).
  auto ends = [](const std::string& name, const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (long i = 0; i < n; ++i) {
    std::vector<double> p = m.defaults;
    const double bulk = u(rng), coulomb = u(rng);
    for (const auto& info : m.parameters) {
      if (ends(info.name, "circuit.oil_bulk_modulus")) p[info.index] *= bulk;
      if (ends(info.name, "friction.coulomb_force")) p[info.index] *= coulomb;
    }
    spec.parameters.insert(spec.parameters.end(), p.begin(), p.end());
  }
  spec.settings.duration = duration;
  spec.trajectory_stride = stride;
  spec.threads = 2;
  return spec;
}
inline BatchSpec model_batch(const std::string& model, long n, unsigned seed, int stride, double duration,
                             const std::string& friction = "") {
  return model_batch(*find_model(model), n, seed, stride, duration, friction);
}

// The models shipped as model files (models/*.toml), read once: the generic
// kernels every backend runs for a user's own machine.
inline const std::vector<std::shared_ptr<const ModelDescriptor>>& shipped_model_files() {
  static const std::vector<std::shared_ptr<const ModelDescriptor>> files = [] {
    std::vector<std::shared_ptr<const ModelDescriptor>> out;
    for (const char* f : {"four_bar.toml", "four_bar_seed001.toml", "quick_return.toml", "excavator_bucket.toml",
                          "excavator_boom_arm.toml"})
      out.push_back(load_model_file(std::string(HYDROSWEEP_SOURCE_DIR) + "/models/" + f));
    return out;
  }();
  return files;
}
// Every model a run can name: the compiled ones, then the shipped model files.
inline std::vector<const ModelDescriptor*> compiled_models_and_model_files() {
  std::vector<const ModelDescriptor*> all;
  for (const auto& m : models()) all.push_back(&m);
  for (const auto& f : shipped_model_files()) all.push_back(f.get());
  return all;
}

inline long failed_count(const BatchResult& r) {
  return std::count_if(r.status.begin(), r.status.end(), [](Status s) { return s != Status::ok; });
}

// The largest scaled difference found and where (for the failure message and
// the tests' measured figures).
struct WorstDifference {
  double value = 0.0;
  std::string field;
  long instance = -1, sample = -1;
  void update(double d, const std::string& f, long i, long k = -1) {
    if (d > value) { value = d; field = f; instance = i; sample = k; }
  }
  std::string text() const {
    if (field.empty()) return "0 (bit-identical)";
    char v[32];
    std::snprintf(v, sizeof v, "%.3g", value);
    return std::string(v) + " (" + field + ", instance " + std::to_string(instance) +
           (sample >= 0 ? ", sample " + std::to_string(sample) : "") + ")";
  }
};

// The status, every summary column of every instance and every channel of
// every sample (those after a failure included: both must leave them blank,
// NaN) within `tolerance` in units of max(|a|, |b|, the column's scale);
// tolerance 0: bit-identical. Same failed lists. Returns the worst difference.
// newton_slack > 0 (a GPU against the CPU): the Newton counts may differ by
// that many iterations (a sample's count, an instance's total and maximum, and
// its mean times its steps), since a step whose last increment sits at the
// convergence tolerance converges one iteration earlier or later when the
// last bits differ; the continuous quantities are held to `tolerance`.
inline WorstDifference expect_agreement(const BatchResult& ref, const BatchResult& other, double tolerance,
                                        const ModelDescriptor& model = four_bar(), int newton_slack = 0) {
  WorstDifference worst;
  EXPECT_EQ(ref.failed_indices, other.failed_indices);
  EXPECT_EQ(ref.samples_per_instance, other.samples_per_instance);
  if (ref.summaries.size() != other.summaries.size() || ref.trajectories.size() != other.trajectories.size() ||
      ref.status.size() != other.status.size()) {
    ADD_FAILURE() << "sizes differ: " << ref.summaries.size() << " vs " << other.summaries.size() << " summary values, "
                  << ref.trajectories.size() << " vs " << other.trajectories.size() << " sample values";
    return worst;
  }
  int reported = 0;  // the first few mismatches in full, then only the count
  long mismatches = 0;
  auto check = [&](double a, double b, double scale, const std::string& what, long i, long k, double count_unit = 0.0) {
    if (newton_slack > 0 && count_unit > 0.0 && std::isfinite(a) && std::isfinite(b)) {
      const double iterations = std::fabs(a - b) * count_unit;
      if (iterations <= newton_slack + 1e-9) return;  // within the slack: not a mismatch
    }
    const double d = scaled_difference(a, b, scale);
    worst.update(d, what, i, k);
    if (d <= tolerance) return;
    ++mismatches;
    if (reported++ < 20) {
      char values[96];
      std::snprintf(values, sizeof values, "%.17g vs %.17g", a, b);
      ADD_FAILURE() << what << " of instance " << i << (k >= 0 ? ", sample " + std::to_string(k) : "") << ": " << values
                    << " (difference " << d << " of scale, allowed " << tolerance << ")";
    }
  };
  const long m = ref.samples_per_instance;
  const long work = model.summary_column("max_cylinder_work");
  const auto& columns = model.summary_columns;
  const auto& channels = model.trajectory_channels;
  for (long i = 0; i < ref.instance_count(); ++i) {
    const double w = ref.summary(i, work);
    check(double(static_cast<int>(ref.status[i])), double(static_cast<int>(other.status[i])), 0.0, "status", i, -1);
    const long steps_column = model.summary_column("steps");
    const double steps = steps_column >= 0 ? ref.summary(i, steps_column) : 0.0;
    auto count_unit = [&](const std::string& name) {  // iterations per unit of the column's value
      if (name == "newton_iterations" || name == "max_newton_iterations") return 1.0;
      if (name == "mean_newton_iterations") return steps;
      return 0.0;
    };
    for (size_t c = 0; c < columns.size(); ++c)
      check(ref.summary(i, c), other.summary(i, c), column_scale(columns[c].name, w), columns[c].name, i, -1,
            count_unit(columns[c].name));
    for (long k = 0; k < m; ++k)
      for (size_t c = 0; c < channels.size(); ++c)
        check(ref.sample(i, k)[c], other.sample(i, k)[c], column_scale(channels[c].name, w),
              "trajectory " + channels[c].name, i, k, channels[c].name == "newton_iterations" ? 1.0 : 0.0);
  }
  EXPECT_EQ(mismatches, 0) << "worst: " << worst.text();
  return worst;
}

}  // namespace hs::backend_test
