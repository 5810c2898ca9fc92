// One point of a stability map: equilibrium → reduced Jacobian →
// eigenvalues → the figures a map shows. Per instance, no allocation, the
// same function on every backend (CPU threads, CUDA threads).
//
// Structural zeros. With the directional valve closed (U⁰ = 0) no oil
// enters or leaves V3 or V1 ∪ V2, so two linear combinations of the state
// are conserved: J has two left null vectors (docs/models/linearization.md §5) and
// exactly two eigenvalues at zero, whatever the parameters. They are not a
// stability margin and are excluded from max Re λ. In floating point they
// come out at the backward-error level of the (balanced) eigenvalue routine,
// |λ| ~ eps·‖J_bal‖, many orders below the physical ones, so an eigenvalue
// counts as a structural zero when |λ| ≤ zero_tolerance · max_k |λ_k|.
// `structural_zeros` reports how many were found; a point where it is not
// the expected count says the threshold or the model needs a look.
//
// Damping. Every non-structural complex pair λ = σ ± iω_d is a mode with
// natural frequency ω_n = |λ|, damping ratio ζ = −σ/|λ| and damped
// frequency ω_d. The dominant pair is the least damped one (largest σ).
// A point is overdamped when no non-structural eigenvalue has
// |Im λ| > oscillatory_tolerance · |λ| (a real double root splits into a
// pair of size ~sqrt(eps)|λ| in floating point, hence the tolerance).
#pragma once
#include "../eigen/small_eigen.hpp"
#include "reduced_jacobian.hpp"

namespace hs {

struct StabilitySettings {
  double zero_tolerance = 1e-9;
  double oscillatory_tolerance = 1e-6;
  EquilibriumSettings equilibrium;
};

template <int N>
struct StabilityResult {
  int status = 0;          // Status: ok, constraint_failure, invalid_parameters, diverged (eigenvalues)
  double re[N], im[N];     // all eigenvalues, by decreasing real part (pairs: +ω first)
  int structural_zeros = 0;
  double max_real;         // largest Re λ without the structural zeros [1/s]
  double damping_ratio;    // ζ of the dominant oscillatory pair (NaN: none)
  double frequency;        // its damped frequency ω_d [rad/s] (NaN: none)
  int overdamped;          // 1: no oscillatory mode
  double crank_angle;      // driving coordinate at the equilibrium [rad]
  double pressure[3];      // p⁰ [Pa]
};

template <class System>
using StabilityOf = StabilityResult<ReducedSize<System>::value>;

template <class System>
HS_HD StabilityOf<System> stability_point(const typename System::Params& P, const StabilitySettings& S) {
  constexpr int N = ReducedSize<System>::value;
  StabilityOf<System> out;
  for (int k = 0; k < N; ++k) out.re[k] = out.im[k] = NAN;
  out.max_real = out.damping_ratio = out.frequency = NAN;
  out.overdamped = 0;
  out.crank_angle = NAN;
  for (int k = 0; k < 3; ++k) out.pressure[k] = NAN;

  Equilibrium<System> eq;
  const Status st = solve_equilibrium<System>(P, eq, S.equilibrium);
  out.status = static_cast<int>(st);
  if (st != Status::ok) return out;
  out.crank_angle = eq.x[eq.indep[0]];
  for (int k = 0; k < System::r && k < 3; ++k) out.pressure[k] = eq.p[k];
  Mat<double, N, N> J;
  if (!reduced_jacobian<System>(P, eq, J)) {
    out.status = static_cast<int>(Status::constraint_failure);
    return out;
  }
  const EigenResult<N> ev = eigenvalues<N>(J);
  if (ev.status != eigen_ok) {
    out.status = static_cast<int>(Status::diverged);
    return out;
  }
  // Sort by decreasing real part, then decreasing imaginary part.
  for (int k = 0; k < N; ++k) { out.re[k] = ev.re[k]; out.im[k] = ev.im[k]; }
  for (int i = 1; i < N; ++i)
    for (int j = i; j > 0; --j) {
      const bool swap = out.re[j] > out.re[j - 1] || (out.re[j] == out.re[j - 1] && out.im[j] > out.im[j - 1]);
      if (!swap) break;
      const double a = out.re[j], b = out.im[j];
      out.re[j] = out.re[j - 1]; out.im[j] = out.im[j - 1];
      out.re[j - 1] = a; out.im[j - 1] = b;
    }
  double radius = 0.0;
  for (int k = 0; k < N; ++k) radius = fmax(radius, hypot(out.re[k], out.im[k]));
  out.max_real = -INFINITY;
  out.overdamped = 1;
  double dominant = -INFINITY;
  for (int k = 0; k < N; ++k) {
    const double mag = hypot(out.re[k], out.im[k]);
    if (mag <= S.zero_tolerance * radius) {
      ++out.structural_zeros;
      continue;
    }
    out.max_real = fmax(out.max_real, out.re[k]);
    if (fabs(out.im[k]) > S.oscillatory_tolerance * mag) {
      out.overdamped = 0;
      if (out.im[k] > 0.0 && out.re[k] > dominant) {
        dominant = out.re[k];
        out.damping_ratio = -out.re[k] / mag;
        out.frequency = out.im[k];
      }
    }
  }
  return out;
}

}  // namespace hs
