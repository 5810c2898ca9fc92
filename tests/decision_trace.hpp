// The runs device_trace_decisions makes on both sides with the decision log
// installed (kernels/core/decision_log.hpp, docs/gpu.md §7): the host half is
// what tests/test_decision_log.cpp checks. Built with HS_LOG_DECISIONS only.
#pragma once
#ifndef HS_LOG_DECISIONS
#error "tests/decision_trace.hpp is for builds with HS_LOG_DECISIONS (tests/CMakeLists.txt)"
#endif
#include "kernels/core/decision_log.hpp"
#include "kernels/integrators/settings.hpp"
#include "kernels/linearize/stability.hpp"

namespace hs {

// What a logged run reports besides its log.
struct DecisionRunReport {
  Status status = Status::ok;
  long steps_taken = 0;        // steps that ended ok
  long newton_iterations = 0;  // summed over those steps
};

// One instance of integrator I for up to `steps` steps (it stops at the
// first status other than ok), its decisions in `log`, a mark with t before
// each step; the state it reached in `st`.
template <class I>
HS_HD DecisionRunReport run_with_decision_log(const typename I::Params& P, const IntegratorSettings& S, long steps,
                                              DecisionLog* log, typename I::State& st) {
  install_decision_log(log);
  DecisionRunReport out;
  typename I::Constants K;
  out.status = I::initialize(P, S, st, K);
  for (long n = 1; n <= steps && out.status == Status::ok; ++n) {
    mark_decision_log(st.t);
    typename I::StepReport report;
    out.status = I::step(P, K, S, st, report);
    if (out.status == Status::ok) {
      ++out.steps_taken;
      out.newton_iterations += static_cast<long>(report.newton_iterations);
    }
  }
  install_decision_log(nullptr);
  return out;
}

// A linearized system's stability point (its equilibrium, linearization and
// eigenvalues), its decisions in `log`.
template <class System>
HS_HD auto stability_with_decision_log(const typename System::Params& P, const StabilitySettings& S, DecisionLog* log) {
  install_decision_log(log);
  const auto point = System::stability_point(P, S);
  install_decision_log(nullptr);
  return point;
}

}  // namespace hs
