#include "host/parameters.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace hs {

std::string ParameterInfo::range_text() const {
  std::ostringstream s;
  s << (min_exclusive ? "(" : "[") << min << ", " << max << "]";
  return s.str();
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<ParameterInfo> build() {
  std::vector<ParameterInfo> t;
  auto add = [&](std::string name, std::string unit, double lo, double hi, bool lo_open, std::string what,
                 std::function<double&(FourBarParams&)> f) {
    t.push_back({std::move(name), std::move(unit), lo, hi, lo_open, std::move(what), std::move(f)});
  };
  // Circuit (docs/models/hydraulics.md §11).
  add("circuit.supply_pressure", "Pa", 0, 1e9, true, "pump pressure pP", [](FourBarParams& p) -> double& { return p.circuit.supply_pressure; });
  add("circuit.tank_pressure", "Pa", 0, 1e9, false, "tank pressure pT", [](FourBarParams& p) -> double& { return p.circuit.tank_pressure; });
  add("circuit.oil_bulk_modulus", "Pa", 0, 1e12, true, "oil bulk modulus B_oil", [](FourBarParams& p) -> double& { return p.circuit.oil_bulk_modulus; });
  add("circuit.hose_bulk_modulus", "Pa", 0, 1e12, true, "hose wall bulk modulus B_h", [](FourBarParams& p) -> double& { return p.circuit.hose_bulk_modulus; });
  add("circuit.cylinder_bulk_modulus", "Pa", 0, 1e12, true, "cylinder wall bulk modulus B_c", [](FourBarParams& p) -> double& { return p.circuit.cylinder_bulk_modulus; });
  add("circuit.hose_volume_1", "m^3", 0, 1, true, "hose volume DCV -> throttle", [](FourBarParams& p) -> double& { return p.circuit.hose_volume_1; });
  add("circuit.hose_volume_2", "m^3", 0, 1, true, "hose volume throttle -> piston side", [](FourBarParams& p) -> double& { return p.circuit.hose_volume_2; });
  add("circuit.hose_volume_3", "m^3", 0, 1, true, "hose volume rod side -> DCV", [](FourBarParams& p) -> double& { return p.circuit.hose_volume_3; });
  add("circuit.piston_diameter", "m", 0, 10, true, "piston diameter", [](FourBarParams& p) -> double& { return p.circuit.piston_diameter; });
  add("circuit.rod_diameter", "m", 0, 10, true, "rod diameter (< piston diameter)", [](FourBarParams& p) -> double& { return p.circuit.rod_diameter; });
  add("circuit.cylinder_length", "m", 0, 100, true, "chamber length l = l2 + l3", [](FourBarParams& p) -> double& { return p.circuit.cylinder_length; });
  add("circuit.piston_chamber_length0", "m", 0, 100, true, "piston-side chamber length l2 at t = 0 (< cylinder_length)", [](FourBarParams& p) -> double& { return p.circuit.piston_chamber_length0; });
  add("circuit.dcv_flow_coefficient", "m^3/(s V Pa^0.5)", 0, 1, false, "DCV flow coefficient C_vd", [](FourBarParams& p) -> double& { return p.circuit.dcv_flow_coefficient; });
  add("circuit.valve_time_constant", "s", 0, 10, true, "spool time constant tau", [](FourBarParams& p) -> double& { return p.circuit.valve_time_constant; });
  add("circuit.throttle_discharge_coefficient", "-", 0, 1, true, "throttle discharge coefficient C_d", [](FourBarParams& p) -> double& { return p.circuit.throttle_discharge_coefficient; });
  add("circuit.throttle_diameter", "m", 0, 1, true, "throttle orifice diameter", [](FourBarParams& p) -> double& { return p.circuit.throttle_diameter; });
  add("circuit.oil_density", "kg/m^3", 0, 1e5, true, "oil density rho", [](FourBarParams& p) -> double& { return p.circuit.oil_density; });
  add("circuit.laminar_limit", "Pa", 0, 1e8, true, "laminar/turbulent switch pressure dp_lim", [](FourBarParams& p) -> double& { return p.circuit.laminar_limit; });
  add("circuit.rod_side_initial_pressure", "Pa", 0, 1e9, true, "p3 at t = 0", [](FourBarParams& p) -> double& { return p.circuit.rod_side_initial_pressure; });
  // Friction (docs/models/friction.md §2).
  add("friction.coulomb_force", "N", 0, 1e8, false, "Coulomb force F_c", [](FourBarParams& p) -> double& { return p.friction.coulomb_force; });
  add("friction.static_force", "N", 0, 1e8, false, "static (breakaway) force F_s", [](FourBarParams& p) -> double& { return p.friction.static_force; });
  add("friction.stribeck_velocity", "m/s", 0, 100, true, "Stribeck velocity v_s", [](FourBarParams& p) -> double& { return p.friction.stribeck_velocity; });
  add("friction.viscous_coefficient", "N s/m", 0, 1e9, false, "viscous coefficient sigma2", [](FourBarParams& p) -> double& { return p.friction.viscous_coefficient; });
  add("friction.bengisu_akay_decay", "s/m", 0, 1e9, false, "Bengisu-Akay sliding decay xi", [](FourBarParams& p) -> double& { return p.friction.bengisu_akay_decay; });
  // Input.
  add("input.gain", "-", -1e3, 1e3, false, "multiplies every U_ref value of the schedule", [](FourBarParams& p) -> double& { return p.input.gain; });
  // Mechanism.
  add("mechanism.gravity_x", "m/s^2", -1e3, 1e3, false, "gravity, x component", [](FourBarParams& p) -> double& { return p.mechanism.gravity_x; });
  add("mechanism.gravity_y", "m/s^2", -1e3, 1e3, false, "gravity, y component", [](FourBarParams& p) -> double& { return p.mechanism.gravity_y; });
  add("mechanism.base_x", "m", -kInf, kInf, false, "ground pivot of body 1, x", [](FourBarParams& p) -> double& { return p.mechanism.base_x; });
  add("mechanism.base_y", "m", -kInf, kInf, false, "ground pivot of body 1, y", [](FourBarParams& p) -> double& { return p.mechanism.base_y; });
  add("mechanism.cut_x", "m", -kInf, kInf, false, "ground pivot of the last body (cut joint), x", [](FourBarParams& p) -> double& { return p.mechanism.cut_x; });
  add("mechanism.cut_y", "m", -kInf, kInf, false, "ground pivot of the last body (cut joint), y", [](FourBarParams& p) -> double& { return p.mechanism.cut_y; });
  add("mechanism.actuator_ground_x", "m", -kInf, kInf, false, "cylinder ground point G, x", [](FourBarParams& p) -> double& { return p.mechanism.actuator_ground_x; });
  add("mechanism.actuator_ground_y", "m", -kInf, kInf, false, "cylinder ground point G, y", [](FourBarParams& p) -> double& { return p.mechanism.actuator_ground_y; });
  add("mechanism.actuator_local_x", "m", -kInf, kInf, false, "cylinder point F in its body's frame, x", [](FourBarParams& p) -> double& { return p.mechanism.actuator_local_x; });
  add("mechanism.actuator_local_y", "m", -kInf, kInf, false, "cylinder point F in its body's frame, y", [](FourBarParams& p) -> double& { return p.mechanism.actuator_local_y; });
  for (int j = 0; j < 3; ++j) {
    const std::string b = "mechanism.body" + std::to_string(j + 1) + ".";
    add(b + "mass", "kg", 0, 1e9, true, "mass of body " + std::to_string(j + 1), [j](FourBarParams& p) -> double& { return p.mechanism.body[j].mass; });
    add(b + "inertia", "kg m^2", 0, 1e12, true, "moment of inertia about the centre of mass", [j](FourBarParams& p) -> double& { return p.mechanism.body[j].inertia; });
    add(b + "com_x", "m", -kInf, kInf, false, "centre of mass in body frame, x", [j](FourBarParams& p) -> double& { return p.mechanism.body[j].com_x; });
    add(b + "com_y", "m", -kInf, kInf, false, "centre of mass in body frame, y", [j](FourBarParams& p) -> double& { return p.mechanism.body[j].com_y; });
    add(b + "distal_x", "m", -kInf, kInf, false, "next joint (or cut joint) in body frame, x", [j](FourBarParams& p) -> double& { return p.mechanism.body[j].distal_x; });
    add(b + "distal_y", "m", -kInf, kInf, false, "next joint (or cut joint) in body frame, y", [j](FourBarParams& p) -> double& { return p.mechanism.body[j].distal_y; });
    add("mechanism.initial_angle" + std::to_string(j + 1), "rad", -10, 10, false,
        j == 0 ? "initial driving (crank) angle, held" : "initial relative angle guess (selects the assembly branch)",
        [j](FourBarParams& p) -> double& { return p.mechanism.initial_angle[j]; });
  }
  return t;
}
}  // namespace

const std::vector<ParameterInfo>& four_bar_parameters() {
  static const std::vector<ParameterInfo> table = build();
  return table;
}

const ParameterInfo* find_parameter(const std::string& name) {
  for (const auto& p : four_bar_parameters())
    if (p.name == name) return &p;
  return nullptr;
}

bool model_defaults(const std::string& model, FourBarParams& out) {
  if (model == "four-bar") { out = seed002_four_bar(); return true; }
  if (model == "four-bar-seed001") { out = seed001_four_bar(); return true; }
  // Seed 000's 3D formulation of the same mechanism (kernels/models/spatial_four_bar.hpp
  // reads the planar parameters in the Y1Z1 plane): linearization only.
  if (model == "four-bar-3d") { out = seed002_four_bar(); return true; }
  return false;
}

std::vector<std::string> model_names() { return {"four-bar", "four-bar-seed001", "four-bar-3d"}; }

bool model_is_linearization_only(const std::string& model) { return model == "four-bar-3d"; }

}  // namespace hs
