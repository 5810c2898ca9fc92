// A compile-time list of tags (friction laws, formulations, physics) that
// the catalog (kernels/models/catalog.hpp) iterates with fold expressions.
#pragma once

namespace hs {

template <class... T>
struct TypeList {};

}  // namespace hs
