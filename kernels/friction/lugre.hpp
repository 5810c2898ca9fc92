// LuGre and modified LuGre seal friction (docs/models/friction.md §7–§8):
// dynamic laws whose states are integrated by the trapezoidal rule as primary
// Newton variables with exact (dual-number) tangents, seed 002's "first
// approach" (eqs 35–37).
//
// Treatment of |v| and of the switched film time constant (A6, stated in
// docs/models/friction.md §8):
// - |v| is used exactly (math::abs; its dual derivative is sgn v, +1 at
//   v = 0). A smoothed |v| would leave q̇ = −σ0 ε q/g ≠ 0 at rest, a creep
//   under any static load, which contradicts the pre-sliding behaviour the
//   law exists for. The Newton tangent is one-sided at v = 0 only, a set the
//   iterates cross, not one they stay on.
// - |v|^(2/3) of the film's steady state has an infinite slope at v = 0; its
//   value is exact, and only the tangent's slope is bounded, (2/3)(|v| + ε)^(−1/3)
//   with ε = 1e-4 v_s (a Newton tangent need not be exact to converge to the
//   exact solution; the film is slow, τ_h ≥ 10 ms).
// - The dwell branch (τ_h0 "if v = 0") holds for |v| < 1e-4 v_s; the branch
//   is chosen at the current iterate and is not differentiated.
// - The Stribeck exponent n is ≥ 1 (parameter range), so (|v|/v_s)^n has a
//   finite slope at 0.
#pragma once
#include "../core/dual.hpp"
#include "friction.hpp"

namespace hs {

namespace lugre_detail {
// g(v) = F_c + (F_s' − F_c) e^{−(|v|/v_s)^n}, with F_s' = (1 − |h|) F_s for
// the modified law (seed 002 eqs 26, 29).
template <class R, class T>
HS_HD HS_FORCEINLINE T stribeck(const FrictionParamsT<R>& f, const T& speed, const T& static_force) {
  return f.coulomb_force + (static_force - f.coulomb_force) * math::exp(-math::pow(speed * (1.0 / f.stribeck_velocity),
                                                                                  f.stribeck_exponent));
}
// The bristle ODE q̇ = v − σ0 |v| q / g (seed 002 eqs 25, 28).
template <class R, class T>
HS_HD HS_FORCEINLINE T bristle_rate(const FrictionParamsT<R>& f, const T& v, const T& speed, const T& q, const T& g) {
  return v - f.lugre_stiffness * speed * q / g;
}
// |v|^(2/3), exact in value; its slope (2/3)|v|^(−1/3) sgn v, infinite at
// v = 0, is taken as (2/3)(|v| + ε)^(−1/3) sgn v for the tangent.
// R: double, or Lanes<W> (a real of the lockstep lanes, lanes.hpp).
template <class R>
HS_HD R two_thirds_power(const R& v, const R&) { return math::pow(math::abs(v), 2.0 / 3.0); }
template <int N, class R>
HS_HD Dual<N, R> two_thirds_power(const Dual<N, R>& v, const R& eps) {
  const R a = math::abs(v.a);
  const R slope = (2.0 / 3.0) * math::pow(a + eps, -1.0 / 3.0) * choose(v.a < 0.0, R(-1.0), R(1.0));
  return Dual<N, R>::chain(math::pow(a, 2.0 / 3.0), slope, v);
}
// F_μ = σ0 q + σ1 q̇ + σ2 v (seed 002 eqs 27, 34). q̇: the integrator's
// trapezoidal estimate when it passes one (at convergence it equals the
// ODE rate), else the ODE rate.
template <class R, class T>
HS_HD HS_FORCEINLINE T force(const FrictionParamsT<R>& f, const T& v, const T& q, const T& qdot) {
  return f.lugre_stiffness * q + f.lugre_damping * qdot + f.viscous_coefficient * v;
}
}  // namespace lugre_detail

// LuGre, seed 002 eqs (25)–(27): one state, the bristle deflection q [m].
struct LuGre {
  static constexpr const char* name = "lugre";  // as written in study files
  static constexpr int n_states = 1;            // w = [q]
  template <class R, class T>
  HS_HD static T force(const FrictionParamsT<R>& f, const T& v, const T* w, const T* wd) {
    const T speed = math::abs(v);
    const T qdot = wd ? wd[0]
                      : lugre_detail::bristle_rate(f, v, speed, w[0], lugre_detail::stribeck(f, speed, T(f.static_force)));
    return lugre_detail::force(f, v, w[0], qdot);
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>& f, const T& v, const T* w, T* wdot) {
    const T speed = math::abs(v);
    wdot[0] = lugre_detail::bristle_rate(f, v, speed, w[0], lugre_detail::stribeck(f, speed, T(f.static_force)));
  }
};

// Modified LuGre, seed 002 eqs (28)–(34) (Yanada–Sekikawa): the bristle
// deflection q [m] and the lubricant-film parameter h [-] (h ≥ 0).
struct ModifiedLuGre {
  static constexpr const char* name = "modified-lugre";  // as written in study files
  static constexpr int n_states = 2;                     // w = [q, h]

  // |h_ss| = K_f min(|v|, v_b)^(2/3), K_f = (1 − F_c/F_s) v_b^(−2/3) (eqs 32–33).
  template <class R, class T>
  HS_HD static T film_steady_state(const FrictionParamsT<R>& f, const T& v) {
    const R vb = f.film_velocity;
    const R Kf = (1.0 - f.coulomb_force / f.static_force) * math::pow(vb, -2.0 / 3.0);
    return lane_if(
        HS_DECISION(film_saturated, math::abs(value(v)) > vb, math::abs(value(v)), vb), [&]() -> T { return T(Kf * math::pow(vb, 2.0 / 3.0)); },
        [&]() -> T { return Kf * lugre_detail::two_thirds_power(v, R(1e-4 * f.stribeck_velocity)); });
  }
  // τ_h (eq 31): dwell below 1e-4 v_s, else acceleration while |h| ≤ |h_ss|.
  template <class R>
  HS_HD static R film_time_constant(const FrictionParamsT<R>& f, const R& v, const R& h, const R& h_ss) {
    return choose(HS_DECISION(film_dwell, math::abs(v) < 1e-4 * f.stribeck_velocity, math::abs(v), 1e-4 * f.stribeck_velocity),
                  f.film_time_dwell,
                  choose(HS_DECISION(film_accelerating, math::abs(h) <= math::abs(h_ss), math::abs(h), math::abs(h_ss)),
                         f.film_time_acceleration, f.film_time_deceleration));
  }
  template <class R, class T>
  HS_HD static T g(const FrictionParamsT<R>& f, const T& speed, const T& h) {
    return lugre_detail::stribeck(f, speed, (1.0 - math::abs(h)) * f.static_force);
  }
  template <class R, class T>
  HS_HD static T force(const FrictionParamsT<R>& f, const T& v, const T* w, const T* wd) {
    const T speed = math::abs(v);
    const T qdot = wd ? wd[0] : lugre_detail::bristle_rate(f, v, speed, w[0], g(f, speed, w[1]));
    return lugre_detail::force(f, v, w[0], qdot);
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>& f, const T& v, const T* w, T* wdot) {
    const T speed = math::abs(v);
    wdot[0] = lugre_detail::bristle_rate(f, v, speed, w[0], g(f, speed, w[1]));
    const T h_ss = film_steady_state(f, v);
    const R tau = film_time_constant(f, R(value(v)), R(value(w[1])), R(value(h_ss)));
    wdot[1] = (h_ss - w[1]) * (1.0 / tau);
  }
};

}  // namespace hs
