// What the hydraulic four-bar models say about themselves (kernels/models/
// descriptor.hpp): names, the parameter table, outputs and what each
// supports. Host-only; the physics is kernels/models/four_bar.hpp and
// spatial_four_bar.hpp.
//
//   four-bar          planar four-bar of seed 002 §4 (docs/models/four-bar.md §9.1–9.2)
//   four-bar-seed001  planar four-bar of seed 001 §4.1 (docs/models/four-bar.md §9.3)
//   four-bar-3d       seed 000's 3D formulation of the seed 002 mechanism
//                     (docs/models/four-bar-3d.md), same parameters
#pragma once
#include <limits>
#include <string>

#include "../integrators/formulations.hpp"
#include "../integrators/run_columns.hpp"
#include "../linearize/actuated_system.hpp"
#include "descriptor.hpp"
#include "four_bar.hpp"
#include "four_bar_3d.hpp"
#include "planar_chain_dae.hpp"
#include "spatial_four_bar.hpp"

namespace hs {

// The parameter table of every model whose Params is ActuatedParams<PlanarLoopChainParams<3>>.
inline void four_bar_parameter_table(ParameterTableBuilder<FourBarParams>& t) {
  using Params = FourBarParams;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Circuit (docs/models/hydraulics.md §11).
  t.add("circuit.supply_pressure", "Pa", 0, 1e9, true, "pump pressure pP", [](Params& p) -> double& { return p.circuit.supply_pressure; });
  t.add("circuit.tank_pressure", "Pa", 0, 1e9, false, "tank pressure pT", [](Params& p) -> double& { return p.circuit.tank_pressure; });
  t.add("circuit.oil_bulk_modulus", "Pa", 0, 1e12, true, "oil bulk modulus B_oil", [](Params& p) -> double& { return p.circuit.oil_bulk_modulus; });
  t.add("circuit.hose_bulk_modulus", "Pa", 0, 1e12, true, "hose wall bulk modulus B_h", [](Params& p) -> double& { return p.circuit.hose_bulk_modulus; });
  t.add("circuit.cylinder_bulk_modulus", "Pa", 0, 1e12, true, "cylinder wall bulk modulus B_c", [](Params& p) -> double& { return p.circuit.cylinder_bulk_modulus; });
  t.add("circuit.hose_volume_1", "m^3", 0, 1, true, "hose volume DCV -> throttle", [](Params& p) -> double& { return p.circuit.hose_volume_1; });
  t.add("circuit.hose_volume_2", "m^3", 0, 1, true, "hose volume throttle -> piston side", [](Params& p) -> double& { return p.circuit.hose_volume_2; });
  t.add("circuit.hose_volume_3", "m^3", 0, 1, true, "hose volume rod side -> DCV", [](Params& p) -> double& { return p.circuit.hose_volume_3; });
  t.add("circuit.piston_diameter", "m", 0, 10, true, "piston diameter", [](Params& p) -> double& { return p.circuit.piston_diameter; });
  t.add("circuit.rod_diameter", "m", 0, 10, true, "rod diameter (< piston diameter)", [](Params& p) -> double& { return p.circuit.rod_diameter; });
  t.add("circuit.cylinder_length", "m", 0, 100, true, "chamber length l = l2 + l3", [](Params& p) -> double& { return p.circuit.cylinder_length; });
  t.add("circuit.piston_chamber_length0", "m", 0, 100, true, "piston-side chamber length l2 at t = 0 (< cylinder_length)", [](Params& p) -> double& { return p.circuit.piston_chamber_length0; });
  t.add("circuit.dcv_flow_coefficient", "m^3/(s V Pa^0.5)", 0, 1, false, "DCV flow coefficient C_vd", [](Params& p) -> double& { return p.circuit.dcv_flow_coefficient; });
  t.add("circuit.valve_time_constant", "s", 0, 10, true, "spool time constant tau", [](Params& p) -> double& { return p.circuit.valve_time_constant; });
  t.add("circuit.throttle_discharge_coefficient", "-", 0, 1, true, "throttle discharge coefficient C_d", [](Params& p) -> double& { return p.circuit.throttle_discharge_coefficient; });
  t.add("circuit.throttle_diameter", "m", 0, 1, true, "throttle orifice diameter", [](Params& p) -> double& { return p.circuit.throttle_diameter; });
  t.add("circuit.oil_density", "kg/m^3", 0, 1e5, true, "oil density rho", [](Params& p) -> double& { return p.circuit.oil_density; });
  t.add("circuit.laminar_limit", "Pa", 0, 1e8, true, "laminar/turbulent switch pressure dp_lim", [](Params& p) -> double& { return p.circuit.laminar_limit; });
  t.add("circuit.rod_side_initial_pressure", "Pa", 0, 1e9, true, "p3 at t = 0", [](Params& p) -> double& { return p.circuit.rod_side_initial_pressure; });
  // Friction (docs/models/friction.md §2).
  t.add("friction.coulomb_force", "N", 0, 1e8, false, "Coulomb force F_c", [](Params& p) -> double& { return p.friction.coulomb_force; });
  t.add("friction.static_force", "N", 0, 1e8, false, "static (breakaway) force F_s", [](Params& p) -> double& { return p.friction.static_force; });
  t.add("friction.stribeck_velocity", "m/s", 0, 100, true, "Stribeck velocity v_s", [](Params& p) -> double& { return p.friction.stribeck_velocity; });
  t.add("friction.viscous_coefficient", "N s/m", 0, 1e9, false, "viscous coefficient sigma2", [](Params& p) -> double& { return p.friction.viscous_coefficient; });
  t.add("friction.bengisu_akay_decay", "s/m", 0, 1e9, false, "Bengisu-Akay sliding decay xi", [](Params& p) -> double& { return p.friction.bengisu_akay_decay; });
  // Input.
  t.add("input.gain", "-", -1e3, 1e3, false, "multiplies every U_ref value of the schedule", [](Params& p) -> double& { return p.input.gain; });
  // Mechanism.
  t.add("mechanism.gravity_x", "m/s^2", -1e3, 1e3, false, "gravity, x component", [](Params& p) -> double& { return p.mechanism.gravity_x; });
  t.add("mechanism.gravity_y", "m/s^2", -1e3, 1e3, false, "gravity, y component", [](Params& p) -> double& { return p.mechanism.gravity_y; });
  t.add("mechanism.base_x", "m", -kInf, kInf, false, "ground pivot of body 1, x", [](Params& p) -> double& { return p.mechanism.base_x; });
  t.add("mechanism.base_y", "m", -kInf, kInf, false, "ground pivot of body 1, y", [](Params& p) -> double& { return p.mechanism.base_y; });
  t.add("mechanism.cut_x", "m", -kInf, kInf, false, "ground pivot of the last body (cut joint), x", [](Params& p) -> double& { return p.mechanism.cut_x; });
  t.add("mechanism.cut_y", "m", -kInf, kInf, false, "ground pivot of the last body (cut joint), y", [](Params& p) -> double& { return p.mechanism.cut_y; });
  t.add("mechanism.actuator_ground_x", "m", -kInf, kInf, false, "cylinder ground point G, x", [](Params& p) -> double& { return p.mechanism.actuator_ground_x; });
  t.add("mechanism.actuator_ground_y", "m", -kInf, kInf, false, "cylinder ground point G, y", [](Params& p) -> double& { return p.mechanism.actuator_ground_y; });
  t.add("mechanism.actuator_local_x", "m", -kInf, kInf, false, "cylinder point F in its body's frame, x", [](Params& p) -> double& { return p.mechanism.actuator_local_x; });
  t.add("mechanism.actuator_local_y", "m", -kInf, kInf, false, "cylinder point F in its body's frame, y", [](Params& p) -> double& { return p.mechanism.actuator_local_y; });
  for (int j = 0; j < 3; ++j) {
    const std::string b = "mechanism.body" + std::to_string(j + 1) + ".";
    t.add(b + "mass", "kg", 0, 1e9, true, "mass of body " + std::to_string(j + 1), [j](Params& p) -> double& { return p.mechanism.body[j].mass; });
    t.add(b + "inertia", "kg m^2", 0, 1e12, true, "moment of inertia about the centre of mass", [j](Params& p) -> double& { return p.mechanism.body[j].inertia; });
    t.add(b + "com_x", "m", -kInf, kInf, false, "centre of mass in body frame, x", [j](Params& p) -> double& { return p.mechanism.body[j].com_x; });
    t.add(b + "com_y", "m", -kInf, kInf, false, "centre of mass in body frame, y", [j](Params& p) -> double& { return p.mechanism.body[j].com_y; });
    t.add(b + "distal_x", "m", -kInf, kInf, false, "next joint (or cut joint) in body frame, x", [j](Params& p) -> double& { return p.mechanism.body[j].distal_x; });
    t.add(b + "distal_y", "m", -kInf, kInf, false, "next joint (or cut joint) in body frame, y", [j](Params& p) -> double& { return p.mechanism.body[j].distal_y; });
    t.add("mechanism.initial_angle" + std::to_string(j + 1), "rad", -10, 10, false,
        j == 0 ? "initial driving (crank) angle, held" : "initial relative angle guess (selects the assembly branch)",
        [j](Params& p) -> double& { return p.mechanism.initial_angle[j]; });
  }
  // The valve schedule U_ref(t) (kernels/models/input_schedule.hpp): set by a
  // study's [input] table, part of the row so that a row is the whole instance.
  using Role = ParameterInfo::Role;
  t.add("input.segments", "-", 0, InputSchedule::kMaxSegments, false, "segments of the valve schedule in use",
        [](Params& p) -> int& { return p.input.count; }, Role::input_schedule);
  for (int k = 0; k < InputSchedule::kMaxSegments; ++k) {
    const std::string n = std::to_string(k + 1);
    t.add("input.time" + n, "s", 0, 1e6, false, "start of valve schedule segment " + n,
          [k](Params& p) -> double& { return p.input.start[k]; }, Role::input_schedule);
    t.add("input.value" + n, "V", -1e3, 1e3, false, "U_ref on valve schedule segment " + n,
          [k](Params& p) -> double& { return p.input.value[k]; }, Role::input_schedule);
  }
}

namespace four_bar_detail {

inline std::vector<OrderRule> circuit_rules() {
  return {
      {"circuit.rod_diameter", "circuit.piston_diameter", "the rod must be thinner than the piston"},
      {"circuit.piston_chamber_length0", "circuit.cylinder_length", "the piston must start inside the cylinder"},
      {"circuit.tank_pressure", "circuit.supply_pressure", "the pump must deliver more than tank pressure"},
  };
}

inline StateNames three_volume_pressures(StateNames n) {
  n.pressure_descriptions = {"volume 1 (DCV to throttle)", "volume 2 (throttle to piston side)",
                             "volume 3 (rod side to DCV)"};
  return n;
}

using FrictionLaws = TypeList<BrownMcPhee, BengisuAkay, NoFriction>;
using Formulations = TypeList<DoubleStepFormulation, Index1BaumgarteFormulation>;

inline ModelDescriptor planar(std::string name, std::string title, std::string source, const FourBarParams& defaults) {
  ModelDescriptor d;
  d.name = std::move(name);
  d.title = std::move(title);
  d.source = std::move(source);
  d.doc = "docs/models/four-bar.md";
  d.physics = "planar-four-bar";  // PlanarFourBarPhysics::key
  ParameterTableBuilder<FourBarParams> t(defaults);
  four_bar_parameter_table(t);
  t.fill(d);
  d.rules = circuit_rules();
  StateNames n;
  n.coordinate_units = {"rad", "rad", "rad"};
  n.coordinate_descriptions = {"relative joint angle 1 (crank)", "relative joint angle 2", "relative joint angle 3"};
  n = three_volume_pressures(n);
  d.summary_columns = run_columns::summary_columns<3, 3>(n);
  d.trajectory_channels = run_columns::trajectory_channels<3, 3>(n);
  d.driving_coordinate = "q1";
  d.commands = {"run", "stability"};
  d.friction_laws = names_of(FrictionLaws{});
  d.formulations = names_of(Formulations{});
  return d;
}

}  // namespace four_bar_detail

inline ModelDescriptor describe_four_bar() {
  return four_bar_detail::planar("four-bar", "hydraulically actuated planar four-bar", "seed 002 §4 (also seed 000's mechanism)",
                                 seed002_four_bar());
}

inline ModelDescriptor describe_four_bar_seed001() {
  auto d = four_bar_detail::planar("four-bar-seed001", "planar four-bar of the double-step/penalty comparison",
                                   "seed 001 §4.1", seed001_four_bar());
  return d;
}

// Seed 000's 3D formulation of the seed 002 mechanism (kernels/models/
// spatial_four_bar.hpp reads the planar parameters in the Y1Z1 plane).
inline ModelDescriptor describe_four_bar_3d() {
  auto d = four_bar_detail::planar("four-bar-3d", "seed 000's 3D formulation of the seed 002 four-bar (same parameters)",
                                   "seed 000 §4", seed002_four_bar());
  d.doc = "docs/models/four-bar-3d.md";
  d.physics = "spatial-four-bar";  // SpatialFourBarPhysics::key
  // x = (x_G2, y_G2, z_G2, ψ2, θ2, φ2, φ32, φ43, s, α), seed 000 eq (65);
  // φ2 is the planar crank angle z1, φ32 = z2, φ43 = z3.
  StateNames n;
  n.coordinate_units = {"m", "m", "m", "rad", "rad", "rad", "rad", "rad", "m", "rad"};
  n.coordinate_descriptions = {"x of the crank's centre of mass G2", "y of G2", "z of G2",
                               "crank angle psi2 about Z", "crank angle theta2 about Y",
                               "crank angle phi2 about X (the planar crank angle)", "coupler angle phi32",
                               "rocker angle phi43", "cylinder coordinate s", "cylinder angle alpha"};
  n = four_bar_detail::three_volume_pressures(n);
  d.summary_columns = run_columns::summary_columns<10, 3>(n);
  d.trajectory_channels = run_columns::trajectory_channels<10, 3>(n);
  d.driving_coordinate = "q6";
  return d;
}

// ---- physics entries of the catalog (kernels/models/catalog.hpp) ---------------

// Relative joint coordinates, semirecursive (PlanarLoopChain<3>), integrated
// by the double step; linearized in the DAE form PlanarChainDae<3>.
struct PlanarFourBarPhysics {
  static constexpr const char* key = "planar-four-bar";
  static constexpr bool runs = true, linearizes = true;
  using FrictionLaws = four_bar_detail::FrictionLaws;
  using Formulations = four_bar_detail::Formulations;
  template <class Friction>
  using Model = HydraulicFourBar<Friction>;
  template <class Friction>
  using Linearized = ActuatedSystem<PlanarChainDae<3>, Friction>;
  static std::vector<ModelDescriptor> describe() { return {describe_four_bar(), describe_four_bar_seed001()}; }
};

// Seed 000's 10 mixed coordinates and 9 constraints (SpatialFourBarDae),
// integrated by the double step through DaeMechanism (four_bar_3d.hpp) or
// by the index-1 Baumgarte rule.
struct SpatialFourBarPhysics {
  static constexpr const char* key = "spatial-four-bar";
  static constexpr bool runs = true, linearizes = true;
  using FrictionLaws = four_bar_detail::FrictionLaws;
  using Formulations = four_bar_detail::Formulations;
  template <class Friction>
  using Model = HydraulicFourBar3d<Friction>;
  template <class Friction>
  using Linearized = ActuatedSystem<SpatialFourBarDae, Friction>;
  static std::vector<ModelDescriptor> describe() { return {describe_four_bar_3d()}; }
};

}  // namespace hs
