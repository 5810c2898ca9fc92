// Shared by the backend tests (test_backends: Kokkos vs CPU, test_gpu: CUDA
// vs CPU) and the end-to-end value checks (test_end_to_end_values): every
// field of RunSummary and of Sample, named as results.h5 names it, read
// straight from the struct (never through host/output.cpp's accessors, so a
// swapped accessor there is caught); a batch of random instances of the
// default work cycle (some of which fail on purpose); the comparison of two
// backends' results field by field.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "host/batch.hpp"
#include "host/parameters.hpp"

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

// The energy scale of an instance: works and the energy-balance drift are
// sums of power over the cycle, their rounding follows max_t |W_cyl|.
inline double energy_scale(const FourBarSummary& s) { return std::max(s.max_cylinder_work, kEnergyFloor); }

// One field of a struct: the name results.h5 gives it, its value, the
// absolute scale (per instance, from the reference's summary) below which a
// difference is judged absolutely, and whether the member is an integer
// (written as an integer dataset).
template <class Record>
struct Field {
  std::string name;
  std::function<double(const Record&)> value;
  std::function<double(const FourBarSummary&)> scale;
  bool integer = false;
};
using SummaryField = Field<FourBarSummary>;
using SampleField = Field<FourBarSample>;

inline std::function<double(const FourBarSummary&)> fixed_scale(double s) {
  return [s](const FourBarSummary&) { return s; };
}

// Every member of RunSummary<3, 3> (kernels/integrators/run.hpp), status
// included; the names are those of /outputs (host/output.hpp).
inline const std::vector<SummaryField>& summary_fields() {
  static const std::vector<SummaryField> fields = [] {
    std::vector<SummaryField> f;
    const auto energy = std::function<double(const FourBarSummary&)>(energy_scale);
    f.push_back({"status", [](const FourBarSummary& s) { return double(static_cast<int>(s.status)); }, fixed_scale(0.0),
                 true});
    f.push_back({"t_end", [](const FourBarSummary& s) { return s.t_end; }, fixed_scale(kTimeScale)});
    f.push_back({"steps", [](const FourBarSummary& s) { return double(s.steps); }, fixed_scale(0.0), true});
    for (int k = 0; k < 3; ++k) {
      const std::string n = std::to_string(k + 1);
      f.push_back({"q" + n, [k](const FourBarSummary& s) { return s.q[k]; }, fixed_scale(kAngleScale)});
      f.push_back({"qd" + n, [k](const FourBarSummary& s) { return s.qd[k]; }, fixed_scale(kRateScale)});
      f.push_back({"p" + n, [k](const FourBarSummary& s) { return s.p[k]; }, fixed_scale(kPressureScale)});
      f.push_back({"p" + n + "_min", [k](const FourBarSummary& s) { return s.p_min[k]; }, fixed_scale(kPressureScale)});
      f.push_back({"p" + n + "_max", [k](const FourBarSummary& s) { return s.p_max[k]; }, fixed_scale(kPressureScale)});
    }
    f.push_back({"U", [](const FourBarSummary& s) { return s.U; }, fixed_scale(kSpoolScale)});
    f.push_back({"s", [](const FourBarSummary& s) { return s.s; }, fixed_scale(kLengthScale)});
    f.push_back({"cylinder_work", [](const FourBarSummary& s) { return s.cylinder_work; }, energy});
    f.push_back({"friction_work", [](const FourBarSummary& s) { return s.friction_work; }, energy});
    f.push_back({"max_cylinder_work", [](const FourBarSummary& s) { return s.max_cylinder_work; }, energy});
    f.push_back({"peak_energy_drift", [](const FourBarSummary& s) { return s.peak_energy_drift; }, energy});
    f.push_back({"final_energy_drift", [](const FourBarSummary& s) { return s.final_energy_drift; }, energy});
    f.push_back({"newton_iterations", [](const FourBarSummary& s) { return double(s.newton_iterations); }, fixed_scale(0.0),
                 true});
    f.push_back({"max_newton_iterations", [](const FourBarSummary& s) { return double(s.max_newton_iterations); },
                 fixed_scale(0.0), true});
    f.push_back({"max_constraint_violation", [](const FourBarSummary& s) { return s.max_constraint_violation; },
                 fixed_scale(kLengthScale)});
    f.push_back({"settling_time", [](const FourBarSummary& s) { return s.settling_time; }, fixed_scale(kTimeScale)});
    f.push_back({"tracking_rms", [](const FourBarSummary& s) { return s.tracking_rms; }, fixed_scale(kAngleScale)});
    return f;
  }();
  return fields;
}

// Every member of Sample<3, 3>; the names are those of /trajectories.
inline const std::vector<SampleField>& sample_fields() {
  static const std::vector<SampleField> fields = [] {
    std::vector<SampleField> f;
    f.push_back({"t", [](const FourBarSample& s) { return s.t; }, fixed_scale(kTimeScale)});
    for (int k = 0; k < 3; ++k)
      f.push_back({"q" + std::to_string(k + 1), [k](const FourBarSample& s) { return s.q[k]; }, fixed_scale(kAngleScale)});
    for (int k = 0; k < 3; ++k)
      f.push_back({"p" + std::to_string(k + 1), [k](const FourBarSample& s) { return s.p[k]; }, fixed_scale(kPressureScale)});
    f.push_back({"U", [](const FourBarSample& s) { return s.U; }, fixed_scale(kSpoolScale)});
    f.push_back({"s", [](const FourBarSample& s) { return s.s; }, fixed_scale(kLengthScale)});
    f.push_back({"sdot", [](const FourBarSample& s) { return s.sdot; }, fixed_scale(kSpeedScale)});
    f.push_back({"piston_force", [](const FourBarSample& s) { return s.piston_force; }, fixed_scale(kForceScale)});
    f.push_back({"friction_force", [](const FourBarSample& s) { return s.friction_force; }, fixed_scale(kForceScale)});
    f.push_back({"energy_drift", [](const FourBarSample& s) { return s.energy_drift; },
                 std::function<double(const FourBarSummary&)>(energy_scale)});
    return f;
  }();
  return fields;
}

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
  BatchSpec spec;
  FourBarParams base;
  model_defaults("four-bar", base);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (long i = 0; i < n; ++i) {
    FourBarParams p = base;
    p.friction.coulomb_force *= 0.5 + u(rng);
    p.friction.static_force *= 0.5 + u(rng);
    p.circuit.oil_bulk_modulus *= 0.7 + 0.6 * u(rng);
    p.circuit.valve_time_constant *= 0.5 + u(rng);
    p.circuit.supply_pressure *= 0.8 + 0.4 * u(rng);
    p.input.gain = u(rng) < 0.05 ? 20.0 + 40.0 * u(rng) : 0.8 + 0.4 * u(rng);
    spec.instances.push_back(p);
  }
  spec.settings.duration = duration;
  spec.trajectory_stride = stride;
  spec.threads = 2;
  BatchSpec nominal = spec;
  nominal.instances = {base};
  nominal.trajectory_stride = 1;
  const BatchResult r = run_batch_cpu(nominal);
  for (const auto& sample : r.trajectories) spec.reference.push_back(sample.q[0]);
  return spec;
}

inline long failed_count(const BatchResult& r) {
  return std::count_if(r.summaries.begin(), r.summaries.end(),
                       [](const FourBarSummary& s) { return s.status != Status::ok; });
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

// Every summary field of every instance and every channel of every sample
// (those after a failure included: both must leave them blank, t = NaN)
// within `tolerance` in units of max(|a|, |b|, the field's scale);
// tolerance 0: bit-identical. Same failed lists. Returns the worst difference.
inline WorstDifference expect_agreement(const BatchResult& ref, const BatchResult& other, double tolerance) {
  WorstDifference worst;
  EXPECT_EQ(ref.failed_indices, other.failed_indices);
  EXPECT_EQ(ref.samples_per_instance, other.samples_per_instance);
  if (ref.summaries.size() != other.summaries.size() || ref.trajectories.size() != other.trajectories.size()) {
    ADD_FAILURE() << "sizes differ: " << ref.summaries.size() << " vs " << other.summaries.size() << " summaries, "
                  << ref.trajectories.size() << " vs " << other.trajectories.size() << " samples";
    return worst;
  }
  int reported = 0;  // the first few mismatches in full, then only the count
  long mismatches = 0;
  auto check = [&](double a, double b, double scale, const std::string& what, long i, long k) {
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
  for (size_t i = 0; i < ref.summaries.size(); ++i) {
    const FourBarSummary &a = ref.summaries[i], &b = other.summaries[i];
    for (const auto& f : summary_fields()) check(f.value(a), f.value(b), f.scale(a), f.name, long(i), -1);
    for (long k = 0; k < m; ++k) {
      const FourBarSample &sa = ref.trajectories[i * m + k], &sb = other.trajectories[i * m + k];
      for (const auto& f : sample_fields())
        check(f.value(sa), f.value(sb), f.scale(a), "trajectory " + f.name, long(i), k);
    }
  }
  EXPECT_EQ(mismatches, 0) << "worst: " << worst.text();
  return worst;
}

}  // namespace hs::backend_test
