// Lockstep SIMD lanes for the CPU: W instances in the W lanes of one vector
// register, the way a GPU warp runs 32 threads (issue 16;
// docs/models/lanes.md). Lanes<W> is a real number with W independent
// values; LaneMask<W> is the result of comparing two of them.
//
// Kernel code that is written on a real type R (double or Lanes<W>) runs a
// batch of W instances per call on the CPU; R = double is the scalar path of
// every backend, unchanged. Where the scalar code branches on a value, the
// lane code branches on a mask:
//   choose(c, a, b)        c ? a : b          (both already computed)
//   lane_if(c, then, else) c ? then() : else() (for a mask: the branch taken
//                          by every lane alone, else both, blended per lane)
// so a lane computes exactly the operations its scalar run would, and its
// result is the scalar result bit for bit (docs/models/lanes.md §2).
//
// Storage and arithmetic are GCC's std::experimental::simd (fixed_size<W>):
// it ships with g++ ≥ 11, so no Debian or PyPI package is added, and its
// +, −, ×, ÷ and √ are the IEEE-754 correctly rounded vector instructions
// (one AVX-512 instruction for W = 8 here), the same bits as the scalar ones.
// xsimd and Highway would give the same arithmetic plus vector transcendental
// functions, which are not bit-identical to the C library's; the lanes here
// call the C library per lane for exp, tanh, pow, atan2 and acos instead,
// so they agree with the scalar path exactly (§3).
//
// CPU only: nvcc does not compile <experimental/simd>, and on the GPU the
// lanes are the warp's threads.
#pragma once
#if defined(__CUDACC__) || defined(__HIPCC__)
#error "kernels/core/lanes.hpp is the CPU's lockstep lane type; the GPU runs one instance per thread"
#endif
#include <cmath>
#include <cstddef>
#include <cstring>
// GCC 12's AVX-512 intrinsics start some vectors as `__m512d __Y = __Y;`,
// which -Wall reports wherever <experimental/simd> inlines them (a false
// positive in a system header): not reported.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#include <experimental/simd>
#pragma GCC diagnostic pop
#include <type_traits>
#include <vector>

// Every lane operation is a few vector instructions: always inlined, so that
// a jet on lanes compiles to straight-line vector code as a jet on double
// compiles to scalar code.
#define HS_LANE inline __attribute__((always_inline))

namespace hs {

namespace stdx = std::experimental;

template <int W>
struct LaneMask {
  using Native = stdx::fixed_size_simd_mask<double, W>;
  Native m;
  LaneMask() = default;
  HS_LANE explicit LaneMask(const Native& n) : m(n) {}
  HS_LANE explicit LaneMask(bool b) : m(b) {}
  HS_LANE bool operator[](int i) const { return m[i]; }
  HS_LANE void set(int i, bool b) { m[i] = b; }
  friend HS_LANE LaneMask operator&&(const LaneMask& a, const LaneMask& b) { return LaneMask(a.m && b.m); }
  friend HS_LANE LaneMask operator||(const LaneMask& a, const LaneMask& b) { return LaneMask(a.m || b.m); }
  friend HS_LANE LaneMask operator!(const LaneMask& a) { return LaneMask(!a.m); }
};

template <int W>
struct Lanes {
  static constexpr int width = W;
  using Native = stdx::fixed_size_simd<double, W>;
  Native v;

  HS_LANE Lanes() : v(0.0) {}
  HS_LANE Lanes(double x) : v(x) {}  // NOLINT: constants broadcast implicitly, as they promote to Dual
  HS_LANE explicit Lanes(const Native& n) : v(n) {}
  // Lane i of the batch (reading and writing one instance's value).
  HS_LANE double operator[](int i) const { return v[i]; }
  HS_LANE void set(int i, double x) { v[i] = x; }

  HS_LANE Lanes& operator+=(const Lanes& o) { v += o.v; return *this; }
  HS_LANE Lanes& operator-=(const Lanes& o) { v -= o.v; return *this; }
  HS_LANE Lanes& operator*=(const Lanes& o) { v *= o.v; return *this; }
  HS_LANE Lanes& operator/=(const Lanes& o) { v /= o.v; return *this; }
  friend HS_LANE Lanes operator-(const Lanes& x) { return Lanes(-x.v); }
  friend HS_LANE Lanes operator+(const Lanes& x, const Lanes& y) { return Lanes(x.v + y.v); }
  friend HS_LANE Lanes operator-(const Lanes& x, const Lanes& y) { return Lanes(x.v - y.v); }
  friend HS_LANE Lanes operator*(const Lanes& x, const Lanes& y) { return Lanes(x.v * y.v); }
  friend HS_LANE Lanes operator/(const Lanes& x, const Lanes& y) { return Lanes(x.v / y.v); }
  friend HS_LANE Lanes operator+(const Lanes& x, double s) { return Lanes(x.v + Native(s)); }
  friend HS_LANE Lanes operator+(double s, const Lanes& x) { return Lanes(Native(s) + x.v); }
  friend HS_LANE Lanes operator-(const Lanes& x, double s) { return Lanes(x.v - Native(s)); }
  friend HS_LANE Lanes operator-(double s, const Lanes& x) { return Lanes(Native(s) - x.v); }
  friend HS_LANE Lanes operator*(const Lanes& x, double s) { return Lanes(x.v * Native(s)); }
  friend HS_LANE Lanes operator*(double s, const Lanes& x) { return Lanes(Native(s) * x.v); }
  friend HS_LANE Lanes operator/(const Lanes& x, double s) { return Lanes(x.v / Native(s)); }
  friend HS_LANE Lanes operator/(double s, const Lanes& x) { return Lanes(Native(s) / x.v); }

  friend HS_LANE LaneMask<W> operator<(const Lanes& x, const Lanes& y) { return LaneMask<W>(x.v < y.v); }
  friend HS_LANE LaneMask<W> operator>(const Lanes& x, const Lanes& y) { return LaneMask<W>(x.v > y.v); }
  friend HS_LANE LaneMask<W> operator<=(const Lanes& x, const Lanes& y) { return LaneMask<W>(x.v <= y.v); }
  friend HS_LANE LaneMask<W> operator>=(const Lanes& x, const Lanes& y) { return LaneMask<W>(x.v >= y.v); }
  friend HS_LANE LaneMask<W> operator==(const Lanes& x, const Lanes& y) { return LaneMask<W>(x.v == y.v); }
  friend HS_LANE LaneMask<W> operator!=(const Lanes& x, const Lanes& y) { return LaneMask<W>(x.v != y.v); }
  friend HS_LANE LaneMask<W> operator<(const Lanes& x, double s) { return LaneMask<W>(x.v < Native(s)); }
  friend HS_LANE LaneMask<W> operator>(const Lanes& x, double s) { return LaneMask<W>(x.v > Native(s)); }
  friend HS_LANE LaneMask<W> operator<=(const Lanes& x, double s) { return LaneMask<W>(x.v <= Native(s)); }
  friend HS_LANE LaneMask<W> operator>=(const Lanes& x, double s) { return LaneMask<W>(x.v >= Native(s)); }
  friend HS_LANE LaneMask<W> operator==(const Lanes& x, double s) { return LaneMask<W>(x.v == Native(s)); }
  friend HS_LANE LaneMask<W> operator!=(const Lanes& x, double s) { return LaneMask<W>(x.v != Native(s)); }
};

template <class T>
struct IsLanes : std::false_type {};
template <int W>
struct IsLanes<Lanes<W>> : std::true_type {};

// What branches and status checks look at: the lanes themselves.
template <int W>
HS_LANE Lanes<W> value(const Lanes<W>& x) { return x; }

// Whether a condition holds in any / every lane (for a bool: dual.hpp).
template <int W>
HS_LANE bool any_lane(const LaneMask<W>& c) { return stdx::any_of(c.m); }
template <int W>
HS_LANE bool all_lanes(const LaneMask<W>& c) { return stdx::all_of(c.m); }

// c ? a : b per lane.
template <int W>
HS_LANE Lanes<W> choose(const LaneMask<W>& c, const Lanes<W>& a, const Lanes<W>& b) {
  Lanes<W> r = b;
  stdx::where(c.m, r.v) = a.v;
  return r;
}
template <int W>
HS_LANE Lanes<W> choose(const LaneMask<W>& c, double a, double b) {
  return choose(c, Lanes<W>(a), Lanes<W>(b));
}
template <int W>
HS_LANE LaneMask<W> choose(const LaneMask<W>& c, const LaneMask<W>& a, const LaneMask<W>& b) {
  return LaneMask<W>((c.m && a.m) || (!c.m && b.m));
}

// The C library per lane: the scalar path's function, so the same bits.
template <int W, class F>
HS_LANE Lanes<W> per_lane(const Lanes<W>& x, F f) {
  Lanes<W> r;
  for (int i = 0; i < W; ++i) r.v[i] = f(static_cast<double>(x.v[i]));
  return r;
}

namespace math {
// √, |x| and the sign are exact vector instructions, sin and cos one
// polynomial on all lanes; exp, tanh, pow, atan2 and acos the C library per lane.
template <int W> HS_LANE Lanes<W> sqrt(const Lanes<W>& x) { return Lanes<W>(stdx::sqrt(x.v)); }
template <int W> HS_LANE Lanes<W> abs(const Lanes<W>& x) { return Lanes<W>(stdx::abs(x.v)); }
// sin and cos: the polynomial of kernels/core/trig.hpp, on the lanes at once
// (the scalar path's math::sin, cos and sincos are the same polynomial).
template <int W> HS_LANE Lanes<W> sin(const Lanes<W>& x) {
  Lanes<W> s, c;
  sincos_by_polynomial(x, &s, &c);
  return s;
}
template <int W> HS_LANE Lanes<W> cos(const Lanes<W>& x) {
  Lanes<W> s, c;
  sincos_by_polynomial(x, &s, &c);
  return c;
}
template <int W> HS_LANE Lanes<W> exp(const Lanes<W>& x) { return per_lane(x, [](double a) { return ::exp(a); }); }
template <int W> HS_LANE Lanes<W> tanh(const Lanes<W>& x) { return per_lane(x, [](double a) { return ::tanh(a); }); }
template <int W> HS_LANE Lanes<W> pow(const Lanes<W>& x, double e) {
  return per_lane(x, [e](double a) { return ::pow(a, e); });
}
template <int W> HS_LANE Lanes<W> pow(const Lanes<W>& x, const Lanes<W>& e) {
  Lanes<W> r;
  for (int i = 0; i < W; ++i) r.v[i] = ::pow(static_cast<double>(x.v[i]), static_cast<double>(e.v[i]));
  return r;
}
template <int W> HS_LANE Lanes<W> atan2(const Lanes<W>& y, const Lanes<W>& x) {
  Lanes<W> r;
  for (int i = 0; i < W; ++i) r.v[i] = ::atan2(static_cast<double>(y.v[i]), static_cast<double>(x.v[i]));
  return r;
}
template <int W> HS_LANE Lanes<W> acos(const Lanes<W>& x) { return per_lane(x, [](double a) { return ::acos(a); }); }
template <int W> HS_LANE void sincos(const Lanes<W>& x, Lanes<W>* s, Lanes<W>* c) { sincos_by_polynomial(x, s, c); }
// sgn(0) = 0, as the scalar sign.
template <int W> HS_LANE Lanes<W> sign(const Lanes<W>& x) {
  return choose(x > 0.0, Lanes<W>(1.0), Lanes<W>(0.0)) - choose(x < 0.0, Lanes<W>(1.0), Lanes<W>(0.0));
}
}  // namespace math

// The branch each lane's scalar run would take. When every lane agrees only
// that branch is computed (the common case: lanes of one batch are usually
// on the same side of a piecewise law); otherwise both, blended per lane.
// The branch not taken by a lane may compute anything (NaN, Inf) for it: the
// blend discards it.
template <int W, class Then, class Else>
HS_LANE auto lane_if(const LaneMask<W>& c, Then&& then_branch, Else&& else_branch) {
  if (all_lanes(c)) return then_branch();
  if (!any_lane(c)) return else_branch();
  return choose(c, then_branch(), else_branch());
}

// Per-lane indices (a partition's coordinates, a pivot row): small integers
// held as the lanes' doubles (exact), so that comparing one with a
// compile-time index gives a mask. a[i] and a[i] = v with such an index read
// and write through one compare per compile-time index, as select_at and
// assign_at do for an int (kernels/core/small_matrix.hpp): each lane gets its
// own element.
// Where every lane holds the same index (the usual case: the lanes of a batch
// keep the same partition), one read or write of that element instead: the
// same values, without N blends of a jet (the 3D four-bar selects 9 × 9
// entries of Φ_x out of 10 columns per factorization, docs/models/lanes.md §8).
template <int N, int W>
HS_LANE int uniform_index(const Lanes<W>& i) {
  const double first = i[0];
  return first >= 0.0 && first < N && all_lanes(i == first) ? static_cast<int>(first) : -1;
}
template <int N, class T, int W>
HS_LANE T select_at(const T (&a)[N], const Lanes<W>& i) {
  const int k0 = uniform_index<N>(i);
  if (k0 >= 0) return a[k0];
  T r = a[0];
  for (int k = 1; k < N; ++k) r = choose(i == static_cast<double>(k), a[k], r);
  return r;
}
template <int N, class T, int W>
HS_LANE void assign_at(T (&a)[N], const Lanes<W>& i, const T& v) {
  const int k0 = uniform_index<N>(i);
  if (k0 >= 0) {
    a[k0] = v;
    return;
  }
  for (int k = 0; k < N; ++k) a[k] = choose(i == static_cast<double>(k), v, a[k]);
}
// target += increment where c holds (for a bool: small_matrix.hpp).
template <int W, class T>
HS_LANE void add_where(const LaneMask<W>& c, T& target, const T& increment) {
  target = choose(c, target + increment, target);
}
// to = c ? from : to per lane, for a struct or array made of lanes only
// (jets on lanes, evaluations, partitions): element by element of its lanes.
template <int W, class Block>
inline void choose_in_place(const LaneMask<W>& c, const Block& from, Block& to) {
  static_assert(sizeof(Block) % sizeof(Lanes<W>) == 0 && std::is_standard_layout<Block>::value,
                "a block of lanes");
  constexpr int n = static_cast<int>(sizeof(Block) / sizeof(Lanes<W>));
  const Lanes<W>* f = reinterpret_cast<const Lanes<W>*>(&from);
  Lanes<W>* t = reinterpret_cast<Lanes<W>*>(&to);
  for (int k = 0; k < n; ++k) stdx::where(c.m, t[k].v) = f[k].v;
}
// How many lanes a mask has set (lane utilization).
template <int W>
HS_LANE int lane_count(const LaneMask<W>& c) { return stdx::popcount(c.m); }

// ---------------------------------------------------------------------------
// Parameter structs on lanes. A parameter struct P<R> whose every field is an
// R (FrictionParamsT<R>, ...) is, for R = Lanes<W>, the W instances' structs
// transposed: field k of instance i is lane i of field k. The structs are
// trivially copyable aggregates of R only (asserted through their sizes), so
// the transposition goes field by field through their bytes.
template <template <class> class P, int W>
struct LaneLayout {
  using Scalar = P<double>;
  using Wide = P<Lanes<W>>;
  static constexpr int fields = static_cast<int>(sizeof(Scalar) / sizeof(double));
  static_assert(sizeof(Scalar) == fields * sizeof(double), "a lane parameter struct holds only reals");
  static_assert(sizeof(Wide) == fields * sizeof(Lanes<W>), "a lane parameter struct holds only reals");
  static_assert(sizeof(Lanes<W>) == W * sizeof(double), "Lanes<W> is W packed doubles");
  // std::experimental::simd is not trivially copyable in libstdc++ 12 (its
  // copy is user-declared), but it is W doubles in a vector register type;
  // the wide struct is filled through its bytes as the scalar ones are.
  static_assert(std::is_trivially_copyable<Scalar>::value && std::is_standard_layout<Wide>::value,
                "lane parameter structs are copied as bytes");
};

// The first n_reals doubles of W scalar structs into the first n_reals
// lanes of a wide one: field k of instance i is lane i of field k. `count`
// < W instances fill the first lanes and the last instance is repeated in
// the rest (a ragged tail: the padding lanes compute a real instance, so they
// never produce a value the real lanes' branches would not). The one
// transposition of the lanes: gather_lanes below, and the lockstep runner's
// structs whose reals come first (kernels/integrators/lockstep.hpp).
template <int W, class Scalar, class Wide>
void transpose_reals(const Scalar* in, int count, Wide& out, int n_reals) {
  std::vector<double> field(static_cast<std::size_t>(n_reals)), wide(static_cast<std::size_t>(n_reals) * W);
  for (int i = 0; i < W; ++i) {
    std::memcpy(field.data(), static_cast<const void*>(&in[i < count ? i : count - 1]), field.size() * sizeof(double));
    for (int k = 0; k < n_reals; ++k) wide[static_cast<std::size_t>(k) * W + i] = field[k];
  }
  std::memcpy(static_cast<void*>(&out), wide.data(), wide.size() * sizeof(double));
}
// A whole struct of reals (or an array of them).
template <int W, class Scalar, class Wide>
void transpose_reals(const Scalar* in, int count, Wide& out) {
  static_assert(sizeof(Scalar) % sizeof(double) == 0 && sizeof(Wide) == W * sizeof(Scalar), "a struct of reals only");
  transpose_reals<W>(in, count, out, static_cast<int>(sizeof(Scalar) / sizeof(double)));
}

// Instance i of the batch in lane i (a ragged tail as above).
template <int W, template <class> class P>
P<Lanes<W>> gather_lanes(const P<double>* instances, int count) {
  using L = LaneLayout<P, W>;
  P<Lanes<W>> r;
  transpose_reals<W>(instances, count, r, L::fields);
  return r;
}
// Lane i of a struct of reals on Lanes<W> (the inverse of transpose_reals):
// that instance's scalar struct.
template <int W, class Scalar, class Wide>
void lane_of_reals(const Wide& wide, int i, Scalar& out) {
  static_assert(sizeof(Wide) == W * sizeof(Scalar) && sizeof(Scalar) % sizeof(double) == 0, "a struct of reals only");
  constexpr int n = static_cast<int>(sizeof(Scalar) / sizeof(double));
  double all[n * W];  // through its bytes, as transpose_reals fills it
  std::memcpy(all, static_cast<const void*>(&wide), sizeof(all));
  double field[n];
  for (int k = 0; k < n; ++k) field[k] = all[k * W + i];
  std::memcpy(static_cast<void*>(&out), field, sizeof(field));
}
// The same for a lane parameter struct P<Lanes<W>> (LaneLayout's checks).
template <int W, template <class> class P>
P<double> lane_of(const P<Lanes<W>>& wide, int i) {
  static_assert(LaneLayout<P, W>::fields > 0, "a lane parameter struct");
  P<double> r;
  lane_of_reals<W>(wide, i, r);
  return r;
}

}  // namespace hs
