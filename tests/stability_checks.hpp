// Whether two stability-map records are the same bits (the lockstep map's
// suites: tests/test_lockstep_stability.cpp, tests/test_stability_cli.cpp;
// docs/models/lanes.md §12): status, eigenvalue and pressure counts,
// structural zeros, the overdamped flag, every eigenvalue, max Re λ, ζ, ω_d,
// crank angle and pressure (`memcmp` of each double: NaN and −0 included).
#pragma once
#include <cstring>
#include <string>

#include "kernels/linearize/stability.hpp"

namespace hs::stability_checks {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// The first field in which a and b differ ("" when none).
template <int N>
std::string first_difference(const StabilityResult<N>& a, const StabilityResult<N>& b) {
  if (a.status != b.status) return "status";
  if (a.eigenvalue_count != b.eigenvalue_count) return "eigenvalue_count";
  if (a.pressure_count != b.pressure_count) return "pressure_count";
  if (a.structural_zeros != b.structural_zeros) return "structural_zeros";
  if (a.overdamped != b.overdamped) return "overdamped";
  for (int k = 0; k < N; ++k) {
    if (!same_bits(a.re[k], b.re[k])) return "re[" + std::to_string(k) + "]";
    if (!same_bits(a.im[k], b.im[k])) return "im[" + std::to_string(k) + "]";
  }
  if (!same_bits(a.max_real, b.max_real)) return "max_real";
  if (!same_bits(a.damping_ratio, b.damping_ratio)) return "damping_ratio";
  if (!same_bits(a.frequency, b.frequency)) return "frequency";
  if (!same_bits(a.crank_angle, b.crank_angle)) return "crank_angle";
  for (int k = 0; k < kStabilityPressures; ++k)
    if (!same_bits(a.pressure[k], b.pressure[k])) return "pressure[" + std::to_string(k) + "]";
  return "";
}

}  // namespace hs::stability_checks
