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
//   F_p = A2 p2 − A3 p3         (seal friction is subtracted by the caller)
#pragma once
#include "../core/dual.hpp"
#include "valve.hpp"

namespace hs {

constexpr double kPi = 3.14159265358979323846;

// User-level parameters, SI units. Defaults: docs/models/hydraulics.md §11,
// "Hydraulic circuit" table ([T] = Project Chrono's ChHydraulicActuator values,
// [S] = stated in a seed).
struct CircuitParams {
  double supply_pressure = 7.6e6;          // pP [Pa]            [T]
  double tank_pressure = 0.1e6;            // pT [Pa]            [T]
  double oil_bulk_modulus = 1500e6;        // B_oil [Pa]         [T]
  double hose_bulk_modulus = 150e6;        // B_h [Pa]           [T]
  double cylinder_bulk_modulus = 31500e6;  // B_c [Pa]           [T]
  double hose_volume_1 = 4.71e-5;          // V_h1 DCV→throttle [m³]        [T]
  double hose_volume_2 = 3.14e-5;          // V_h2 throttle→piston side     [T]
  double hose_volume_3 = 7.85e-5;          // V_h3 rod side→DCV             [T]
  double piston_diameter = 0.080;          // [m]                [T]
  double rod_diameter = 0.035;             // [m]                [T]
  double cylinder_length = 1.0;            // l = l2 + l3 [m]    project choice (docs/models/hydraulics.md §4)
  double piston_chamber_length0 = 0.5;     // l2 at s = s0 [m]   project choice
  double dcv_flow_coefficient = 1.069e-8;  // C_vd [m³/(s·V·√Pa)]: 12 L/min at 10 V, 35 bar  [T]
  double valve_time_constant = 1.0 / (2.0 * kPi * 35.0);  // τ [s], 35 Hz bandwidth   [T]
  double throttle_discharge_coefficient = 0.8;  // C_d [-]       [T]
  double throttle_diameter = 0.006;        // orifice [m]        [T]
  double oil_density = 850.0;              // ρ [kg/m³]          [T]
  double laminar_limit = 2e5;              // Δp_lim [Pa]        [S] seed 000 eq (6)
  double rod_side_initial_pressure = 3.5e6;  // p3(0) [Pa]       [S] all seeds
};

// Quantities derived once per instance from CircuitParams.
struct CircuitConstants {
  double A_piston, A_rod;  // A2, A3 [m²]
  double C_vt;             // throttle coefficient, seed 001 eq (25): C_d A_t √(2/ρ)
  double inv_B_oil, inv_B_hose, inv_B_cyl;
};

struct ThreeVolumeCircuit {
  static constexpr int np = 3;

  HS_HD static CircuitConstants constants(const CircuitParams& c) {
    CircuitConstants k;
    k.A_piston = 0.25 * kPi * c.piston_diameter * c.piston_diameter;
    k.A_rod = k.A_piston - 0.25 * kPi * c.rod_diameter * c.rod_diameter;
    const double A_t = 0.25 * kPi * c.throttle_diameter * c.throttle_diameter;
    k.C_vt = c.throttle_discharge_coefficient * A_t * ::sqrt(2.0 / c.oil_density);
    k.inv_B_oil = 1.0 / c.oil_bulk_modulus;
    k.inv_B_hose = 1.0 / c.hose_bulk_modulus;
    k.inv_B_cyl = 1.0 / c.cylinder_bulk_modulus;
    return k;
  }

  // Piston-side chamber length l2 at actuator elongation ds = s − s0 (A2).
  template <class T>
  HS_HD static T piston_chamber_length(const CircuitParams& c, const T& ds) { return c.piston_chamber_length0 + ds; }

  // Pressure force on the piston in the extension direction [N].
  template <class T>
  HS_HD static T piston_force(const CircuitConstants& k, const T* p) { return k.A_piston * p[1] - k.A_rod * p[2]; }

  // dp/dt for the three volumes. U: spool opening [V]; ds = s − s0; sdot = ṡ.
  // U is double in the integrators; the linearization passes a dual U for
  // ∂H/∂U (one-sided at U = 0, where the closed-centre valve switches ports).
  template <class T, class TU = double>
  HS_HD static void pressure_rates(const CircuitParams& c, const CircuitConstants& k, const T* p, const TU& U,
                                   const T& ds, const T& sdot, T* pdot) {
    const T l2 = piston_chamber_length(c, ds);
    const T l3 = c.cylinder_length - l2;
    const double V1 = c.hose_volume_1;
    const T V2 = c.hose_volume_2 + k.A_piston * l2;
    const T V3 = c.hose_volume_3 + k.A_rod * l3;
    // Effective bulk moduli, seed 000 eq (75): oil in series with the walls.
    // V1 is all hose, so its hose fraction is one.
    const double Be1 = 1.0 / (k.inv_B_oil + k.inv_B_hose);
    const T Be2 = 1.0 / (k.inv_B_oil + (c.hose_volume_2 * k.inv_B_hose + k.A_piston * l2 * k.inv_B_cyl) / V2);
    const T Be3 = 1.0 / (k.inv_B_oil + (c.hose_volume_3 * k.inv_B_hose + k.A_rod * l3 * k.inv_B_cyl) / V3);

    // DCV port mapping of a closed-centre 4/3 valve (docs/models/hydraulics.md §6.3, A8):
    // U ≥ 0: P→A feeds V1, B→T drains V3; U < 0: A→T drains V1, P→B feeds V3.
    // γ2 = C_vd·U carries the sign, so both flows are negative for U < 0.
    const TU gamma_dcv = c.dcv_flow_coefficient * U;
    T Q_d1, Q_3d;
    if (U >= 0.0) {
      Q_d1 = orifice_flow(gamma_dcv, c.supply_pressure - p[0], c.laminar_limit);
      Q_3d = orifice_flow(gamma_dcv, p[2] - c.tank_pressure, c.laminar_limit);
    } else {
      Q_d1 = orifice_flow(gamma_dcv, p[0] - c.tank_pressure, c.laminar_limit);
      Q_3d = orifice_flow(gamma_dcv, c.supply_pressure - p[2], c.laminar_limit);
    }
    const T Q_t = orifice_flow(k.C_vt, p[0] - p[1], c.laminar_limit);

    pdot[0] = Be1 / V1 * (Q_d1 - Q_t);
    pdot[1] = Be2 / V2 * (Q_t - k.A_piston * sdot);
    pdot[2] = Be3 / V3 * (k.A_rod * sdot - Q_3d);
  }

  // Spool dynamics dU/dt = (U_ref − U)/τ (seed 001 eq 27), integrated by the
  // trapezoidal rule in closed form (ambiguity A9), with U_ref constant over
  // the step (the schedule is sampled at the step midpoint).
  HS_HD static double spool_step(const CircuitParams& c, double U, double U_ref, double dt) {
    const double a = 0.5 * dt / c.valve_time_constant;
    return (U * (1.0 - a) + 2.0 * a * U_ref) / (1.0 + a);
  }
  HS_HD static double spool_rate(const CircuitParams& c, double U, double U_ref) {
    return (U_ref - U) / c.valve_time_constant;
  }

  // Static pressures holding actuator force F with the valve closed and no
  // throttle flow: p1 = p2, p3 prescribed (docs/models/hydraulics.md §9): p2 = (F + A3 p3)/A2.
  HS_HD static void static_pressures(const CircuitParams& c, const CircuitConstants& k, double F, double* p) {
    p[2] = c.rod_side_initial_pressure;
    p[1] = (F + k.A_rod * p[2]) / k.A_piston;
    p[0] = p[1];
  }
};

}  // namespace hs
