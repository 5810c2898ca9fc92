// The catalog entry of the planar mechanisms described in model files
// (kernels/models/planar_multibody.hpp; docs/model-files.md,
// docs/models/planar-multibody.md). It describes no model itself: each model
// file becomes a ModelDescriptor at run time (host/registry/model_file.cpp)
// whose `physics` is this entry's key, so the backends run it through the
// same combination lookup as every compiled model. Host-only.
#pragma once
#include <vector>

#include "../friction/friction_laws.hpp"
#include "../integrators/formulations.hpp"
#include "../linearize/actuated_system.hpp"
#include "dae_mechanism.hpp"
#include "descriptor.hpp"
#include "hydraulically_actuated.hpp"
#include "planar_multibody.hpp"

namespace hs {

// The one capacity compiled (docs/models/planar-multibody.md §3): five joint
// coordinates, four constraint rows (two cut joints), one degree of freedom,
// one cylinder, sixteen named points — the planar four-bars and the
// quick-return fit, padded where they are smaller.
using PlanarFileCapacity = PlanarCapacity<5, 4, 1, 16>;
using PlanarFileDae = PlanarMultibodyDae<PlanarFileCapacity>;
using PlanarFileModelParams = ActuatedParams<PlanarMultibodyParams<PlanarFileCapacity>>;

struct PlanarMultibodyPhysics {
  static constexpr const char* key = "planar-multibody";
  static constexpr bool runs = true, linearizes = true;
  using FrictionLaws = FrictionLawRegistry;
  using Formulations = TypeList<DoubleStepFormulation, PenaltyFormulation, Index1BaumgarteFormulation>;
  // Not compiled for the CUDA backend yet: the nvcc budget (docs/build.md §1,
  // ≤ 25 kernels) holds one generic kernel per formulation only once the
  // compiled models' kernels make room for it (docs/models/planar-multibody.md §6).
  using OffDevice = TypeList<DoubleStepFormulation, PenaltyFormulation>;
  static constexpr const char* off_device_reason =
      "model files run on the CPU backends for now (docs/models/planar-multibody.md §6)";
  // The double step and the penalty formulation through the semirecursive
  // interface (closed-form Jacobians); the index-1 form and the stability
  // map through the DAE contract.
  template <class Friction>
  using Model = HydraulicallyActuated<PlanarMultibody<PlanarFileCapacity>, Friction>;
  template <class Friction>
  using Linearized = ActuatedSystem<PlanarFileDae, Friction>;
  // Models come from files, not from this list.
  static std::vector<ModelDescriptor> describe() { return {}; }
};

}  // namespace hs
