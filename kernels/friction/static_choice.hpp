// The static friction laws (no states: Brown–McPhee, Bengisu–Akay, none) as
// one policy with a run-time choice (docs/models/friction.md §10).
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

// The law a FrictionParamsT's law_code names (a double for one instance, the
// same value in every lane of Lanes<W>).
HS_HD HS_FORCEINLINE int friction_law_code(double code) { return static_cast<int>(code); }
template <class R>
HS_HD HS_FORCEINLINE int friction_law_code(const R& code) {
  return static_cast<int>(code[0]);
}

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
    return force_of<Laws...>(friction_law_code(f.law_code), f, v, w, wd);
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>&, const T&, const T*, T*) {}

 private:
  // The first law whose code matches; the last one when none does (the host
  // writes only codes of this choice's members: with_run_combination).
  template <class Law, class... Rest, class R, class T>
  HS_HD HS_FORCEINLINE static T force_of(int code, const FrictionParamsT<R>& f, const T& v, const T* w, const T* wd) {
    if constexpr (sizeof...(Rest) == 0) {
      (void)code;
      return Law::force(f, v, w, wd);
    } else {
      if (code == IndexIn<Law, FrictionLawRegistry>::value) return Law::force(f, v, w, wd);
      return force_of<Rest...>(code, f, v, w, wd);
    }
  }
};

// A list of laws with its static ones gathered into one StaticFrictionChoice
// (first, when there are any), the laws with states after it, each a policy
// of its own: what the catalog compiles for a physics.
template <class L>
struct CompiledFrictionPolicies;
template <class... Laws>
struct CompiledFrictionPolicies<TypeList<Laws...>> {
  template <class F>
  struct IsStatic : std::integral_constant<bool, F::n_states == 0> {};
  template <class F>
  struct HasStates : std::integral_constant<bool, F::n_states != 0> {};
  template <class L>
  struct ChoiceOf {
    using type = TypeList<>;
  };
  template <class S, class... More>
  struct ChoiceOf<TypeList<S, More...>> {
    using type = TypeList<StaticFrictionChoice<S, More...>>;
  };
  using statics = typename Filter<IsStatic, TypeList<Laws...>>::type;
  using type = typename Concat<typename ChoiceOf<statics>::type, typename Filter<HasStates, TypeList<Laws...>>::type>::type;
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
