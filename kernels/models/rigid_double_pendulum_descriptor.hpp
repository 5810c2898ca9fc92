// The rigid double pendulum (rigid_double_pendulum.hpp) as a model of the
// catalog: its parameter table for study files and `hydrosweep parameters`,
// and its catalog entry (kernels/catalog/catalog.hpp). A constrained system
// of seed 003's kind (docs/models/nloop-and-flexible.md §7), linearized on the
// host by mcs, rcs or ucs.
#pragma once
#include <vector>

#include "constrained_descriptor.hpp"
#include "rigid_double_pendulum.hpp"

namespace hs {

inline ModelDescriptor describe_rigid_double_pendulum() {
  RigidDoublePendulumParams d;
  ParameterTableBuilder<RigidDoublePendulumParams> t(d);
  using P = RigidDoublePendulumParams;
  t.add("pendulum.rod_length", "m", 0, 1e3, true, "l, each rod", [](P& p) -> double& { return p.rod_length; });
  t.add("pendulum.rod_mass", "kg", 0, 1e6, true, "m, each rod (uniform)", [](P& p) -> double& { return p.rod_mass; });
  t.add("pendulum.gravity", "m/s2", 0, 1e3, false, "g, along -y", [](P& p) -> double& { return p.gravity; });
  t.add("pendulum.angle_guess", "rad", -7, 7, false, "theta1 where the equilibrium search starts (hanging: -pi/2)",
        [](P& p) -> double& { return p.angle_guess; });
  return constrained_detail::stability_only(RigidDoublePendulum::name,
                                            "rigid planar double pendulum (two uniform rods), natural coordinates: "
                                            "the rigid limit of the flexible pendulum",
                                            "seed 003 §4.2", t);
}

struct RigidDoublePendulumPhysics {
  static constexpr const char* key = "constrained:rigid-double-pendulum";
  static constexpr bool runs = false, linearizes = false;
  using Constrained = RigidDoublePendulum;
  static constexpr const char* size_key = "";  // fixed size: n = 5 coordinates, m = 3 constraints
  static constexpr double penalty_alpha = 1e7, penalty_xi = 1.0, penalty_omega = 10.0;  // as the flexible pendulum's
  static std::vector<ModelDescriptor> describe() { return {describe_rigid_double_pendulum()}; }
};

}  // namespace hs
