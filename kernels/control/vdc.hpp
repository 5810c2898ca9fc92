// Virtual decomposition control of seed 004 (Petrović & Mattila 2022,
// §2.2, §3.2–3.3, eqs 8, 36–45, 70–77, 86–93) for the Lift + Tilt
// manipulator (kernels/models/lift_tilt.hpp), as an input policy of the
// engine (kernels/models/input_policy.hpp) with its own memory, sampled at
// its own period with zero-order hold. docs/models/manipulator.md §5, §11.4.
//
// Every sample t_k, from the observed q, q̇, strokes x, ẋ and pressures p:
//  1. path → desired TCP X_d, Ẋ_d, Ẍ_d (waypoint_path.hpp); closed-form
//     inverse kinematics → q_d; q̇_d = J⁻¹ Ẋ_d, q̈_d = J⁻¹ (Ẍ_d − J̇ q̇_d)
//     (J and J̇ q̇_d in closed form on the TCP chain, LiftTilt::tcp_arms);
//  2. required joint rates, eq (36): q̇_r = q̇_d + λ (q_d − q), and
//     q̈_r = q̈_d + λ (q̇_d − q̇) (the exact d/dt of eq 36, manipulator.md §5 item 4);
//  3. required twists of every subsystem, eqs (38)–(45), and their time
//     derivatives exactly: the twist recursion of the model on a time jet
//     (q + q̇ε, q̇_r + q̈_r ε), docs/models/manipulator.md §5, §11.4.1;
//  4. required net wrenches, eq (8):
//       F*_r = M_A d/dt V_r + C_A(ω) V_r + G_A + K_A (V_r − V)
//     with the actual ω and twist V and K_A = diag(k_v, k_v, k_ω);
//  5. required actuator forces f_cjr, eq (76), and the wrench handed to the
//     lift segment, eq (77) (the model's actuator_forces, eqs 68–69);
//  6. required piston forces f_pjr = f_cjr + f_f(ẋ_jr) with the controller's
//     friction model at the required piston rate ẋ_jr = ∂x_j/∂q_j q̇_jr;
//  7. u_fjr, eq (90), with the dead-volume lengths x̃_a = V_0a/A_a + x,
//     x̃_b = V_0b/A_b + S − x (manipulator.md §4) and ḟ_pjr by a backward
//     difference over one period (zero at the first sample, [A]);
//  8. the valve voltage u_j by inverting the valve model, eq (91), limited
//     to ±u_max (seed 004 §7: ±10 V).
// The controller's model is the plant's geometry and link inertias (known
// exactly) with its own payload mass, bulk moduli, valve coefficients and
// friction model (`controller.model_*`): a Monte Carlo study varies the
// plant while the controller keeps its nominal model.
#pragma once
#include "../core/dual.hpp"
#include "../core/uninitialized.hpp"
#include "../hydraulics/servo_valve_circuit.hpp"
#include "../models/input_policy.hpp"
#include "../models/lift_tilt.hpp"
#include "waypoint_path.hpp"

namespace hs {

// R: double, or Lanes<W> (kernels/core/lanes.hpp): the gains and the
// controller's model per lane (the reals, first), the sample period and the
// path the same in every lane of a batch (docs/models/lanes.md §11).
template <class R = double>
struct VdcParamsT {
  using Real = R;
  R voltage_limit = 10.0;     // u_max [V] [S] seed 004 §7
  R joint_gain = 3.0;         // λ, eq (36) [1/s] [R]
  R velocity_gain = 5.0;      // K_A translational entries [N·s/m] [R]
  R angular_gain = 5.0;       // K_A rotational entry [N·m·s/rad] [R]
  R velocity_feedback[2] = {5e-3, 5e-3};  // k_xj, eq (90) [m] [R]
  R force_feedback[2] = {2e-8, 2e-8};     // k_fj, eq (90) [m²/(N·s)] [R]
  // The controller's model of what a study may make uncertain.
  R model_payload_mass = 100.0;                     // [kg]
  R model_bulk_modulus[2] = {800e6, 800e6};         // β̂_j [Pa]
  R model_valve_coefficient[2] = {3.5635e-8, 8.9087e-8};  // ĉ_j, all four edges [m³/(s·V·√Pa)]
  // Friction model f_f(v) = F_c tanh(4 v/v_s) + b v (continuous, increasing,
  // odd, as seed 004's stability proof requires).
  R model_coulomb_force[2] = {4000.0, 4000.0};      // [N]
  R model_stribeck_velocity[2] = {0.02, 0.02};      // [m/s]
  R model_viscous_coefficient[2] = {15000.0, 15000.0};  // [N·s/m]
  // One per batch on lanes (the sampling instants and the desired path).
  double sample_period = 1e-3;     // [s] [R]; a whole number of integrator steps
  WaypointPath path;
};
using VdcParams = VdcParamsT<double>;

struct VdcController {
  using Params = VdcParams;
  template <class R>
  using ParamsOn = VdcParamsT<R>;
  static constexpr bool observes = true;
  static constexpr bool reads_model = true;
  static constexpr bool on_lanes = true;  // ParamsOn and MemoryOn on Lanes<W>: the lockstep lanes run it
  static constexpr int na = 2;

  // Reals only (one value per lane on lanes): the counts too, so that a lane
  // keeps its own (a count of samples is exact in a double).
  template <class R>
  struct MemoryOn {
    R start_x, start_y;     // TCP at t0 (the path's first point)
    R f_pr_prev[2];         // f_pjr of the previous sample (the probe's required piston forces)
    R samples;              // samples taken
    R saturated_samples;    // samples with a voltage at its limit
    R violation_samples;    // samples with a chamber pressure outside (p_r, p_s)
    R first_saturation;     // time of the first saturated sample (NaN: none)
    R error_sq_sum, error_peak, error_last;  // |X_d − X| over the samples
    R desired_speed_peak;   // max |Ẋ_d| over the samples (ρ's denominator)
    // The last sample's figures (probe).
    R x, y, x_d, y_d;
    // The chain to the TCP of the inverse kinematics (parameters only: once per run).
    LiftTilt::TcpChainT<R> chain;
  };
  using Memory = MemoryOn<double>;

  struct Report {
    double tcp_error_rms, tcp_error_peak, tcp_error_final;
    double saturation_time, first_saturation_time, pressure_violation_time;
    double performance_index;
    static constexpr int width = 7;
    HS_HD static void unstarted(Report& r) {
      const double nan = __builtin_nan("");
      r.tcp_error_rms = r.tcp_error_peak = r.tcp_error_final = r.performance_index = nan;
      r.saturation_time = r.first_saturation_time = r.pressure_violation_time = nan;
    }
    template <class V>
    static void visit(const Report* r, V&& v) {
      using O = run_columns::Of;
      auto at = [&](double Report::*m) { return r ? r->*m : 0.0; };
      v("tcp_error_rms", -1, -1, O::none, "m", "RMS of |X_d - X| over the controller's samples", false, at(&Report::tcp_error_rms));
      v("tcp_error_peak", -1, -1, O::none, "m", "largest |X_d - X| at a controller sample", false, at(&Report::tcp_error_peak));
      v("tcp_error_final", -1, -1, O::none, "m", "|X_d - X| at the last controller sample", false, at(&Report::tcp_error_final));
      v("performance_index", -1, -1, O::none, "s",
        "rho = max |X_d - X| / max |dX_d/dt| over the controller's samples (seed 004's tracking index)", false,
        at(&Report::performance_index));
      v("saturation_time", -1, -1, O::none, "s", "time with a valve voltage at its limit (either valve)", false,
        at(&Report::saturation_time));
      v("first_saturation_time", -1, -1, O::none, "s", "first controller sample with a voltage at its limit (NaN: never)",
        false, at(&Report::first_saturation_time));
      v("pressure_violation_time", -1, -1, O::none, "s",
        "time with a chamber pressure outside (return, supply) at the controller's samples (seed 004 Assumption 5)", false,
        at(&Report::pressure_violation_time));
    }
  };
  struct Probe {
    double tcp_x, tcp_y, tcp_x_desired, tcp_y_desired, required_force[2];
    static constexpr int width = 6;
    HS_HD static void unstarted(Probe& p) {
      const double nan = __builtin_nan("");
      p.tcp_x = p.tcp_y = p.tcp_x_desired = p.tcp_y_desired = p.required_force[0] = p.required_force[1] = nan;
    }
    template <class V>
    static void visit(const Probe* p, V&& v) {
      using O = run_columns::Of;
      auto at = [&](double Probe::*m) { return p ? p->*m : 0.0; };
      v("tcp_x", -1, -1, O::none, "m", "TCP x at the controller's last sample", false, at(&Probe::tcp_x));
      v("tcp_y", -1, -1, O::none, "m", "TCP y at the controller's last sample", false, at(&Probe::tcp_y));
      v("tcp_x_desired", -1, -1, O::none, "m", "desired TCP x at that sample", false, at(&Probe::tcp_x_desired));
      v("tcp_y_desired", -1, -1, O::none, "m", "desired TCP y at that sample", false, at(&Probe::tcp_y_desired));
      for (int a = 0; a < 2; ++a)
        v("required_piston_force", -1, a, O::none, "N", "required piston force f_pr (eq 76 + friction model)", false,
          p ? p->required_force[a] : 0.0);
    }
  };

  template <class R>
  HS_HD static double sample_period(const ParamsOn<R>& P) { return P.sample_period; }
  HS_HD static double last_switch(const Params& P, double duration) {
    const double t = path_end_time(P.path);
    return t < duration ? t : duration;
  }

  // The controller's friction model (seed 004 §3.4: increasing, continuous, odd).
  template <class R, class T>
  HS_HD static T friction_model(const ParamsOn<R>& P, int j, const T& v) {
    return P.model_coulomb_force[j] * math::tanh(4.0 * v / P.model_stribeck_velocity[j]) + P.model_viscous_coefficient[j] * v;
  }

  template <class MP>
  HS_HD static void initialize(const MP& PM, Memory& m) {
    const V2<double> X = LiftTilt::tcp(PM.mechanism, PM.mechanism.initial_angle);
    m.start_x = X.x;
    m.start_y = X.y;
    m.f_pr_prev[0] = m.f_pr_prev[1] = 0.0;
    m.samples = m.saturated_samples = m.violation_samples = 0.0;
    m.first_saturation = __builtin_nan("");
    m.error_sq_sum = m.error_peak = m.error_last = m.desired_speed_peak = 0.0;
    m.x = m.x_d = X.x;
    m.y = m.y_d = X.y;
    m.chain = LiftTilt::tcp_chain(PM.mechanism);
  }

  // Desired joint motion at t: q_d, q̇_d, q̈_d from the path and the IK.
  // False if the path point is out of reach (the study check refuses such
  // paths; an instance perturbed out of reach closes its valves, reference()).
  // On lanes the mask of the lanes in reach (the others' values are to be
  // discarded).
  template <class MP, class R>
  HS_HD static auto desired_joints(const MP& PM, const MemoryOn<R>& m, double t, R* qd, R* qd_dot, R* qd_ddot,
                                   PathPointT<R>& X) {
    const auto& G = PM.mechanism;
    X = path_at(PM.input.path, m.start_x, m.start_y, t);
    const auto in_reach = LiftTilt::inverse_kinematics(G, m.chain, X.x, X.y, qd);
    if (!any_lane(in_reach)) return in_reach;
    // J = ∂X/∂q at q_d and J̇ q̇_d, closed forms of the chain (LiftTilt::tcp_arms).
    const LiftTilt::TcpArms<R> arm = LiftTilt::tcp_arms(G, m.chain, qd);
    const R J00 = -(arm.b[1] + arm.t[1]), J01 = -arm.t[1], J10 = arm.b[0] + arm.t[0], J11 = arm.t[0];
    const R det = J00 * J11 - J01 * J10;
    const auto regular = in_reach && math::abs(det) > 1e-12;
    if (!any_lane(regular)) return regular;
    auto solve = [&](const R& bx, const R& by, R* out) {
      out[0] = (J11 * bx - J01 * by) / det;
      out[1] = (J00 * by - J10 * bx) / det;
    };
    solve(X.vx, X.vy, qd_dot);
    // J̇ q̇_d = d²X/dτ² along q_d + q̇_d τ: −R(·)b q̇_1² − R(·)t (q̇_1 + q̇_2)².
    const R w1 = qd_dot[0], w2 = qd_dot[0] + qd_dot[1];
    const R w1_sq = w1 * w1, w2_sq = w2 * w2;
    const R Jdot_x = -(arm.b[0] * w1_sq + arm.t[0] * w2_sq), Jdot_y = -(arm.b[1] * w1_sq + arm.t[1] * w2_sq);
    solve(X.ax - Jdot_x, X.ay - Jdot_y, qd_ddot);
    return regular;
  }

  // Steps 2–7 at one sample on any scalar T (double in the run, dual
  // numbers in the closed-loop linearization, kernels/linearize/sampled_loop.hpp):
  // from the desired joint motion (q_d, q̇_d, q̈_d), the observed q, q̇,
  // strokes x, rates ẋ and pressures p, and the previous sample's required
  // piston forces (memory; `first`: none yet, ḟ_pr = 0), the required piston
  // forces f_pr and the required u_fr of eq (90) per actuator. On lanes
  // (T = Q = Lanes<W>) every lane's, `first` a mask.
  template <class MP, class Q, class T, class First>
  HS_HD static void required_flow_rates(const MP& PM, const Q* q_des, const Q* qd_des, const Q* qdd_des, const T* q,
                                        const T* qdot, const T* x, const T* xdot, const T* p, const T* f_pr_prev,
                                        const First& first, T* f_pr, T* u_fr) {
    const auto& P = PM.input;
    const auto& G = PM.mechanism;
    using R = typename std::decay_t<decltype(P)>::Real;
    T qr_dot[2], qr_ddot[2];
    for (int j = 0; j < 2; ++j) {
      qr_dot[j] = qd_des[j] + P.joint_gain * (q_des[j] - q[j]);
      qr_ddot[j] = qdd_des[j] + P.joint_gain * (qd_des[j] - qdot[j]);
    }

    // 3. Actual and required twists (eqs 24–31, 38–45), d/dt V_r on a time jet.
    const LiftTilt::Twists<T> actual = LiftTilt::twists(G, q, qdot);
    const auto req = LiftTilt::twists_moving(G, q, qdot, qr_dot, qr_ddot);

    // 4. Required net wrenches (eq 8) with the controller's model bodies.
    const LiftTilt::Bodies<R> b = LiftTilt::bodies(G, P.model_payload_mass);
    Uninitialized<Planar3<T>, LiftTilt::nb> Fr;  // every entry written below before it is read
    for (int k = 0; k < LiftTilt::nb; ++k) {
      const Planar3<T> Vr{req.V[k].x.a, req.V[k].y.a, req.V[k].w.a};
      const Planar3<T> dVr{req.V[k].x.v[0], req.V[k].y.v[0], req.V[k].w.v[0]};
      const Planar3<T>& V = actual.V[k];
      Planar3<T> F = net_wrench(b[k], Vr, dVr, V.w, actual.cos_abs[k], actual.sin_abs[k], G.gravity_x, G.gravity_y);
      F.x += P.velocity_gain * (Vr.x - V.x);
      F.y += P.velocity_gain * (Vr.y - V.y);
      F.w += P.angular_gain * (Vr.w - V.w);
      Fr[k] = F;
    }

    // 5. Required actuator forces, eqs (76)–(77) (free motion: ^{D12}F_r = 0).
    T f_cr[2];
    const Planar3<T> zero{T(0.0), T(0.0), T(0.0)};
    LiftTilt::actuator_forces(G, actual.seg, Fr.item, zero, f_cr);

    // 6–7. Per actuator: required piston force and eq (90).
    for (int j = 0; j < 2; ++j) {
      const auto& C = PM.actuator[j].circuit;
      R A_a, A_b;
      hydraulics::CylinderChambers::areas(C.piston_diameter, C.rod_diameter, A_a, A_b);
      const T xr_dot = actual.seg[j].dx_dq * qr_dot[j];
      f_pr[j] = f_cr[j] + friction_model(P, j, xr_dot);
      const T f_pr_dot = lane_if(first, [&]() { return T(0.0); }, [&]() -> T { return (f_pr[j] - f_pr_prev[j]) / P.sample_period; });
      const T f_p = A_a * p[2 * j] - A_b * p[2 * j + 1];  // eq (79)
      const T xa = C.dead_volume_a / A_a + x[j], xb = C.dead_volume_b / A_b + (C.stroke - x[j]);
      u_fr[j] = f_pr_dot / P.model_bulk_modulus[j] + (A_a / xa + A_b / xb) * xdot[j] +
                P.velocity_feedback[j] * (xr_dot - xdot[j]) + P.force_feedback[j] * (f_pr[j] - f_p);
    }
  }

  // Step 8: the voltage of actuator j from u_fr, eq (91): the valve law of
  // the plant's circuit with the model's edge coefficients on the side
  // `opening` (u_fr > 0 in the run; a mask on lanes), at pressures pa, pb and
  // stroke x.
  template <class MP, class R, class Opening>
  HS_HD static R voltage_gain(const MP& PM, int j, const Opening& opening, const R& pa, const R& pb, const R& x) {
    const auto& C = PM.actuator[j].circuit;
    R A_a, A_b;
    hydraulics::CylinderChambers::areas(C.piston_diameter, C.rod_diameter, A_a, A_b);
    const R xa = C.dead_volume_a / A_a + x, xb = C.dead_volume_b / A_b + (C.stroke - x);
    const R c = PM.input.model_valve_coefficient[j];
    return ServoValveCircuit::voltage_gain(C, ServoValveCircuit::EdgesOn<R>{c, c, c, c}, opening, pa, pb, xa, xb);
  }

  // The closed-loop linearization's view of the law (kernels/linearize/sampled_loop.hpp,
  // docs/models/manipulator.md §11.7): holding the initial pose (q_d fixed,
  // q̇_d = q̈_d = 0), v = u_fr of eq (90), memory the last sample's f_pr.
  static constexpr int linear_memory = 2;
  template <class MP>
  HS_HD static void held_pose(const MP& PM, double* q) {
    q[0] = PM.mechanism.initial_angle[0];
    q[1] = PM.mechanism.initial_angle[1];
  }
  template <class MP, class T>
  HS_HD static void sampled_law(const MP& PM, const double* q_hold, const T* q, const T* qdot, const T* x, const T* xdot,
                                const T* p, const T* f_pr_prev, T* u_fr, T* f_pr) {
    const double rest[2] = {0.0, 0.0};
    required_flow_rates(PM, q_hold, rest, rest, q, qdot, x, xdot, p, f_pr_prev, false, f_pr, u_fr);
  }
  // u = u_fr / gain on the side the valve opens, eq (91); p: all pressures,
  // x: the strokes.
  template <class MP>
  HS_HD static double input_gain(const MP& PM, int j, bool opening, const double* p, const double* x) {
    return voltage_gain(PM, j, opening, p[2 * j], p[2 * j + 1], x[j]);
  }

  // One sample. On lanes (R = Lanes<W>) every lane's: the tests on a lane's
  // values (in reach, the valve side, the limits, the pressure range) are
  // masks, both sides computed and each lane's chosen, so that each lane gets
  // the scalar path's bits (docs/models/lanes.md §11); a lane out of reach
  // closes its valves and keeps its memory, as one instance does.
  template <class MP, class Obs, class R, int N>
  HS_HD static void reference(const MP& PM, double t, const Obs& o, MemoryOn<R>& m, R (&U_ref)[N]) {
    static_assert(N == na, "the VDC drives the lift and the tilt cylinders");
    const auto& P = PM.input;
    const auto& G = PM.mechanism;
    const R q[2] = {o.q[0], o.q[1]}, qdot[2] = {o.qd[0], o.qd[1]};

    // 1. Desired joint motion.
    R q_des[2], qd_des[2], qdd_des[2];
    PathPointT<R> X;
    const auto reached = desired_joints(PM, m, t, q_des, qd_des, qdd_des, X);
    if (!any_lane(reached)) {
      for (int a = 0; a < na; ++a) U_ref[a] = R(0.0);  // out of reach: close the valves
      return;
    }
    // 2–7.
    const R x[2] = {o.s[0], o.s[1]}, xdot[2] = {o.sdot[0], o.sdot[1]};
    const R p[4] = {o.p[0], o.p[1], o.p[2], o.p[3]};
    R f_pr[2], u_fr[2];
    required_flow_rates(PM, q_des, qd_des, qdd_des, q, qdot, x, xdot, p, m.f_pr_prev, m.samples == 0.0, f_pr, u_fr);

    // 8. Eq (91), limited to ±u_max.
    using Mask = decltype(R(0.0) > 0.0);
    Mask saturated(false), violated(false);
    for (int j = 0; j < 2; ++j) {
      const auto& C = PM.actuator[j].circuit;
      const R pa = p[2 * j], pb = p[2 * j + 1];
      const R gain = voltage_gain(PM, j, u_fr[j] > 0.0, pa, pb, x[j]);
      R u = choose(gain > 0.0, u_fr[j] / gain, R(0.0));
      u = choose(u == u, u, R(0.0));  // NaN: closed
      const auto high = u > P.voltage_limit, low = u < -P.voltage_limit;
      u = choose(high, P.voltage_limit, u);
      u = choose(low, -P.voltage_limit, u);
      saturated = saturated || high || low;
      U_ref[j] = choose(reached, u, R(0.0));
      violated = violated ||
                 !(pa > C.return_pressure && pa < C.supply_pressure && pb > C.return_pressure && pb < C.supply_pressure);
    }

    // Tracking error at this sample (the TCP of the observed pose).
    const V2<R> Xa = LiftTilt::tcp(G, q);
    const R ex = X.x - Xa.x, ey = X.y - Xa.y;
    const R e = math::sqrt(ex * ex + ey * ey);
    // ρ's denominator: the desired TCP speed at the same samples (manipulator.md §11.8).
    const R desired_speed = math::sqrt(X.vx * X.vx + X.vy * X.vy);
    // The sample's memory: one instance's in place (it is in reach here); on
    // lanes into a copy that the lanes in reach take.
    auto remember = [&](MemoryOn<R>& to) {
      for (int j = 0; j < 2; ++j) to.f_pr_prev[j] = f_pr[j];
      to.error_sq_sum += e * e;
      to.error_peak = choose(e > to.error_peak, e, to.error_peak);
      to.error_last = e;
      to.desired_speed_peak = choose(desired_speed > to.desired_speed_peak, desired_speed, to.desired_speed_peak);
      to.first_saturation = choose(saturated && to.saturated_samples == 0.0, R(t), to.first_saturation);
      to.saturated_samples += choose(saturated, R(1.0), R(0.0));
      to.violation_samples += choose(violated, R(1.0), R(0.0));
      to.samples += 1.0;
      to.x = Xa.x;
      to.y = Xa.y;
      to.x_d = X.x;
      to.y_d = X.y;
    };
    if constexpr (std::is_same<Mask, bool>::value) {
      remember(m);
    } else {
      MemoryOn<R> next = m;
      remember(next);
      choose_in_place(reached, next, m);  // kernels/core/lanes.hpp
    }
  }

  template <class MP>
  HS_HD static void report(const MP& PM, const Memory& m, Report& r) {
    const double T = PM.input.sample_period;
    r.tcp_error_rms = m.samples > 0.0 ? sqrt(m.error_sq_sum / m.samples) : __builtin_nan("");
    r.tcp_error_peak = m.samples > 0.0 ? m.error_peak : __builtin_nan("");
    r.tcp_error_final = m.samples > 0.0 ? m.error_last : __builtin_nan("");
    // Seed 004's performance index ρ (manipulator.md §11.8): NaN without a sample or on a path that never moves.
    r.performance_index =
        m.samples > 0.0 && m.desired_speed_peak > 0.0 ? m.error_peak / m.desired_speed_peak : __builtin_nan("");
    r.saturation_time = m.saturated_samples * T;
    r.first_saturation_time = m.first_saturation;
    r.pressure_violation_time = m.violation_samples * T;
  }
  template <class MP>
  HS_HD static void probe(const MP&, const Memory& m, Probe& p) {
    p.tcp_x = m.x;
    p.tcp_y = m.y;
    p.tcp_x_desired = m.x_d;
    p.tcp_y_desired = m.y_d;
    p.required_force[0] = m.f_pr_prev[0];  // the last sample's
    p.required_force[1] = m.f_pr_prev[1];
  }
};

}  // namespace hs
