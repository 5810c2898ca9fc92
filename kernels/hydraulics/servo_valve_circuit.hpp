// Seed 004's actuator circuit (docs/models/manipulator.md §4, §11.3): a 4/3 servo
// valve with four control edges feeding the two chambers of a cylinder
// directly, static flow map, no spool dynamics (ideal spool: U = U_ref, the
// valve voltage u). Composed from the components of components.hpp.
//
//   chamber a (bore side) V_a = V_0a + A_a x        p[0]
//   chamber b (rod side)  V_b = V_0b + A_b (S − x)  p[1]
//
// x is the piston stroke, S the full stroke: x = s − closed_length from the
// actuator length s the mechanism gives (the stroke itself in LiftTiltDae,
// closed_length = 0; the pin-to-pin length in a model file). Continuity,
// seed 004 eqs (80)–(81) with dead volumes V_0 (docs/models/manipulator.md §4:
// x → V_0a/A_a + x, S − x → V_0b/A_b + S − x) and an optional internal
// leakage Q_L = c_l (p_a − p_b):
//   ṗ_a = β / V_a (Q_a − A_a ẋ − Q_L)
//   ṗ_b = β / V_b (Q_b + A_b ẋ + Q_L)
// Valve, eqs (82)–(85), u in volts:
//   u > 0:  Q_a =  c_p1 u v(p_s − p_a),   Q_b = −c_n2 u v(p_b − p_r)
//   u ≤ 0:  Q_a =  c_n1 u v(p_a − p_r),   Q_b = −c_p2 u v(p_s − p_b)
// v(Δp) = sgn(Δp) √|Δp| (eq 85), blended linearly below the laminar limit
// Δp_lim (valve.hpp; a project choice [P] that bounds the Newton tangent at
// Δp = 0, where eq 85 is not Lipschitz; the controller's valve inversion
// uses the same v, so a controller with the exact model still inverts it
// exactly). Piston force f_p = A_a p_a − A_b p_b (eq 79).
#pragma once
#include "../core/dual.hpp"
#include "components.hpp"
#include "valve.hpp"

namespace hs {

// Defaults: docs/models/manipulator.md §11.2 (the lift cylinder; the tilt
// cylinder's values are set by the model's default instance).
template <class R = double>
struct ServoValveCircuitParamsT {
  using Real = R;
  R supply_pressure = 185e5;       // p_s [Pa] [S] seed 004 §7
  R return_pressure = 10e5;        // p_r [Pa] [S] seed 004 §7
  R oil_bulk_modulus = 800e6;      // β [Pa] [R]
  R piston_diameter = 0.080;       // [m] [R]
  R rod_diameter = 0.045;          // [m] [R]
  R stroke = 0.59;                 // S [m] [R]
  R dead_volume_a = 3e-3;          // V_0a [m³] [R]
  R dead_volume_b = 3e-3;          // V_0b [m³] [R]
  // Valve edge coefficients [m³/(s·V·√Pa)]: rated flow at rated voltage and
  // pressure drop per edge, Q_N / (u_N √Δp_N) [D]; Lift NG6: 40 L/min at 10 V
  // and 35 bar per notch [S].
  R valve_coefficient_pa = 3.5635e-8;  // c_p1: P → A
  R valve_coefficient_at = 3.5635e-8;  // c_n1: A → T
  R valve_coefficient_pb = 3.5635e-8;  // c_p2: P → B
  R valve_coefficient_bt = 3.5635e-8;  // c_n2: B → T
  R leakage_coefficient = 0.0;     // c_l [m³/(s·Pa)]
  R laminar_limit = 1e5;           // Δp_lim [Pa] [P]
  R rod_side_initial_pressure = 30e5;  // p_b(0) [Pa]; p_a(0) from the statics
  // The actuator length at zero stroke, x = s − closed_length: 0 where the
  // mechanism gives the stroke itself (LiftTiltDae), the pin-to-pin length of
  // the retracted cylinder where it gives the length between the pins (a
  // model file's cylinder, docs/model-files.md §4) [m].
  R closed_length = 0.0;
};
using ServoValveCircuitParams = ServoValveCircuitParamsT<double>;

template <class R = double>
struct ServoValveCircuitConstantsT {
  using Real = R;
  R A_a, A_b;     // piston and annulus areas [m²]
  R stroke_ref;   // x at the reference length s0: s0 − closed_length (set by constants(P, s0))
};
using ServoValveCircuitConstants = ServoValveCircuitConstantsT<double>;

struct ServoValveCircuit {
  static constexpr const char* name = "servo-valve";  // as written in model files ([[cylinder]] circuit)
  using Params = ServoValveCircuitParams;
  using Constants = ServoValveCircuitConstants;
  template <class R>
  using ParamsOn = ServoValveCircuitParamsT<R>;
  template <class R>
  using ConstantsOn = ServoValveCircuitConstantsT<R>;
  using Spool = hydraulics::IdealSpool;
  static constexpr int np = 2;
  static constexpr int piston_side = 0;

  // The stroke at the reference length s0 (HydraulicCylinder passes it):
  // s0 − closed_length (exactly s0 for closed_length = 0).
  template <class R>
  HS_HD static ConstantsOn<R> constants(const ParamsOn<R>& c, const R& s0) {
    ConstantsOn<R> k;
    hydraulics::CylinderChambers::areas(c.piston_diameter, c.rod_diameter, k.A_a, k.A_b);
    k.stroke_ref = s0 - c.closed_length;
    return k;
  }

  // The piston strictly inside the cylinder, 0 < x < S (seed 004 Assumption 4).
  template <class R>
  HS_HD static auto stroke_admissible(const ParamsOn<R>& c, const ConstantsOn<R>& k, const R& ds) {
    const R x = k.stroke_ref + ds;
    return x > 0.0 && x < c.stroke;
  }

  template <class R, class T>
  HS_HD static T piston_force(const ConstantsOn<R>& k, const T* p) {
    return hydraulics::CylinderChambers::force(k.A_a, k.A_b, p[0], p[1]);
  }

  // Chamber volumes at stroke x.
  template <class R, class T>
  HS_HD HS_FORCEINLINE static void volumes(const ParamsOn<R>& c, const ConstantsOn<R>& k, const T& x, T& Va, T& Vb) {
    Va = c.dead_volume_a + hydraulics::Chamber::volume(k.A_a, x);
    Vb = c.dead_volume_b + hydraulics::Chamber::volume(k.A_b, c.stroke - x);
  }

  // The four edge coefficients c_p1 (P → A), c_n1 (A → T), c_p2 (P → B),
  // c_n2 (B → T): the valve's, or a controller's model of them.
  template <class R>
  struct EdgesOn {
    R pa, at, pb, bt;
  };
  using Edges = EdgesOn<double>;
  template <class R>
  HS_HD static EdgesOn<R> edges(const ParamsOn<R>& c) {
    return {c.valve_coefficient_pa, c.valve_coefficient_at, c.valve_coefficient_pb, c.valve_coefficient_bt};
  }

  // Flows into chamber a and into chamber b at voltage u, eqs (82)–(83).
  template <class R, class T, class TU>
  HS_HD HS_FORCEINLINE static void valve_flows(const ParamsOn<R>& c, const EdgesOn<R>& e, const TU& u, const T& pa,
                                               const T& pb, T& Qa, T& Qb) {
    // The side u opens picks each chamber's edge and pressure drop (per lane
    // on lanes); one orifice law per chamber then gives its flow.
    const auto opening = HS_DECISION(valve_opening, u > 0.0, u, 0.0);
    Qa = orifice_flow(choose(opening, e.pa, e.at) * u,
                      lane_if(opening, [&]() -> T { return c.supply_pressure - pa; }, [&]() -> T { return pa - c.return_pressure; }),
                      c.laminar_limit);
    Qb = -orifice_flow(choose(opening, e.bt, e.pb) * u,
                       lane_if(opening, [&]() -> T { return pb - c.return_pressure; }, [&]() -> T { return c.supply_pressure - pb; }),
                       c.laminar_limit);
  }

  // The voltage gain of u_f = Q_a/x̃_a − Q_b/x̃_b (seed 004 eq 86) on the side
  // of the valve u opens (u > 0: P → A, B → T; else A → T, P → B), with the
  // chambers' equivalent lengths x̃_a = V_a/A_a, x̃_b = V_b/A_b: u_f = gain · u
  // (the flows are linear in u on each side). The denominators of eq (89)/(91).
  // On lanes `opening` is a mask, each lane its own side.
  template <class R, class Opening>
  HS_HD static R voltage_gain(const ParamsOn<R>& c, const EdgesOn<R>& e, const Opening& opening, const R& pa,
                              const R& pb, const R& xa, const R& xb) {
    const R u = choose(opening, R(1.0), R(-1.0));
    R Qa, Qb;
    valve_flows(c, e, u, pa, pb, Qa, Qb);
    return u * (Qa / xa - Qb / xb);
  }

  template <class R, class T, class TU>
  HS_HD static void pressure_rates(const ParamsOn<R>& c, const ConstantsOn<R>& k, const T* p, const TU& U, const T& ds,
                                   const T& sdot, T* pdot) {
    using namespace hydraulics;
    const T x = k.stroke_ref + ds;
    T Va, Vb, Qa, Qb;
    volumes(c, k, x, Va, Vb);
    valve_flows(c, edges(c), U, p[0], p[1], Qa, Qb);
    const T QL = c.leakage_coefficient * (p[0] - p[1]);
    pdot[0] = pressure_rate(c.oil_bulk_modulus, Va, Qa - Chamber::displacement_flow(k.A_a, sdot) - QL);
    pdot[1] = pressure_rate(c.oil_bulk_modulus, Vb, Qb + Chamber::displacement_flow(k.A_b, sdot) + QL);
  }

  template <class R>
  HS_HD static R spool_step(const ParamsOn<R>&, const R& U, const R& U_ref, double dt) {
    return Spool::step(R(0.0), U, U_ref, dt);
  }
  template <class R>
  HS_HD static R spool_rate(const ParamsOn<R>&, const R& U, const R& U_ref) { return Spool::rate(R(0.0), U, U_ref); }

  // Static pressures holding F with the valve closed: p_b prescribed,
  // p_a = (F + A_b p_b)/A_a. With internal leakage the cylinder is at rest
  // only once the leak has stopped, p_a = p_b = F/(A_a − A_b) (the rod's
  // section carries the load; docs/models/hydraulics.md §16): any other
  // pair would drift, and a linearization about it would be about a state
  // that is not an equilibrium.
  template <class R>
  HS_HD static void static_pressures(const ParamsOn<R>& c, const ConstantsOn<R>& k, const R& F, R* p) {
    const auto leaking = c.leakage_coefficient > 0.0;
    const R equalized = F / (k.A_a - k.A_b);
    p[1] = choose(leaking, equalized, c.rod_side_initial_pressure);
    p[0] = choose(leaking, equalized, hydraulics::CylinderChambers::holding_pressure(k.A_a, k.A_b, F, p[1]));
  }
};

}  // namespace hs
