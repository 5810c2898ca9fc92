// What the quick-return mechanism of seed 001 says about itself (kernels/
// models/descriptor.hpp): its name, parameter table, outputs and what it
// supports, and its entry in the physics catalog (kernels/catalog/catalog.hpp).
// Host-only; the physics is kernels/models/quick_return.hpp
// (docs/models/quick-return.md).
#pragma once
#include <limits>
#include <string>

#include "../friction/friction_laws.hpp"
#include "../integrators/formulations.hpp"
#include "../integrators/run_columns.hpp"
#include "../linearize/actuated_system.hpp"
#include "actuated_parameters.hpp"
#include "dae_mechanism.hpp"
#include "descriptor.hpp"
#include "quick_return.hpp"

namespace hs {

// mechanism.* of docs/models/quick-return.md §7, after the actuator's and input's.
inline void quick_return_parameter_table(ParameterTableBuilder<QuickReturnModelParams>& t) {
  using Params = QuickReturnModelParams;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  actuator_and_input_parameters(t);
  auto point = [&](const std::string& name, const std::string& what, double QuickReturnParams::*x,
                   double QuickReturnParams::*y) {
    t.add("mechanism." + name + "_x", "m", -kInf, kInf, false, what + ", x", [x](Params& p) -> double& { return p.mechanism.*x; });
    t.add("mechanism." + name + "_y", "m", -kInf, kInf, false, what + ", y", [y](Params& p) -> double& { return p.mechanism.*y; });
  };
  point("lever_pivot", "ground pivot O of the lever (body 1)", &QuickReturnParams::lever_pivot_x,
        &QuickReturnParams::lever_pivot_y);
  point("crank_pivot", "ground pivot K of the crank (body 4)", &QuickReturnParams::crank_pivot_x,
        &QuickReturnParams::crank_pivot_y);
  point("ram_line", "a point of the ram's slide line (joint J)", &QuickReturnParams::ram_line_x,
        &QuickReturnParams::ram_line_y);
  t.add("mechanism.ram_line_angle", "rad", -10, 10, false, "direction of the ram's slide line = body 3's absolute angle",
        [](Params& p) -> double& { return p.mechanism.ram_line_angle; });
  t.add("mechanism.gravity_x", "m/s^2", -1e3, 1e3, false, "gravity, x component", [](Params& p) -> double& { return p.mechanism.gravity_x; });
  t.add("mechanism.gravity_y", "m/s^2", -1e3, 1e3, false, "gravity, y component", [](Params& p) -> double& { return p.mechanism.gravity_y; });
  point("actuator_ground", "cylinder ground point Q", &QuickReturnParams::actuator_ground_x,
        &QuickReturnParams::actuator_ground_y);
  point("actuator_local", "cylinder point F in the crank's frame", &QuickReturnParams::actuator_local_x,
        &QuickReturnParams::actuator_local_y);
  const char* what[5] = {"lever", "link", "ram block", "crank", "slider block"};
  for (int j = 0; j < 5; ++j) {
    const std::string b = "mechanism.body" + std::to_string(j + 1) + ".";
    const std::string w = std::string(" of body ") + std::to_string(j + 1) + " (" + what[j] + ")";
    t.add(b + "mass", "kg", 0, 1e9, true, "mass" + w, [j](Params& p) -> double& { return p.mechanism.body[j].mass; });
    t.add(b + "inertia", "kg m^2", 0, 1e12, true, "moment of inertia about the centre of mass" + w,
          [j](Params& p) -> double& { return p.mechanism.body[j].inertia; });
    t.add(b + "com_x", "m", -kInf, kInf, false, "centre of mass in body frame, x" + w, [j](Params& p) -> double& { return p.mechanism.body[j].com_x; });
    t.add(b + "com_y", "m", -kInf, kInf, false, "centre of mass in body frame, y" + w, [j](Params& p) -> double& { return p.mechanism.body[j].com_y; });
    t.add(b + "distal_x", "m", -kInf, kInf, false, "next joint (or cut-joint point) in body frame, x" + w,
          [j](Params& p) -> double& { return p.mechanism.body[j].distal_x; });
    t.add(b + "distal_y", "m", -kInf, kInf, false, "next joint (or cut-joint point) in body frame, y" + w,
          [j](Params& p) -> double& { return p.mechanism.body[j].distal_y; });
    t.add("mechanism.initial_angle" + std::to_string(j + 1), "rad", -10, 10, false,
          j == 3 ? "initial crank angle z4 (driving coordinate), held" : "initial relative angle guess (selects the assembly mode)",
          [j](Params& p) -> double& { return p.mechanism.initial_angle[j]; });
  }
  valve_schedule_parameters(t);
}

inline ModelDescriptor describe_quick_return() {
  ModelDescriptor d;
  d.name = "quick-return";
  d.title = "hydraulically actuated quick-return mechanism (5 bodies, two cut translational joints)";
  d.source = "seed 001 §5";
  d.doc = "docs/models/quick-return.md";
  d.physics = "quick-return";  // QuickReturnPhysics::key
  ParameterTableBuilder<QuickReturnModelParams> t(seed001_quick_return());
  quick_return_parameter_table(t);
  t.fill(d);
  d.rules = circuit_rules();
  StateNames n;
  n.coordinate_units = {"rad", "rad", "rad", "rad", "rad"};
  n.coordinate_descriptions = {"relative angle z1 (lever)", "relative angle z2 (link)", "relative angle z3 (ram block)",
                               "crank angle z4 (driving)", "relative angle z5 (slider block)"};
  n.driving_coordinate = QuickReturnDae::driving_coordinate();  // the crank, z4
  n = three_volume_pressures(n);
  d.summary_columns = run_columns::summary_columns<5, 3>(n);
  d.trajectory_channels = run_columns::trajectory_channels<5, 3>(n);
  d.driving_coordinate = run_columns::column_name("q", n.driving_coordinate);
  d.commands = {"run", "stability"};
  // friction laws and formulations: from the physics' lists (catalog.hpp fill_support)
  return d;
}

// The catalog entry: the DAE mechanism QuickReturnDae, integrated by the
// double step through DaeMechanism or by the index-1 Baumgarte rule, and
// linearized in its DAE form.
struct QuickReturnPhysics {
  static constexpr const char* key = "quick-return";
  static constexpr bool runs = true, linearizes = true;
  using FrictionLaws = FrictionLawRegistry;
  using Formulations = TypeList<DoubleStepFormulation, PenaltyFormulation, Index1BaumgarteFormulation>;
  template <class Friction>
  using Model = HydraulicallyActuated<DaeMechanism<QuickReturnDae>, Friction>;
  template <class Friction>
  using Linearized = ActuatedSystem<QuickReturnDae, Friction>;
  static std::vector<ModelDescriptor> describe() { return {describe_quick_return()}; }
};

}  // namespace hs
