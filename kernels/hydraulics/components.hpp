// Components of a lumped-volume hydraulic circuit (docs/models/hydraulics.md §13):
// the pieces ThreeVolumeCircuit and TwoVolumeCircuit are assembled from, in
// the spirit of Project Chrono's split of ChHydraulicCircuit into valves,
// throttles, cylinders and hoses. Each is a few HS_HD lines on any scalar T
// (double or a dual number), written so that a circuit composed of them
// performs exactly the floating-point operations of the monolithic circuit
// it replaced (the shipped studies' summaries stay bit-identical).
//
//   Hose            fixed volume V_h with wall bulk modulus B_h
//   Chamber         cylinder chamber A·l with a moving wall, wall bulk modulus B_c
//   CylinderChambers  areas, chamber lengths, stroke, force of a double-acting cylinder
//   lumped volume   hoses + chambers joined at one pressure: its volume, its
//                   effective bulk modulus (seed 000 eq 75) and continuity
//                   ṗ = B_e/V (Q_in − Q_out) (seed 000 eq 74)
//   Throttle        orifice between two volumes, seed 001 eq (25)
//   DirectionalValve43  closed-centre 4/3 DCV, port flows from U (A8)
//   FirstOrderSpool dU/dt = (U_ref − U)/τ, seed 001 eq (27), closed-form trapezoid (A9)
//   IdealSpool      U = U_ref (no spool state)
#pragma once
#include "../core/decision_log.hpp"
#include "../core/dual.hpp"
#include "valve.hpp"

namespace hs {

constexpr double kPi = 3.14159265358979323846;

namespace hydraulics {

// A hose: fixed volume; its wall compliance V_h/B_h enters the effective bulk
// modulus of the lumped volume it belongs to.
struct Hose {
  template <class R>
  HS_HD HS_FORCEINLINE static R volume(const R& V_h) { return V_h; }
  template <class R>
  HS_HD HS_FORCEINLINE static R wall_compliance(const R& V_h, const R& inv_B_hose) { return V_h * inv_B_hose; }
};

// A cylinder chamber of area A and length l (moving wall): volume A·l,
// wall compliance A·l/B_c, and the flow its wall displaces, A·ṡ (positive
// when the chamber grows at rate ṡ of its length).
struct Chamber {
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T volume(const R& A, const T& l) { return A * l; }
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T wall_compliance(const T& volume, const R& inv_B_cyl) { return volume * inv_B_cyl; }
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T displacement_flow(const R& A, const T& ldot) { return A * ldot; }
};

// A double-acting cylinder's chambers (A1, A2): piston area A2 = π d²/4, rod
// annulus A3 = A2 − π d_rod²/4, piston-side chamber length l2 = l2_0 + (s − s0)
// (l3 = l − l2), force A2 p_piston − A3 p_rod in the extension direction, and
// the piston-side pressure that holds a force F against p_rod at rest.
struct CylinderChambers {
  template <class R>
  HS_HD HS_FORCEINLINE static void areas(const R& piston_diameter, const R& rod_diameter, R& A_piston, R& A_rod) {
    A_piston = 0.25 * kPi * piston_diameter * piston_diameter;
    A_rod = A_piston - 0.25 * kPi * rod_diameter * rod_diameter;
  }
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T piston_chamber_length(const R& l2_0, const T& ds) { return l2_0 + ds; }
  // The piston inside the cylinder: l2 ∈ (0, l). A bool, or a mask on lanes.
  template <class R>
  HS_HD HS_FORCEINLINE static auto stroke_admissible(const R& l2_0, const R& cylinder_length, const R& ds) {
    const R l2 = piston_chamber_length(l2_0, ds);
    return l2 > 0.0 && l2 < cylinder_length;
  }
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T force(const R& A_piston, const R& A_rod, const T& p_piston, const T& p_rod) {
    return A_piston * p_piston - A_rod * p_rod;
  }
  template <class R>
  HS_HD HS_FORCEINLINE static R holding_pressure(const R& A_piston, const R& A_rod, const R& F, const R& p_rod) {
    return (F + A_rod * p_rod) / A_piston;
  }
};

// Effective bulk modulus of a lumped volume V whose walls have the total
// compliance Σ V_k/B_k: oil in series with the walls, seed 000 eq (75),
//   1/B_e = 1/B_oil + (Σ V_k/B_k)/V.
template <class R, class T>
HS_HD HS_FORCEINLINE T effective_bulk_modulus(const R& inv_B_oil, const T& wall_compliance, const T& V) {
  return 1.0 / (inv_B_oil + wall_compliance / V);
}
// The same for a volume that is all hose (its hose fraction is one).
template <class R>
HS_HD HS_FORCEINLINE R hose_bulk_modulus(const R& inv_B_oil, const R& inv_B_hose) { return 1.0 / (inv_B_oil + inv_B_hose); }

// Continuity of a lumped volume, seed 000 eq (74): ṗ = B_e/V · (net inflow).
template <class T, class B, class V>
HS_HD HS_FORCEINLINE T pressure_rate(const B& Be, const V& volume, const T& net_inflow) {
  return Be / volume * net_inflow;
}

// Throttle: a fixed orifice between two volumes, flow from `up` to `down`
// (seed 001 eq 25, with the laminar region of valve.hpp).
// C_vt = C_d A_t √(2/ρ).
struct Throttle {
  template <class R>
  HS_HD HS_FORCEINLINE static R coefficient(const R& discharge_coefficient, const R& diameter, const R& density) {
    const R A_t = 0.25 * kPi * diameter * diameter;
    return discharge_coefficient * A_t * math::sqrt(2.0 / density);
  }
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T flow(const R& C_vt, const T& p_up, const T& p_down, const R& dp_lim) {
    return orifice_flow(C_vt, p_up - p_down, dp_lim);
  }
};

// Closed-centre 4/3 directional control valve (docs/models/hydraulics.md §6.3, A8):
// U ≥ 0: P→A feeds line A, B→T drains line B; U < 0: A→T drains line A,
// P→B feeds line B. γ2 = C_vd·U carries the sign, so both flows are
// negative for U < 0. Q_A: flow into line A; Q_B: flow out of line B.
// U is double in the integrators; the linearization passes a dual U for
// ∂H/∂U (one-sided at U = 0, where the valve switches ports).
struct DirectionalValve43 {
  template <class R, class T, class TU>
  HS_HD HS_FORCEINLINE static void port_flows(const R& C_vd, const TU& U, const R& p_supply, const R& p_tank, const T& p_A,
                                              const T& p_B, const R& dp_lim, T& Q_A, T& Q_B) {
    const auto gamma_dcv = C_vd * U;
    // The side the spool opens picks each port's pressure drop (per lane on
    // lanes); one orifice law per port then gives its flow.
    const auto opening = HS_DECISION(valve_opening, U >= 0.0, U, 0.0);
    Q_A = orifice_flow(gamma_dcv, lane_if(opening, [&]() -> T { return p_supply - p_A; }, [&]() -> T { return p_A - p_tank; }),
                       dp_lim);
    Q_B = orifice_flow(gamma_dcv, lane_if(opening, [&]() -> T { return p_B - p_tank; }, [&]() -> T { return p_supply - p_B; }),
                       dp_lim);
  }
};

// Spool dynamics dU/dt = (U_ref − U)/τ (seed 001 eq 27), integrated by the
// trapezoidal rule in closed form (A9) with U_ref constant over the step.
struct FirstOrderSpool {
  static constexpr bool has_state = true;
  template <class R>
  HS_HD HS_FORCEINLINE static R step(const R& tau, const R& U, const R& U_ref, double dt) {
    const R a = 0.5 * dt / tau;
    return (U * (1.0 - a) + 2.0 * a * U_ref) / (1.0 + a);
  }
  template <class R>
  HS_HD HS_FORCEINLINE static R rate(const R& tau, const R& U, const R& U_ref) { return (U_ref - U) / tau; }
};

// An ideal spool follows its reference at once: U = U_ref, no state.
struct IdealSpool {
  static constexpr bool has_state = false;
  template <class R>
  HS_HD HS_FORCEINLINE static R step(const R&, const R&, const R& U_ref, double) { return U_ref; }
  template <class R>
  HS_HD HS_FORCEINLINE static R rate(const R&, const R&, const R&) { return R(0.0); }
};

}  // namespace hydraulics
}  // namespace hs
