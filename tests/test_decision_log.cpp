// DecisionLog.*: the branch-decision log of the device bisection, on the host
// (kernels/core/decision_log.hpp; docs/gpu.md §7; what each test asserts:
// docs/physics-checks.md §3). Built with -DHS_LOG_DECISIONS (tests/CMakeLists.txt):
// these are the host half of device_trace_decisions, the same functions
// (tests/decision_trace.hpp) recording the same decisions.
#ifndef HS_LOG_DECISIONS
#error "test_decision_log.cpp is built with HS_LOG_DECISIONS (tests/CMakeLists.txt)"
#endif
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "host/run/backends/instance_kernel.hpp"
#include "kernels/catalog/catalog.hpp"
#include "kernels/integrators/formulations.hpp"
#include "kernels/linearize/sampled_loop.hpp"
#include "tests/decision_log_compare.hpp"
#include "tests/decision_trace.hpp"

namespace hs {
namespace {

using decision_compare::Side;

template <class Physics>
const ModelDescriptor& descriptor(const std::string& model) {
  static const std::vector<ModelDescriptor> all = Physics::describe();
  for (const auto& d : all)
    if (d.name == model) return d;
  throw std::runtime_error("no model " + model);
}

struct LoggedRun {
  Side log;
  DecisionRunReport report;
  std::vector<double> state;  // the final state's reals
};

// One instance of the default parameters, double step, for `steps` steps.
template <class Physics, class Friction>
LoggedRun logged_run(const std::string& model, long steps, long capacity = 1L << 21, bool install = true) {
  using I = typename DoubleStepFormulation::template Integrator<Physics, Friction>;
  const auto P = default_params<typename I::Params>(descriptor<Physics>(model), Friction::name);
  IntegratorSettings S;
  LoggedRun out;
  decision_compare::HostDecisionLog log(capacity);
  typename I::State st;
  out.report = run_with_decision_log<I>(P, S, steps, install ? &log.log : nullptr, st);
  out.log = log.side();
  // The state's reals, not its bytes: the struct's padding (beside the
  // partition's indices) is no part of the state and differs between stacks.
  auto put = [&](const void* from, size_t bytes) {
    const size_t k = out.state.size();
    out.state.resize(k + bytes / sizeof(double));
    std::memcpy(out.state.data() + k, from, bytes / sizeof(double) * sizeof(double));
  };
  put(&st.t, sizeof st.t);
  put(st.q, sizeof st.q);
  put(st.qd, sizeof st.qd);
  put(st.qdd, sizeof st.qdd);
  put(st.p, sizeof st.p);
  put(st.pd, sizeof st.pd);
  if constexpr (I::nw > 0) {
    put(&st.w, sizeof st.w);
    put(&st.wd, sizeof st.wd);
  }
  put(st.U, sizeof st.U);
  put(st.s_act, sizeof st.s_act);
  put(st.sdot_act, sizeof st.sdot_act);
  return out;
}

bool is_site(const DecisionEntry& e, DecisionSite s) { return e.site == static_cast<int>(s); }

// Whether the logged outcome is the comparison of the logged value with the
// logged threshold, as each site's condition states it.
bool outcome_follows(const DecisionEntry& e) {
  const double v = e.value, t = e.threshold;
  switch (static_cast<DecisionSite>(e.site)) {
    case DecisionSite::schedule_segment: return e.taken == (v >= t);
    case DecisionSite::valve_opening: return e.taken == (v >= t) || e.taken == (v > t);  // 4/3 valve ≥, servo valve >
    case DecisionSite::orifice_laminar: return e.taken == (v <= t);
    case DecisionSite::bengisu_akay_sticking: return e.taken == (v < t);
    case DecisionSite::film_saturated: return e.taken == (v > t);
    case DecisionSite::film_dwell: return e.taken == (v < t);
    case DecisionSite::film_accelerating: return e.taken == (v <= t);
    case DecisionSite::closure_converged: return e.taken == (v <= t);
    case DecisionSite::state_closure_redo: return e.taken == !(v <= t);
    case DecisionSite::partition_change: return e.taken == (v < t);
    case DecisionSite::equilibrium_converged: return e.taken == (v <= t);
    // The largest of three increment/tolerance ratios against 1: a ratio
    // rounds, so a ratio within 4 ulp of 1 may go either way.
    case DecisionSite::newton_converged: return std::fabs(v - 1.0) < 1e-15 || e.taken == (v <= 1.0);
    case DecisionSite::trace_mark: return e.taken == 1;
    default: return false;
  }
}

std::map<int, std::pair<long, long>> outcomes_by_site(const Side& s) {  // site -> (taken, not taken)
  std::map<int, std::pair<long, long>> out;
  for (const auto& e : s.entries) (e.taken ? out[e.site].first : out[e.site].second)++;
  return out;
}

void expect_outcomes_follow_values(const Side& s, const char* what) {
  long wrong = 0;
  for (size_t i = 0; i < s.entries.size(); ++i)
    if (!outcome_follows(s.entries[i]) && wrong++ < 5)
      ADD_FAILURE() << what << ": " << decision_compare::format_entry("entry", static_cast<long>(i), s.entries[i]);
  EXPECT_EQ(wrong, 0) << what;
}

TEST(DecisionLog, FourBarRunRecordsScheduleValveOrificeNewtonAndClosure) {
  // 6 s of the default work cycle (valve at +10 V from 1 s, 0 from 2.5 s,
  // −10 V from 5 s), no friction: the combination that did not move on a GPU.
  const LoggedRun r = logged_run<PlanarFourBarPhysics, NoFriction>("four-bar", 6000);
  ASSERT_EQ(r.report.status, Status::ok);
  ASSERT_EQ(r.report.steps_taken, 6000);
  ASSERT_EQ(r.log.count, static_cast<long>(r.log.entries.size()));
  expect_outcomes_follow_values(r.log, "four-bar / none");
  auto by_site = outcomes_by_site(r.log);
  EXPECT_EQ(by_site[static_cast<int>(DecisionSite::trace_mark)].first, 6000);
  // Each step converges once; every other iteration is a "not yet".
  const auto newton = by_site[static_cast<int>(DecisionSite::newton_converged)];
  EXPECT_EQ(newton.first, r.report.steps_taken);
  EXPECT_EQ(newton.first + newton.second, r.report.newton_iterations);
  for (DecisionSite s : {DecisionSite::orifice_laminar, DecisionSite::valve_opening, DecisionSite::schedule_segment,
                         DecisionSite::closure_converged}) {
    EXPECT_GT(by_site[static_cast<int>(s)].first, 0) << decision_site_name(static_cast<int>(s));
    EXPECT_GT(by_site[static_cast<int>(s)].second, 0) << decision_site_name(static_cast<int>(s));
  }
  // The schedule is read at step midpoints (t + dt/2): its 1 s segment starts
  // at the step from t = 1 s; the spool's side turns over only after the
  // −10 V segment starts at 5 s.
  double t = 0.0, first_open = -1.0, first_reversed = -1.0;
  for (const auto& e : r.log.entries) {
    if (is_site(e, DecisionSite::trace_mark)) t = e.value;
    if (is_site(e, DecisionSite::schedule_segment) && e.threshold == 1.0 && e.taken && first_open < 0) first_open = t;
    if (is_site(e, DecisionSite::valve_opening) && !e.taken && first_reversed < 0) first_reversed = t;
  }
  const double dt = IntegratorSettings{}.dt;
  EXPECT_GE(first_open, 1.0 - 0.5 * dt);
  EXPECT_LT(first_open, 1.0 + 0.5 * dt);
  EXPECT_GE(first_reversed, 5.0 - 0.5 * dt);
  EXPECT_LT(first_reversed, 5.2);
}

TEST(DecisionLog, ModifiedLuGreDwellsAtRestAndLeavesTheDwellMoving) {
  // The quick-return with modified LuGre: Newton failed at its first step on a GPU.
  const LoggedRun r = logged_run<QuickReturnPhysics, ModifiedLuGre>("quick-return", 1500);
  ASSERT_EQ(r.report.status, Status::ok);
  expect_outcomes_follow_values(r.log, "quick-return / modified-lugre");
  auto by_site = outcomes_by_site(r.log);
  const auto newton = by_site[static_cast<int>(DecisionSite::newton_converged)];
  EXPECT_EQ(newton.first, r.report.steps_taken);
  EXPECT_EQ(newton.first + newton.second, r.report.newton_iterations);
  // At rest (before the valve opens at 1 s) every dwell test is taken; moving, some are not.
  double t = 0.0;
  long dwell_at_rest = 0, left_at_rest = 0, left_moving = 0;
  for (const auto& e : r.log.entries) {
    if (is_site(e, DecisionSite::trace_mark)) t = e.value;
    if (!is_site(e, DecisionSite::film_dwell)) continue;
    if (t < 0.999) (e.taken ? dwell_at_rest : left_at_rest)++;
    else if (!e.taken) ++left_moving;
  }
  EXPECT_GT(dwell_at_rest, 900);
  EXPECT_EQ(left_at_rest, 0);
  EXPECT_GT(left_moving, 0);
  EXPECT_GT(by_site[static_cast<int>(DecisionSite::film_saturated)].second, 0);
}

TEST(DecisionLog, BengisuAkayRecordsItsPreSlidingBranch) {
  const LoggedRun r = logged_run<PlanarFourBarPhysics, BengisuAkay>("four-bar", 1500);
  ASSERT_EQ(r.report.status, Status::ok);
  expect_outcomes_follow_values(r.log, "four-bar / bengisu-akay");
  const auto sticking = outcomes_by_site(r.log)[static_cast<int>(DecisionSite::bengisu_akay_sticking)];
  EXPECT_GT(sticking.first, 0);
  EXPECT_GT(sticking.second, 0);
}

TEST(DecisionLog, ClosedLoopEquilibriumRecordsItsNewtonTests) {
  // The lift-tilt's closed-loop stability point: its equilibrium converged
  // elsewhere on a GPU.
  using System = LiftTiltPhysics::Linearized<BrownMcPhee>;
  const auto P = default_params<System::Params>(descriptor<LiftTiltPhysics>("lift-tilt"), BrownMcPhee::name);
  decision_compare::HostDecisionLog log(1 << 16);
  const auto point = stability_with_decision_log<System>(P, StabilitySettings{}, &log.log);
  ASSERT_EQ(point.status, 0);
  ASSERT_LE(log.log.count, log.log.capacity);
  const Side side = log.side();
  expect_outcomes_follow_values(side, "lift-tilt stability");
  // Its Newton iterates until one test passes, and stops there.
  std::vector<DecisionEntry> tests;
  for (const auto& e : side.entries)
    if (is_site(e, DecisionSite::equilibrium_converged)) tests.push_back(e);
  ASSERT_GE(tests.size(), 1u);
  EXPECT_TRUE(tests.back().taken);
  for (size_t i = 0; i + 1 < tests.size(); ++i) EXPECT_FALSE(tests[i].taken) << i;
  EXPECT_GT(outcomes_by_site(side)[static_cast<int>(DecisionSite::valve_opening)].first +
                outcomes_by_site(side)[static_cast<int>(DecisionSite::valve_opening)].second,
            0);
}

TEST(DecisionLog, RecordingLeavesTheRunUnchanged) {
  const LoggedRun logged = logged_run<QuickReturnPhysics, ModifiedLuGre>("quick-return", 1200);
  const LoggedRun plain = logged_run<QuickReturnPhysics, ModifiedLuGre>("quick-return", 1200, 1, false);
  EXPECT_GT(logged.log.count, 0);
  EXPECT_EQ(plain.log.count, 0);
  ASSERT_EQ(logged.state.size(), plain.state.size());
  EXPECT_EQ(std::memcmp(logged.state.data(), plain.state.data(), logged.state.size() * sizeof(double)), 0);
  EXPECT_EQ(logged.report.newton_iterations, plain.report.newton_iterations);
}

TEST(DecisionLog, ComparisonNamesThePlantedParting) {
  const LoggedRun r = logged_run<PlanarFourBarPhysics, NoFriction>("four-bar", 1500);
  const Side& host = r.log;
  ASSERT_GT(host.entries.size(), 1000u);
  // The same log: no parting, no value difference.
  decision_compare::Parting same = decision_compare::find_parting(host, host);
  EXPECT_EQ(same.index, -1);
  EXPECT_EQ(same.first_value_difference, -1);
  EXPECT_NE(decision_compare::describe(host, host, "same").find("the same decisions in the same order"), std::string::npos);
  // A flipped outcome at the first valve-side decision after 1.2 s, a value
  // 1e-9 off some entries before it.
  long flip = -1, marks = 0;
  double t = 0.0;
  for (size_t i = 0; i < host.entries.size(); ++i) {
    const auto& e = host.entries[i];
    if (is_site(e, DecisionSite::trace_mark)) { t = e.value; ++marks; }
    if (t > 1.2 && is_site(e, DecisionSite::orifice_laminar)) { flip = static_cast<long>(i); break; }
  }
  ASSERT_GT(flip, 10);
  Side device = host;
  device.entries[static_cast<size_t>(flip)].taken ^= 1;
  const long nudged = flip - 7;
  device.entries[static_cast<size_t>(nudged)].value *= 1.0 + 1e-9;
  const decision_compare::Parting p = decision_compare::find_parting(host, device);
  EXPECT_EQ(p.index, flip);
  EXPECT_EQ(p.marks, marks);
  EXPECT_EQ(p.mark_value, t);
  EXPECT_EQ(p.first_value_difference, nudged);
  const std::string text = decision_compare::describe(host, device, "planted");
  EXPECT_NE(text.find("parted at decision #" + std::to_string(flip)), std::string::npos) << text;
  EXPECT_NE(text.find("orifice_laminar"), std::string::npos) << text;
  EXPECT_NE(text.find("first value difference at #" + std::to_string(nudged)), std::string::npos) << text;
  // A device log that ends early parts where it ends.
  Side shorter = host;
  shorter.entries.resize(500);
  shorter.count = 500;
  EXPECT_EQ(decision_compare::find_parting(host, shorter).index, 500);
  EXPECT_NE(decision_compare::describe(host, shorter, "short").find("(no more decisions)"), std::string::npos);
}

TEST(DecisionLog, AFullLogCountsWhatItDidNotStore) {
  const LoggedRun full = logged_run<PlanarFourBarPhysics, NoFriction>("four-bar", 100, 64);
  const LoggedRun roomy = logged_run<PlanarFourBarPhysics, NoFriction>("four-bar", 100);
  EXPECT_EQ(full.log.entries.size(), 64u);
  EXPECT_EQ(full.log.count, roomy.log.count);
  EXPECT_GT(full.log.count, 64);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(full.log.entries[i].site, roomy.log.entries[i].site);
    EXPECT_EQ(full.log.entries[i].value, roomy.log.entries[i].value);
  }
  EXPECT_NE(decision_compare::describe(full.log, roomy.log, "full").find("host log full: "), std::string::npos);
}

}  // namespace
}  // namespace hs
