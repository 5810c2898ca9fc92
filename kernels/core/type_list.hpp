// A compile-time list of tags (friction laws, formulations, physics) that
// the catalog (kernels/models/catalog.hpp) iterates with fold expressions.
#pragma once

namespace hs {

template <class... T>
struct TypeList {};

// The first entry of a list (the default of a physics' friction laws).
template <class L>
struct FirstOf;
template <class H, class... T>
struct FirstOf<TypeList<H, T...>> {
  using type = H;
};

}  // namespace hs
