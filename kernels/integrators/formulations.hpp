// The time-integration formulations a model can name in `[study]
// formulation`: each maps a hydraulically actuated model to the integrator
// that run_instance (run.hpp) drives through the initialize / step contract
// (docs/models/integrators.md).
#pragma once
#include "double_step_trapezoidal.hpp"

namespace hs {

// Double-step semirecursive trapezoidal rule, seed 001 §2.2 and §4.
struct DoubleStepFormulation {
  static constexpr const char* name = "double-step";
  template <class Model>
  using Integrator = DoubleStepTrapezoidal<Model>;
};

}  // namespace hs
