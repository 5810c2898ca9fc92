// Hydraulic circuits as one compiled policy with a run-time choice
// (docs/models/hydraulics.md §16), as the friction laws are
// (kernels/friction/law_choice.hpp): the model files' cylinders each name
// their circuit, and one kernel per (capacity, formulation, friction policy)
// runs them all, instead of one per circuit.
//
// The choice holds every member's parameters and constants, and the code of
// the one that runs (its position in the choice, written by the host per
// cylinder). Its pressures are the most any member has; a member with fewer
// takes the last ones, so that every member's piston side and rod side fall on
// the same slots (the three-volume circuit's p2 and p3: piston_side 1), and
// the first, unused slots have zero rates and hold the piston side's initial
// pressure (static_pressures): in the Newton matrix each is a row and column
// with only the diagonal nonzero, so the member runs in the same bits as
// compiled alone (tests/test_hydraulics.cpp, CircuitChoice.*).
//
// The spool: each member's own (the three-volume circuit's first-order
// spool, the others' ideal one); whether it has a state is a run-time answer
// (spool_has_state), which HydraulicCylinder::step_start_rates asks.
#pragma once
#include <string>
#include <type_traits>

#include "../core/dual.hpp"
#include "../core/type_list.hpp"

namespace hs {

namespace circuit_choice_detail {
// Every member's Part<C, R> by position (member<I>): their parameters
// (ParamsOf) or their constants (ConstantsOf).
template <template <class, class> class Part, class R, class... Cs>
struct Stack {};
template <template <class, class> class Part, class R, class C, class... Rest>
struct Stack<Part, R, C, Rest...> {
  Part<C, R> head{};
  Stack<Part, R, Rest...> tail{};
};
template <class C, class R>
using ParamsOf = typename C::template ParamsOn<R>;
template <class C, class R>
using ConstantsOf = typename C::template ConstantsOn<R>;
template <int I, class Stack>
HS_HD HS_FORCEINLINE constexpr auto& member(Stack& s) {
  if constexpr (I == 0)
    return s.head;
  else
    return member<I - 1>(s.tail);
}
// call(std::integral_constant<int, I>) for I = code; the last member when no
// code matches (the host writes only members' codes).
template <int I, int N, class Call>
HS_HD HS_FORCEINLINE auto dispatch(int code, Call&& call) {
  if constexpr (I == N - 1) {
    (void)code;
    return call(std::integral_constant<int, I>{});
  } else {
    if (code == I) return call(std::integral_constant<int, I>{});
    return dispatch<I + 1, N>(code, call);
  }
}
}  // namespace circuit_choice_detail

template <class... Circuits>
struct CircuitChoice {
  static_assert(sizeof...(Circuits) > 0, "a choice among at least one circuit");
  using Members = TypeList<Circuits...>;
  static constexpr int count = sizeof...(Circuits);
  static constexpr int np = [] {
    int n = 0;
    ((n = Circuits::np > n ? Circuits::np : n), ...);
    return n;
  }();
  // Member I's pressures start at slot offset<I>.
  template <int I>
  using Member = typename At<I, Members>::type;
  template <int I>
  static constexpr int offset = np - Member<I>::np;
  static constexpr int piston_side = np - FirstOf<Members>::type::np + FirstOf<Members>::type::piston_side;
  static_assert(((np - Circuits::np + Circuits::piston_side == piston_side) && ...),
                "every member's piston side on the same slot");

  template <class R>
  struct ParamsOn {
    using Real = R;
    using Choice = CircuitChoice;
    circuit_choice_detail::Stack<circuit_choice_detail::ParamsOf, R, Circuits...> member;
    R circuit_code = 0.0;  // the member that runs: its position in the choice
  };
  template <class R>
  struct ConstantsOn {
    using Real = R;
    circuit_choice_detail::Stack<circuit_choice_detail::ConstantsOf, R, Circuits...> member;
    R circuit_code = 0.0;
  };
  using Params = ParamsOn<double>;
  using Constants = ConstantsOn<double>;

  // The position of circuit C in the choice (the host's code for it).
  template <class C>
  static constexpr int code_of = IndexIn<C, Members>::value;
  // The code of the member named `name` (Circuit::name), -1 if none; its
  // members' names, for messages. Host-only.
  static int code_named(const std::string& name) {
    int code = -1, k = 0;
    ((code = (code < 0 && name == Circuits::name) ? k : code, ++k), ...);
    return code;
  }
  static std::string names() {
    std::string out;
    ((out += (out.empty() ? "\"" : ", \"") + std::string(Circuits::name) + "\""), ...);
    return out;
  }

  template <class R>
  HS_HD static ConstantsOn<R> constants(const ParamsOn<R>& c, const R& s0) {
    ConstantsOn<R> k;
    k.circuit_code = c.circuit_code;
    run(c.circuit_code, [&](auto i) {
      constexpr int I = decltype(i)::value;
      using namespace circuit_choice_detail;
      member<I>(k.member) = Member<I>::constants(member<I>(c.member), s0);
    });
    return k;
  }
  template <class R>
  HS_HD static auto stroke_admissible(const ParamsOn<R>& c, const ConstantsOn<R>& k, const R& ds) {
    return run(c.circuit_code, [&](auto i) {
      constexpr int I = decltype(i)::value;
      using namespace circuit_choice_detail;
      return Member<I>::stroke_admissible(member<I>(c.member), member<I>(k.member), ds);
    });
  }
  template <class R, class T>
  HS_HD static T piston_force(const ConstantsOn<R>& k, const T* p) {
    return run(k.circuit_code, [&](auto i) -> T {
      constexpr int I = decltype(i)::value;
      return Member<I>::piston_force(circuit_choice_detail::member<I>(k.member), p + offset<I>);
    });
  }
  // The member's rates on its slots; the unused slots' rates are zero.
  template <class R, class T, class TU>
  HS_HD static void pressure_rates(const ParamsOn<R>& c, const ConstantsOn<R>& k, const T* p, const TU& U, const T& ds,
                                   const T& sdot, T* pdot) {
    run(c.circuit_code, [&](auto i) {
      constexpr int I = decltype(i)::value;
      using namespace circuit_choice_detail;
      for (int j = 0; j < offset<I>; ++j) pdot[j] = T(0.0);
      Member<I>::pressure_rates(member<I>(c.member), member<I>(k.member), p + offset<I>, U, ds, sdot, pdot + offset<I>);
    });
  }
  template <class R>
  HS_HD static R spool_step(const ParamsOn<R>& c, const R& U, const R& U_ref, double dt) {
    return run(c.circuit_code, [&](auto i) -> R {
      constexpr int I = decltype(i)::value;
      return Member<I>::spool_step(circuit_choice_detail::member<I>(c.member), U, U_ref, dt);
    });
  }
  template <class R>
  HS_HD static R spool_rate(const ParamsOn<R>& c, const R& U, const R& U_ref) {
    return run(c.circuit_code, [&](auto i) -> R {
      constexpr int I = decltype(i)::value;
      return Member<I>::spool_rate(circuit_choice_detail::member<I>(c.member), U, U_ref);
    });
  }
  // τ of the running member's first-order spool; 0 for an ideal spool (which
  // has no state: a linearization leaves it out, spool_has_state; the index-1
  // form, which needs ∂W/∂U = −1/τ, is offered for three-volume cylinders only).
  template <class R>
  HS_HD static R spool_time_constant(const ParamsOn<R>& c) {
    return run(c.circuit_code, [&](auto i) -> R {
      constexpr int I = decltype(i)::value;
      if constexpr (Member<I>::Spool::has_state)
        return Member<I>::spool_time_constant(circuit_choice_detail::member<I>(c.member));
      else
        return R(0.0);
    });
  }
  // Whether the running member's spool has a state (else U jumps to U_ref);
  // HydraulicCylinder asks it (RunTimeSpool).
  static constexpr bool run_time_spool = true;
  template <class R>
  HS_HD static bool spool_has_state(const ParamsOn<R>& c) {
    return run(c.circuit_code, [&](auto i) { return Member<decltype(i)::value>::Spool::has_state; });
  }
  // How many of the first slots the running member leaves unused (its offset).
  template <class R>
  HS_HD static int unused_pressures(const ParamsOn<R>& c) {
    return run(c.circuit_code, [&](auto i) { return offset<decltype(i)::value>; });
  }
  // The member's static pressures on its slots; the unused slots hold the
  // piston side's (as the three-volume circuit's p1 = p2).
  template <class R>
  HS_HD static void static_pressures(const ParamsOn<R>& c, const ConstantsOn<R>& k, const R& F, R* p) {
    run(c.circuit_code, [&](auto i) {
      constexpr int I = decltype(i)::value;
      using namespace circuit_choice_detail;
      Member<I>::static_pressures(member<I>(c.member), member<I>(k.member), F, p + offset<I>);
      for (int j = 0; j < offset<I>; ++j) p[j] = p[piston_side];
    });
  }

 private:
  template <class R, class Call>
  HS_HD HS_FORCEINLINE static auto run(const R& code, Call&& call) {
    return circuit_choice_detail::dispatch<0, count>(uniform_code(code), call);
  }
};

}  // namespace hs
