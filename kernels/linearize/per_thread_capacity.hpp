// Whether a constrained system of seed 003 declares a per-thread capacity
// (docs/models/nloop-and-flexible.md §6 item 10), and whether a system of given
// parameters fits it: read by the per-thread MCS code
// (constrained_per_thread.hpp) and by the catalog (kernels/catalog/catalog.hpp),
// which lists the systems the CUDA backend's stability kernel is built for.
#pragma once
#include <type_traits>

#include "../core/hd.hpp"

namespace hs {

// Whether a model declares a per-thread capacity: static constexpr
// per_thread_coordinates (NMAX) and degrees_of_freedom (NI = n − m at every size).
template <class Model, class = void>
struct HasPerThreadMcs {
  static constexpr bool value = false;
};
template <class Model>
struct HasPerThreadMcs<Model, decltype(void(Model::per_thread_coordinates + Model::degrees_of_freedom))> {
  static constexpr bool value = true;
};

// Whether a system of these parameters fits the model's per-thread capacity.
template <class Model>
HS_HD bool fits_per_thread(const typename Model::Params& p) {
  return Model::coordinates(p) <= Model::per_thread_coordinates &&
         Model::coordinates(p) - Model::constraint_count(p) == Model::degrees_of_freedom;
}

}  // namespace hs
