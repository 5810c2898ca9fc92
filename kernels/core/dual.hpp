// Forward-mode dual numbers ("jets") for exact first derivatives.
//
// A Dual<N> carries a value a and a gradient v in R^N:  x = a + v·ε, ε² = 0.
// Every arithmetic rule is the chain rule truncated at first order:
//   (a + v ε)(b + w ε) = ab + (a w + b v) ε
//   f(a + v ε)         = f(a) + f'(a) v ε
// Seeding the N unknowns of a residual with unit gradients, x_j = x_j + e_j ε,
// and evaluating the residual once gives its value and its exact Jacobian
// row by row. This is how the Newton tangents and the linearizations get
// their derivatives (docs/models/README.md §5.4, after Ceres' jet.h).
//
// Kernel code is written once, templated on the scalar type, and calls the
// math functions in hs::math so that the same text runs on double and Dual.
#pragma once
#include <cmath>
#include <type_traits>
#include <utility>

#include "hd.hpp"
#if !defined(__CUDACC__) && !defined(__HIPCC__)
// The CPU's lockstep lane type, before the rules below so that they apply to
// Dual<N, Lanes<W>> (a jet per lane) as to Dual<N> (docs/models/lanes.md).
#include "lanes.hpp"
#endif

namespace hs {

// c ? a : b for a condition of one instance (bool). For lanes (lanes.hpp) the
// condition is a mask and the choice is made per lane.
template <class T>
HS_HD HS_FORCEINLINE T choose(bool c, const T& a, const T& b) { return c ? a : b; }
// Whether a condition holds in any / every lane: one instance is one lane.
HS_HD HS_FORCEINLINE bool any_lane(bool c) { return c; }
HS_HD HS_FORCEINLINE bool all_lanes(bool c) { return c; }
template <class Then, class Else>
HS_HD HS_FORCEINLINE auto lane_if(bool c, Then&& then_branch, Else&& else_branch) {
  return c ? then_branch() : else_branch();
}

template <int N, class S = double>
struct Dual;
// The real under a (nested) jet: double, or the lanes of Lanes<W>.
template <class X>
struct RealUnder {
  using type = X;
};
template <int M, class T>
struct RealUnder<Dual<M, T>> : RealUnder<T> {};

template <int N, class S>
struct Dual {
  static constexpr int size = N;
  using Scalar = S;   // type of the value and of each derivative
  S a = S(0.0);       // value
  S v[N] = {};        // gradient

  // Scalars a Dual combines with directly: double, its own value type S
  // (for nested jets Dual<N, Dual<M>>, whose second-order terms give exact
  // Hessians and accelerations along a path; see the note below math::), and
  // the real under a nested jet (Lanes<W> under Dual<N, Dual<M, Lanes<W>>>).
  template <class U>
  using if_scalar = typename std::enable_if<std::is_same<U, double>::value || std::is_same<U, S>::value ||
                                                std::is_same<U, typename RealUnder<S>::type>::value,
                                            int>::type;

  constexpr Dual() = default;
  HS_HD constexpr Dual(const S& value) : a(value) {}  // NOLINT: constants promote implicitly
  template <class U = S, typename std::enable_if<!std::is_same<U, double>::value, int>::type = 0>
  HS_HD constexpr Dual(double value) : a(value) {}  // NOLINT
  // A constant of the real under a nested jet (Lanes<W> under
  // Dual<N, Dual<M, Lanes<W>>>): a lane's parameter as the value.
  template <class U = S, typename std::enable_if<!std::is_same<typename RealUnder<U>::type, U>::value &&
                                                     !std::is_same<typename RealUnder<U>::type, double>::value,
                                                 int>::type = 0>
  HS_HD constexpr Dual(const typename RealUnder<U>::type& value) : a(value) {}  // NOLINT
  // A variable: value x, unit gradient in direction k.
  HS_HD static Dual variable(const S& x, int k) {
    Dual d(x);
    d.v[k] = S(1.0);
    return d;
  }

  HS_HD HS_FORCEINLINE Dual& operator+=(const Dual& o) { a += o.a; for (int i = 0; i < N; ++i) v[i] += o.v[i]; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator-=(const Dual& o) { a -= o.a; for (int i = 0; i < N; ++i) v[i] -= o.v[i]; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator*=(const Dual& o) { for (int i = 0; i < N; ++i) v[i] = a * o.v[i] + o.a * v[i]; a *= o.a; return *this; }
  HS_HD HS_FORCEINLINE Dual& operator/=(const Dual& o) { *this = *this / o; return *this; }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE Dual& operator+=(const U& s) { a += s; return *this; }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE Dual& operator-=(const U& s) { a -= s; return *this; }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE Dual& operator*=(const U& s) { a *= s; for (int i = 0; i < N; ++i) v[i] *= s; return *this; }

  // A function applied at the value, with derivative df: f(a) + df·v ε.
  HS_HD HS_FORCEINLINE static Dual chain(const S& f, const S& df, const Dual& x) {
    Dual r(f);
    for (int i = 0; i < N; ++i) r.v[i] = df * x.v[i];
    return r;
  }

  HS_HD HS_FORCEINLINE friend Dual operator-(const Dual& x) { Dual r(-x.a); for (int i = 0; i < N; ++i) r.v[i] = -x.v[i]; return r; }
  // The binary operations build their result where it is returned, from
  // operands taken by reference: taken by value and returned (x op= y), a
  // jet was copied in and out of every operation, a sixth of the 3D
  // four-bar's lanes' run on its 1.4 KB jets (docs/models/lanes.md §8). The
  // operations are the compound assignments', in their order: the same bits.
  HS_HD HS_FORCEINLINE friend Dual operator+(const Dual& x, const Dual& y) {
    Dual r(x.a + y.a);
    for (int i = 0; i < N; ++i) r.v[i] = x.v[i] + y.v[i];
    return r;
  }
  HS_HD HS_FORCEINLINE friend Dual operator-(const Dual& x, const Dual& y) {
    Dual r(x.a - y.a);
    for (int i = 0; i < N; ++i) r.v[i] = x.v[i] - y.v[i];
    return r;
  }
  HS_HD HS_FORCEINLINE friend Dual operator*(const Dual& x, const Dual& y) {
    Dual r(x.a * y.a);
    for (int i = 0; i < N; ++i) r.v[i] = x.a * y.v[i] + y.a * x.v[i];
    return r;
  }
  HS_HD HS_FORCEINLINE friend Dual operator/(const Dual& x, const Dual& y) {
    // (a + v ε)/(b + w ε) = a/b + (v - (a/b) w)/b ε
    const S inv = 1.0 / y.a, q = x.a * inv;
    Dual r(q);
    for (int i = 0; i < N; ++i) r.v[i] = (x.v[i] - q * y.v[i]) * inv;
    return r;
  }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator+(const Dual& x, const U& s) {
    Dual r(x.a + s);
    for (int i = 0; i < N; ++i) r.v[i] = x.v[i];
    return r;
  }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator+(const U& s, const Dual& x) { return x + s; }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator-(const Dual& x, const U& s) {
    Dual r(x.a - s);
    for (int i = 0; i < N; ++i) r.v[i] = x.v[i];
    return r;
  }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator-(const U& s, const Dual& x) { Dual r = -x; r.a += s; return r; }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator*(const Dual& x, const U& s) {
    Dual r(x.a * s);
    for (int i = 0; i < N; ++i) r.v[i] = x.v[i] * s;
    return r;
  }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator*(const U& s, const Dual& x) { return x * s; }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator/(const Dual& x, const U& s) {
    const U inv = 1.0 / s;
    return x * inv;
  }
  template <class U, if_scalar<U> = 0> HS_HD HS_FORCEINLINE friend Dual operator/(const U& s, const Dual& x) {
    const S inv = 1.0 / x.a;
    return chain(s * inv, -s * inv * inv, x);
  }

  // Comparisons look at the value only: branches of piecewise laws pick
  // the branch of the point, and the derivative is that branch's. A bool,
  // or a mask when the value is lanes (one branch per lane).
  HS_HD HS_FORCEINLINE friend auto operator<(const Dual& x, const Dual& y) { return x.a < y.a; }
  HS_HD HS_FORCEINLINE friend auto operator>(const Dual& x, const Dual& y) { return x.a > y.a; }
  HS_HD HS_FORCEINLINE friend auto operator<=(const Dual& x, const Dual& y) { return x.a <= y.a; }
  HS_HD HS_FORCEINLINE friend auto operator>=(const Dual& x, const Dual& y) { return x.a >= y.a; }
  HS_HD HS_FORCEINLINE friend auto operator<(const Dual& x, double s) { return x.a < s; }
  HS_HD HS_FORCEINLINE friend auto operator>(const Dual& x, double s) { return x.a > s; }
  HS_HD HS_FORCEINLINE friend auto operator<=(const Dual& x, double s) { return x.a <= s; }
  HS_HD HS_FORCEINLINE friend auto operator>=(const Dual& x, double s) { return x.a >= s; }
};

// c ? a : b per lane for jets: value and every derivative.
template <class Mask, int N, class S, typename std::enable_if<!std::is_same<Mask, bool>::value, int>::type = 0>
HS_HD HS_FORCEINLINE Dual<N, S> choose(const Mask& c, const Dual<N, S>& a, const Dual<N, S>& b) {
  Dual<N, S> r(choose(c, a.a, b.a));
  for (int i = 0; i < N; ++i) r.v[i] = choose(c, a.v[i], b.v[i]);
  return r;
}

// Exchanges a and b where c holds (per lane on lanes, where c is a mask): the
// row and column exchanges of the pivoting factorizations (lu.hpp,
// double_step_trapezoidal.hpp), written as two choices so that lanes that do
// not swap keep their values bit for bit.
template <class Mask, class T>
HS_HD HS_FORCEINLINE void swap_where(const Mask& c, T& a, T& b) {
  const T t = a;
  a = choose(c, b, t);
  b = choose(c, t, b);
}

// Value of a scalar of either kind: what branches and status checks look at
// (the innermost value for nested jets).
HS_HD inline double value(double x) { return x; }
template <int N, class S>
HS_HD auto value(const Dual<N, S>& x) { return value(x.a); }

}  // namespace hs

#include "trig.hpp"

namespace hs {

namespace math {
HS_HD inline double sqrt(double x) { return ::sqrt(x); }
// sin and cos of one argument together. On the CPU one polynomial for one
// instance and for lanes, so that lanes give the scalar bits without calling
// the C library per lane (kernels/core/trig.hpp); on the GPU the device's
// sin and cos (one argument reduction).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
HS_HD inline void sincos(double x, double* s, double* c) { *s = ::sin(x); *c = ::cos(x); }
HS_HD inline double sin(double x) { return ::sin(x); }
HS_HD inline double cos(double x) { return ::cos(x); }
#else
HS_HD inline void sincos(double x, double* s, double* c) { sincos_by_polynomial(x, s, c); }
HS_HD inline double sin(double x) { double s, c; sincos_by_polynomial(x, &s, &c); return s; }
HS_HD inline double cos(double x) { double s, c; sincos_by_polynomial(x, &s, &c); return c; }
#endif
HS_HD inline double exp(double x) { return ::exp(x); }
HS_HD inline double tanh(double x) { return ::tanh(x); }
HS_HD inline double abs(double x) { return ::fabs(x); }
HS_HD inline double pow(double x, double e) { return ::pow(x, e); }
HS_HD inline double atan2(double y, double x) { return ::atan2(y, x); }
HS_HD inline double acos(double x) { return ::acos(x); }
// sgn(0) = 0: every law that uses it (valve, friction) is odd and zero there.
HS_HD inline double sign(double x) { return (x > 0.0) - (x < 0.0); }

// The rules below are written on the value type S, so they hold for nested
// jets too: a Dual<N, Dual<M>> evaluates f, its first derivatives along two
// sets of directions and the mixed second derivatives in one pass.
template <int N, class S> HS_HD void sincos(const Dual<N, S>& x, Dual<N, S>* s, Dual<N, S>* c) {
  S sv, cv;
  sincos(x.a, &sv, &cv);
  *s = Dual<N, S>::chain(sv, cv, x);
  *c = Dual<N, S>::chain(cv, -sv, x);
}
template <int N, class S> HS_HD Dual<N, S> sqrt(const Dual<N, S>& x) { const S r = sqrt(x.a); return Dual<N, S>::chain(r, 0.5 / r, x); }
template <int N, class S> HS_HD Dual<N, S> sin(const Dual<N, S>& x) { S s, c; sincos(x.a, &s, &c); return Dual<N, S>::chain(s, c, x); }
template <int N, class S> HS_HD Dual<N, S> cos(const Dual<N, S>& x) { S s, c; sincos(x.a, &s, &c); return Dual<N, S>::chain(c, -s, x); }
template <int N, class S> HS_HD Dual<N, S> exp(const Dual<N, S>& x) { const S e = exp(x.a); return Dual<N, S>::chain(e, e, x); }
template <int N, class S> HS_HD Dual<N, S> tanh(const Dual<N, S>& x) { const S t = tanh(x.a); return Dual<N, S>::chain(t, 1.0 - t * t, x); }
template <int N, class S> HS_HD Dual<N, S> abs(const Dual<N, S>& x) {
  return lane_if(value(x) < 0.0, [&]() { return -x; }, [&]() { return x; });  // one instance: −x only when taken
}
template <int N, class S> HS_HD Dual<N, S> pow(const Dual<N, S>& x, double e) { const S r = pow(x.a, e); return Dual<N, S>::chain(r, e * pow(x.a, e - 1.0), x); }
// An exponent of the value type (one per lane: a lane parameter, lanes.hpp).
template <int N, class S, typename std::enable_if<!std::is_same<S, double>::value, int>::type = 0>
HS_HD Dual<N, S> pow(const Dual<N, S>& x, const S& e) { const S r = pow(x.a, e); return Dual<N, S>::chain(r, e * pow(x.a, e - 1.0), x); }
template <int N, class S> HS_HD Dual<N, S> atan2(const Dual<N, S>& y, const Dual<N, S>& x) {
  // d atan2(y,x) = (x dy - y dx)/(x² + y²)
  const S inv_r2 = 1.0 / (x.a * x.a + y.a * y.a);
  Dual<N, S> r(atan2(y.a, x.a));
  for (int i = 0; i < N; ++i) r.v[i] = (x.a * y.v[i] - y.a * x.v[i]) * inv_r2;
  return r;
}
template <int N, class S> HS_HD auto sign(const Dual<N, S>& x) { return sign(value(x)); }
}  // namespace math

// Directional derivatives. Seeding coordinate k as x_k + Σ_j D_kj ε_j
// makes a pass carry f'(x)·D, the derivatives along the nd columns of D,
// instead of the whole gradient: what a projection Dᵀ(∂f/∂x)D needs (the
// reduced Jacobian only ever uses the admissible motions T, nd = n − m).
// UnitDirections<n> (D = I) gives the plain gradient.
// R: the directions' real (Lanes<W> for a stability map's points in lockstep).
template <int ND, class R = double>
struct Directions {
  static constexpr int nd = ND;
  const R (*D)[ND];  // n rows, nd columns
  HS_HD HS_FORCEINLINE const R& operator()(int k, int j) const { return D[k][j]; }
};
template <int N>
struct UnitDirections {
  static constexpr int nd = N;
  HS_HD HS_FORCEINLINE double operator()(int k, int j) const { return k == j ? 1.0 : 0.0; }
};
// x_k + Σ_j dir(k, j) ε_j.
template <class Dir, class S>
HS_HD HS_FORCEINLINE Dual<Dir::nd, S> along(const S& x, const Dir& dir, int k) {
  Dual<Dir::nd, S> r(x);
  for (int j = 0; j < Dir::nd; ++j) r.v[j] = S(dir(k, j));
  return r;
}

// Moving derivatives between jets of different widths, for residuals whose
// first M unknowns drive a sub-computation (the mechanism depends on the
// independent coordinates only, not on the pressures): that part runs on
// Dual<M>, and its results enter the Dual<N> residual through `widen`.
// head<M>(x): the derivatives of x along its first M directions.
// widen<N>(y): y as a Dual<N> whose last N − M derivatives are zero.
template <int M, int N, class S>
HS_HD HS_FORCEINLINE Dual<M, S> head(const Dual<N, S>& x) {
  static_assert(M <= N, "head<M> of a narrower jet");
  Dual<M, S> r(x.a);
  for (int i = 0; i < M; ++i) r.v[i] = x.v[i];
  return r;
}
template <int M, class R>
HS_HD HS_FORCEINLINE R head(const R& x) { return x; }
template <int N, int M, class S>
HS_HD HS_FORCEINLINE Dual<N, S> widen(const Dual<M, S>& x) {
  static_assert(M <= N, "widen<N> to a narrower jet");
  Dual<N, S> r(x.a);
  for (int i = 0; i < M; ++i) r.v[i] = x.v[i];
  return r;
}
// The scalar type T of a computation that has only the first M of T's
// directions: a real (double, lanes) stays itself, Dual<N, S> becomes Dual<M, S>.
template <class T, int M>
struct HeadScalar { using type = T; };
template <int N, class S, int M>
struct HeadScalar<Dual<N, S>, M> { using type = Dual<M, S>; };
// Conversion to the wider scalar T (identity when the types agree).
template <class T>
struct Widen {
  HS_HD HS_FORCEINLINE static T from(const T& x) { return x; }
  template <int M, class S>
  HS_HD HS_FORCEINLINE static T from(const Dual<M, S>& x) { return widen<T::size>(x); }
};

// One instance (R = double) or W in lockstep (R = Lanes<W>, lanes.hpp):
//   MaskOf<R>    what comparing two R gives: bool, or a mask
//   LaneIndex<R> a run-time index that may differ between lanes (a partition's
//                coordinate, a pivot row): int, or the lanes' own (lanes.hpp)
//   ValueOf<T>   the real under a jet: double, or the lanes
template <class R>
struct LaneIndexOf { using type = int; };
#if !defined(__CUDACC__) && !defined(__HIPCC__)
template <int W>
struct LaneIndexOf<Lanes<W>> { using type = Lanes<W>; };
#endif
template <class R>
using LaneIndex = typename LaneIndexOf<R>::type;
template <class R>
using MaskOf = decltype(std::declval<R>() < std::declval<R>());
template <class T>
using ValueOf = typename std::decay<decltype(value(std::declval<T>()))>::type;

// The scalar that carries derivatives of a residual with nx unknowns.
template <int N>
using Jet = Dual<N>;

}  // namespace hs
