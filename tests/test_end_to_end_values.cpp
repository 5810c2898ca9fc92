// End-to-end value checks (issue 11 item 1): the built `hydrosweep run` and
// `hydrosweep stability` executables on a small study of every design type,
// their files read back and compared value by value with what this process
// computes from the same study file:
//   - /outputs and summary.csv: the kernel's own summary of each instance
//     (run_batch_cpu on that one instance, the code path of the CPU backend),
//     read from the RunSummary fields directly (tests/backend_agreement.hpp),
//     never through host/results/output.cpp's column accessors;
//   - /trajectories: the kernel's samples, every channel of Sample;
//   - /inputs/<name>, /inputs/all and summary.csv's inputs: the design
//     (Study::varied_values, Study::instance through the parameter table);
//   - /analysis: summarize_monte_carlo, failure_probability and sobol_indices
//     (host/results/analysis.hpp) of the read-back outputs with the study's bootstrap
//     settings; a Saltelli design's statistics from its A and B rows only;
//   - stability.h5 and stability.csv: stability_point
//     (kernels/linearize/stability.hpp) of each instance, dispatched on the
//     study's model and friction law as host/run/stability_map.cpp does.
// Same code, same build, same machine: every comparison is bit for bit
// (NaN equals NaN). The executable runs with --backend cpu, so a GPU machine
// (where auto picks CUDA) compares the same thing.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "host/results/analysis.hpp"
#include "host/registry/models.hpp"
#include "host/cli/run_study.hpp"
#include "host/run/reference_run.hpp"
#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/models/planar_chain_dae.hpp"
#include "kernels/models/spatial_four_bar.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "tests/backend_agreement.hpp"
#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using namespace cli_test;
using hs::backend_test::identical;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Bit for bit, or both NaN; the message names the value and prints both
// with 17 digits.
testing::AssertionResult bit_identical(double expected, double actual, const std::string& what) {
  if (identical(expected, actual)) return testing::AssertionSuccess();
  char text[160];
  std::snprintf(text, sizeof text, ": expected %.17g, got %.17g", expected, actual);
  return testing::AssertionFailure() << what << text;
}
#define EXPECT_IDENTICAL(expected, actual, what) EXPECT_TRUE(bit_identical((expected), (actual), (what)))

// ---- the studies -------------------------------------------------------------------

// 3 s of the seed 002 work cycle (valve open 1–2.5 s, closed after: motion,
// pressure peaks and settling), trajectories every 250 steps (13 samples).
std::string run_study(const std::string& body, const std::string& integrator = "") {
  return "[integrator]\nduration = 3.0\n" + integrator + "[output]\ntrajectory_stride = 250\n" + body;
}

// Grid: gain 10 makes the pressure leave its range mid-run (pressure_out_of_range
// at t = 1.79 s), so failed instances are carried through outputs and analysis.
const std::string kGridStudy = run_study(R"([study]
friction = "brown-mcphee"
[[grid]]
parameter = "input.gain"
values = [1.0, 10.0]
[[grid]]
parameter = "friction.coulomb_force"
min = 150.0
max = 300.0
count = 3
[derived]
"friction.static_force" = "4 * friction.coulomb_force"
[analysis]
quantities = ["p2_max", "cylinder_work", "settling_time"]
bootstrap = 200
[analysis.limit]
quantity = "p2_max"
above = 3.32e6
)");

// Latin hypercube, Bengisu-Akay, the forward-difference tangent, a scale
// factor and a derived parameter.
const std::string kLhsStudy = run_study(R"([study]
friction = "bengisu-akay"
[sample]
method = "lhs"
count = 7
seed = 11
[[factor]]
parameter = "circuit.oil_bulk_modulus"
min = 1e9
max = 2e9
[[factor]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force"]
min = 0.5
max = 2.0
[derived]
"friction.viscous_coefficient" = "2 * friction.coulomb_force"
[analysis]
quantities = ["p1_max", "max_cylinder_work"]
bootstrap = 150
confidence = 0.9
quantile_levels = [0.1, 0.5, 0.9]
[analysis.limit]
quantity = "max_cylinder_work"
below = 20.0
)", "tangent = \"finite-difference\"\n");

// Scrambled Sobol', no friction, a relative and a normal law, no reference
// run (tracking_rms NaN).
const std::string kSobolStudy = run_study(R"([study]
friction = "none"
[sample]
method = "sobol"
count = 8
seed = 3
[[factor]]
parameter = "circuit.valve_time_constant"
relative = 0.2
[[factor]]
parameter = "circuit.supply_pressure"
distribution = "normal"
mean = 7.6e6
std = 3e5
[analysis]
quantities = ["q1", "tracking_rms"]
bootstrap = 100
reference_run = false
[analysis.limit]
quantity = "q1"
above = 0.9
)");

// Monte Carlo: initial piston-side chamber lengths up to 1.1 m in the 1 m
// cylinder make some instances inadmissible (invalid_parameters), lognormal
// gains make some fail in the kernel (seed 4: instance 7 inadmissible,
// 3 stroke_out_of_range, 8 pressure_out_of_range; the loader refuses a design
// whose instance 0 is inadmissible).
const std::string kMonteCarloStudy = run_study(R"([sample]
method = "monte-carlo"
count = 12
seed = 4
[[factor]]
parameter = "circuit.piston_chamber_length0"
min = 0.3
max = 1.1
[[factor]]
parameter = "input.gain"
distribution = "lognormal"
median = 1.0
sigma_log = 0.8
[analysis]
quantities = ["p2_max", "tracking_rms"]
bootstrap = 100
[analysis.limit]
quantity = "p2_max"
above = 3.3e6
)");

// Saltelli, N = 6 base samples of d = 2 factors: 24 instances.
const std::string kSaltelliStudy = run_study(R"([sample]
method = "saltelli"
count = 6
seed = 9
[[factor]]
parameter = "friction.coulomb_force"
min = 100.0
max = 400.0
[[factor]]
parameter = "circuit.oil_bulk_modulus"
min = 1e9
max = 2e9
[analysis]
quantities = ["p2_max", "final_energy_drift"]
bootstrap = 100
[analysis.limit]
quantity = "p2_max"
above = 3.32e6
)");

// No varied parameter: one instance, the study's base.
const std::string kSingleStudy = run_study(R"([parameters]
"circuit.oil_bulk_modulus" = 1.2e9
[analysis]
quantities = ["p2_max"]
bootstrap = 50
[analysis.limit]
quantity = "p2_max"
below = 1e7
)");

// ---- what this process computes ------------------------------------------------------

using FourBarSummary = hs::RunSummary<3, 3>;
using FourBarSample = hs::Sample<3, 3>;

// Every field of RunSummary and of Sample, named as results.h5 names it, read
// straight from the kernel's structs (never through the flat layout of
// kernels/integrators/run_columns.hpp, so a swapped or misnamed column there
// is caught here).
inline double energy_scale(const FourBarSummary& s) { return std::max(s.max_cylinder_work, hs::backend_test::kEnergyFloor); }

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
// included; the names are those of /outputs (host/results/output.hpp).
inline const std::vector<SummaryField>& summary_fields() {
  static const std::vector<SummaryField> fields = [] {
    std::vector<SummaryField> f;
    const auto energy = std::function<double(const FourBarSummary&)>(energy_scale);
    f.push_back({"status", [](const FourBarSummary& s) { return double(static_cast<int>(s.status)); }, fixed_scale(0.0),
                 true});
    f.push_back({"t_end", [](const FourBarSummary& s) { return s.t_end; }, fixed_scale(hs::backend_test::kTimeScale)});
    f.push_back({"steps", [](const FourBarSummary& s) { return double(s.steps); }, fixed_scale(0.0), true});
    for (int k = 0; k < 3; ++k) {
      const std::string n = std::to_string(k + 1);
      f.push_back({"q" + n, [k](const FourBarSummary& s) { return s.q[k]; }, fixed_scale(hs::backend_test::kAngleScale)});
      f.push_back({"qd" + n, [k](const FourBarSummary& s) { return s.qd[k]; }, fixed_scale(hs::backend_test::kRateScale)});
      f.push_back({"p" + n, [k](const FourBarSummary& s) { return s.p[k]; }, fixed_scale(hs::backend_test::kPressureScale)});
      f.push_back({"p" + n + "_min", [k](const FourBarSummary& s) { return s.p_min[k]; }, fixed_scale(hs::backend_test::kPressureScale)});
      f.push_back({"p" + n + "_max", [k](const FourBarSummary& s) { return s.p_max[k]; }, fixed_scale(hs::backend_test::kPressureScale)});
    }
    f.push_back({"U", [](const FourBarSummary& s) { return s.U[0]; }, fixed_scale(hs::backend_test::kSpoolScale)});
    f.push_back({"s", [](const FourBarSummary& s) { return s.s[0]; }, fixed_scale(hs::backend_test::kLengthScale)});
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
                 fixed_scale(hs::backend_test::kLengthScale)});
    f.push_back({"settling_time", [](const FourBarSummary& s) { return s.settling_time; }, fixed_scale(hs::backend_test::kTimeScale)});
    f.push_back({"tracking_rms", [](const FourBarSummary& s) { return s.tracking_rms; }, fixed_scale(hs::backend_test::kAngleScale)});
    return f;
  }();
  return fields;
}

// Every member of Sample<3, 3>; the names are those of /trajectories.
inline const std::vector<SampleField>& sample_fields() {
  static const std::vector<SampleField> fields = [] {
    std::vector<SampleField> f;
    f.push_back({"t", [](const FourBarSample& s) { return s.t; }, fixed_scale(hs::backend_test::kTimeScale)});
    for (int k = 0; k < 3; ++k)
      f.push_back({"q" + std::to_string(k + 1), [k](const FourBarSample& s) { return s.q[k]; }, fixed_scale(hs::backend_test::kAngleScale)});
    for (int k = 0; k < 3; ++k)
      f.push_back({"p" + std::to_string(k + 1), [k](const FourBarSample& s) { return s.p[k]; }, fixed_scale(hs::backend_test::kPressureScale)});
    f.push_back({"U", [](const FourBarSample& s) { return s.U[0]; }, fixed_scale(hs::backend_test::kSpoolScale)});
    f.push_back({"s", [](const FourBarSample& s) { return s.s[0]; }, fixed_scale(hs::backend_test::kLengthScale)});
    f.push_back({"sdot", [](const FourBarSample& s) { return s.sdot[0]; }, fixed_scale(hs::backend_test::kSpeedScale)});
    f.push_back({"piston_force", [](const FourBarSample& s) { return s.piston_force[0]; }, fixed_scale(hs::backend_test::kForceScale)});
    f.push_back({"friction_force", [](const FourBarSample& s) { return s.friction_force[0]; }, fixed_scale(hs::backend_test::kForceScale)});
    f.push_back({"energy_drift", [](const FourBarSample& s) { return s.energy_drift; },
                 std::function<double(const FourBarSummary&)>(energy_scale)});
    f.push_back({"newton_iterations", [](const FourBarSample& s) { return s.newton_iterations; }, fixed_scale(0.0)});
    f.push_back({"constraint_violation", [](const FourBarSample& s) { return s.constraint_violation; },
                 fixed_scale(hs::backend_test::kLengthScale)});
    return f;
  }();
  return fields;
}



// Every instance of the study run alone through run_batch_cpu, as the runner
// does it (host/run/reference_run.cpp): the nominal instance's crank angle as tracking_rms
// reference when [analysis] reference_run, inadmissible instances flagged.
struct KernelResults {
  std::vector<FourBarSummary> summaries;
  std::vector<FourBarSample> samples;  // instance-major
  long samples_per_instance = 0;
  std::vector<char> inadmissible;
};

// Each instance's row through the parameter table into the kernel's
// parameters, then the library's compilation of the study's (physics,
// friction law, formulation) kernel, called through its entry
// (host/run/backends/host_kernel_entry.hpp) on that one instance: the
// kernel's typed results. The test compiles no integrator of its own
// (docs/build.md §3).
KernelResults run_each_instance(const hs::Study& study) {
  hs::RunOptions opt;
  opt.stride = study.trajectory_stride;
  opt.settling_rate = study.analysis.settling_rate;
  const std::vector<double> reference = study.analysis.reference_run ? hs::reference_trajectory(study.record(), study.design()) : std::vector<double>{};
  if (!reference.empty()) opt.reference = reference.data();
  KernelResults out;
  const long n = study.instance_count();
  out.samples_per_instance = hs::sample_count(study.settings, study.trajectory_stride);
  hs::BatchSpec spec;
  spec.model = study.descriptor;
  spec.friction = study.friction;
  spec.formulation = study.formulation;
  const hs::HostKernelEntry entry = hs::instance_kernel_entry(spec);
  const bool found = hs::with_run_combination(
      [&](auto combination) {
        using Integrator = typename decltype(combination)::Integrator;
        using Params = typename Integrator::Params;
        if constexpr (Integrator::nq == 3 && Integrator::np == 3) {
          const Params base = hs::default_params<Params>(*study.descriptor, study.friction);
          for (long i = 0; i < n; ++i) {
            const std::vector<double> row = study.instance(i);
            const Params params = hs::unpack_row(study.descriptor->parameters, row.data(), base);
            std::vector<FourBarSample> samples(static_cast<size_t>(out.samples_per_instance));
            // Samples never recorded (after a failure) are NaN in every channel.
            static_assert(sizeof(FourBarSample) == 15 * sizeof(double), "Sample<3, 3> is 15 doubles");
            for (auto& x : samples) std::fill_n(reinterpret_cast<double*>(&x), 15, nan);
            FourBarSummary s;
            const hs::InstanceKernel<Integrator> kernel{&params, &s, samples.data(), out.samples_per_instance,
                                                        study.settings, opt, /*instance_stride=*/0, /*sample_stride=*/1};
            entry(&kernel, 0);
            const bool inadmissible = !study.instance_problem(i).empty();
            if (inadmissible) s.status = hs::Status::invalid_parameters;
            out.inadmissible.push_back(inadmissible);
            out.summaries.push_back(s);
            out.samples.insert(out.samples.end(), samples.begin(), samples.end());
          }
        } else {
          ADD_FAILURE() << "the end-to-end checks read the four-bar's RunSummary<3, 3>";
        }
      },
      study.descriptor->physics, study.friction, study.formulation);
  EXPECT_TRUE(found) << study.model;
  return out;
}

long count_status(const KernelResults& k, hs::Status s) {
  return std::count_if(k.summaries.begin(), k.summaries.end(), [s](const FourBarSummary& x) { return x.status == s; });
}

// An inadmissible instance is not the kernel's business: only its flag (and
// blank trajectories, t = NaN) are checked here; its other outputs belong to
// the failure-status suite (test_failure_status).
bool values_checked(const KernelResults& k, long i) { return !k.inadmissible[i]; }

// The output columns: every RunSummary field except status, plus the one
// derived column (newton_iterations / steps).
std::set<std::string> expected_output_columns() {
  std::set<std::string> names{"mean_newton_iterations"};
  for (const auto& f : summary_fields())
    if (f.name != "status") names.insert(f.name);
  return names;
}
double mean_newton_iterations(const FourBarSummary& s) {
  return s.steps > 0 ? double(s.newton_iterations) / double(s.steps) : nan;
}

// ---- checks -------------------------------------------------------------------------

// /inputs/<name> (and the group's "varied" list) against Study::varied_values,
// /inputs/all against Study::instance read through the parameter table.
void check_inputs(hid_t file, const hs::Study& study) {
  const long n = study.instance_count();
  const std::vector<std::string> names = study.varied_names();
  EXPECT_EQ(string_array_attribute(file, "/inputs", "varied"), names);
  std::set<std::string> datasets(names.begin(), names.end());
  datasets.insert("all");
  const auto members = h5_members(file, "/inputs");
  EXPECT_EQ(std::set<std::string>(members.begin(), members.end()), datasets);
  for (size_t k = 0; k < names.size(); ++k) {
    const auto column = read_doubles(file, "/inputs/" + names[k]);
    ASSERT_EQ(column.size(), size_t(n)) << names[k];
    for (long i = 0; i < n; ++i)
      EXPECT_IDENTICAL(study.varied_values(i)[k], column[i], "/inputs/" + names[k] + " of instance " + std::to_string(i));
  }
  // Every parameter of the model's table, read from the kernel's parameters
  // at the table's offset (an integer one, the schedule's segment count, as int).
  const auto& params = study.descriptor->parameters;
  std::vector<std::string> param_names;
  for (const auto& p : params) param_names.push_back(p.name);
  EXPECT_EQ(string_array_attribute(file, "/inputs/all", "columns"), param_names);
  ASSERT_EQ(dims_of(file, "/inputs/all"), (std::vector<hsize_t>{hsize_t(n), params.size()}));
  const auto all = read_doubles(file, "/inputs/all");
  const hs::FourBarParams base = hs::default_params<hs::FourBarParams>(*study.descriptor, study.friction);
  for (long i = 0; i < n; ++i) {
    const std::vector<double> row = study.instance(i);
    const hs::FourBarParams instance = hs::unpack_row(params, row.data(), base);
    for (size_t k = 0; k < params.size(); ++k) {
      const char* at = reinterpret_cast<const char*>(&instance) + params[k].offset;
      double value;
      if (params[k].integer) {
        int v;
        std::memcpy(&v, at, sizeof v);
        value = v;
      } else {
        std::memcpy(&value, at, sizeof value);
      }
      EXPECT_IDENTICAL(value, all[i * params.size() + k], "/inputs/all " + params[k].name + " of instance " + std::to_string(i));
    }
  }
}

// /outputs: the set of datasets, the integer/double type of each, every value.
void check_outputs(hid_t file, const KernelResults& kernel) {
  const long n = long(kernel.summaries.size());
  std::set<std::string> expected = expected_output_columns();
  expected.insert("status");
  const auto members = h5_members(file, "/outputs");
  EXPECT_EQ(std::set<std::string>(members.begin(), members.end()), expected);
  for (const auto& f : summary_fields()) {
    const std::string path = "/outputs/" + f.name;
    const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
    ASSERT_GE(d, 0) << path;
    const hid_t type = H5Dget_type(d);
    EXPECT_EQ(H5Tget_class(type) == H5T_INTEGER, f.integer) << path << " has the wrong type class";
    H5Tclose(type);
    H5Dclose(d);
    if (f.integer) {
      const auto v = read_int64s(file, path);
      ASSERT_EQ(v.size(), size_t(n)) << path;
      for (long i = 0; i < n; ++i) {
        if (values_checked(kernel, i) || f.name == "status") {
          EXPECT_EQ(static_cast<long long>(f.value(kernel.summaries[i])), v[i]) << path << " of instance " << i;
        }
      }
    } else {
      const auto v = read_doubles(file, path);
      ASSERT_EQ(v.size(), size_t(n)) << path;
      for (long i = 0; i < n; ++i) {
        if (values_checked(kernel, i)) {
          EXPECT_IDENTICAL(f.value(kernel.summaries[i]), v[i], path + " of instance " + std::to_string(i));
        }
      }
    }
  }
  const auto mean = read_doubles(file, "/outputs/mean_newton_iterations");
  ASSERT_EQ(mean.size(), size_t(n));
  for (long i = 0; i < n; ++i) {
    if (values_checked(kernel, i)) {
      EXPECT_IDENTICAL(mean_newton_iterations(kernel.summaries[i]), mean[i],
                       "mean_newton_iterations of instance " + std::to_string(i));
    }
  }
}

// /trajectories: every channel of Sample, N x M, against the kernel's samples.
void check_trajectories(hid_t file, const KernelResults& kernel) {
  const long n = long(kernel.summaries.size()), m = kernel.samples_per_instance;
  ASSERT_GT(m, 1);
  std::set<std::string> expected;
  for (const auto& f : sample_fields()) expected.insert(f.name);
  const auto members = h5_members(file, "/trajectories");
  EXPECT_EQ(std::set<std::string>(members.begin(), members.end()), expected);
  for (const auto& f : sample_fields()) {
    const std::string path = "/trajectories/" + f.name;
    ASSERT_EQ(dims_of(file, path), (std::vector<hsize_t>{hsize_t(n), hsize_t(m)})) << path;
    const auto v = read_doubles(file, path);
    for (long i = 0; i < n; ++i)
      for (long k = 0; k < m; ++k) {
        const std::string what = path + " of instance " + std::to_string(i) + ", sample " + std::to_string(k);
        if (values_checked(kernel, i)) {
          EXPECT_IDENTICAL(f.value(kernel.samples[i * m + k]), v[i * m + k], what);
        } else if (f.name == "t") {
          EXPECT_TRUE(std::isnan(v[i * m + k])) << what << ": an inadmissible instance has no samples";
        }
      }
  }
}

// summary.csv: header = index, status, varied inputs, every output column;
// one row per instance with the design's inputs and the kernel's outputs.
void check_summary_csv(const fs::path& csv, const hs::Study& study, const KernelResults& kernel) {
  const auto rows = read_csv(csv);
  const long n = long(kernel.summaries.size());
  ASSERT_EQ(rows.size(), size_t(n + 1));
  const auto& header = rows[0];
  const std::vector<std::string> varied = study.varied_names();
  const std::set<std::string> outputs = expected_output_columns();
  ASSERT_EQ(header.size(), 2 + varied.size() + outputs.size());
  EXPECT_EQ(header[0], "index");
  EXPECT_EQ(header[1], "status");
  EXPECT_EQ(std::vector<std::string>(header.begin() + 2, header.begin() + 2 + varied.size()), varied);
  EXPECT_EQ(std::set<std::string>(header.begin() + 2 + varied.size(), header.end()), outputs);
  for (long i = 0; i < n; ++i) {
    const auto& row = rows[i + 1];
    ASSERT_EQ(row.size(), header.size()) << "row of instance " << i;
    EXPECT_EQ(row[0], std::to_string(i));
    const FourBarSummary& s = kernel.summaries[i];
    EXPECT_EQ(row[1], hs::status_name(s.status)) << "instance " << i;
    const std::vector<double> inputs = study.varied_values(i);
    for (size_t k = 0; k < varied.size(); ++k)
      EXPECT_IDENTICAL(inputs[k], csv_double(row[2 + k]), "summary.csv " + varied[k] + " of instance " + std::to_string(i));
    if (!values_checked(kernel, i)) continue;
    for (const auto& f : summary_fields()) {
      if (f.name == "status") continue;
      const std::string& cell = row[csv_column(header, f.name)];
      if (f.integer) EXPECT_EQ(std::to_string(static_cast<long long>(f.value(s))), cell) << f.name << " of instance " << i;
      else EXPECT_IDENTICAL(f.value(s), csv_double(cell), "summary.csv " + f.name + " of instance " + std::to_string(i));
    }
    EXPECT_IDENTICAL(mean_newton_iterations(s), csv_double(row[csv_column(header, "mean_newton_iterations")]),
                     "summary.csv mean_newton_iterations of instance " + std::to_string(i));
  }
}

void expect_interval(const hs::ConfidenceInterval& ci, hid_t file, const std::string& object, const std::string& low,
                     const std::string& high) {
  EXPECT_IDENTICAL(ci.lower, double_attribute(file, object, low), object + " " + low);
  EXPECT_IDENTICAL(ci.upper, double_attribute(file, object, high), object + " " + high);
}

// The rows whose outputs are independent draws of the inputs: all rows, or a
// Saltelli design's A and B rows (role i % (d + 2) = 0 or 1, host/design/sampling.hpp;
// read from /metadata/design/saltelli_role when the file has it).
std::vector<char> independent_rows(hid_t file, const hs::Study& study) {
  const long n = study.instance_count();
  if (study.method != hs::SampleMethod::saltelli) return std::vector<char>(n, 1);
  const long block = long(hs::saltelli_block_size(study.grid.size()));
  std::vector<long long> role(n);
  for (long i = 0; i < n; ++i) role[i] = i % block;
  const std::string roles = "/metadata/design/saltelli_role";
  if (h5_exists(file, roles)) {
    EXPECT_EQ(read_int64s(file, roles), role) << roles;
  }
  std::vector<char> use(n);
  for (long i = 0; i < n; ++i) use[i] = role[i] == long(hs::saltelli_role_a) || role[i] == long(hs::saltelli_role_b);
  return use;
}

// /analysis against the analysis functions applied to the read-back outputs.
void check_analysis(hid_t file, const hs::Study& study) {
  const hs::AnalysisSpec& spec = study.analysis;
  const long n = study.instance_count();
  // The bootstrap settings: the study's, as /metadata records them.
  hs::BootstrapOptions boot;
  boot.resamples = size_t(spec.bootstrap);
  boot.level = spec.confidence;
  boot.seed = hs::study_bootstrap_seed(study.seed);
  EXPECT_EQ(int_attribute(file, "/metadata", "bootstrap_resamples"), spec.bootstrap);
  EXPECT_EQ(static_cast<std::uint64_t>(int_attribute(file, "/metadata", "bootstrap_seed")), boot.seed);

  const auto status = read_int64s(file, "/outputs/status");
  ASSERT_EQ(status.size(), size_t(n));
  const std::vector<char> independent = independent_rows(file, study);
  // A failed instance's output is NaN for the statistics (host/results/analysis.hpp).
  auto outputs = [&](const std::string& q) {
    std::vector<double> v = read_doubles(file, "/outputs/" + q);
    for (long i = 0; i < n; ++i)
      if (status[i] != 0) v[i] = nan;
    return v;
  };
  auto draws = [&](const std::vector<double>& v) {
    std::vector<double> d;
    for (long i = 0; i < n; ++i)
      if (independent[i]) d.push_back(v[i]);
    return d;
  };

  long long failed_draws = 0;
  for (long i = 0; i < n; ++i) failed_draws += independent[i] && status[i] != 0;
  EXPECT_EQ(string_array_attribute(file, "/analysis", "quantities"), spec.quantities);
  EXPECT_IDENTICAL(spec.confidence, double_attribute(file, "/analysis", "confidence"), "/analysis confidence");
  for (const auto& q : spec.quantities) {
    const std::vector<double> v = outputs(q);
    const hs::MonteCarloSummary m = hs::summarize_monte_carlo(draws(v), spec.quantile_levels, boot);
    const std::string g = "/analysis/statistics/" + q;
    ASSERT_TRUE(h5_exists(file, g)) << g;
    EXPECT_IDENTICAL(m.mean, double_attribute(file, g, "mean"), g + " mean");
    EXPECT_IDENTICAL(m.std_dev, double_attribute(file, g, "std"), g + " std");
    expect_interval(m.mean_ci, file, g, "mean_ci_low", "mean_ci_high");
    expect_interval(m.std_dev_ci, file, g, "std_ci_low", "std_ci_high");
    EXPECT_EQ(int_attribute(file, g, "count_ok"), (long long)m.valid) << g;
    // Failed instances and the ok instances whose quantity is undefined (NaN
    // settling_time) are told apart; together they are the statistics' drops.
    EXPECT_EQ(int_attribute(file, g, "count_failed"), failed_draws) << g;
    EXPECT_EQ(int_attribute(file, g, "count_undefined"), (long long)(m.failed + m.infinite) - failed_draws) << g;
    EXPECT_IDENTICAL(spec.confidence, double_attribute(file, g, "confidence"), g + " confidence");
    const auto levels = read_doubles(file, g + "/quantile_levels"), values = read_doubles(file, g + "/quantiles");
    const auto low = read_doubles(file, g + "/quantile_ci_low"), high = read_doubles(file, g + "/quantile_ci_high");
    ASSERT_EQ(levels.size(), m.quantiles.size()) << g;
    ASSERT_TRUE(values.size() == levels.size() && low.size() == levels.size() && high.size() == levels.size()) << g;
    for (size_t k = 0; k < m.quantiles.size(); ++k) {
      const std::string at = g + " quantile " + std::to_string(k);
      EXPECT_IDENTICAL(m.quantiles[k].probability, levels[k], at + " level");
      EXPECT_IDENTICAL(m.quantiles[k].value, values[k], at);
      EXPECT_IDENTICAL(m.quantiles[k].ci.lower, low[k], at + " ci_low");
      EXPECT_IDENTICAL(m.quantiles[k].ci.upper, high[k], at + " ci_high");
    }
    if (study.method != hs::SampleMethod::saltelli) {
      EXPECT_FALSE(h5_exists(file, "/analysis/sobol")) << "Sobol' indices need a Saltelli design";
      continue;
    }
    // Sobol' indices use every row of the design.
    const hs::SobolIndices s = hs::sobol_indices(v, study.grid.size(), boot);
    const std::string so = "/analysis/sobol/" + q;
    ASSERT_TRUE(h5_exists(file, so)) << so;
    std::vector<std::string> factors;
    for (const auto& f : study.grid) factors.push_back(f.name);
    EXPECT_EQ(string_array_attribute(file, so, "factors"), factors);
    EXPECT_EQ(int_attribute(file, so, "base_samples"), (long long)s.base_rows);
    EXPECT_EQ(int_attribute(file, so, "dropped_rows"), (long long)s.dropped_rows);
    EXPECT_IDENTICAL(s.output_variance, double_attribute(file, so, "variance"), so + " variance");
    const std::vector<std::pair<std::string, const std::vector<hs::IndexEstimate>*>> kinds = {
        {"first_order", &s.first_order}, {"total", &s.total_order}};
    for (const auto& [name, estimates] : kinds) {
      const auto value = read_doubles(file, so + "/" + name), low_ci = read_doubles(file, so + "/" + name + "_ci_low"),
                 high_ci = read_doubles(file, so + "/" + name + "_ci_high");
      ASSERT_EQ(value.size(), estimates->size()) << so << "/" << name;
      ASSERT_TRUE(low_ci.size() == value.size() && high_ci.size() == value.size()) << so << "/" << name;
      for (size_t k = 0; k < value.size(); ++k) {
        const std::string at = so + "/" + name + " of " + factors[k];
        EXPECT_IDENTICAL((*estimates)[k].value, value[k], at);
        EXPECT_IDENTICAL((*estimates)[k].ci.lower, low_ci[k], at + " ci_low");
        EXPECT_IDENTICAL((*estimates)[k].ci.upper, high_ci[k], at + " ci_high");
      }
    }
  }

  ASSERT_TRUE(spec.has_limit);
  const std::string g = "/analysis/failure";
  ASSERT_TRUE(h5_exists(file, g));
  const hs::FailureProbability f =
      hs::failure_probability(draws(outputs(spec.limit_quantity)), spec.limit,
                              spec.limit_above ? hs::LimitState::above : hs::LimitState::below, spec.confidence);
  EXPECT_EQ(string_attribute(file, g, "quantity"), spec.limit_quantity);
  EXPECT_IDENTICAL(spec.limit, double_attribute(file, g, "limit"), g + " limit");
  EXPECT_EQ(string_attribute(file, g, "direction"), spec.limit_above ? "above" : "below");
  EXPECT_IDENTICAL(f.estimate, double_attribute(file, g, "probability"), g + " probability");
  expect_interval(f.ci, file, g, "ci_low", "ci_high");
  EXPECT_EQ(int_attribute(file, g, "failures"), (long long)f.failures);
  EXPECT_EQ(int_attribute(file, g, "count"), (long long)f.valid);
  EXPECT_EQ(int_attribute(file, g, "failed_instances"), (long long)f.failed_instances);
}

// Saltelli et al. (2010) Table 2 first-order estimator (b) and Jansen (1999)
// total estimator (f), written out again from host/results/analysis.hpp's
// description: blocks with a non-finite output dropped, outputs centred at
// the pooled mean of f(A) and f(B), V their unbiased pooled variance. An
// oracle for the point estimates that does not share host/results/analysis.cpp's code
// (comparing with sobol_indices alone could not catch a wrong estimator).
struct SobolPointEstimates {
  std::vector<double> first, total;
  // Σ|term| / (N V) of each estimator: the size of what was summed, which
  // sets its rounding error (the first-order sum cancels, the total's not).
  std::vector<double> first_magnitude, total_magnitude;
};
SobolPointEstimates sobol_by_definition(const std::vector<double>& y, size_t d) {
  const size_t block = d + 2;
  std::vector<const double*> blocks;
  for (size_t r = 0; r + block <= y.size(); r += block)
    if (std::all_of(y.begin() + r, y.begin() + r + block, [](double v) { return std::isfinite(v); }))
      blocks.push_back(&y[r]);
  const double n = double(blocks.size());
  double mean = 0.0;
  for (const double* f : blocks) mean += f[0] + f[1];
  mean /= 2.0 * n;
  double squares = 0.0;
  for (const double* f : blocks) squares += (f[0] - mean) * (f[0] - mean) + (f[1] - mean) * (f[1] - mean);
  const double variance = squares / (2.0 * n - 1.0);
  const std::vector<double> zeros(d, 0.0);
  SobolPointEstimates s{zeros, zeros, zeros, zeros};
  for (size_t i = 0; i < d; ++i) {
    for (const double* f : blocks) {
      const double a = f[0] - mean, b = f[1] - mean, ab = f[2 + i] - mean;
      s.first[i] += b * (ab - a);
      s.first_magnitude[i] += std::fabs(b * (ab - a));
      s.total[i] += (a - ab) * (a - ab);
    }
    s.first[i] /= n * variance;
    s.first_magnitude[i] /= n * variance;
    s.total[i] /= 2.0 * n * variance;
    s.total_magnitude[i] = s.total[i];
  }
  return s;
}

// Runs `hydrosweep run` on the study text and checks every file against this
// process's results; returns them for study-specific checks.
struct RunCheck {
  hs::Study study;
  KernelResults kernel;
};
RunCheck check_run(const TempDir& tmp, const std::string& text) {
  const fs::path path = tmp.path / "study.toml", out = tmp.path / "out";
  write_file(path, text);
  const Result r = hydrosweep("run '" + path.string() + "' --out '" + out.string() + "' --backend cpu -q", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  RunCheck c{hs::load_study(path.string()), {}};
  c.kernel = run_each_instance(c.study);
  if (r.code != 0) return c;
  H5File file(out / "results.h5");
  EXPECT_GE(file.id, 0);
  if (file.id < 0) return c;
  EXPECT_EQ(int_attribute(file.id, "/metadata", "instance_count"), c.study.instance_count());
  check_inputs(file.id, c.study);
  check_outputs(file.id, c.kernel);
  check_trajectories(file.id, c.kernel);
  check_analysis(file.id, c.study);
  check_summary_csv(out / "summary.csv", c.study, c.kernel);
  return c;
}

}  // namespace

// ---- hydrosweep run --------------------------------------------------------------------

TEST(EndToEndValues, GridStudy) {
  TempDir tmp;
  const RunCheck c = check_run(tmp, kGridStudy);
  EXPECT_EQ(c.study.instance_count(), 6);
  EXPECT_EQ(count_status(c.kernel, hs::Status::pressure_out_of_range), 3) << "gain 10 should fail at every friction";
}

TEST(EndToEndValues, LatinHypercubeStudy) {
  TempDir tmp;
  const RunCheck c = check_run(tmp, kLhsStudy);
  EXPECT_EQ(c.study.instance_count(), 7);
  EXPECT_EQ(count_status(c.kernel, hs::Status::ok), 7);
}

TEST(EndToEndValues, SobolStudy) {
  TempDir tmp;
  const RunCheck c = check_run(tmp, kSobolStudy);
  EXPECT_EQ(c.study.instance_count(), 8);
  EXPECT_EQ(count_status(c.kernel, hs::Status::ok), 8);
}

TEST(EndToEndValues, MonteCarloStudyWithInadmissibleAndFailedInstances) {
  TempDir tmp;
  const RunCheck c = check_run(tmp, kMonteCarloStudy);
  EXPECT_EQ(c.study.instance_count(), 12);
  // Both kinds of failure are drawn (the checks above cover how they are carried).
  EXPECT_EQ(count_status(c.kernel, hs::Status::invalid_parameters), 1);
  EXPECT_EQ(count_status(c.kernel, hs::Status::stroke_out_of_range), 1);
  EXPECT_EQ(count_status(c.kernel, hs::Status::pressure_out_of_range), 1);
  EXPECT_EQ(count_status(c.kernel, hs::Status::ok), 9);
}

// The statistics of a Saltelli design come from its 2N A and B rows only
// (checked inside check_analysis); here also that this choice is visible,
// i.e. the statistics over all N(d + 2) rows differ, so the check can fail.
TEST(EndToEndValues, SaltelliStudyStatisticsUseTheAAndBRowsOnly) {
  TempDir tmp;
  const RunCheck c = check_run(tmp, kSaltelliStudy);
  ASSERT_EQ(c.study.instance_count(), 6 * 4);
  std::vector<double> all, ab;
  for (long i = 0; i < c.study.instance_count(); ++i) {
    all.push_back(c.kernel.summaries[i].p_max[1]);
    if (i % 4 < 2) ab.push_back(c.kernel.summaries[i].p_max[1]);
  }
  ASSERT_EQ(ab.size(), 12u);
  hs::BootstrapOptions no_bootstrap;
  no_bootstrap.resamples = 0;
  const auto from_ab = hs::summarize_monte_carlo(ab, {0.5}, no_bootstrap);
  const auto from_all = hs::summarize_monte_carlo(all, {0.5}, no_bootstrap);
  EXPECT_NE(from_ab.mean, from_all.mean);
  H5File file(tmp.path / "out" / "results.h5");
  EXPECT_IDENTICAL(from_ab.mean, double_attribute(file.id, "/analysis/statistics/p2_max", "mean"), "p2_max mean");
  EXPECT_EQ(int_attribute(file.id, "/analysis/statistics/p2_max", "count_ok"), 12);
  EXPECT_EQ(int_attribute(file.id, "/analysis/failure", "count"), 12);

  // The written Sobol' indices against the estimators' definitions (all 24 rows).
  const SobolPointEstimates expected = sobol_by_definition(all, 2);
  const auto first = read_doubles(file.id, "/analysis/sobol/p2_max/first_order");
  const auto total = read_doubles(file.id, "/analysis/sobol/p2_max/total");
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(total.size(), 2u);
  // The two codes sum the same terms in possibly different order and
  // contraction. Bound: 16 eps times the summed magnitude Σ|term|/(N V), the
  // rounding scale of a sum of that size (the first-order sum cancels: 0.108
  // summed for S_0 = 0.0100). Measured 1 ulp (gcc -O3 -march=native): S_1 =
  // 1.275 off by 2.2e-16 against a bound of 5.1e-15, S_0 by 1.7e-18 against
  // 3.8e-16; it holds in the ASan + UBSan -O1 build without FMA too. The bound
  // stays below 1e-13 of every index here, so a wrong estimator cannot hide in it.
  constexpr double eps = std::numeric_limits<double>::epsilon();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(first[i], expected.first[i], 16 * eps * expected.first_magnitude[i]) << "first-order index of factor " << i;
    EXPECT_NEAR(total[i], expected.total[i], 16 * eps * expected.total_magnitude[i]) << "total index of factor " << i;
  }
}

TEST(EndToEndValues, StudyWithoutVariedParameters) {
  TempDir tmp;
  const RunCheck c = check_run(tmp, kSingleStudy);
  EXPECT_EQ(c.study.instance_count(), 1);
  EXPECT_TRUE(c.study.varied_names().empty());
  EXPECT_EQ(count_status(c.kernel, hs::Status::ok), 1);
  // The nominal instance is its own reference: tracking error exactly 0.
  EXPECT_EQ(c.kernel.summaries[0].tracking_rms, 0.0);
}

// ---- hydrosweep stability --------------------------------------------------------------

namespace {

using hs::StabilityPoint;

template <class Mechanism>
StabilityPoint stability_point_of(const std::string& friction, const hs::FourBarParams& p, const hs::StabilitySettings& s) {
  if (friction == "brown-mcphee") return hs::stability_record<hs::ActuatedSystem<Mechanism, hs::BrownMcPhee>>(p, s);
  if (friction == "bengisu-akay") return hs::stability_record<hs::ActuatedSystem<Mechanism, hs::BengisuAkay>>(p, s);
  EXPECT_EQ(friction, "none");
  return hs::stability_record<hs::ActuatedSystem<Mechanism, hs::NoFriction>>(p, s);
}

// Instance i's point: the kernel function for the study's formulation and
// friction law, or the invalid_parameters blank for an inadmissible instance.
// Called here rather than through host/run/stability_map.cpp so that its dispatch on
// model and friction law (the catalog, kernels/catalog/catalog.hpp) is checked too; the template is compiled with the
// same flags in both places, and agrees bit for bit.
StabilityPoint expected_point(const hs::Study& study, long i) {
  if (!study.instance_problem(i).empty()) return hs::blank_stability_point(hs::Status::invalid_parameters);
  const hs::StabilitySettings settings = hs::stability_settings(study.stability);
  const std::vector<double> row = study.instance(i);
  const hs::FourBarParams p =
      hs::unpack_row(study.descriptor->parameters, row.data(), hs::default_params<hs::FourBarParams>(*study.descriptor, study.friction));
  if (study.model == "four-bar-3d") return stability_point_of<hs::SpatialFourBarDae>(study.friction, p, settings);
  return stability_point_of<hs::PlanarChainDae<3>>(study.friction, p, settings);
}

struct StabilityField {
  std::string name;
  int columns;  // 1: a vector; else an N x columns matrix
  bool integer;
  std::function<double(const StabilityPoint&, int)> value;
};
const std::vector<StabilityField>& stability_fields() {
  static const std::vector<StabilityField> fields = {
      {"status", 1, true, [](const StabilityPoint& p, int) { return double(p.status); }},
      {"eigenvalues_real", 6, false, [](const StabilityPoint& p, int k) { return p.re[k]; }},
      {"eigenvalues_imag", 6, false, [](const StabilityPoint& p, int k) { return p.im[k]; }},
      {"max_real", 1, false, [](const StabilityPoint& p, int) { return p.max_real; }},
      {"damping_ratio", 1, false, [](const StabilityPoint& p, int) { return p.damping_ratio; }},
      {"frequency", 1, false, [](const StabilityPoint& p, int) { return p.frequency; }},
      {"overdamped", 1, true, [](const StabilityPoint& p, int) { return double(p.overdamped); }},
      {"structural_zeros", 1, true, [](const StabilityPoint& p, int) { return double(p.structural_zeros); }},
      {"crank_angle", 1, false, [](const StabilityPoint& p, int) { return p.crank_angle; }},
      {"pressure", 3, false, [](const StabilityPoint& p, int k) { return p.pressure[k]; }},
  };
  return fields;
}

// Runs `hydrosweep stability` and checks stability.h5 (inputs, every dataset
// of /stability) and stability.csv against expected_point per instance.
std::vector<StabilityPoint> check_stability(const TempDir& tmp, const std::string& text) {
  const fs::path path = tmp.path / "study.toml", out = tmp.path / "out";
  write_file(path, text);
  const Result r = hydrosweep("stability '" + path.string() + "' --out '" + out.string() + "' --backend cpu -q", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  const hs::Study study = hs::load_study(path.string());
  const long n = study.instance_count();
  std::vector<StabilityPoint> expected;
  for (long i = 0; i < n; ++i) expected.push_back(expected_point(study, i));
  if (r.code != 0) return expected;

  H5File file(out / "stability.h5");
  EXPECT_GE(file.id, 0);
  if (file.id < 0) return expected;
  check_inputs(file.id, study);
  std::set<std::string> names;
  for (const auto& f : stability_fields()) names.insert(f.name);
  const auto members = h5_members(file.id, "/stability");
  EXPECT_EQ(std::set<std::string>(members.begin(), members.end()), names);
  for (const auto& f : stability_fields()) {
    const std::string ds = "/stability/" + f.name;
    const std::vector<hsize_t> dims =
        f.columns == 1 ? std::vector<hsize_t>{hsize_t(n)} : std::vector<hsize_t>{hsize_t(n), hsize_t(f.columns)};
    EXPECT_EQ(dims_of(file.id, ds), dims) << ds;
    if (dims_of(file.id, ds) != dims) continue;
    if (f.integer) {
      const auto v = read_int64s(file.id, ds);
      for (long i = 0; i < n; ++i)
        EXPECT_EQ(static_cast<long long>(f.value(expected[i], 0)), v[i]) << ds << " of point " << i;
      continue;
    }
    const auto v = read_doubles(file.id, ds);
    for (long i = 0; i < n; ++i)
      for (int k = 0; k < f.columns; ++k)
        EXPECT_IDENTICAL(f.value(expected[i], k), v[i * f.columns + k],
                         ds + " of point " + std::to_string(i) + ", column " + std::to_string(k));
  }

  // stability.csv: index, varied inputs, status, max_real, damping_ratio,
  // frequency_hz (= frequency / 2π), overdamped, structural_zeros, lambda<k>_re/_im.
  const auto rows = read_csv(out / "stability.csv");
  EXPECT_EQ(rows.size(), size_t(n + 1));
  if (rows.size() != size_t(n + 1)) return expected;
  const auto& header = rows[0];
  const std::vector<std::string> varied = study.varied_names();
  std::vector<std::string> expected_header{"index"};
  expected_header.insert(expected_header.end(), varied.begin(), varied.end());
  for (const char* c : {"status", "max_real", "damping_ratio", "frequency_hz", "overdamped", "structural_zeros"})
    expected_header.push_back(c);
  for (int k = 1; k <= 6; ++k) {
    expected_header.push_back("lambda" + std::to_string(k) + "_re");
    expected_header.push_back("lambda" + std::to_string(k) + "_im");
  }
  EXPECT_EQ(header, expected_header);
  for (long i = 0; i < n; ++i) {
    const auto& row = rows[i + 1];
    EXPECT_EQ(row.size(), expected_header.size()) << "row of point " << i;
    if (row.size() != expected_header.size()) continue;
    const StabilityPoint& p = expected[i];
    const std::string at = " of point " + std::to_string(i);
    EXPECT_EQ(row[0], std::to_string(i));
    const std::vector<double> inputs = study.varied_values(i);
    for (size_t k = 0; k < varied.size(); ++k)
      EXPECT_IDENTICAL(inputs[k], csv_double(row[1 + k]), "stability.csv " + varied[k] + at);
    const size_t c = 1 + varied.size();
    EXPECT_EQ(row[c], hs::status_name(static_cast<hs::Status>(p.status))) << at;
    EXPECT_IDENTICAL(p.max_real, csv_double(row[c + 1]), "max_real" + at);
    EXPECT_IDENTICAL(p.damping_ratio, csv_double(row[c + 2]), "damping_ratio" + at);
    EXPECT_IDENTICAL(p.frequency / (2.0 * M_PI), csv_double(row[c + 3]), "frequency_hz" + at);
    EXPECT_EQ(row[c + 4], std::to_string(p.overdamped)) << at;
    EXPECT_EQ(row[c + 5], std::to_string(p.structural_zeros)) << at;
    for (int k = 0; k < 6; ++k) {
      EXPECT_IDENTICAL(p.re[k], csv_double(row[c + 6 + 2 * k]), "lambda" + std::to_string(k + 1) + "_re" + at);
      EXPECT_IDENTICAL(p.im[k], csv_double(row[c + 7 + 2 * k]), "lambda" + std::to_string(k + 1) + "_im" + at);
    }
  }
  return expected;
}

long count_points(const std::vector<StabilityPoint>& pts, hs::Status s) {
  return std::count_if(pts.begin(), pts.end(), [s](const StabilityPoint& p) { return p.status == int(s); });
}

}  // namespace

// Seed 000's 3D formulation, Brown-McPhee, a grid over the friction scale
// (x1/100 is oscillatory, x1 overdamped, docs/seeds.md §1) and the
// bulk modulus.
TEST(EndToEndValues, StabilityGridSpatialModel) {
  TempDir tmp;
  const auto pts = check_stability(tmp, R"([study]
model = "four-bar-3d"
friction = "brown-mcphee"
[[grid]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force", "friction.viscous_coefficient"]
values = [1e-2, 0.3, 1.0]
[[grid]]
parameter = "circuit.oil_bulk_modulus"
values = [1e9, 2e9]
)");
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(count_points(pts, hs::Status::ok), 6);
  EXPECT_EQ(pts[0].overdamped, 0);  // friction x1/100
  EXPECT_EQ(pts[5].overdamped, 1);  // friction x1
}

// The planar formulation, Bengisu-Akay, a Latin hypercube over the crank
// angle and the rod diameter (some rods thicker than the 0.08 m piston:
// invalid_parameters; the study loader refuses a design whose instance 0 is
// inadmissible, seed 1 flags instances 1 and 7), non-default [stability] tolerances.
TEST(EndToEndValues, StabilityLatinHypercubePlanarModel) {
  TempDir tmp;
  const auto pts = check_stability(tmp, R"([study]
model = "four-bar"
friction = "bengisu-akay"
[sample]
method = "lhs"
count = 8
seed = 1
[[factor]]
parameter = "mechanism.initial_angle1"
min = 0.3
max = 2.5
[[factor]]
parameter = "circuit.rod_diameter"
min = 0.03
max = 0.1
[stability]
zero_tolerance = 1e-8
oscillatory_tolerance = 1e-5
)");
  ASSERT_EQ(pts.size(), 8u);
  EXPECT_EQ(count_points(pts, hs::Status::invalid_parameters), 2);
  EXPECT_EQ(count_points(pts, hs::Status::ok), 6);
}

// Seed 001's four-bar, no friction, a Sobol' design with a derived parameter.
TEST(EndToEndValues, StabilitySobolSeed001Model) {
  TempDir tmp;
  const auto pts = check_stability(tmp, R"([study]
model = "four-bar-seed001"
friction = "none"
[sample]
method = "sobol"
count = 4
seed = 8
[[factor]]
parameter = "circuit.oil_bulk_modulus"
min = 1e9
max = 2e9
[derived]
"circuit.hose_bulk_modulus" = "circuit.oil_bulk_modulus / 10"
)");
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(count_points(pts, hs::Status::ok), 4);
}
