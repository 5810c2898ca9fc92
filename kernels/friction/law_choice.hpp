// Friction laws gathered into one compiled policy with a run-time choice
// (docs/models/friction.md §10):
// - StaticFrictionChoice: the laws without states (Brown–McPhee,
//   Bengisu–Akay, none), for every physics;
// - DynamicFrictionChoice: the laws with states (LuGre, modified LuGre), for
//   a physics that asks for it (`dynamic_friction_choice`; the model files'
//   generic mechanism), its states the most any member has.
//
// A model is compiled once per friction *policy*; the static laws have the
// same state count (zero) and the same stack, so compiling every model and
// formulation once per static law bought nothing at run time and cost a
// kernel, a CPU instantiation and a lane unit each (issue 35). The catalog
// (kernels/catalog/catalog.hpp) gathers a physics' static laws into one
// StaticFrictionChoice; the host writes the study's law into every
// actuator's FrictionParamsT::law_code (its position in FrictionLawRegistry)
// and the choice evaluates exactly that law's force: the same operations in
// the same order as the law compiled alone, so the results are the same bits
// (the regression recordings did not move). The branch is uniform over a
// batch (one law per study), so it costs a GPU warp no divergence and the
// lanes no masking; on lanes the code is read from lane 0, all lanes holding
// the same value.
#pragma once
#include <string_view>
#include <type_traits>

#include "../core/type_list.hpp"
#include "friction_laws.hpp"

namespace hs {


namespace friction_choice_detail {
// Calls call(Law{}) for the first of Laws whose registry position is `code`;
// the last one when none is (the host writes only codes of a choice's
// members: select_friction_law).
template <class Law, class... Rest, class Call>
HS_HD HS_FORCEINLINE auto dispatch(int code, Call&& call) {
  if constexpr (sizeof...(Rest) == 0) {
    (void)code;
    return call(Law{});
  } else {
    if (code == IndexIn<Law, FrictionLawRegistry>::value) return call(Law{});
    return dispatch<Rest...>(code, call);
  }
}
template <class... Laws>
constexpr int most_states() {
  int n = 0;
  ((n = Laws::n_states > n ? Laws::n_states : n), ...);
  return n;
}
}  // namespace friction_choice_detail

template <class... Laws>
struct StaticFrictionChoice {
  static_assert(sizeof...(Laws) > 0, "a choice among at least one law");
  static_assert(((Laws::n_states == 0) && ...), "only laws without states share one compiled policy");
  static_assert(((IndexIn<Laws, FrictionLawRegistry>::value >= 0) && ...), "every law of a choice is registered");
  using Members = TypeList<Laws...>;
  static constexpr int n_states = 0;

  template <class R, class T>
  HS_HD HS_FORCEINLINE static T force(const FrictionParamsT<R>& f, const T& v, const T* w = nullptr,
                                      const T* wd = nullptr) {
    return friction_choice_detail::dispatch<Laws...>(
        uniform_code(f.law_code), [&](auto law) -> T { return decltype(law)::force(f, v, w, wd); });
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>&, const T&, const T*, T*) {}
};

// The laws with states as one policy: n_states is the most any member has
// (modified LuGre's two: bristle deflection q, film h); a member with fewer
// (LuGre: q) uses the first of them, and the rates of the rest are zero, so
// those states keep their initial value, zero (HydraulicCylinder::
// static_state), and nothing reads them. In the Newton matrix such a state is
// a row and a column with only the diagonal nonzero: eliminating it changes no
// other entry, so a member runs as it does compiled alone (tested bit for bit,
// docs/models/friction.md §10), at the cost of the padded unknowns.
template <class... Laws>
struct DynamicFrictionChoice {
  static_assert(sizeof...(Laws) > 0, "a choice among at least one law");
  static_assert(((Laws::n_states > 0) && ...), "the laws with states; the static ones are StaticFrictionChoice");
  static_assert(((IndexIn<Laws, FrictionLawRegistry>::value >= 0) && ...), "every law of a choice is registered");
  using Members = TypeList<Laws...>;
  static constexpr int n_states = friction_choice_detail::most_states<Laws...>();

  template <class R, class T>
  HS_HD HS_FORCEINLINE static T force(const FrictionParamsT<R>& f, const T& v, const T* w, const T* wd) {
    return friction_choice_detail::dispatch<Laws...>(
        uniform_code(f.law_code), [&](auto law) -> T { return decltype(law)::force(f, v, w, wd); });
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>& f, const T& v, const T* w, T* wdot) {
    friction_choice_detail::dispatch<Laws...>(uniform_code(f.law_code), [&](auto law) {
      using Law = decltype(law);
      Law::state_rates(f, v, w, wdot);
      for (int k = Law::n_states; k < n_states; ++k) wdot[k] = T(0.0);
    });
  }
};

// A list of laws with its static ones gathered into one StaticFrictionChoice
// (first, when there are any), the laws with states after it: each a policy
// of its own, or, with OneDynamicPolicy, one DynamicFrictionChoice. What the
// catalog compiles for a physics.
template <class L, bool OneDynamicPolicy = false>
struct CompiledFrictionPolicies;
template <class... Laws, bool OneDynamicPolicy>
struct CompiledFrictionPolicies<TypeList<Laws...>, OneDynamicPolicy> {
  template <class F>
  struct IsStatic : std::integral_constant<bool, F::n_states == 0> {};
  template <class F>
  struct HasStates : std::integral_constant<bool, F::n_states != 0> {};
  template <template <class...> class Choice, class L>
  struct ChoiceOf {
    using type = TypeList<>;
  };
  template <template <class...> class Choice, class S, class... More>
  struct ChoiceOf<Choice, TypeList<S, More...>> {
    using type = TypeList<Choice<S, More...>>;
  };
  using statics = typename Filter<IsStatic, TypeList<Laws...>>::type;
  using dynamics = typename Filter<HasStates, TypeList<Laws...>>::type;
  using type = typename Concat<typename ChoiceOf<StaticFrictionChoice, statics>::type,
                               std::conditional_t<OneDynamicPolicy, typename ChoiceOf<DynamicFrictionChoice, dynamics>::type,
                                                  dynamics>>::type;
};

// The registry position of the law named `name` (-1 if none): the code the
// host writes into law_code. Host-only (string compare).
template <class... Laws>
int friction_law_code_of(TypeList<Laws...>, const char* name) {
  int code = -1, k = 0;
  auto one = [&](const char* law) {
    if (code < 0 && std::string_view(law) == name) code = k;
    ++k;
  };
  (one(Laws::name), ...);
  return code;
}

}  // namespace hs
