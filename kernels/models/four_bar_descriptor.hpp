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

#include "../friction/friction_laws.hpp"
#include "../integrators/formulations.hpp"
#include "../integrators/run_columns.hpp"
#include "../linearize/actuated_system.hpp"
#include "actuated_parameters.hpp"
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
  actuator_and_input_parameters(t);
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
  valve_schedule_parameters(t);
}

namespace four_bar_detail {

using FrictionLaws = FrictionLawRegistry;
using Formulations = TypeList<DoubleStepFormulation, PenaltyFormulation, Index1BaumgarteFormulation>;

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
  n.driving_coordinate = PlanarChainDae<3>::driving_coordinate();  // the crank, z1
  n = three_volume_pressures(n);
  d.summary_columns = run_columns::summary_columns<3, 3>(n);
  d.trajectory_channels = run_columns::trajectory_channels<3, 3>(n);
  d.driving_coordinate = run_columns::column_name("q", n.driving_coordinate);
  d.commands = {"run", "stability"};
  // friction laws and formulations: from the physics' lists (catalog.hpp fill_support)
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
  n.driving_coordinate = SpatialFourBarDae::driving_coordinate();  // phi2
  n = three_volume_pressures(n);
  d.summary_columns = run_columns::summary_columns<10, 3>(n);
  d.trajectory_channels = run_columns::trajectory_channels<10, 3>(n);
  d.driving_coordinate = run_columns::column_name("q", n.driving_coordinate);
  return d;
}

// ---- physics entries of the catalog (kernels/catalog/catalog.hpp) ---------------

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
  // Not on the GPU with the penalty formulation: its Newton matrix over all
  // ten coordinates with the Jacobians on dual numbers takes ~430 KB of stack
  // per thread (bench/results/kernel-resources-gate-sm90.json before
  // 2026-11-28), which on an H100 could not launch (its stack does not fit
  // for every resident thread, 2026-11-25) and were most of nvcc's time in
  // CI (docs/build.md §8). The double step, the default, runs there.
  using OffDevice = TypeList<PenaltyFormulation>;
  static constexpr const char* off_device_reason =
      "its penalty kernel needs ~430 KB of stack per GPU thread (it could not launch on an H100); "
      "the double-step formulation runs on the GPU";
  template <class Friction>
  using Model = HydraulicFourBar3d<Friction>;
  template <class Friction>
  using Linearized = ActuatedSystem<SpatialFourBarDae, Friction>;
  static std::vector<ModelDescriptor> describe() { return {describe_four_bar_3d()}; }
};

}  // namespace hs
