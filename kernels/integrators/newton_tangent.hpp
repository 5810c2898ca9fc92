// The Newton tangent of a trapezoidal formulation's residual f(x), n
// unknowns: exact, by one evaluation of f on Dual<n> numbers, or by forward
// differences, seed 001 eqs (40)–(41) (ε = 1e-8·max(1e-2, |x|), one residual
// per column), for comparison with the papers. Shared by the double step and
// the penalty formulation (docs/models/integrators.md §3.4).
#pragma once
#include <math.h>

#include <type_traits>

#include "../core/dual.hpp"
#include "../core/small_matrix.hpp"
#include "settings.hpp"

namespace hs {

// residual(x, f) -> bool, called with T = Dual<n> (exact) or double
// (forward differences); false aborts (the formulation's failure, e.g. a
// loop closure that cannot be solved). On lanes (R = Lanes<W>) the residual
// returns the mask of the lanes it could evaluate, and so does this; lanes
// run the exact tangent only.
template <int n, class R, class Residual>
HS_HD auto newton_tangent(Tangent kind, const R* x, R* f, Mat<R, n, n>& J, Residual&& residual) {
  using Mask = MaskOf<R>;
  if (kind == Tangent::exact) {
    using Jet = Dual<n, R>;
    Jet xj[n], fj[n];
    for (int k = 0; k < n; ++k) xj[k] = Jet::variable(x[k], k);
    const Mask ok = residual(static_cast<const Jet*>(xj), static_cast<Jet*>(fj));
    if (!any_lane(ok)) return ok;
    for (int r = 0; r < n; ++r) {
      f[r] = fj[r].a;
      for (int c = 0; c < n; ++c) J(r, c) = fj[r].v[c];
    }
    return ok;
  }
  if constexpr (std::is_same<R, double>::value) {
    if (!residual(x, f)) return false;
    double xp[n], fp[n];
    for (int k = 0; k < n; ++k) xp[k] = x[k];
    for (int c = 0; c < n; ++c) {
      const double eps = 1e-8 * (fabs(x[c]) > 1e-2 ? fabs(x[c]) : 1e-2);
      xp[c] = x[c] + eps;
      if (!residual(static_cast<const double*>(xp), static_cast<double*>(fp))) return false;
      for (int r = 0; r < n; ++r) J(r, c) = (fp[r] - f[r]) / eps;
      xp[c] = x[c];
    }
    return true;
  } else {
    return Mask(false);  // not reached: the lockstep runner takes the exact tangent only
  }
}

}  // namespace hs
