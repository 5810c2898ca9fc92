// sin and cos of one argument, computed by the same polynomial for one
// instance (double) and for W in lockstep (Lanes<W>, kernels/core/lanes.hpp):
// the CPU's math::sincos (kernels/core/dual.hpp). The C library's sin and cos
// are scalar calls; a lane evaluation that called them per lane spent ~30 %
// of a four-bar step there (docs/models/lanes.md §5), and a vector version of
// a different algorithm would not give the scalar path's bits. So both paths
// evaluate this one, with +, −, × and no contraction: bit-identical between
// one instance and lanes, within an ulp of the exact value
// (tests/test_core.cpp measures it against long double).
//
// The algorithm is the classic one of fdlibm / FreeBSD libm (the minimax
// coefficients below are theirs, on [−π/4, π/4]):
//   n = nearest integer to x·2/π, r = x − n·π/2 in two rounds of a three-part
//   π/2 (Cody–Waite; exact products for |n| < 2^20), kept as r = y0 + y1;
//   sin r, cos r by the kernels with the tail y1; the quadrant n mod 4
//   swaps and negates them.
// Arguments with |x| ≥ 1e5 (and NaN, ±∞) take the C library's sin and cos:
// no mechanism angle comes near, and the reduction above is exact only below
// 2^20·π/2.
#pragma once
#include "hd.hpp"

#include <math.h>

#include <type_traits>

namespace hs {
namespace trig {

constexpr double kRange = 1e5;  // |x| below this: the polynomial path

// The nearest integer to x (ties to even), |x| < 2^51: adding and removing
// 1.5·2^52 rounds to an integer in the current (nearest) mode.
template <class R>
HS_HD HS_FORCEINLINE R nearest_integer(const R& x) {
  const double shift = 6755399441055744.0;  // 1.5·2^52
  return (x + shift) - shift;
}

// sin and cos of x for |x| < kRange (every lane, on lanes).
template <class R>
HS_HD HS_FORCEINLINE void sincos_reduced(const R& x, R* sin_out, R* cos_out) {
  const double inv_pio2 = 6.36619772367581382433e-01;   // 2/π
  const double pio2_1 = 1.57079632673412561417e+00;     // first 33 bits of π/2
  const double pio2_2 = 6.07710050630396597660e-11;     // second 33 bits of π/2
  const double pio2_2t = 2.02226624879595063154e-21;    // π/2 − (pio2_1 + pio2_2)
  const R n = nearest_integer(x * inv_pio2);
  // First round: x − n·pio2_1 is exact (n·pio2_1 has at most 53 bits).
  const R t = x - n * pio2_1;
  R w = n * pio2_2;
  const R r = t - w;
  w = n * pio2_2t - ((t - r) - w);
  const R y0 = r - w;
  const R y1 = (r - y0) - w;

  // sin and cos of y0 + y1, |y0| ≤ π/4 (FreeBSD k_sin.c, k_cos.c).
  const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
               S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
               S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
               C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
               C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const R z = y0 * y0;
  const R zz = z * z;
  const R v = z * y0;
  const R rs = S2 + z * (S3 + z * S4) + z * zz * (S5 + z * S6);
  const R sin_r = y0 - ((z * (0.5 * y1 - v * rs) - y1) - v * S1);
  const R rc = z * (C1 + z * (C2 + z * C3)) + zz * zz * (C4 + z * (C5 + z * C6));
  const R hz = 0.5 * z;
  const R one_minus_hz = 1.0 - hz;
  const R cos_r = one_minus_hz + (((1.0 - one_minus_hz) - hz) + (z * rc - y0 * y1));

  // Quadrant q = n mod 4 (n ≥ 0 or not): sin x = sin r, cos r, −sin r, −cos r
  // and cos x = cos r, −sin r, −cos r, sin r for q = 0, 1, 2, 3.
  const R quarter = n * 0.25;
  R floor_quarter = nearest_integer(quarter);
  floor_quarter = choose(floor_quarter > quarter, floor_quarter - 1.0, floor_quarter);
  const R q = n - 4.0 * floor_quarter;
  const auto odd = q == 1.0 || q == 3.0;
  const R s0 = choose(odd, cos_r, sin_r);
  const R c0 = choose(odd, sin_r, cos_r);
  *sin_out = choose(q >= 2.0, -s0, s0);
  *cos_out = choose(q == 1.0 || q == 2.0, -c0, c0);
}

}  // namespace trig

// sin and cos of x: the polynomial in range, the C library outside it (on
// lanes: every lane by the polynomial when all are in range, else lane by
// lane as one instance would). The CPU's math::sincos for double and lanes.
template <class R>
HS_HD HS_FORCEINLINE void sincos_by_polynomial(const R& x, R* sin_out, R* cos_out) {
  if constexpr (std::is_same<R, double>::value) {
    if (x < trig::kRange && x > -trig::kRange) {
      trig::sincos_reduced(x, sin_out, cos_out);
    } else {
      *sin_out = ::sin(x);
      *cos_out = ::cos(x);
    }
  } else {
    if (all_lanes(x < trig::kRange && x > -trig::kRange)) {
      trig::sincos_reduced(x, sin_out, cos_out);
    } else {
      for (int i = 0; i < R::width; ++i) {
        double s, c;
        sincos_by_polynomial(x[i], &s, &c);
        sin_out->set(i, s);
        cos_out->set(i, c);
      }
    }
  }
}

}  // namespace hs
