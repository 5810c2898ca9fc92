// The input policy of the model files (docs/model-files.md §6,
// docs/models/planar-multibody.md §9): per cylinder either an open-loop
// valve schedule or a sampled PI controller that moves the cylinder's stroke
// or one joint coordinate along a reference, as a fluid-power engineer sets
// up a proportional valve with a position sensor. An input policy of the
// engine (kernels/models/input_policy.hpp) with its own memory.
//
// Per cylinder a, by its `mode`:
//   valve   U_ref,a(t) = the schedule (piecewise constant, as
//           OpenLoopSchedule: evaluated at each step's midpoint when no
//           cylinder is controlled, so a file with valve schedules only runs
//           the same operations as the compiled models' open-loop input);
//   stroke  y = s_a − s_a(0), the cylinder's extension since t = 0 [m];
//   joint   y = x_k − x_k(0), joint coordinate k's change since t = 0 [rad or m].
// A controlled cylinder's reference r(t) is the schedule's knots joined by
// straight lines (held before the first and after the last; × gain), and at
// each sample t_j = j·T (zero-order hold, T a whole number of steps):
//   e_j = r(t_j) − y_j
//   I_j = I_{j−1} + T e_j                       (rectangle rule)
//   u_j = K_p e_j + K_i I_j,   U_ref = clamp(u_j, −U_max, U_max)
// with conditional integration against windup: while the command is at its
// limit and e_j would drive it further out, I_j = I_{j−1} (Åström & Hägglund's
// clamping; the integrator then holds what it had when the valve saturated).
#pragma once
#include <cmath>

#include "../core/dual.hpp"
#include "../core/hd.hpp"
#include "../models/input_policy.hpp"
#include "../models/input_schedule.hpp"

namespace hs {

enum class CylinderInputMode : int { valve = 0, stroke = 1, joint = 2 };

// R: double, or Lanes<W> (kernels/core/lanes.hpp): the gains and limits per
// lane; the mode, the coordinate, the schedule's knots and the sample period
// are the same in every lane of a batch (the schedule's gain per lane).
template <class R = double>
struct CylinderInputSettingT {
  InputScheduleT<R> schedule;       // valve: U_ref [V]; stroke, joint: the reference's knots [m or rad]
  int mode = 0;                     // CylinderInputMode
  int coordinate = 0;               // joint: the coordinate's slot x_k
  R proportional_gain = 0.0;        // K_p [V/m or V/rad]
  R integral_gain = 0.0;            // K_i [V/(m s) or V/(rad s)]
  R voltage_limit = 10.0;           // U_max [V]
};
using CylinderInputSetting = CylinderInputSettingT<double>;

template <int NA, class R = double>
struct CylinderInputsParamsT {
  CylinderInputSettingT<R> cylinder[NA];
  double sample_period = 0.01;  // T [s] of the controlled cylinders; a whole number of steps
};
template <int NA>
using CylinderInputsParams = CylinderInputsParamsT<NA, double>;

// The reference of a controlled cylinder at t: the knots (start[i], value[i])
// joined by straight lines, held outside them, × gain.
template <class R>
HS_HD R reference_at(const InputScheduleT<R>& S, double t) {
  if (S.count <= 0) return R(0.0);
  if (t <= S.start[0]) return S.gain * S.value[0];
  for (int i = 1; i < S.count; ++i)
    if (t < S.start[i]) {
      const double w = (t - S.start[i - 1]) / (S.start[i] - S.start[i - 1]);
      return S.gain * (S.value[i - 1] + w * (S.value[i] - S.value[i - 1]));
    }
  return S.gain * S.value[S.count - 1];
}

template <int NA>
struct CylinderInputs {
  using Params = CylinderInputsParams<NA>;
  // On the lockstep lanes (docs/models/lanes.md §10): gains, limits, the
  // schedule's gain and the memory per lane; the branches on a lane's values
  // as masks (choose), the structural ones (mode, coordinate) as branches.
  template <class R>
  using ParamsOn = CylinderInputsParamsT<NA, R>;
  static constexpr bool observes = true;
  static constexpr bool on_lanes = true;
  static constexpr int na = NA;

  template <class R>
  HS_HD static bool controlled(const ParamsOn<R>& P, int a) { return P.cylinder[a].mode != int(CylinderInputMode::valve); }
  template <class R>
  HS_HD static bool any_controlled(const ParamsOn<R>& P) {
    for (int a = 0; a < NA; ++a)
      if (controlled(P, a)) return true;
    return false;
  }

  // Reals only (one value per lane on lanes): the counts too, so that a lane
  // that stops keeps its own (a count of samples is exact in a double).
  template <class R>
  struct MemoryOn {
    R y0[NA];          // the measured quantity at t = 0
    R integral[NA];    // I_j
    R error_sq_sum[NA], error_peak[NA];
    R reference[NA], error[NA], command[NA];  // at the last sample (probe)
    R samples, saturated[NA];
    R period;          // T (for the saturation time)
  };
  using Memory = MemoryOn<double>;

  struct Report {
    double error_rms[NA], error_peak[NA], saturation_time[NA];
    static constexpr int width = 3 * NA;
    HS_HD static void unstarted(Report& r) {
      const double nan = __builtin_nan("");
      for (int a = 0; a < NA; ++a) r.error_rms[a] = r.error_peak[a] = r.saturation_time[a] = nan;
    }
    template <class V>
    static void visit(const Report* r, V&& v) {
      using O = run_columns::Of;
      for (int a = 0; a < NA; ++a)
        v("control_error_rms", -1, NA > 1 ? a : -1, O::none, "m",
          "RMS of the controller's error r - y over its samples (NaN: open-loop valve schedule)", false,
          r ? r->error_rms[a] : 0.0);
      for (int a = 0; a < NA; ++a)
        v("control_error_peak", -1, NA > 1 ? a : -1, O::none, "m",
          "largest |r - y| at a controller sample (NaN: open-loop valve schedule)", false, r ? r->error_peak[a] : 0.0);
      for (int a = 0; a < NA; ++a)
        v("control_saturation_time", -1, NA > 1 ? a : -1, O::none, "s",
          "time with the controller's valve command at its limit (NaN: open-loop valve schedule)", false,
          r ? r->saturation_time[a] : 0.0);
    }
  };
  struct Probe {
    double reference[NA], error[NA];
    static constexpr int width = 2 * NA;
    HS_HD static void unstarted(Probe& p) {
      const double nan = __builtin_nan("");
      for (int a = 0; a < NA; ++a) p.reference[a] = p.error[a] = nan;
    }
    template <class V>
    static void visit(const Probe* p, V&& v) {
      using O = run_columns::Of;
      for (int a = 0; a < NA; ++a)
        v("control_reference", -1, NA > 1 ? a : -1, O::none, "m",
          "the controller's reference r at its last sample (NaN: open-loop valve schedule)", false,
          p ? p->reference[a] : 0.0);
      for (int a = 0; a < NA; ++a)
        v("control_error", -1, NA > 1 ? a : -1, O::none, "m", "the controller's error r - y at its last sample", false,
          p ? p->error[a] : 0.0);
    }
  };

  // Open-loop schedules alone: every step's midpoint, as OpenLoopSchedule.
  template <class R>
  HS_HD static double sample_period(const ParamsOn<R>& P) { return any_controlled(P) ? P.sample_period : 0.0; }
  HS_HD static double last_switch(const Params& P, double duration) {
    double t_switch = 0.0;
    for (int a = 0; a < NA; ++a) {
      const InputSchedule& S = P.cylinder[a].schedule;
      for (int k = 0; k < S.count; ++k)
        if (S.start[k] <= duration && S.start[k] > t_switch) t_switch = S.start[k];
    }
    return t_switch;
  }

  HS_HD static void initialize(const Params& P, Memory& m) {
    const double nan = __builtin_nan("");
    m.samples = 0.0;
    m.period = P.sample_period;
    for (int a = 0; a < NA; ++a) {
      m.y0[a] = m.integral[a] = m.error_sq_sum[a] = m.error_peak[a] = 0.0;
      m.reference[a] = m.error[a] = m.command[a] = nan;
      m.saturated[a] = 0.0;
    }
  }

  // On lanes every comparison is per lane: `first`, the windup and
  // saturation tests are masks, both sides computed and each lane's chosen,
  // so that each lane gets the scalar path's bits.
  template <class R, class Obs>
  HS_HD static void reference(const ParamsOn<R>& P, double t, const Obs& obs, MemoryOn<R>& m, R (&U_ref)[NA]) {
    const auto first = m.samples == 0.0;
    for (int a = 0; a < NA; ++a) {
      const CylinderInputSettingT<R>& c = P.cylinder[a];
      if (c.mode == int(CylinderInputMode::valve)) {
        U_ref[a] = c.schedule(t);
        continue;
      }
      const R y_abs = c.mode == int(CylinderInputMode::stroke) ? obs.s[a] : obs.q[c.coordinate];
      m.y0[a] = choose(first, y_abs, m.y0[a]);
      const R r = reference_at(c.schedule, t);
      const R e = r - (y_abs - m.y0[a]);
      const R integral = m.integral[a] + P.sample_period * e;
      const R u_free = c.proportional_gain * e + c.integral_gain * integral;
      const auto high = u_free > c.voltage_limit, low = u_free < -c.voltage_limit;
      // Conditional integration: keep the old integral when saturated and e pushes further out.
      const auto hold = (high && e * c.integral_gain > 0.0) || (low && e * c.integral_gain < 0.0);
      R u = choose(hold, c.proportional_gain * e + c.integral_gain * m.integral[a], u_free);
      m.integral[a] = choose(hold, m.integral[a], integral);
      m.saturated[a] += choose(u >= c.voltage_limit || u <= -c.voltage_limit, R(1.0), R(0.0));
      u = choose(u > c.voltage_limit, c.voltage_limit, u);
      u = choose(u < -c.voltage_limit, -c.voltage_limit, u);
      m.error_sq_sum[a] += e * e;
      const R magnitude = math::abs(e);
      m.error_peak[a] = choose(magnitude > m.error_peak[a], magnitude, m.error_peak[a]);
      m.reference[a] = r;
      m.error[a] = e;
      m.command[a] = u;
      U_ref[a] = u;
    }
    m.samples += 1.0;
  }

  HS_HD static void report(const Params& P, const Memory& m, Report& r) {
    Report::unstarted(r);
    for (int a = 0; a < NA; ++a) {
      if (!controlled(P, a) || m.samples == 0.0) continue;
      r.error_rms[a] = sqrt(m.error_sq_sum[a] / m.samples);
      r.error_peak[a] = m.error_peak[a];
      r.saturation_time[a] = m.saturated[a] * m.period;
    }
  }
  HS_HD static void probe(const Params&, const Memory& m, Probe& p) {
    for (int a = 0; a < NA; ++a) {
      p.reference[a] = m.reference[a];
      p.error[a] = m.error[a];
    }
  }
};

}  // namespace hs
