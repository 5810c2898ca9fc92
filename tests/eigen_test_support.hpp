// Helpers of the eigenvalue tests (CPU and GPU): deterministic random
// matrices and one-to-one matching of two spectra.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "host/design/sampling.hpp"
#include "kernels/eigen/small_eigen.hpp"

namespace eigen_test {

using cplx = std::complex<double>;

// splitmix64 (hs::mix64 of the sampling module) + Box–Muller: the same
// matrices on every machine and standard library.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() { return hs::mix64(state += 0x9E3779B97F4A7C15ull); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();  // u1 in (0, 1]
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
};

template <int N>
std::vector<cplx> as_complex(const hs::EigenResult<N>& r) {
  std::vector<cplx> v;
  for (int k = 0; k < N; ++k) v.emplace_back(r.re[k], r.im[k]);
  return v;
}

// One-to-one matching: repeatedly pair the closest (ours, reference) pair
// among those not yet used (global greedy; exact for well-separated
// spectra, and for clusters any pairing within the cluster is as good).
// ref may hold more values than ours (e.g. a spectrum with extra zeros).
// Returns match[i] = index into ref of ours[i].
inline std::vector<int> match(const std::vector<cplx>& ours, const std::vector<cplx>& ref) {
  const int n = static_cast<int>(ours.size()), nr = static_cast<int>(ref.size());
  std::vector<int> m(n, -1);
  std::vector<bool> used(nr, false);
  for (int round = 0; round < n && round < nr; ++round) {
    double best = std::numeric_limits<double>::infinity();
    int bi = -1, bj = -1;
    for (int i = 0; i < n; ++i) {
      if (m[i] >= 0) continue;
      for (int j = 0; j < nr; ++j) {
        if (used[j]) continue;
        const double d = std::abs(ours[i] - ref[j]);
        if (bi < 0 || d < best) { best = d; bi = i; bj = j; }
      }
    }
    m[bi] = bj;
    used[bj] = true;
  }
  return m;
}

// Largest distance over that matching, divided by scale.
inline double matched_distance(const std::vector<cplx>& a, const std::vector<cplx>& b, double scale) {
  const std::vector<int> m = match(a, b);
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (m[i] < 0) return std::numeric_limits<double>::infinity();  // b is shorter than a
    worst = std::max(worst, std::abs(a[i] - b[m[i]]) / scale);
  }
  return worst;
}

// Largest relative distance |a_i − b_m(i)| / |a_i| over that matching.
inline double matched_relative_distance(const std::vector<cplx>& a, const std::vector<cplx>& b) {
  const std::vector<int> m = match(a, b);
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (m[i] < 0) return std::numeric_limits<double>::infinity();  // b is shorter than a
    worst = std::max(worst, std::abs(a[i] - b[m[i]]) / std::abs(a[i]));
  }
  return worst;
}

// Spectral radius max_k |v_k|.
inline double spectral_radius(const std::vector<cplx>& v) {
  double radius = 0.0;
  for (const cplx& z : v) radius = std::max(radius, std::abs(z));
  return radius;
}

}  // namespace eigen_test
