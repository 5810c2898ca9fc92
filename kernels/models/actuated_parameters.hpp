// The parameters every hydraulically actuated model shares (ActuatedParams<M>:
// its circuit, seal friction and valve input), for the models' parameter
// tables (kernels/models/*_descriptor.hpp). Host-only.
#pragma once
#include <string>
#include <vector>

#include "../integrators/run_columns.hpp"
#include "descriptor.hpp"
#include "hydraulically_actuated.hpp"

namespace hs {

// circuit.* (docs/models/hydraulics.md §11), friction.* (docs/models/friction.md §2), input.gain.
template <class Params>
void actuator_and_input_parameters(ParameterTableBuilder<Params>& t) {
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
}

// The valve schedule's segments (input.segments, input.timeK, input.valueK):
// set by a study's [input] table, part of the row so that a row is the
// whole instance.
template <class Params>
void valve_schedule_parameters(ParameterTableBuilder<Params>& t) {
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

// Order rules of the three-volume circuit.
inline std::vector<OrderRule> circuit_rules() {
  return {
      {"circuit.rod_diameter", "circuit.piston_diameter", "the rod must be thinner than the piston"},
      {"circuit.piston_chamber_length0", "circuit.cylinder_length", "the piston must start inside the cylinder"},
      {"circuit.tank_pressure", "circuit.supply_pressure", "the pump must deliver more than tank pressure"},
  };
}

// The pressures of the three-volume circuit (docs/models/hydraulics.md §2).
inline StateNames three_volume_pressures(StateNames n) {
  n.pressure_descriptions = {"volume 1 (DCV to throttle)", "volume 2 (throttle to piston side)",
                             "volume 3 (rod side to DCV)"};
  return n;
}

}  // namespace hs
