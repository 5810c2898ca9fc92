// Fixed-size vectors and matrices for per-thread kernel code.
//
// Sizes are compile-time constants so that on the GPU everything lives in
// registers; element type T is double or Dual<N>. Only what the kernels use
// is here: indexing, a few BLAS-1/2 helpers. Eigen stays on the host
// (its decompositions do not compile in device code).
#pragma once
#include <type_traits>

#include "hd.hpp"

namespace hs {

template <class T, int N>
struct Vec {
  T x[N];
  HS_HD T& operator[](int i) { return x[i]; }
  HS_HD const T& operator[](int i) const { return x[i]; }
  HS_HD static Vec filled(const T& s) { Vec r; for (int i = 0; i < N; ++i) r.x[i] = s; return r; }
  HS_HD T* data() { return x; }
  HS_HD const T* data() const { return x; }
};

// Zero-length vectors (a friction model without internal states): loops
// over them never run, but their bodies must still compile, so indexing
// returns a placeholder element.
template <class T>
struct Vec<T, 0> {
  T unused;
  HS_HD T& operator[](int) { return unused; }
  HS_HD const T& operator[](int) const { return unused; }
  HS_HD static Vec filled(const T& s) { return {s}; }
  HS_HD T* data() { return &unused; }
  HS_HD const T* data() const { return &unused; }
};

template <class T, int R, int C>
struct Mat {
  T a[R][C];
  HS_HD T& operator()(int i, int j) { return a[i][j]; }
  HS_HD const T& operator()(int i, int j) const { return a[i][j]; }
  HS_HD static Mat zero() { Mat m; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) m.a[i][j] = T(0.0); return m; }
};

// Per-thread arrays indexed by a run-time index (a partition's dependent
// coordinate, the body that carries the actuator) are put in local memory by
// the GPU compiler, whatever their size: a register cannot be addressed. These
// read and write a[i] through a compare per compile-time index instead, so the
// array stays in registers (issue 16: local memory bounds the simulation
// kernel). Same values as a[i]: bit-identical results on every backend.
template <int N, class T>
HS_HD HS_FORCEINLINE T select_at(const T (&a)[N], int i) {
  T r = a[0];
  HS_UNROLL
  for (int k = 1; k < N; ++k)
    if (k == i) r = a[k];
  return r;
}
template <int N, class T>
HS_HD HS_FORCEINLINE void assign_at(T (&a)[N], int i, const T& v) {
  HS_UNROLL
  for (int k = 0; k < N; ++k)
    if (k == i) a[k] = v;
}

// target += increment where c holds: for one instance a branch; for lanes
// (a mask, lanes.hpp) per lane.
template <class T>
HS_HD HS_FORCEINLINE void add_where(bool c, T& target, const T& increment) {
  if (c) target = target + increment;
}
HS_HD HS_FORCEINLINE int lane_count(bool c) { return c ? 1 : 0; }

// A planar vector (x, y).
template <class T>
struct V2 {
  T x, y;
};
// c ? a : b for vectors per lane, c a mask (lanes.hpp).
template <class Mask, class T, typename std::enable_if<!std::is_same<Mask, bool>::value, int>::type = 0>
HS_HD HS_FORCEINLINE V2<T> choose(const Mask& c, const V2<T>& a, const V2<T>& b) {
  return {choose(c, a.x, b.x), choose(c, a.y, b.y)};
}
template <class T> HS_HD HS_FORCEINLINE V2<T> operator+(const V2<T>& a, const V2<T>& b) { return {a.x + b.x, a.y + b.y}; }
template <class T> HS_HD HS_FORCEINLINE V2<T> operator-(const V2<T>& a, const V2<T>& b) { return {a.x - b.x, a.y - b.y}; }
template <class T, class S> HS_HD HS_FORCEINLINE V2<T> operator*(const S& s, const V2<T>& a) { return {s * a.x, s * a.y}; }
template <class T> HS_HD HS_FORCEINLINE T dot(const V2<T>& a, const V2<T>& b) { return a.x * b.x + a.y * b.y; }
// z-component of the planar cross product a × b.
template <class T> HS_HD HS_FORCEINLINE T cross(const V2<T>& a, const V2<T>& b) { return a.x * b.y - a.y * b.x; }
// k × a: rotation by +90° (velocity of a point at a on a body spinning at unit rate).
template <class T> HS_HD HS_FORCEINLINE V2<T> perp(const V2<T>& a) { return {-a.y, a.x}; }

// The coordinates 0 … N−1 not in `held` (ni of them), ascending: the
// dependent coordinates of a partition whose independent ones are held.
template <int N, int NI>
HS_HD void coordinate_complement(const int* held, int* rest) {
  int k = 0;
  for (int c = 0; c < N; ++c) {
    bool is_held = false;
    for (int j = 0; j < NI; ++j) is_held = is_held || held[j] == c;
    if (!is_held) rest[k++] = c;
  }
}

}  // namespace hs
