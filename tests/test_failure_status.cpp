// Every failure status forced through a study file and carried to the outputs
// (issue 11 item 2). Each study in tests/data/status/ (its header says how it
// forces its status, and what was measured) has instances that fail and at
// least one that stays ok. The built `hydrosweep run` runs it; its files are
// read back and checked:
//   - the flag: /outputs/status and its status_names attribute, the status
//     column of summary.csv, the CLI's "failed:" line, /metadata failed_count;
//   - the failure time: t_end = steps·dt exactly (time is t0 + k·dt with
//     t0 = 0, kernels/integrators/settings.hpp grid_time), at the step the
//     physics of the study says (per status, below);
//   - the failed instance's values, as kernels/integrators/run.hpp
//     (run_instance) writes them: the truncated run's, never NaN-filled —
//       newton_failure, constraint_failure, diverged (a step fails): `steps`
//         steps were done and step steps + 1 failed; the state stays at the
//         start of the failing step, so t_end = steps·dt and every output
//         describes that last good (finite) state;
//       pressure_out_of_range, stroke_out_of_range (the check after a step,
//         kernels/models/hydraulically_actuated.hpp): step `steps` was taken
//         and its inadmissible state is kept, recorded and written;
//       invalid_parameters: no step; t_end = 0, the counts (steps, Newton
//         iterations) 0, every other output NaN (unstarted_summary,
//         kernels/integrators/run.hpp), no trajectory sample;
//     summary.csv and /outputs hold the same values, bit for bit;
//   - trajectories: the samples up to t_end at t = k·stride·dt, the summary's
//     final state equal to the sample at t_end, NaN time after it;
//   - /analysis: statistics of the ok instances only, equal to
//     summarize_monte_carlo (host/results/analysis.hpp) of their read-back values;
//     count_ok = ok instances, count_failed = failed instances; the failure
//     probability of [analysis.limit] over the ok instances only (failures /
//     count, failed_instances excluded, docs/study-files.md "[analysis]");
//   - the ok instances are bit-identical (summary.csv rows, trajectories) to a
//     run of the same study without its failing instances.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/results/analysis.hpp"
#include "host/study/study.hpp"
#include "kernels/models/hydraulically_actuated.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "tests/backend_agreement.hpp"
#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using namespace cli_test;
using hs::Status;
using hs::backend_test::identical;

// The kernel's parameters of instance i (its row through the model's table).
hs::FourBarParams params_of(const hs::Study& study, long i) {
  const std::vector<double> row = study.instance(i);
  return hs::unpack_row(study.descriptor->parameters, row.data(), hs::default_params<hs::FourBarParams>(*study.descriptor, study.friction));
}

namespace {

// Bit for bit, or both NaN; the message names the value.
#define EXPECT_IDENTICAL(expected, actual, what)                                                           \
  EXPECT_TRUE(identical((expected), (actual)))                                                              \
      << (what) << ": expected " << testing::PrintToString(expected) << ", got " << testing::PrintToString(actual)

// The status names in code order, as README.md ("Outputs") documents them;
// not_run marks an instance a cancelled batch never started.
const std::vector<std::string> kStatusNames = {"ok",
                                               "diverged",
                                               "newton_failure",
                                               "pressure_out_of_range",
                                               "constraint_failure",
                                               "stroke_out_of_range",
                                               "invalid_parameters",
                                               "not_run"};
const std::string& name_of(Status s) { return kStatusNames.at(static_cast<size_t>(s)); }

// Where run_instance (kernels/integrators/run.hpp) stops an instance.
enum class Ending {
  completed,     // ok: every step
  inside_step,   // step steps + 1 failed; the state is the one at t_end = steps·dt
  after_step,    // step `steps` was taken and its state failed the check
  before_start,  // the initial state could not be built: no step
};
Ending ending_of(Status s) {
  switch (s) {
    case Status::ok: return Ending::completed;
    // diverged is also check()'s verdict on a NaN pressure after a step, but a
    // step whose Newton increment is finite cannot leave one (the increment
    // test in step() returns diverged first), so it ends inside the step.
    case Status::newton_failure:
    case Status::constraint_failure:
    case Status::diverged: return Ending::inside_step;
    case Status::pressure_out_of_range:
    case Status::stroke_out_of_range: return Ending::after_step;
    default: return Ending::before_start;
  }
}

// The state channels that are both a summary output (final value) and a
// trajectory channel (host/results/output.cpp).
const std::vector<std::string> kStateChannels = {"q1", "q2", "q3", "p1", "p2", "p3", "U", "s"};
// The integer counts of /outputs, 0 for an instance that never started.
const std::set<std::string> kCountColumns = {"steps", "newton_iterations", "max_newton_iterations"};

// One status study: its file and what each instance must end with.
struct StatusCase {
  std::string file;               // in tests/data/status/
  std::vector<Status> expected;   // per instance, design order
  // Text edits that leave the same study without its failing instances.
  std::vector<std::pair<std::string, std::string>> without_failing;
};

// A finished run read back.
struct Outputs {
  std::vector<std::vector<std::string>> csv;  // header, then one row per instance
  std::vector<long long> status, steps;
  std::map<std::string, std::vector<double>> outputs;       // /outputs/<name> of every summary.csv output column
  std::map<std::string, std::vector<double>> trajectories;  // /trajectories/<channel>, N x samples, row-major
  long samples = 0;
  std::vector<std::string> status_names;
  long long failed_count = -1;  // /metadata
};

Outputs read_outputs(const fs::path& dir, const hs::Study& study) {
  Outputs o;
  o.csv = read_csv(dir / "summary.csv");
  H5File file(dir / "results.h5");
  EXPECT_GE(file.id, 0) << dir;
  if (file.id < 0 || o.csv.empty()) return o;
  o.status = read_int64s(file.id, "/outputs/status");
  o.steps = read_int64s(file.id, "/outputs/steps");
  o.status_names = string_array_attribute(file.id, "/outputs/status", "status_names");
  o.failed_count = int_attribute(file.id, "/metadata", "failed_count");
  const size_t first_output = 2 + study.varied_names().size();  // index, status, varied inputs
  for (size_t c = first_output; c < o.csv[0].size(); ++c)
    o.outputs[o.csv[0][c]] = read_doubles(file.id, "/outputs/" + o.csv[0][c]);
  for (const auto& channel : h5_members(file.id, "/trajectories"))
    o.trajectories[channel] = read_doubles(file.id, "/trajectories/" + channel);
  o.samples = study.instance_count() > 0 && !o.trajectories.empty()
                  ? static_cast<long>(o.trajectories["t"].size()) / study.instance_count()
                  : 0;
  return o;
}

// Sample k of instance i of a trajectory channel.
double sample(const Outputs& o, const std::string& channel, long i, long k) {
  return o.trajectories.at(channel)[static_cast<size_t>(i * o.samples + k)];
}

// `hydrosweep run` on a study file; the output directory is scratch/name.
Result run_study_file(const fs::path& study, const fs::path& scratch, const std::string& name) {
  return hydrosweep("run '" + study.string() + "' --out '" + (scratch / name).string() +
                        "' --backend cpu --progress none",
                    scratch);
}

// The time the valve first opens: the start of the first nonzero segment of
// the study's valve schedule (seed 002 eq 46: 1 s).
double valve_opening_time(const hs::Study& study) {
  const hs::InputSchedule& u = study.input;
  for (int k = 0; k < u.count; ++k)
    if (u.value[k] != 0.0) return u.start[k];
  ADD_FAILURE() << study.path << ": the valve never opens";
  return 0.0;
}

long step_count(const hs::Study& study) { return std::lround(study.settings.duration / study.settings.dt); }

// ---- the checks every status study gets ------------------------------------------------

// The flag: HDF5 codes and their names, the CSV column, the CLI line, /metadata.
void check_flags(const StatusCase& c, const Outputs& o, const std::string& cli_stdout) {
  EXPECT_EQ(o.status_names, kStatusNames) << "/outputs/status status_names";
  ASSERT_EQ(o.status.size(), c.expected.size());
  ASSERT_EQ(o.csv.size(), c.expected.size() + 1);
  std::map<std::string, long> failures;  // by name, as the CLI prints them
  for (size_t i = 0; i < c.expected.size(); ++i) {
    EXPECT_EQ(o.status[i], static_cast<long long>(c.expected[i])) << c.file << " instance " << i;
    EXPECT_EQ(o.csv[i + 1][1], name_of(c.expected[i])) << c.file << " summary.csv instance " << i;
    if (c.expected[i] != Status::ok) ++failures[name_of(c.expected[i])];
  }
  long failed = 0;
  std::string list;
  for (const auto& [name, count] : failures) {
    list += (list.empty() ? "" : ", ") + name + " " + std::to_string(count);
    failed += count;
  }
  const std::string line = "failed: " + std::to_string(failed) + " of " + std::to_string(c.expected.size()) + " (" +
                           list + ")\n";
  EXPECT_NE(cli_stdout.find(line), std::string::npos) << "expected \"" << line << "\" in:\n" << cli_stdout;
  EXPECT_EQ(o.failed_count, failed) << "/metadata failed_count";
}

// The failure time: t_end = steps·dt exactly; ok instances ran every step,
// invalid ones none.
void check_times(const StatusCase& c, const hs::Study& study, const Outputs& o) {
  const double dt = study.settings.dt;
  const auto& t_end = o.outputs.at("t_end");
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const std::string at = c.file + " instance " + std::to_string(i);
    EXPECT_IDENTICAL(static_cast<double>(o.steps[i]) * dt, t_end[i], at + " t_end = steps·dt");
    const Ending e = ending_of(c.expected[i]);
    if (e == Ending::completed) {
      EXPECT_EQ(o.steps[i], step_count(study)) << at << ": an ok instance runs every step";
    } else if (e == Ending::before_start) {
      EXPECT_EQ(o.steps[i], 0) << at << ": no step without an initial state";
    } else {
      EXPECT_LT(o.steps[i], step_count(study)) << at << ": a failed instance stops before the end";
    }
  }
}

// Trajectories: a sample every stride steps up to t_end, NaN time after it;
// the summary's final state is the sample at t_end.
void check_trajectories(const StatusCase& c, const hs::Study& study, const Outputs& o) {
  const long stride = study.trajectory_stride;
  ASSERT_GT(stride, 0) << c.file << ": the status studies record trajectories";
  ASSERT_EQ(o.samples, 1 + step_count(study) / stride);
  const double dt = study.settings.dt;
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const std::string at = c.file + " instance " + std::to_string(i);
    const Ending e = ending_of(c.expected[i]);
    const long last = e == Ending::before_start ? -1 : static_cast<long>(o.steps[i]) / stride;  // last sample recorded
    for (long k = 0; k < o.samples; ++k) {
      const double t = sample(o, "t", long(i), k);
      if (k <= last) {
        EXPECT_IDENTICAL(static_cast<double>(k * stride) * dt, t, at + " sample " + std::to_string(k));
      } else {
        EXPECT_TRUE(std::isnan(t)) << at << ": sample " << k << " after the end has t = " << t;
      }
    }
    if (e == Ending::before_start || o.steps[i] % stride != 0) continue;
    for (const auto& channel : kStateChannels)
      EXPECT_IDENTICAL(sample(o, channel, long(i), last), o.outputs.at(channel)[i],
                       at + ": final " + channel + " = its sample at t_end");
  }
}

// How a failed instance's values appear: the same in both files; the state of
// a failed step's start is finite; an invalid instance's outputs are NaN but
// for t_end = 0 and the zero counts.
void check_failed_values(const StatusCase& c, const Outputs& o) {
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const std::string at = c.file + " instance " + std::to_string(i);
    for (const auto& [name, column] : o.outputs) {
      const size_t col = csv_column(o.csv[0], name);
      ASSERT_LT(col, o.csv[i + 1].size()) << at;
      EXPECT_IDENTICAL(column[i], csv_double(o.csv[i + 1][col]), at + ": summary.csv " + name + " = /outputs/" + name);
    }
    const Ending e = ending_of(c.expected[i]);
    if (e == Ending::inside_step) {
      for (const auto& channel : kStateChannels)
        EXPECT_TRUE(std::isfinite(o.outputs.at(channel)[i])) << at << ": " << channel << " of the last good state";
    }
    if (e != Ending::before_start) continue;
    // What run_instance and the runner write for an instance without an
    // initial state, whether the host or the kernel refused it
    // (unstarted_summary): no time, no steps, no state.
    for (const auto& [name, column] : o.outputs) {
      if (kCountColumns.count(name) || name == "t_end") {
        EXPECT_EQ(column[i], 0.0) << at << ": " << name;
      } else {
        EXPECT_TRUE(std::isnan(column[i])) << at << ": " << name << " = " << column[i];
      }
    }
  }
}

// /analysis: the statistics of the ok instances' read-back values, the failed
// instances excluded and counted.
void check_analysis(const StatusCase& c, const hs::Study& study, const fs::path& results) {
  H5File file(results);
  ASSERT_GE(file.id, 0) << results;
  const hs::AnalysisSpec& spec = study.analysis;
  ASSERT_FALSE(spec.quantities.empty()) << c.file << ": the status studies have an [analysis]";
  ASSERT_TRUE(spec.has_limit) << c.file << ": the status studies have an [analysis.limit]";
  hs::BootstrapOptions boot;
  boot.resamples = static_cast<size_t>(spec.bootstrap);
  boot.level = spec.confidence;
  boot.seed = hs::study_bootstrap_seed(study.seed);
  long long ok = 0;
  for (Status s : c.expected) ok += s == Status::ok;
  const long long failed = static_cast<long long>(c.expected.size()) - ok;
  auto ok_values = [&](const std::string& quantity) {
    const std::vector<double> all = read_doubles(file.id, "/outputs/" + quantity);
    std::vector<double> v;
    for (size_t i = 0; i < c.expected.size(); ++i)
      if (c.expected[i] == Status::ok) v.push_back(all.at(i));
    return v;
  };
  for (const auto& q : spec.quantities) {
    const std::string g = "/analysis/statistics/" + q;
    const hs::MonteCarloSummary m = hs::summarize_monte_carlo(ok_values(q), spec.quantile_levels, boot);
    ASSERT_EQ(static_cast<long long>(m.valid), ok) << g << ": the quantities of the status studies are finite when ok";
    EXPECT_EQ(int_attribute(file.id, g, "count_ok"), ok) << g;
    EXPECT_EQ(int_attribute(file.id, g, "count_failed"), failed) << g;
    EXPECT_IDENTICAL(m.mean, double_attribute(file.id, g, "mean"), g + " mean");
    EXPECT_IDENTICAL(m.std_dev, double_attribute(file.id, g, "std"), g + " std");
    EXPECT_IDENTICAL(m.mean_ci.lower, double_attribute(file.id, g, "mean_ci_low"), g + " mean_ci_low");
    EXPECT_IDENTICAL(m.mean_ci.upper, double_attribute(file.id, g, "mean_ci_high"), g + " mean_ci_high");
    EXPECT_IDENTICAL(m.std_dev_ci.lower, double_attribute(file.id, g, "std_ci_low"), g + " std_ci_low");
    EXPECT_IDENTICAL(m.std_dev_ci.upper, double_attribute(file.id, g, "std_ci_high"), g + " std_ci_high");
    const auto values = read_doubles(file.id, g + "/quantiles");
    const auto low = read_doubles(file.id, g + "/quantile_ci_low");
    const auto high = read_doubles(file.id, g + "/quantile_ci_high");
    ASSERT_EQ(values.size(), m.quantiles.size()) << g;
    ASSERT_TRUE(low.size() == values.size() && high.size() == values.size()) << g;
    for (size_t k = 0; k < values.size(); ++k) {
      EXPECT_IDENTICAL(m.quantiles[k].value, values[k], g + " quantile " + std::to_string(k));
      EXPECT_IDENTICAL(m.quantiles[k].ci.lower, low[k], g + " quantile_ci_low " + std::to_string(k));
      EXPECT_IDENTICAL(m.quantiles[k].ci.upper, high[k], g + " quantile_ci_high " + std::to_string(k));
    }
  }
  // Failure probability: the ok instances are the trials, the failed ones are
  // excluded and counted apart (docs/study-files.md "[analysis]").
  const std::string g = "/analysis/failure";
  const std::vector<double> v = ok_values(spec.limit_quantity);
  long long beyond = 0;
  for (double y : v) beyond += spec.limit_above ? y > spec.limit : y < spec.limit;
  EXPECT_EQ(int_attribute(file.id, g, "failures"), beyond) << g;
  EXPECT_EQ(int_attribute(file.id, g, "count"), ok) << g;
  EXPECT_EQ(int_attribute(file.id, g, "failed_instances"), failed) << g;
  const hs::FailureProbability f = hs::failure_probability(
      v, spec.limit, spec.limit_above ? hs::LimitState::above : hs::LimitState::below, spec.confidence);
  EXPECT_IDENTICAL(static_cast<double>(beyond) / static_cast<double>(ok), double_attribute(file.id, g, "probability"),
                   g + " probability = failures / ok instances");
  EXPECT_IDENTICAL(f.estimate, double_attribute(file.id, g, "probability"), g + " probability");
  EXPECT_IDENTICAL(f.ci.lower, double_attribute(file.id, g, "ci_low"), g + " ci_low");
  EXPECT_IDENTICAL(f.ci.upper, double_attribute(file.id, g, "ci_high"), g + " ci_high");
}

// The ok instances do not notice the failing ones: the same study without
// them gives the same summary.csv rows (all but the index) and trajectories.
void check_ok_instances_unchanged(const StatusCase& c, const fs::path& study_path, const Outputs& with,
                                  const TempDir& tmp) {
  std::string text = read_file(study_path);
  for (const auto& [from, to] : c.without_failing) {
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << c.file << ": no \"" << from << "\"";
    ASSERT_EQ(text.find(from, at + 1), std::string::npos) << c.file << ": \"" << from << "\" is not unique";
    text.replace(at, from.size(), to);
  }
  const fs::path path = tmp.path / ("without_failing_" + c.file);
  write_file(path, text);
  const Result r = run_study_file(path, tmp.path, "without_failing");
  ASSERT_EQ(r.code, 0) << r.err;
  const hs::Study study = hs::load_study(path.string());
  const Outputs without = read_outputs(tmp.path / "without_failing", study);
  std::vector<size_t> ok;
  for (size_t i = 0; i < c.expected.size(); ++i)
    if (c.expected[i] == Status::ok) ok.push_back(i);
  ASSERT_EQ(without.csv.size(), ok.size() + 1) << "the edited study should hold the ok instances only";
  ASSERT_EQ(without.samples, with.samples);
  for (size_t j = 0; j < ok.size(); ++j) {
    const auto& a = with.csv[ok[j] + 1];
    const auto& b = without.csv[j + 1];
    ASSERT_EQ(a.size(), b.size());
    for (size_t col = 1; col < a.size(); ++col)
      EXPECT_EQ(a[col], b[col]) << c.file << ": " << with.csv[0][col] << " of ok instance " << ok[j];
    for (const auto& [channel, values] : with.trajectories)
      for (long k = 0; k < with.samples; ++k)
        EXPECT_IDENTICAL(sample(with, channel, long(ok[j]), k), sample(without, channel, long(j), k),
                         c.file + ": trajectory " + channel + " of ok instance " + std::to_string(ok[j]));
  }
}

// Runs a status study and every check above; `run` receives what was read back
// for the status-specific checks.
struct StatusRun {
  hs::Study study;
  Outputs out;
};
void run_status_case(const StatusCase& c, const TempDir& tmp, StatusRun& run) {
  const fs::path path = fs::path(kRoot) / "tests" / "data" / "status" / c.file;
  const Result r = run_study_file(path, tmp.path, "out");
  ASSERT_EQ(r.code, 0) << "failed instances are results, not errors:\n" << r.err;
  run.study = hs::load_study(path.string());
  ASSERT_EQ(run.study.instance_count(), static_cast<long>(c.expected.size())) << c.file;
  run.out = read_outputs(tmp.path / "out", run.study);
  ASSERT_NO_FATAL_FAILURE(check_flags(c, run.out, r.out));
  ASSERT_NO_FATAL_FAILURE(check_times(c, run.study, run.out));
  ASSERT_NO_FATAL_FAILURE(check_trajectories(c, run.study, run.out));
  ASSERT_NO_FATAL_FAILURE(check_failed_values(c, run.out));
  ASSERT_NO_FATAL_FAILURE(check_analysis(c, run.study, tmp.path / "out" / "results.h5"));
  ASSERT_NO_FATAL_FAILURE(check_ok_instances_unchanged(c, path, run.out, tmp));
}

// The instances of a run that ended with status s.
std::vector<long> instances_with(const StatusCase& c, Status s) {
  std::vector<long> v;
  for (size_t i = 0; i < c.expected.size(); ++i)
    if (c.expected[i] == s) v.push_back(static_cast<long>(i));
  return v;
}

// A step failure at the valve opening: the failing instances completed the
// steps up to t_open exactly and failed in the next one.
void expect_failure_in_first_step_after_valve_opens(const StatusCase& c, const StatusRun& run, Status s) {
  const double t_open = valve_opening_time(run.study);
  const long steps_before = std::lround(t_open / run.study.settings.dt);
  for (long i : instances_with(c, s)) {
    EXPECT_EQ(run.out.steps[i], steps_before)
        << c.file << " instance " << i << ": fails in the step after t = " << t_open;
    EXPECT_IDENTICAL(t_open, run.out.outputs.at("t_end")[i], c.file + " instance " + std::to_string(i) + " t_end");
  }
}

}  // namespace

TEST(FailureStatus, NewtonFailure) {
  const StatusCase c{"newton_failure.toml",
                     {Status::ok, Status::newton_failure, Status::newton_failure},
                     {{"values = [0.0, 1.0, 0.5]", "values = [0.0]"}}};
  TempDir tmp;
  StatusRun run;
  ASSERT_NO_FATAL_FAILURE(run_status_case(c, tmp, run));
  expect_failure_in_first_step_after_valve_opens(c, run, Status::newton_failure);
  // One Newton iteration per completed step, never more (the cap).
  for (size_t i = 0; i < c.expected.size(); ++i) {
    EXPECT_EQ(run.out.outputs.at("newton_iterations")[i], double(run.out.steps[i])) << "instance " << i;
    EXPECT_EQ(run.out.outputs.at("max_newton_iterations")[i], 1.0) << "instance " << i;
  }
}

TEST(FailureStatus, ConstraintFailure) {
  const StatusCase c{"constraint_failure.toml",
                     {Status::ok, Status::constraint_failure},
                     {{"values = [0.0, 1.0]", "values = [0.0]"}}};
  TempDir tmp;
  StatusRun run;
  ASSERT_NO_FATAL_FAILURE(run_status_case(c, tmp, run));
  // Since the closure's warm start follows ∂z_d/∂z_i (docs/models/integrators.md §3.3) the
  // step that opens the valve closes the loop with one update; the next one, the first that
  // starts moving, does not (tests/data/status/constraint_failure.toml).
  const double t_open = valve_opening_time(run.study);
  const long steps_before = std::lround(t_open / run.study.settings.dt) + 1;
  for (long i : instances_with(c, Status::constraint_failure))
    EXPECT_EQ(run.out.steps[i], steps_before) << "instance " << i << ": fails in the second step after t = " << t_open;
  // Every completed step closed the loop to the tolerance.
  for (size_t i = 0; i < c.expected.size(); ++i)
    EXPECT_LE(run.out.outputs.at("max_constraint_violation")[i], run.study.settings.constraint_tolerance) << i;
}

// Guards the NaN check of DoubleStepTrapezoidal::step (kernels/integrators/
// double_step_trapezoidal.hpp): a max-norm taken with `>` skips NaN, so without
// testing each increment entry the NaN increment passes the convergence test,
// the NaN state is accepted as step 1001 and check() flags it one step late
// (steps = 1001, t_end = 1.001 s, every state output NaN); this test then fails.
TEST(FailureStatus, Diverged) {
  const StatusCase c{"diverged.toml",
                     {Status::ok, Status::diverged, Status::ok},
                     {{"values = [1.069e-8, 1.0, 2e-8]", "values = [1.069e-8, 2e-8]"}}};
  TempDir tmp;
  StatusRun run;
  ASSERT_NO_FATAL_FAILURE(run_status_case(c, tmp, run));
  expect_failure_in_first_step_after_valve_opens(c, run, Status::diverged);
}

TEST(FailureStatus, PressureOutOfRange) {
  const StatusCase c{"pressure_out_of_range.toml",
                     {Status::ok, Status::pressure_out_of_range, Status::ok, Status::pressure_out_of_range, Status::ok},
                     {{"values = [0.0, 1.0, 0.1, 0.5, 0.2]", "values = [0.0, 0.1, 0.2]"}}};
  TempDir tmp;
  StatusRun run;
  ASSERT_NO_FATAL_FAILURE(run_status_case(c, tmp, run));
  const hs::IntegratorSettings& S = run.study.settings;
  auto in_range = [&](long i, long k) {
    for (const char* p : {"p1", "p2", "p3"})
      if (!(sample(run.out, p, i, k) >= S.pressure_min && sample(run.out, p, i, k) <= S.pressure_max)) return false;
    return true;
  };
  // stride 1: sample k is step k. The failing step is the first whose state
  // has a pressure outside [pressure_min, pressure_max], after the valve opens.
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const long steps = static_cast<long>(run.out.steps[i]);
    for (long k = 0; k < steps; ++k) ASSERT_TRUE(in_range(long(i), k)) << "instance " << i << " step " << k;
    if (c.expected[i] == Status::ok) {
      EXPECT_TRUE(in_range(long(i), steps)) << "instance " << i;
      continue;
    }
    EXPECT_FALSE(in_range(long(i), steps)) << "instance " << i << ": the state at t_end is out of range";
    EXPECT_GT(run.out.outputs.at("t_end")[i], valve_opening_time(run.study)) << "instance " << i;
    EXPECT_GT(run.out.outputs.at("p3_max")[i], S.pressure_max)
        << "instance " << i << ": p3 overshoots (the study's header)";
  }
}

TEST(FailureStatus, StrokeOutOfRange) {
  const StatusCase c{"stroke_out_of_range.toml",
                     {Status::ok, Status::stroke_out_of_range, Status::ok, Status::ok},
                     {{"values = [1.0, 0.55, 1.2, 0.6]", "values = [1.0, 1.2, 0.6]"}}};
  TempDir tmp;
  StatusRun run;
  ASSERT_NO_FATAL_FAILURE(run_status_case(c, tmp, run));
  // The piston-side chamber length l2 = l2_0 + (s − s0) (ambiguity A2,
  // kernels/hydraulics/three_volume_circuit.hpp) from the recorded actuator
  // length, s0 = s at t = 0; stride 1: sample k is step k.
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const hs::CircuitParams circuit = params_of(run.study, static_cast<long>(i)).actuator[0].circuit;
    auto inside = [&](long k) {
      const double ds = sample(run.out, "s", long(i), k) - sample(run.out, "s", long(i), 0);
      const double l2 = circuit.piston_chamber_length0 + ds;
      return l2 > 0.0 && l2 < circuit.cylinder_length;
    };
    const long steps = static_cast<long>(run.out.steps[i]);
    for (long k = 0; k < steps; ++k) ASSERT_TRUE(inside(k)) << "instance " << i << " step " << k;
    if (c.expected[i] == Status::ok) {
      EXPECT_TRUE(inside(steps)) << "instance " << i;
    } else {
      EXPECT_FALSE(inside(steps)) << "instance " << i << ": the piston is at the cylinder end at t_end";
    }
  }
}

TEST(FailureStatus, InvalidParameters) {
  const StatusCase c{"invalid_parameters.toml",
                     {Status::ok, Status::invalid_parameters, Status::invalid_parameters, Status::invalid_parameters,
                      Status::ok, Status::invalid_parameters},
                     {{"values = [8.0, 3.0, 7.5]", "values = [8.0, 7.5]"},
                      {"values = [0.08, 0.02]", "values = [0.08]"}}};
  TempDir tmp;
  StatusRun run;
  ASSERT_NO_FATAL_FAILURE(run_status_case(c, tmp, run));
  // Which check flagged each: the host's (a derived rod diameter out of range)
  // for the 0.02 m pistons, the kernel's (no assembly) for the 3 m coupler.
  for (long i : instances_with(c, Status::invalid_parameters)) {
    const hs::FourBarParams p = params_of(run.study, i);
    const bool rod_out_of_range = !(p.actuator[0].circuit.rod_diameter > 0.0);
    EXPECT_EQ(run.study.instance_problem(i).empty(), !rod_out_of_range) << "instance " << i;
    if (rod_out_of_range) continue;
    // The loop cannot close: the crank tip is farther from the rocker's
    // ground pivot than coupler + rocker reach.
    const auto& m = p.mechanism;
    const double c1 = std::cos(m.initial_angle[0]), s1 = std::sin(m.initial_angle[0]);
    const double tip_x = m.base_x + c1 * m.body[0].distal_x - s1 * m.body[0].distal_y;
    const double tip_y = m.base_y + s1 * m.body[0].distal_x + c1 * m.body[0].distal_y;
    const double reach =
        std::hypot(m.body[1].distal_x, m.body[1].distal_y) + std::hypot(m.body[2].distal_x, m.body[2].distal_y);
    EXPECT_GT(std::hypot(m.cut_x - tip_x, m.cut_y - tip_y), reach) << "instance " << i;
  }
}
