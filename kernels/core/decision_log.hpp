// The kernels' branch decisions, logged for the device bisection (issue 40
// item 2; docs/gpu.md §7).
//
// A GPU run that leaves the CPU's at some step left it at a decision: a
// friction regime, a valve or schedule switch, a Newton or closure
// convergence test, a change of the coordinate partition. Those decisions are
// written HS_DECISION(site, condition, value, threshold), where the condition
// compares value with threshold. In every build but the diagnostic one the
// macro is `(condition)`: no code, the same instructions, the same results.
//
// Built with -DHS_LOG_DECISIONS (only device_trace_decisions and the host
// test DecisionLog.*: tests/CMakeLists.txt), each decision of one instance
// (a bool condition; the lanes' masks are not logged) appends (site, taken,
// value, threshold) to the log that the calling thread installed
// (`install_decision_log`; none installed: nothing is recorded). The host's
// and the device's sequences for the same instance are then compared entry by
// entry (tests/decision_log_compare.hpp): the first entry whose site or
// outcome differs is the decision where the two runs parted, and the margins
// |value − threshold| of the entries before it show how close each was.
//
// The log's storage is a diagnostic's, not physics (docs/models/README.md
// §5.1 keeps #ifdef __CUDA_ARCH__ out of the physics): one pointer per host
// thread, one per device program (the trace runs one device thread).
#pragma once
#include "hd.hpp"

namespace hs {

// Where a decision is taken; decision_site_name gives the name printed.
enum class DecisionSite : int {
  trace_mark,             // not a decision: a mark the trace writes (a step's start, value t; a stage)
  schedule_segment,       // kernels/models/input_schedule.hpp: t ≥ start of a segment
  valve_opening,          // kernels/hydraulics/components.hpp U ≥ 0, servo_valve_circuit.hpp u > 0: P→A, B→T side
  orifice_laminar,        // kernels/hydraulics/valve.hpp: |Δp| ≤ Δp_lim (laminar branch)
  bengisu_akay_sticking,  // kernels/friction/friction.hpp: |v| < v_s (pre-sliding branch)
  film_saturated,         // kernels/friction/lugre.hpp: |v| > v_b (the film's steady state is saturated)
  film_dwell,             // kernels/friction/lugre.hpp: |v| < 1e-4 v_s (τ_h = τ_h0)
  film_accelerating,      // kernels/friction/lugre.hpp: |h| ≤ |h_ss| (τ_h = τ_hp, else τ_hn)
  closure_converged,      // kernels/integrators/double_step_trapezoidal.hpp: |Φ|∞ ≤ tolerance (solve_dependent)
  state_closure_redo,     // double_step_trapezoidal.hpp converged_state: |Φ|∞ above the tolerance at the converged x
  newton_converged,       // double_step_trapezoidal.hpp newton_update: every increment within its tolerance
  partition_change,       // double_step_trapezoidal.hpp choose_partition: |det Φ_d| < ½ the best
  equilibrium_converged,  // kernels/linearize/sampled_loop.hpp: the closed-loop equilibrium's Newton has converged
  count
};

HS_HD inline const char* decision_site_name(int site) {
  switch (static_cast<DecisionSite>(site)) {
    case DecisionSite::trace_mark: return "trace_mark";
    case DecisionSite::schedule_segment: return "schedule_segment";
    case DecisionSite::valve_opening: return "valve_opening";
    case DecisionSite::orifice_laminar: return "orifice_laminar";
    case DecisionSite::bengisu_akay_sticking: return "bengisu_akay_sticking";
    case DecisionSite::film_saturated: return "film_saturated";
    case DecisionSite::film_dwell: return "film_dwell";
    case DecisionSite::film_accelerating: return "film_accelerating";
    case DecisionSite::closure_converged: return "closure_converged";
    case DecisionSite::state_closure_redo: return "state_closure_redo";
    case DecisionSite::newton_converged: return "newton_converged";
    case DecisionSite::partition_change: return "partition_change";
    case DecisionSite::equilibrium_converged: return "equilibrium_converged";
    default: return "?";
  }
}

// One decision: where, whether the branch was taken, and what was compared.
struct DecisionEntry {
  int site;
  int taken;
  double value;
  double threshold;
};

// A caller-owned array; `count` goes on past `capacity` (those entries are
// not stored), so a full log says how much it lost.
struct DecisionLog {
  DecisionEntry* entries = nullptr;
  long capacity = 0;
  long count = 0;
  HS_HD void put(int site, bool taken, double value, double threshold) {
    if (count < capacity) entries[count] = DecisionEntry{site, taken ? 1 : 0, value, threshold};
    ++count;
  }
};

}  // namespace hs

#ifdef HS_LOG_DECISIONS
#include <type_traits>

#include "dual.hpp"

namespace hs {
namespace decision_detail {
#if defined(__CUDACC__)
// One per program: the trace runs a single device thread (static: one per
// translation unit, only the trace's defines HS_LOG_DECISIONS).
static __device__ DecisionLog* device_log = nullptr;
#endif
inline DecisionLog*& host_log() {
  static thread_local DecisionLog* log = nullptr;
  return log;
}
HS_HD inline DecisionLog*& current_log() {
#if defined(__CUDA_ARCH__)
  return device_log;
#else
  return host_log();
#endif
}
}  // namespace decision_detail

// The log the calling thread's decisions go to from now on (null: none).
HS_HD inline void install_decision_log(DecisionLog* log) { decision_detail::current_log() = log; }

// Records a one-instance decision and passes the condition through. Value and
// threshold may be dual numbers (their value part is logged); a lane mask
// (W instances at once) is passed through unrecorded.
template <class Condition, class Value, class Threshold>
HS_HD Condition record_decision(DecisionSite site, const Condition& taken, const Value& v, const Threshold& threshold) {
  if constexpr (std::is_same<Condition, bool>::value) {
    if (DecisionLog* log = decision_detail::current_log())
      log->put(static_cast<int>(site), taken, static_cast<double>(value(v)), static_cast<double>(value(threshold)));
  }
  return taken;
}

// A mark in the calling thread's log (not a decision): the trace's step or stage.
HS_HD inline void mark_decision_log(double value) {
  if (DecisionLog* log = decision_detail::current_log()) log->put(static_cast<int>(DecisionSite::trace_mark), true, value, 0.0);
}

// The largest of three value/limit ratios: the logged value of a decision
// that tests three quantities against their limits at once (threshold 1).
template <class R>
HS_HD R largest_ratio(const R& a, double a_limit, const R& b, double b_limit, const R& c, double c_limit) {
  const R ra = a * (1.0 / a_limit), rb = b * (1.0 / b_limit), rc = c * (1.0 / c_limit);
  const R rab = choose(ra > rb, ra, rb);
  return choose(rab > rc, rab, rc);
}
}  // namespace hs

#define HS_DECISION(site, condition, value, threshold) \
  ::hs::record_decision(::hs::DecisionSite::site, (condition), (value), (threshold))
#else
#define HS_DECISION(site, condition, value, threshold) (condition)
#endif
