// Seed 003's constrained models that have a per-thread MCS capacity
// (kernels/linearize/constrained_per_thread.hpp): the CUDA backend's
// stability kernel is instantiated for each. A model joins with its
// per_thread_coordinates / degrees_of_freedom and one line here.
#pragma once
#include <cstring>

#include "../core/type_list.hpp"
#include "nloop_linkage.hpp"

namespace hs {

using PerThreadConstrainedModels = TypeList<NLoopLinkage>;

// f(Model{}) for the listed model named `name` (a registered model's name);
// false when none is.
template <class F, class... M>
bool with_per_thread_constrained_model(const char* name, F&& f, TypeList<M...>) {
  return ((std::strcmp(name, M::name) == 0 ? (f(M{}), true) : false) || ...);
}
template <class F>
bool with_per_thread_constrained_model(const char* name, F&& f) {
  return with_per_thread_constrained_model(name, f, PerThreadConstrainedModels{});
}

}  // namespace hs
