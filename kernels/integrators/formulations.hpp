// The time-integration formulations a model can name in `[study]
// formulation`: each says which friction laws it `integrates` and maps a physics of the catalog (kernels/models/
// catalog.hpp) and a friction law to the integrator that run_instance
// (run.hpp) drives through the initialize / step contract
// (docs/models/integrators.md §11).
#pragma once
#include "double_step_trapezoidal.hpp"
#include "../linearize/actuated_system.hpp"
#include "index1_baumgarte.hpp"
#include "penalty_trapezoidal.hpp"

namespace hs {

// Double-step semirecursive trapezoidal rule, seed 001 §2.2 and §4: on the
// physics' hydraulically actuated model (its mechanism's semirecursive fast
// path, or any DAE mechanism through DaeMechanism).
struct DoubleStepFormulation {
  static constexpr const char* name = "double-step";
  static constexpr bool on_device = true;  // built for the CUDA backend
  // Every friction law: its states are Newton unknowns (seed 002 "first approach").
  template <class Friction>
  static constexpr bool integrates = true;
  template <class Physics, class Friction>
  using Integrator = DoubleStepTrapezoidal<typename Physics::template Model<Friction>>;
};

// Penalty-based semirecursive trapezoidal rule, seed 001 §2.3 and §4 (seed
// 002 eqs 9–12): every joint coordinate a Newton unknown, the constraints
// by an augmented Lagrangian with penalty α and velocity and acceleration
// projections, on the same model as the double step (any mechanism).
struct PenaltyFormulation {
  static constexpr const char* name = "penalty";
  static constexpr bool on_device = true;  // built for the CUDA backend
  template <class Friction>
  static constexpr bool integrates = true;
  template <class Physics, class Friction>
  using Integrator = PenaltyTrapezoidal<typename Physics::template Model<Friction>>;
};

// Trapezoidal rule on the index-1 Baumgarte form of the DAE (seed 000 eq 89),
// the nonlinear reference run of seed 000 §4.4: on the physics' linearized
// (DAE) system. Static friction laws only (Index1Form has no friction states).
struct Index1BaumgarteFormulation {
  static constexpr const char* name = "index1-baumgarte";
  // The reference integrator: per instance a (2n + r + u)² Newton matrix and
  // a Jacobian on Dual<2n + r + u> (24 × 24 and Dual<24> for the 3D
  // four-bar), far beyond a GPU thread's registers; nvcc takes tens of
  // minutes on it. CPU and Kokkos only.
  static constexpr bool on_device = false;
  static constexpr const char* off_device_reason = "the CPU reference integrator";
  template <class Friction>
  static constexpr bool integrates = linearizable_friction<Friction>;
  template <class Physics, class Friction>
  using Integrator = Index1Baumgarte<typename Physics::template Linearized<Friction>>;
};

}  // namespace hs
