// The catalog entry of the planar mechanisms described in model files
// (kernels/models/planar_multibody.hpp; docs/model-files.md,
// docs/models/planar-multibody.md). It describes no model itself: each model
// file becomes a ModelDescriptor at run time (host/registry/model_file.cpp)
// whose `physics` is this entry's key, so the backends run it through the
// same combination lookup as every compiled model. Host-only.
#pragma once
#include <type_traits>
#include <vector>

#include "../friction/friction_laws.hpp"
#include "../integrators/formulations.hpp"
#include "../linearize/actuated_system.hpp"
#include "dae_mechanism.hpp"
#include "descriptor.hpp"
#include "hydraulically_actuated.hpp"
#include "planar_multibody.hpp"

namespace hs {

// The capacities compiled (docs/models/planar-multibody.md §3), one catalog
// entry each; a file takes the entry of its number of cylinders:
// - one cylinder: five joint coordinates, four constraint rows (two cut
//   joints), one degree of freedom, sixteen named points — the planar
//   four-bars and the quick-return fit, padded where they are smaller;
// - two cylinders: four joint coordinates, two constraint rows (one cut
//   joint), two degrees of freedom, sixteen named points — a boom and an arm,
//   an arm and a bucket on its linkage, a crane's lift and tilt.
using PlanarFileCapacity = PlanarCapacity<5, 4, 1, 16>;
using PlanarFileTwoCylinderCapacity = PlanarCapacity<4, 2, 2, 16>;
template <class Capacity>
using PlanarFileModelParamsOf = ActuatedParams<PlanarMultibodyParams<Capacity>,
                                               CylinderParams<typename PlanarMultibodyDae<Capacity>::Circuit::Params>,
                                               Capacity::na, CylinderInputsParams<Capacity::na>>;
using PlanarFileDae = PlanarMultibodyDae<PlanarFileCapacity>;
using PlanarFileModelParams = PlanarFileModelParamsOf<PlanarFileCapacity>;

// One entry per capacity. Both run the double step and the penalty
// formulation with every friction law (on every backend) and linearize for the stability map
// (kernels/linearize/actuated_system.hpp, one actuator per degree of
// freedom); the one-cylinder entry also runs the index-1 form (one actuator).
template <class Capacity>
struct PlanarMultibodyPhysicsOf {
  static constexpr bool runs = true, linearizes = true;
  using FrictionLaws = FrictionLawRegistry;
  // LuGre and modified LuGre as one compiled policy (kernels/friction/
  // law_choice.hpp): one kernel per formulation for the laws with states.
  static constexpr bool dynamic_friction_choice = true;
  using Formulations = std::conditional_t<Capacity::na == 1,
                                          TypeList<DoubleStepFormulation, PenaltyFormulation, Index1BaumgarteFormulation>,
                                          TypeList<DoubleStepFormulation, PenaltyFormulation>>;
  // Both formulations run on the CUDA backend too: one kernel per
  // (capacity, formulation, friction policy), eight in all, the generic
  // kernels of every model file (docs/models/planar-multibody.md §6).
  using Input = typename PlanarMultibodyDae<Capacity>::Input;
  // The double step and the penalty formulation through the semirecursive
  // interface (closed-form Jacobians); the index-1 form and the stability
  // map through the DAE contract.
  template <class Friction>
  using Model = ActuatedModel<PlanarMultibody<Capacity>,
                              HydraulicCylinder<typename PlanarMultibodyDae<Capacity>::Circuit, Friction>, Capacity::na,
                              Input>;
  template <class Friction>
  using Linearized = ActuatedSystem<PlanarMultibodyDae<Capacity>, Friction>;
  // Models come from files, not from this list.
  static std::vector<ModelDescriptor> describe() { return {}; }
};

struct PlanarMultibodyPhysics : PlanarMultibodyPhysicsOf<PlanarFileCapacity> {
  static constexpr const char* key = "planar-multibody";
};
struct PlanarMultibodyTwoCylinderPhysics : PlanarMultibodyPhysicsOf<PlanarFileTwoCylinderCapacity> {
  static constexpr const char* key = "planar-multibody-2";
};

}  // namespace hs
