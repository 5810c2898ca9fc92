// Forward-mode dual numbers ("jets") for exact first derivatives.
//
// A Dual<N> carries a value a and a gradient v in R^N:  x = a + v·ε, ε² = 0.
// Every arithmetic rule is the chain rule truncated at first order:
//   (a + v ε)(b + w ε) = ab + (a w + b v) ε
//   f(a + v ε)         = f(a) + f'(a) v ε
// Seeding the N unknowns of a residual with unit gradients, x_j = x_j + e_j ε,
// and evaluating the residual once gives its value and its exact Jacobian
// row by row. This is how the Newton tangents and the linearizations get
// their derivatives (design.md "Exact derivatives", after Ceres' jet.h).
//
// Kernel code is written once, templated on the scalar type, and calls the
// math functions in hs::math so that the same text runs on double and Dual.
#pragma once
#include <cmath>

#include "hd.hpp"

namespace hs {

template <int N>
struct Dual {
  static constexpr int size = N;
  double a = 0.0;     // value
  double v[N] = {};   // gradient

  constexpr Dual() = default;
  HS_HD constexpr Dual(double value) : a(value) {}  // NOLINT: constants promote implicitly
  // A variable: value x, unit gradient in direction k.
  HS_HD static Dual variable(double x, int k) {
    Dual d(x);
    d.v[k] = 1.0;
    return d;
  }

  HS_HD HS_FORCEINLINE Dual& operator+=(const Dual& o) { a += o.a; for (int i = 0; i < N; ++i) v[i] += o.v[i]; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator-=(const Dual& o) { a -= o.a; for (int i = 0; i < N; ++i) v[i] -= o.v[i]; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator*=(const Dual& o) { for (int i = 0; i < N; ++i) v[i] = a * o.v[i] + o.a * v[i]; a *= o.a; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator/=(const Dual& o) { *this = *this / o; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator+=(double s) { a += s; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator-=(double s) { a -= s; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator*=(double s) { a *= s; for (int i = 0; i < N; ++i) v[i] *= s; return *this; }

  // A function applied at the value, with derivative df: f(a) + df·v ε.
  HS_HD HS_FORCEINLINE static Dual chain(double f, double df, const Dual& x) {
    Dual r(f);
    for (int i = 0; i < N; ++i) r.v[i] = df * x.v[i];
    return r;
  }

  HS_HD HS_FORCEINLINE friend Dual operator-(const Dual& x) { Dual r(-x.a); for (int i = 0; i < N; ++i) r.v[i] = -x.v[i]; return r; }
  HS_HD HS_FORCEINLINE friend Dual operator+(Dual x, const Dual& y) { return x += y; }
  HS_HD HS_FORCEINLINE friend Dual operator-(Dual x, const Dual& y) { return x -= y; }
  HS_HD HS_FORCEINLINE friend Dual operator*(Dual x, const Dual& y) { return x *= y; }
  HS_HD HS_FORCEINLINE friend Dual operator/(const Dual& x, const Dual& y) {
    // (a + v ε)/(b + w ε) = a/b + (v - (a/b) w)/b ε
    const double inv = 1.0 / y.a, q = x.a * inv;
    Dual r(q);
    for (int i = 0; i < N; ++i) r.v[i] = (x.v[i] - q * y.v[i]) * inv;
    return r;
  }
  HS_HD HS_FORCEINLINE friend Dual operator+(Dual x, double s) { return x += s; }
  HS_HD HS_FORCEINLINE friend Dual operator+(double s, Dual x) { return x += s; }
  HS_HD HS_FORCEINLINE friend Dual operator-(Dual x, double s) { return x -= s; }
  HS_HD HS_FORCEINLINE friend Dual operator-(double s, const Dual& x) { Dual r = -x; r.a += s; return r; }
  HS_HD HS_FORCEINLINE friend Dual operator*(Dual x, double s) { return x *= s; }
  HS_HD HS_FORCEINLINE friend Dual operator*(double s, Dual x) { return x *= s; }
  HS_HD HS_FORCEINLINE friend Dual operator/(Dual x, double s) { return x *= (1.0 / s); }
  HS_HD HS_FORCEINLINE friend Dual operator/(double s, const Dual& x) { const double inv = 1.0 / x.a; return chain(s * inv, -s * inv * inv, x); }

  // Comparisons look at the value only: branches of piecewise laws pick
  // the branch of the point, and the derivative is that branch's.
  HS_HD HS_FORCEINLINE friend bool operator<(const Dual& x, const Dual& y) { return x.a < y.a; }
  HS_HD HS_FORCEINLINE friend bool operator>(const Dual& x, const Dual& y) { return x.a > y.a; }
  HS_HD HS_FORCEINLINE friend bool operator<=(const Dual& x, const Dual& y) { return x.a <= y.a; }
  HS_HD HS_FORCEINLINE friend bool operator>=(const Dual& x, const Dual& y) { return x.a >= y.a; }
  HS_HD HS_FORCEINLINE friend bool operator<(const Dual& x, double s) { return x.a < s; }
  HS_HD HS_FORCEINLINE friend bool operator>(const Dual& x, double s) { return x.a > s; }
  HS_HD HS_FORCEINLINE friend bool operator<=(const Dual& x, double s) { return x.a <= s; }
  HS_HD HS_FORCEINLINE friend bool operator>=(const Dual& x, double s) { return x.a >= s; }
};

// Value of a scalar of either kind: what branches and status checks look at.
HS_HD inline double value(double x) { return x; }
template <int N>
HS_HD double value(const Dual<N>& x) { return x.a; }

namespace math {
HS_HD inline double sqrt(double x) { return ::sqrt(x); }
HS_HD inline double sin(double x) { return ::sin(x); }
HS_HD inline double cos(double x) { return ::cos(x); }
HS_HD inline double exp(double x) { return ::exp(x); }
HS_HD inline double tanh(double x) { return ::tanh(x); }
HS_HD inline double abs(double x) { return ::fabs(x); }
HS_HD inline double pow(double x, double e) { return ::pow(x, e); }
HS_HD inline double atan2(double y, double x) { return ::atan2(y, x); }
// sgn(0) = 0: every law that uses it (valve, friction) is odd and zero there.
HS_HD inline double sign(double x) { return (x > 0.0) - (x < 0.0); }

template <int N> HS_HD Dual<N> sqrt(const Dual<N>& x) { const double r = ::sqrt(x.a); return Dual<N>::chain(r, 0.5 / r, x); }
template <int N> HS_HD Dual<N> sin(const Dual<N>& x) { return Dual<N>::chain(::sin(x.a), ::cos(x.a), x); }
template <int N> HS_HD Dual<N> cos(const Dual<N>& x) { return Dual<N>::chain(::cos(x.a), -::sin(x.a), x); }
template <int N> HS_HD Dual<N> exp(const Dual<N>& x) { const double e = ::exp(x.a); return Dual<N>::chain(e, e, x); }
template <int N> HS_HD Dual<N> tanh(const Dual<N>& x) { const double t = ::tanh(x.a); return Dual<N>::chain(t, 1.0 - t * t, x); }
template <int N> HS_HD Dual<N> abs(const Dual<N>& x) { return x.a < 0.0 ? -x : x; }
template <int N> HS_HD Dual<N> pow(const Dual<N>& x, double e) { const double r = ::pow(x.a, e); return Dual<N>::chain(r, e * ::pow(x.a, e - 1.0), x); }
template <int N> HS_HD Dual<N> atan2(const Dual<N>& y, const Dual<N>& x) {
  // d atan2(y,x) = (x dy - y dx)/(x² + y²)
  const double r2 = x.a * x.a + y.a * y.a;
  Dual<N> r(::atan2(y.a, x.a));
  for (int i = 0; i < N; ++i) r.v[i] = (x.a * y.v[i] - y.a * x.v[i]) / r2;
  return r;
}
template <int N> HS_HD double sign(const Dual<N>& x) { return sign(x.a); }
// sin and cos of one argument together (one argument reduction on the GPU).
HS_HD inline void sincos(double x, double* s, double* c) { *s = ::sin(x); *c = ::cos(x); }
template <int N> HS_HD void sincos(const Dual<N>& x, Dual<N>* s, Dual<N>* c) {
  double sv, cv;
  sincos(x.a, &sv, &cv);
  *s = Dual<N>::chain(sv, cv, x);
  *c = Dual<N>::chain(cv, -sv, x);
}
}  // namespace math

// Moving derivatives between jets of different widths, for residuals whose
// first M unknowns drive a sub-computation (the mechanism depends on the
// independent coordinates only, not on the pressures): that part runs on
// Dual<M>, and its results enter the Dual<N> residual through `widen`.
// head<M>(x): the derivatives of x along its first M directions.
// widen<N>(y): y as a Dual<N> whose last N − M derivatives are zero.
template <int M, int N>
HS_HD HS_FORCEINLINE Dual<M> head(const Dual<N>& x) {
  static_assert(M <= N, "head<M> of a narrower jet");
  Dual<M> r(x.a);
  for (int i = 0; i < M; ++i) r.v[i] = x.v[i];
  return r;
}
template <int M>
HS_HD HS_FORCEINLINE double head(double x) { return x; }
template <int N, int M>
HS_HD HS_FORCEINLINE Dual<N> widen(const Dual<M>& x) {
  static_assert(M <= N, "widen<N> to a narrower jet");
  Dual<N> r(x.a);
  for (int i = 0; i < M; ++i) r.v[i] = x.v[i];
  return r;
}
// The scalar type T of a computation that has only the first M of T's
// directions: double stays double, Dual<N> becomes Dual<M>.
template <class T, int M>
struct HeadScalar { using type = double; };
template <int N, int M>
struct HeadScalar<Dual<N>, M> { using type = Dual<M>; };
// Conversion to the wider scalar T (identity when the types agree).
template <class T>
struct Widen {
  HS_HD HS_FORCEINLINE static T from(const T& x) { return x; }
  template <int M>
  HS_HD HS_FORCEINLINE static T from(const Dual<M>& x) { return widen<T::size>(x); }
};

// The scalar that carries derivatives of a residual with nx unknowns.
template <int N>
using Jet = Dual<N>;

}  // namespace hs
