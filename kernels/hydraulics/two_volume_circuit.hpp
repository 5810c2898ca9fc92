// A two-volume circuit (docs/models/hydraulics.md §14): the closed-centre 4/3
// DCV connected directly, without throttle, to the cylinder's two sides, and
// an ideal spool (U = U_ref, no spool state). A new combination of the
// components of components.hpp, not a new monolith:
//
//   V_A: hose DCV port A → piston side + piston chamber A2·l2    p[0]
//   V_B: rod chamber A3·l3 + hose → DCV port B                   p[1]
//
//   dp_A/dt = Be_A/V_A (Q_A − A2 ṡ)        seed 000 eq (74) with V1 merged into V2
//   dp_B/dt = Be_B/V_B (A3 ṡ − Q_B)
//
// with the chamber lengths of A2 (l2 = l2_0 + (s − s0), l3 = l − l2) and the
// effective bulk moduli of seed 000 eq (75). Piston force (A1): A2 p_A − A3 p_B.
#pragma once
#include "../core/dual.hpp"
#include "components.hpp"
#include "valve.hpp"

namespace hs {

// Defaults: the three-volume circuit's (docs/models/hydraulics.md §11), the
// two piston-side hoses joined into one.
template <class R = double>
struct TwoVolumeCircuitParamsT {
  using Real = R;
  R supply_pressure = 7.6e6;          // pP [Pa]
  R tank_pressure = 0.1e6;            // pT [Pa]
  R oil_bulk_modulus = 1500e6;        // B_oil [Pa]
  R hose_bulk_modulus = 150e6;        // B_h [Pa]
  R cylinder_bulk_modulus = 31500e6;  // B_c [Pa]
  R hose_volume_A = 4.71e-5 + 3.14e-5;  // hose DCV port A → piston side [m³]
  R hose_volume_B = 7.85e-5;          // hose rod side → DCV port B [m³]
  R piston_diameter = 0.080;          // [m]
  R rod_diameter = 0.035;             // [m]
  R cylinder_length = 1.0;            // l = l2 + l3 [m]
  R piston_chamber_length0 = 0.5;     // l2 at s = s0 [m]
  R dcv_flow_coefficient = 1.069e-8;  // C_vd [m³/(s·V·√Pa)]
  R laminar_limit = 2e5;              // Δp_lim [Pa]
  R rod_side_initial_pressure = 3.5e6;  // p_B(0) [Pa]
};
using TwoVolumeCircuitParams = TwoVolumeCircuitParamsT<double>;

template <class R = double>
struct TwoVolumeCircuitConstantsT {
  using Real = R;
  R A_piston, A_rod;  // A2, A3 [m²]
  R inv_B_oil, inv_B_hose, inv_B_cyl;
};
using TwoVolumeCircuitConstants = TwoVolumeCircuitConstantsT<double>;

struct TwoVolumeCircuit {
  static constexpr const char* name = "two-volume";  // as written in model files ([[cylinder]] circuit)
  using Params = TwoVolumeCircuitParams;
  using Constants = TwoVolumeCircuitConstants;
  template <class R>
  using ParamsOn = TwoVolumeCircuitParamsT<R>;
  template <class R>
  using ConstantsOn = TwoVolumeCircuitConstantsT<R>;
  using Spool = hydraulics::IdealSpool;
  static constexpr int np = 2;
  static constexpr int piston_side = 0;

  // s0: the reference actuator length; not needed here (chambers from l2_0).
  template <class R>
  HS_HD static ConstantsOn<R> constants(const ParamsOn<R>& c, const R& /*s0*/ = R(0.0)) {
    ConstantsOn<R> k;
    hydraulics::CylinderChambers::areas(c.piston_diameter, c.rod_diameter, k.A_piston, k.A_rod);
    k.inv_B_oil = 1.0 / c.oil_bulk_modulus;
    k.inv_B_hose = 1.0 / c.hose_bulk_modulus;
    k.inv_B_cyl = 1.0 / c.cylinder_bulk_modulus;
    return k;
  }

  template <class R, class T>
  HS_HD static T piston_chamber_length(const ParamsOn<R>& c, const T& ds) {
    return hydraulics::CylinderChambers::piston_chamber_length(c.piston_chamber_length0, ds);
  }
  template <class R>
  HS_HD static auto stroke_admissible(const ParamsOn<R>& c, const ConstantsOn<R>&, const R& ds) {
    return hydraulics::CylinderChambers::stroke_admissible(c.piston_chamber_length0, c.cylinder_length, ds);
  }

  template <class R, class T>
  HS_HD static T piston_force(const ConstantsOn<R>& k, const T* p) {
    return hydraulics::CylinderChambers::force(k.A_piston, k.A_rod, p[0], p[1]);
  }

  template <class R, class T, class TU>
  HS_HD static void pressure_rates(const ParamsOn<R>& c, const ConstantsOn<R>& k, const T* p, const TU& U, const T& ds,
                                   const T& sdot, T* pdot) {
    using namespace hydraulics;
    const T l2 = piston_chamber_length(c, ds);
    const T l3 = c.cylinder_length - l2;
    const T VcA = Chamber::volume(k.A_piston, l2);
    const T VcB = Chamber::volume(k.A_rod, l3);
    const T VA = Hose::volume(c.hose_volume_A) + VcA;
    const T VB = Hose::volume(c.hose_volume_B) + VcB;
    const T BeA = effective_bulk_modulus(
        k.inv_B_oil, Hose::wall_compliance(c.hose_volume_A, k.inv_B_hose) + Chamber::wall_compliance(VcA, k.inv_B_cyl), VA);
    const T BeB = effective_bulk_modulus(
        k.inv_B_oil, Hose::wall_compliance(c.hose_volume_B, k.inv_B_hose) + Chamber::wall_compliance(VcB, k.inv_B_cyl), VB);
    T Q_A, Q_B;
    DirectionalValve43::port_flows(c.dcv_flow_coefficient, U, c.supply_pressure, c.tank_pressure, p[0], p[1],
                                   c.laminar_limit, Q_A, Q_B);
    pdot[0] = pressure_rate(BeA, VA, Q_A - Chamber::displacement_flow(k.A_piston, sdot));
    pdot[1] = pressure_rate(BeB, VB, Chamber::displacement_flow(k.A_rod, sdot) - Q_B);
  }

  // Ideal spool: U = U_ref.
  template <class R>
  HS_HD static R spool_step(const ParamsOn<R>&, const R& U, const R& U_ref, double dt) {
    return Spool::step(R(0.0), U, U_ref, dt);
  }
  template <class R>
  HS_HD static R spool_rate(const ParamsOn<R>&, const R& U, const R& U_ref) { return Spool::rate(R(0.0), U, U_ref); }

  // Static pressures holding F with the valve closed: p_B prescribed,
  // p_A = (F + A3 p_B)/A2.
  template <class R>
  HS_HD static void static_pressures(const ParamsOn<R>& c, const ConstantsOn<R>& k, const R& F, R* p) {
    p[1] = c.rod_side_initial_pressure;
    p[0] = hydraulics::CylinderChambers::holding_pressure(k.A_piston, k.A_rod, F, p[1]);
  }
};

}  // namespace hs
