// Semi-empirical valve flow with a laminar region around Δp = 0.
//
// Turbulent orifice law, seed 000 eqs (3), (5); seed 001 eqs (24)–(26):
//     Q = γ2 · sgn(Δp) · √|Δp|
// Below the laminar limit the flow is linear in Δp, seed 000 eq (6) with the
// absolute value restored (docs/models/hydraulics.md §6.2, A7):
//     Q = γ1 · Δp,   γ1 = γ2 / √Δp_lim      for |Δp| ≤ Δp_lim
// γ1 makes Q continuous at ±Δp_lim. The slope is not: γ2/√Δp_lim inside,
// γ2/(2√Δp_lim) just outside (a factor 2 jump the Newton tangent sees).
#pragma once
#include "../core/decision_log.hpp"
#include "../core/dual.hpp"

namespace hs {

// γ2: turbulent coefficient [m³/(s·√Pa)], already multiplied by the spool
// opening for the directional valve. dp: pressure drop in flow direction.
// R: double, or Lanes<W> (one limit per lane, kernels/core/lanes.hpp).
template <class T, class G, class R>
HS_HD HS_FORCEINLINE T orifice_flow(const G& gamma2, const T& dp, const R& dp_lim) {
  return lane_if(
      HS_DECISION(orifice_laminar, math::abs(dp) <= dp_lim, math::abs(dp), dp_lim), [&]() -> T { return gamma2 * dp * (1.0 / math::sqrt(dp_lim)); },
      [&]() -> T { return gamma2 * math::sign(dp) * math::sqrt(math::abs(dp)); });
}

}  // namespace hs
