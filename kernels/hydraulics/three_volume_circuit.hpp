// The hydraulic circuit of seeds 000/001/002: constant-pressure pump pP,
// tank pT, a closed-centre 4/3 directional control valve (DCV) with
// first-order spool dynamics, a throttle valve, a double-acting cylinder and
// three hoses. Three lumped volumes (docs/models/hydraulics.md §2–3):
//
//   V1: hose DCV port A → throttle          p1
//   V2: hose throttle → piston side + piston chamber A2·l2     p2
//   V3: rod chamber A3·l3 + hose → DCV port B                  p3
//
//   dp1/dt = Be1/V1 (Q_d1 − Q_t)          seed 000 eq (74), seed 001 eq (44)
//   dp2/dt = Be2/V2 (Q_t − A2 ṡ)
//   dp3/dt = Be3/V3 (A3 ṡ − Q_3d)
//
// Chamber lengths grow/shrink with the actuator length s (sign fixed per
// ambiguity A2: l2 = l2_0 + (s − s0), l3 = l − l2, so dV2/dt = +A2 ṡ).
// Piston force in the extension direction, circuit indices (A1):
//   F_p = A2 p2 − A3 p3         (seal friction is subtracted by the actuator)
//
// Composed of the components of components.hpp (docs/models/hydraulics.md §13):
// DCV → hose V1 → throttle → hose + piston chamber (V2); rod chamber + hose
// (V3) → DCV; first-order spool. The composition performs the operations of
// the former monolithic circuit in the same order (bit-identical results).
#pragma once
#include "../core/dual.hpp"
#include "components.hpp"
#include "valve.hpp"

namespace hs {

// User-level parameters, SI units. Defaults: docs/models/hydraulics.md §11,
// "Hydraulic circuit" table ([T] = Project Chrono's ChHydraulicActuator values,
// [S] = stated in a seed). R: double, or Lanes<W> for W instances in lockstep
// (kernels/core/lanes.hpp).
template <class R = double>
struct CircuitParamsT {
  using Real = R;
  R supply_pressure = 7.6e6;          // pP [Pa]            [T]
  R tank_pressure = 0.1e6;            // pT [Pa]            [T]
  R oil_bulk_modulus = 1500e6;        // B_oil [Pa]         [T]
  R hose_bulk_modulus = 150e6;        // B_h [Pa]           [T]
  R cylinder_bulk_modulus = 31500e6;  // B_c [Pa]           [T]
  R hose_volume_1 = 4.71e-5;          // V_h1 DCV→throttle [m³]        [T]
  R hose_volume_2 = 3.14e-5;          // V_h2 throttle→piston side     [T]
  R hose_volume_3 = 7.85e-5;          // V_h3 rod side→DCV             [T]
  R piston_diameter = 0.080;          // [m]                [T]
  R rod_diameter = 0.035;             // [m]                [T]
  R cylinder_length = 1.0;            // l = l2 + l3 [m]    project choice (docs/models/hydraulics.md §4)
  R piston_chamber_length0 = 0.5;     // l2 at s = s0 [m]   project choice
  R dcv_flow_coefficient = 1.069e-8;  // C_vd [m³/(s·V·√Pa)]: 12 L/min at 10 V, 35 bar  [T]
  R valve_time_constant = 1.0 / (2.0 * kPi * 35.0);  // τ [s], 35 Hz bandwidth   [T]
  R throttle_discharge_coefficient = 0.8;  // C_d [-]       [T]
  R throttle_diameter = 0.006;        // orifice [m]        [T]
  R oil_density = 850.0;              // ρ [kg/m³]          [T]
  R laminar_limit = 2e5;              // Δp_lim [Pa]        [S] seed 000 eq (6)
  R rod_side_initial_pressure = 3.5e6;  // p3(0) [Pa]       [S] all seeds
};

using CircuitParams = CircuitParamsT<double>;

// Quantities derived once per instance from CircuitParams.
template <class R = double>
struct CircuitConstantsT {
  using Real = R;
  R A_piston, A_rod;  // A2, A3 [m²]
  R C_vt;             // throttle coefficient, seed 001 eq (25): C_d A_t √(2/ρ)
  R inv_B_oil, inv_B_hose, inv_B_cyl;
};
using CircuitConstants = CircuitConstantsT<double>;

struct ThreeVolumeCircuit {
  static constexpr const char* name = "three-volume";  // as written in model files ([[cylinder]] circuit)
  using Params = CircuitParams;
  using Constants = CircuitConstants;
  template <class R>
  using ParamsOn = CircuitParamsT<R>;
  template <class R>
  using ConstantsOn = CircuitConstantsT<R>;
  using Spool = hydraulics::FirstOrderSpool;
  static constexpr int np = 3;
  static constexpr int piston_side = 1;  // index of the piston-side pressure p2

  // s0: the reference actuator length (HydraulicCylinder passes it to every
  // circuit); this one measures chambers from l2_0 and does not need it.
  template <class R>
  HS_HD static CircuitConstantsT<R> constants(const CircuitParamsT<R>& c, const R& /*s0*/ = R(0.0)) {
    CircuitConstantsT<R> k;
    hydraulics::CylinderChambers::areas(c.piston_diameter, c.rod_diameter, k.A_piston, k.A_rod);
    k.C_vt = hydraulics::Throttle::coefficient(c.throttle_discharge_coefficient, c.throttle_diameter, c.oil_density);
    k.inv_B_oil = 1.0 / c.oil_bulk_modulus;
    k.inv_B_hose = 1.0 / c.hose_bulk_modulus;
    k.inv_B_cyl = 1.0 / c.cylinder_bulk_modulus;
    return k;
  }

  // Piston-side chamber length l2 at actuator elongation ds = s − s0 (A2).
  template <class R, class T>
  HS_HD static T piston_chamber_length(const CircuitParamsT<R>& c, const T& ds) {
    return hydraulics::CylinderChambers::piston_chamber_length(c.piston_chamber_length0, ds);
  }
  // The piston inside the cylinder: l2 ∈ (0, l).
  template <class R>
  HS_HD static auto stroke_admissible(const CircuitParamsT<R>& c, const CircuitConstantsT<R>&, const R& ds) {
    return hydraulics::CylinderChambers::stroke_admissible(c.piston_chamber_length0, c.cylinder_length, ds);
  }

  // Pressure force on the piston in the extension direction [N].
  template <class R, class T>
  HS_HD static T piston_force(const CircuitConstantsT<R>& k, const T* p) {
    return hydraulics::CylinderChambers::force(k.A_piston, k.A_rod, p[1], p[2]);
  }

  // dp/dt for the three volumes. U: spool opening [V]; ds = s − s0; sdot = ṡ.
  template <class R, class T, class TU>
  HS_HD static void pressure_rates(const CircuitParamsT<R>& c, const CircuitConstantsT<R>& k, const T* p, const TU& U,
                                   const T& ds, const T& sdot, T* pdot) {
    using namespace hydraulics;
    const T l2 = piston_chamber_length(c, ds);
    const T l3 = c.cylinder_length - l2;
    // Each chamber volume is formed where it is used, as the monolith did
    // (the same IEEE operations; the build does not contract, CMakeLists.txt).
    const R V1 = Hose::volume(c.hose_volume_1);
    const T V2 = Hose::volume(c.hose_volume_2) + Chamber::volume(k.A_piston, l2);
    const T V3 = Hose::volume(c.hose_volume_3) + Chamber::volume(k.A_rod, l3);
    // Effective bulk moduli, seed 000 eq (75); V1 is all hose.
    const R Be1 = hose_bulk_modulus(k.inv_B_oil, k.inv_B_hose);
    const T Be2 = effective_bulk_modulus(k.inv_B_oil,
                                         Hose::wall_compliance(c.hose_volume_2, k.inv_B_hose) +
                                             Chamber::wall_compliance(Chamber::volume(k.A_piston, l2), k.inv_B_cyl),
                                         V2);
    const T Be3 = effective_bulk_modulus(k.inv_B_oil,
                                         Hose::wall_compliance(c.hose_volume_3, k.inv_B_hose) +
                                             Chamber::wall_compliance(Chamber::volume(k.A_rod, l3), k.inv_B_cyl),
                                         V3);

    // DCV: line A is V1, line B is V3 (A8).
    T Q_d1, Q_3d;
    DirectionalValve43::port_flows(c.dcv_flow_coefficient, U, c.supply_pressure, c.tank_pressure, p[0], p[2],
                                   c.laminar_limit, Q_d1, Q_3d);
    const T Q_t = Throttle::flow(k.C_vt, p[0], p[1], c.laminar_limit);

    pdot[0] = pressure_rate(Be1, V1, Q_d1 - Q_t);
    pdot[1] = pressure_rate(Be2, V2, Q_t - Chamber::displacement_flow(k.A_piston, sdot));
    pdot[2] = pressure_rate(Be3, V3, Chamber::displacement_flow(k.A_rod, sdot) - Q_3d);
  }

  // Spool: first order, closed-form trapezoid with U_ref constant over the
  // step (A9; the schedule is sampled at the step midpoint).
  template <class R>
  HS_HD static R spool_step(const CircuitParamsT<R>& c, const R& U, const R& U_ref, double dt) {
    return Spool::step(c.valve_time_constant, U, U_ref, dt);
  }
  template <class R>
  HS_HD static R spool_rate(const CircuitParamsT<R>& c, const R& U, const R& U_ref) {
    return Spool::rate(c.valve_time_constant, U, U_ref);
  }
  // τ of the first-order spool (the linearization's ∂W/∂U = −1/τ, seed 000 eq 4).
  template <class R>
  HS_HD static R spool_time_constant(const CircuitParamsT<R>& c) {
    return c.valve_time_constant;
  }

  // Static pressures holding actuator force F with the valve closed and no
  // throttle flow: p1 = p2, p3 prescribed (docs/models/hydraulics.md §9): p2 = (F + A3 p3)/A2.
  template <class R>
  HS_HD static void static_pressures(const CircuitParamsT<R>& c, const CircuitConstantsT<R>& k, const R& F, R* p) {
    p[2] = c.rod_side_initial_pressure;
    p[1] = hydraulics::CylinderChambers::holding_pressure(k.A_piston, k.A_rod, F, p[2]);
    p[0] = p[1];
  }
};

}  // namespace hs
