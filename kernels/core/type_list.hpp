// A compile-time list of tags (friction laws, formulations, physics) that
// the catalog (kernels/catalog/catalog.hpp) iterates with fold expressions.
#pragma once
#include <type_traits>

#include "hd.hpp"

namespace hs {

// T's member type Get<T> where T declares it, else Default: the detection
// idiom once, for every "a model may declare X" trait (a DAE mechanism's
// input policy and circuit, an input policy's report and probe).
template <template <class> class Get, class T, class Default, class = void>
struct DeclaredOr {
  using type = Default;
};
template <template <class> class Get, class T, class Default>
struct DeclaredOr<Get, T, Default, std::void_t<Get<T>>> {
  using type = Get<T>;
};

// The code of a run-time choice (a friction law, a circuit) as an index: one
// instance's double, or lane 0's of Lanes<W> (a batch makes one choice: every
// lane holds the same code).
HS_HD HS_FORCEINLINE int uniform_code(double code) { return static_cast<int>(code); }
template <class R>
HS_HD HS_FORCEINLINE int uniform_code(const R& code) {
  return static_cast<int>(code[0]);
}

template <class... T>
struct TypeList {};

// The first entry of a list (the default of a physics' friction laws).
template <class L>
struct FirstOf;
template <class H, class... T>
struct FirstOf<TypeList<H, T...>> {
  using type = H;
};

// The entry at position I of a list.
template <int I, class L>
struct At;
template <class H, class... T>
struct At<0, TypeList<H, T...>> {
  using type = H;
};
template <int I, class H, class... T>
struct At<I, TypeList<H, T...>> {
  using type = typename At<I - 1, TypeList<T...>>::type;
};

// The position of T in a list (-1 when it is not on it).
template <class T, class L>
struct IndexIn;
template <class T>
struct IndexIn<T, TypeList<>> {
  static constexpr int value = -1;
};
template <class T, class H, class... Rest>
struct IndexIn<T, TypeList<H, Rest...>> {
  static constexpr int next = IndexIn<T, TypeList<Rest...>>::value;
  static constexpr int value = std::is_same<T, H>::value ? 0 : (next < 0 ? -1 : next + 1);
};

// Two lists one after the other.
template <class A, class B>
struct Concat;
template <class... A, class... B>
struct Concat<TypeList<A...>, TypeList<B...>> {
  using type = TypeList<A..., B...>;
};

// The entries of a list for which Keep<T>::value holds, in order.
template <template <class> class Keep, class L>
struct Filter;
template <template <class> class Keep>
struct Filter<Keep, TypeList<>> {
  using type = TypeList<>;
};
template <template <class> class Keep, class H, class... Rest>
struct Filter<Keep, TypeList<H, Rest...>> {
  using tail = typename Filter<Keep, TypeList<Rest...>>::type;
  using type = typename std::conditional<Keep<H>::value, typename Concat<TypeList<H>, tail>::type, tail>::type;
};

}  // namespace hs
