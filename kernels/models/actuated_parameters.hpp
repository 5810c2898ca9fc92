// The parameters every hydraulically actuated model shares (ActuatedParams<M>:
// its circuit, seal friction and valve input), for the models' parameter
// tables (kernels/models/*_descriptor.hpp). Host-only.
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "../integrators/run_columns.hpp"
#include "descriptor.hpp"
#include "../hydraulics/circuit_choice.hpp"
#include "../hydraulics/servo_valve_circuit.hpp"
#include "hydraulically_actuated.hpp"

namespace hs {

// Where actuator a's parameters live in the table: "" with one actuator
// (circuit.*, friction.*, the names every one-cylinder model has), else
// "actuator<a+1>." (actuator2.circuit.piston_diameter, ...).
inline std::string actuator_prefix(int a, int na) {
  return na == 1 ? std::string() : "actuator" + std::to_string(a + 1) + ".";
}

namespace actuated_parameters_detail {

// Adds `pre + key` for the double member `m` of the component that
// get(Params&) returns; `what` gets " (actuator k)" with several actuators.
template <class Params, class Get>
struct ComponentTable {
  ParameterTableBuilder<Params>& t;
  std::string pre, suffix;
  Get get;
  template <class Component>
  void operator()(const char* key, const char* unit, double lo, double hi, bool lo_open, const char* what,
                  double Component::*m) const {
    const Get g = get;
    t.add(pre + key, unit, lo, hi, lo_open, what + suffix, [g, m](Params& p) -> double& { return g(p).*m; });
  }
};

// What every circuit with a pump, a tank, lumped volumes with elastic walls
// and a double-acting cylinder behind a 4/3 valve has (C: its Params).
template <class C, class Table>
void supply_and_walls(const Table& add) {
  add("supply_pressure", "Pa", 0, 1e9, true, "pump pressure pP", &C::supply_pressure);
  add("tank_pressure", "Pa", 0, 1e9, false, "tank pressure pT", &C::tank_pressure);
  add("oil_bulk_modulus", "Pa", 0, 1e12, true, "oil bulk modulus B_oil", &C::oil_bulk_modulus);
  add("hose_bulk_modulus", "Pa", 0, 1e12, true, "hose wall bulk modulus B_h", &C::hose_bulk_modulus);
  add("cylinder_bulk_modulus", "Pa", 0, 1e12, true, "cylinder wall bulk modulus B_c", &C::cylinder_bulk_modulus);
}
template <class C, class Table>
void cylinder_and_valve(const Table& add) {
  add("piston_diameter", "m", 0, 10, true, "piston diameter", &C::piston_diameter);
  add("rod_diameter", "m", 0, 10, true, "rod diameter (< piston diameter)", &C::rod_diameter);
  add("cylinder_length", "m", 0, 100, true, "chamber length l = l2 + l3", &C::cylinder_length);
  add("piston_chamber_length0", "m", 0, 100, true, "piston-side chamber length l2 at t = 0 (< cylinder_length)",
      &C::piston_chamber_length0);
  add("dcv_flow_coefficient", "m^3/(s V Pa^0.5)", 0, 1, false, "DCV flow coefficient C_vd", &C::dcv_flow_coefficient);
}

// The three-volume circuit (docs/models/hydraulics.md §11).
template <class Table>
void circuit_parameters(const Table& add, const CircuitParams*) {
  using C = CircuitParams;
  supply_and_walls<C>(add);
  add("hose_volume_1", "m^3", 0, 1, true, "hose volume DCV -> throttle", &C::hose_volume_1);
  add("hose_volume_2", "m^3", 0, 1, true, "hose volume throttle -> piston side", &C::hose_volume_2);
  add("hose_volume_3", "m^3", 0, 1, true, "hose volume rod side -> DCV", &C::hose_volume_3);
  cylinder_and_valve<C>(add);
  add("valve_time_constant", "s", 0, 10, true, "spool time constant tau", &C::valve_time_constant);
  add("throttle_discharge_coefficient", "-", 0, 1, true, "throttle discharge coefficient C_d",
      &C::throttle_discharge_coefficient);
  add("throttle_diameter", "m", 0, 1, true, "throttle orifice diameter", &C::throttle_diameter);
  add("oil_density", "kg/m^3", 0, 1e5, true, "oil density rho", &C::oil_density);
  add("laminar_limit", "Pa", 0, 1e8, true, "laminar/turbulent switch pressure dp_lim", &C::laminar_limit);
  add("rod_side_initial_pressure", "Pa", 0, 1e9, true, "p3 at t = 0", &C::rod_side_initial_pressure);
}

// The two-volume circuit (docs/models/hydraulics.md §14).
template <class Table>
void circuit_parameters(const Table& add, const TwoVolumeCircuitParams*) {
  using C = TwoVolumeCircuitParams;
  supply_and_walls<C>(add);
  add("hose_volume_A", "m^3", 0, 1, true, "hose volume DCV port A -> piston side", &C::hose_volume_A);
  add("hose_volume_B", "m^3", 0, 1, true, "hose volume rod side -> DCV port B", &C::hose_volume_B);
  cylinder_and_valve<C>(add);
  add("laminar_limit", "Pa", 0, 1e8, true, "laminar/turbulent switch pressure dp_lim", &C::laminar_limit);
  add("rod_side_initial_pressure", "Pa", 0, 1e9, true, "p_B at t = 0", &C::rod_side_initial_pressure);
}

// The servo-valve circuit (seed 004; docs/models/manipulator.md §4, §11.3).
template <class Table>
void circuit_parameters(const Table& add, const ServoValveCircuitParams*) {
  using C = ServoValveCircuitParams;
  add("supply_pressure", "Pa", 0, 1e9, true, "supply pressure p_s", &C::supply_pressure);
  add("return_pressure", "Pa", 0, 1e9, false, "return-line pressure p_r", &C::return_pressure);
  add("oil_bulk_modulus", "Pa", 0, 1e12, true, "oil bulk modulus beta", &C::oil_bulk_modulus);
  add("piston_diameter", "m", 0, 10, true, "piston diameter (chamber a area A_a)", &C::piston_diameter);
  add("rod_diameter", "m", 0, 10, true, "rod diameter (< piston diameter)", &C::rod_diameter);
  add("stroke", "m", 0, 100, true, "full stroke S", &C::stroke);
  add("dead_volume_a", "m^3", 0, 1, false, "dead volume of chamber a (bore side) V_0a", &C::dead_volume_a);
  add("dead_volume_b", "m^3", 0, 1, false, "dead volume of chamber b (rod side) V_0b", &C::dead_volume_b);
  add("valve_coefficient_pa", "m^3/(s V Pa^0.5)", 0, 1, false, "valve edge P -> A, c_p1", &C::valve_coefficient_pa);
  add("valve_coefficient_at", "m^3/(s V Pa^0.5)", 0, 1, false, "valve edge A -> T, c_n1", &C::valve_coefficient_at);
  add("valve_coefficient_pb", "m^3/(s V Pa^0.5)", 0, 1, false, "valve edge P -> B, c_p2", &C::valve_coefficient_pb);
  add("valve_coefficient_bt", "m^3/(s V Pa^0.5)", 0, 1, false, "valve edge B -> T, c_n2", &C::valve_coefficient_bt);
  add("leakage_coefficient", "m^3/(s Pa)", 0, 1, false, "internal leakage c_l (a -> b)", &C::leakage_coefficient);
  add("laminar_limit", "Pa", 0, 1e8, true, "valve flow linear below this pressure drop", &C::laminar_limit);
  add("rod_side_initial_pressure", "Pa", 0, 1e9, true, "p_b at t = 0 (p_a from the statics)",
      &C::rod_side_initial_pressure);
}


// Parameters a circuit has only as a member of a model file's choice
// (chosen_circuit_parameters): the servo valve's closed length, since a file's
// cylinder gives the length between its pins where the lift-tilt's mechanism
// gives the stroke itself (closed_length = 0 there; hydraulics.md §16).
template <class Table, class C>
void member_only_parameters(const Table&, const C*) {}
template <class Table>
void member_only_parameters(const Table& add, const ServoValveCircuitParams*) {
  add("closed_length", "m", 0, 100, false, "pin-to-pin length of the retracted cylinder: stroke = length - closed_length",
      &ServoValveCircuitParams::closed_length);
}

// Seal friction (docs/models/friction.md §2).
template <class Table>
void friction_parameters(const Table& add) {
  using F = FrictionParams;
  add("coulomb_force", "N", 0, 1e8, false, "Coulomb force F_c", &F::coulomb_force);
  add("static_force", "N", 0, 1e8, false, "static (breakaway) force F_s", &F::static_force);
  add("stribeck_velocity", "m/s", 0, 100, true, "Stribeck velocity v_s", &F::stribeck_velocity);
  add("viscous_coefficient", "N s/m", 0, 1e9, false, "viscous coefficient sigma2", &F::viscous_coefficient);
  add("bengisu_akay_decay", "s/m", 0, 1e9, false, "Bengisu-Akay sliding decay xi", &F::bengisu_akay_decay);
  // LuGre and modified LuGre (docs/models/friction.md §7–§8); n ≥ 1 keeps
  // (|v|/v_s)^n differentiable at v = 0.
  add("lugre_stiffness", "N/m", 0, 1e12, true, "LuGre bristle stiffness sigma0", &F::lugre_stiffness);
  add("lugre_damping", "N s/m", 0, 1e9, false, "LuGre bristle damping sigma1", &F::lugre_damping);
  add("stribeck_exponent", "-", 1, 10, false, "LuGre Stribeck exponent n", &F::stribeck_exponent);
  add("film_time_acceleration", "s", 0, 1e6, true, "modified LuGre film time constant tau_hp (accelerating)",
      &F::film_time_acceleration);
  add("film_time_deceleration", "s", 0, 1e6, true, "modified LuGre film time constant tau_hn (decelerating)",
      &F::film_time_deceleration);
  add("film_time_dwell", "s", 0, 1e6, true, "modified LuGre film time constant tau_h0 (at rest)", &F::film_time_dwell);
  add("film_velocity", "m/s", 0, 100, true, "modified LuGre film velocity scale v_b", &F::film_velocity);
}

template <class Params, class Get>
ComponentTable<Params, Get> component_table(ParameterTableBuilder<Params>& t, std::string pre, std::string suffix,
                                            Get get) {
  return ComponentTable<Params, Get>{t, std::move(pre), std::move(suffix), get};
}

// Whether a cylinder's circuit parameters are a CircuitChoice's
// (kernels/hydraulics/circuit_choice.hpp).
template <class C, class = void>
struct IsCircuitChoice : std::false_type {};
template <class C>
struct IsCircuitChoice<C, std::void_t<typename C::Choice>> : std::true_type {};
// The parameters of actuator a's chosen member (code), named as that circuit
// compiled alone names them.
template <int I, class Params, class ChoiceParams>
void chosen_circuit_parameters(ParameterTableBuilder<Params>& t, int a, int code, const std::string& prefix,
                               const std::string& suffix) {
  if constexpr (I < ChoiceParams::Choice::count) {
    if (code != I) return chosen_circuit_parameters<I + 1, Params, ChoiceParams>(t, a, code, prefix, suffix);
    using Member = std::remove_reference_t<decltype(circuit_choice_detail::member<I>(std::declval<ChoiceParams&>().member))>;
    const auto table = component_table(t, prefix, suffix, [a](Params& p) -> Member& {
      return circuit_choice_detail::member<I>(p.actuator[a].circuit.member);
    });
    circuit_parameters(table, static_cast<const Member*>(nullptr));
    member_only_parameters(table, static_cast<const Member*>(nullptr));
  }
}

}  // namespace actuated_parameters_detail

// Actuator a's circuit parameters under `circuit_prefix` and its friction
// parameters under `friction_prefix`; `suffix` ends every description.
template <class Params>
void actuator_parameters(ParameterTableBuilder<Params>& t, int a, const std::string& circuit_prefix,
                         const std::string& friction_prefix, const std::string& suffix, int circuit_code = 0) {
  using namespace actuated_parameters_detail;
  using CircuitParamsT = decltype(Params::actuator[0].circuit);
  if constexpr (IsCircuitChoice<CircuitParamsT>::value)
    chosen_circuit_parameters<0, Params, CircuitParamsT>(t, a, circuit_code, circuit_prefix, suffix);
  else
    circuit_parameters(component_table(t, circuit_prefix, suffix,
                                       [a](Params& p) -> CircuitParamsT& { return p.actuator[a].circuit; }),
                       static_cast<const CircuitParamsT*>(nullptr));
  friction_parameters(component_table(t, friction_prefix, suffix,
                                      [a](Params& p) -> FrictionParams& { return p.actuator[a].friction; }));
}

// input.gain when the input is the open-loop schedule.
template <class Params>
void input_gain_parameter(ParameterTableBuilder<Params>& t) {
  if constexpr (std::is_same<decltype(Params::input), InputSchedule>::value)
    t.add("input.gain", "-", -1e3, 1e3, false, "multiplies every U_ref value of the schedule",
          [](Params& p) -> double& { return p.input.gain; });
}

// Every actuator's circuit.* and friction.* (prefixed per actuator_prefix),
// then input.gain when the input is the open-loop schedule.
template <class Params>
void actuator_and_input_parameters(ParameterTableBuilder<Params>& t) {
  constexpr int na = static_cast<int>(std::extent<decltype(Params::actuator)>::value);
  for (int a = 0; a < na; ++a) {
    const std::string pre = actuator_prefix(a, na);
    const std::string suffix = na == 1 ? std::string() : " (actuator " + std::to_string(a + 1) + ")";
    actuator_parameters(t, a, pre + "circuit.", pre + "friction.", suffix);
  }
  input_gain_parameter(t);
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

// Order rules of every actuator's circuit (three- and two-volume alike).
inline std::vector<OrderRule> circuit_rules(int na = 1) {
  std::vector<OrderRule> rules;
  for (int a = 0; a < na; ++a) {
    const std::string c = actuator_prefix(a, na) + "circuit.";
    rules.push_back({c + "rod_diameter", c + "piston_diameter", "the rod must be thinner than the piston"});
    rules.push_back({c + "piston_chamber_length0", c + "cylinder_length", "the piston must start inside the cylinder"});
    rules.push_back({c + "tank_pressure", c + "supply_pressure", "the pump must deliver more than tank pressure"});
  }
  return rules;
}

// The pressures of the three-volume circuit (docs/models/hydraulics.md §2).
inline StateNames three_volume_pressures(StateNames n) {
  n.pressure_descriptions = {"volume 1 (DCV to throttle)", "volume 2 (throttle to piston side)",
                             "volume 3 (rod side to DCV)"};
  return n;
}

}  // namespace hs
