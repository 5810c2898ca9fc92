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
#include <type_traits>

#include "../eigen/small_eigen.hpp"
#include "reduced_jacobian.hpp"

namespace hs {

struct StabilitySettings {
  double zero_tolerance = 1e-9;
  double oscillatory_tolerance = 1e-6;
  EquilibriumSettings equilibrium;
};

// Chamber pressures a point reports (the four-bar's three volumes, the
// manipulator's two cylinders with two chambers each, a two-cylinder model
// file's three volumes each).
constexpr int kStabilityPressures = 6;

template <int N>
struct StabilityResult {
  static constexpr int capacity = N;
  int status = 0;          // Status: ok, constraint_failure, invalid_parameters, diverged (eigenvalues)
  int eigenvalue_count = N;  // entries of re, im in use (a wider record holds a smaller system's)
  int pressure_count = 0;    // entries of pressure in use
  double re[N], im[N];     // all eigenvalues, by decreasing real part (pairs: +ω first)
  int structural_zeros = 0;
  double max_real;         // largest Re λ without the structural zeros [1/s]
  double damping_ratio;    // ζ of the dominant oscillatory pair (NaN: none)
  double frequency;        // its damped frequency ω_d [rad/s] (NaN: none)
  int overdamped;          // 1: no oscillatory mode
  double crank_angle;      // driving coordinate at the equilibrium [rad]
  double pressure[kStabilityPressures];  // p⁰ [Pa]
};

// Every figure NaN / 0, `count` eigenvalues in use.
template <int N>
HS_HD void blank_stability(StabilityResult<N>& out, int count = N) {
  out.eigenvalue_count = count;
  out.pressure_count = 0;
  for (int k = 0; k < N; ++k) out.re[k] = out.im[k] = NAN;
  out.structural_zeros = 0;
  out.max_real = out.damping_ratio = out.frequency = NAN;
  out.overdamped = 0;
  out.crank_angle = NAN;
  for (int k = 0; k < kStabilityPressures; ++k) out.pressure[k] = NAN;
}

// A point in a record with room for more eigenvalues (the host's one record
// type for every model's map).
template <int W, int N>
HS_HD StabilityResult<W> widen_stability(const StabilityResult<N>& in) {
  static_assert(W >= N, "a record narrower than the system");
  StabilityResult<W> out;
  blank_stability(out, in.eigenvalue_count);
  out.status = in.status;
  out.pressure_count = in.pressure_count;
  for (int k = 0; k < N; ++k) { out.re[k] = in.re[k]; out.im[k] = in.im[k]; }
  out.structural_zeros = in.structural_zeros;
  out.max_real = in.max_real;
  out.damping_ratio = in.damping_ratio;
  out.frequency = in.frequency;
  out.overdamped = in.overdamped;
  out.crank_angle = in.crank_angle;
  for (int k = 0; k < kStabilityPressures; ++k) out.pressure[k] = in.pressure[k];
  return out;
}

// The map's figures of `count` eigenvalues in any order (the header's
// rules): structural zeros, max Re λ without them, overdamped, the dominant
// pair's ζ and ω_d. A real part of −∞ (a multiplier at zero of a sampled
// loop, sampled_loop.hpp) counts as a finite, very fast mode; the
// structural-zero radius is over the finite magnitudes only. Shared by the
// fixed-size systems below and seed 003's constrained systems of any size
// (kernels/linearize/constrained_per_thread.hpp, host/constrained/points.cpp).
template <int N>
HS_HD void stability_figures(const double* re, const double* im, int count, const StabilitySettings& S,
                             StabilityResult<N>& out) {
  double radius = 0.0;
  for (int k = 0; k < count; ++k) {
    const double mag = hypot(re[k], im[k]);
    if (mag < INFINITY) radius = fmax(radius, mag);
  }
  out.structural_zeros = 0;
  out.max_real = -INFINITY;
  out.overdamped = 1;
  out.damping_ratio = out.frequency = NAN;
  double dominant = -INFINITY;
  for (int k = 0; k < count; ++k) {
    const double mag = hypot(re[k], im[k]);
    if (mag <= S.zero_tolerance * radius) {
      ++out.structural_zeros;
      continue;
    }
    out.max_real = fmax(out.max_real, re[k]);
    if (fabs(im[k]) > S.oscillatory_tolerance * mag) {
      out.overdamped = 0;
      if (im[k] > 0.0 && re[k] > dominant) {
        dominant = re[k];
        out.damping_ratio = -re[k] / mag;
        out.frequency = im[k];
      }
    }
  }
}

// Sort the eigenvalues (decreasing real part, then decreasing imaginary
// part) into the record and derive the map's figures (stability_figures).
// The first `count` of re, im (a system with states left out, live_states).
template <int N>
HS_HD void classify_eigenvalues(const double* re, const double* im, const StabilitySettings& S, StabilityResult<N>& out,
                                int count = N) {
  for (int k = 0; k < count; ++k) { out.re[k] = re[k]; out.im[k] = im[k]; }
  for (int i = 1; i < count; ++i)
    for (int j = i; j > 0; --j) {
      const bool swap = out.re[j] > out.re[j - 1] || (out.re[j] == out.re[j - 1] && out.im[j] > out.im[j - 1]);
      if (!swap) break;
      const double a = out.re[j], b = out.im[j];
      out.re[j] = out.re[j - 1]; out.im[j] = out.im[j - 1];
      out.re[j - 1] = a; out.im[j - 1] = b;
    }
  stability_figures(out.re, out.im, count, S, out);
}

// The host's one record type for every model's map: room for the widest
// system (a two-cylinder model file: 2 × 2 mechanical + 6 pressures + 2 spools;
// the lift-tilt's sampled closed loop has 8 plant states + 2 memory).
constexpr int kStabilityRecordEigenvalues = 12;
// How many of a constrained system's (seed 003, any size) lowest-frequency
// eigenvalues a map reports.
constexpr int kConstrainedReportedEigenvalues = 10;
static_assert(kConstrainedReportedEigenvalues <= kStabilityRecordEigenvalues, "the record holds them");
using StabilityRecord = StabilityResult<kStabilityRecordEigenvalues>;

// A system that computes its own point (a closed loop: sampled_loop.hpp)
// says so with a static stability_point(P, S); the others are seed 000's
// open-loop equilibrium and reduced Jacobian below.
template <class System, class = void>
struct HasOwnStabilityPoint : std::false_type {};
template <class System>
struct HasOwnStabilityPoint<System, std::void_t<decltype(&System::stability_point)>> : std::true_type {};

template <class System, class = void>
struct StabilityOfT {
  using type = StabilityResult<ReducedSize<System>::value>;
};
template <class System>
struct StabilityOfT<System, std::enable_if_t<HasOwnStabilityPoint<System>::value>> {
  using type = typename System::Stability;
};
template <class System>
using StabilityOf = typename StabilityOfT<System>::type;

// The rest of an open-loop point once its equilibrium and linearization
// terms are known (out: the equilibrium's status ok, crank angle and
// pressures filled): J (eq 64), the live states' eigenvalues, the figures.
// Shared by stability_point and the points in lockstep
// (lockstep_stability.hpp), whose terms come from lanes.
template <class System>
HS_HD void finish_stability_point(const typename System::Params& P, const LinearizationTerms<System>& L,
                                  const StabilitySettings& S, StabilityOf<System>& out) {
  constexpr int N = ReducedSize<System>::value;
  Mat<double, N, N> J;
  if (!assemble_reduced_jacobian(L, J)) {
    out.status = static_cast<int>(Status::constraint_failure);
    return;
  }
  // The eigenvalues of the states the instance has (live_states): J's
  // rows and columns of those, in order, in the leading block.
  int count = N;
  EigenResult<N> ev;
  if constexpr (may_leave_states_out<System>()) {
    int live[N];
    count = live_states<System>(P, live);
    Mat<double, N, N> Jl = Mat<double, N, N>::zero();
    for (int i = 0; i < count; ++i)
      for (int j = 0; j < count; ++j) Jl(i, j) = J(live[i], live[j]);
    ev = eigenvalues_of_leading_block<N>(Jl, count);
  } else {
    ev = eigenvalues<N>(J);
  }
  if (ev.status != eigen_ok) {
    out.status = static_cast<int>(Status::diverged);
    return;
  }
  out.eigenvalue_count = count;
  classify_eigenvalues(ev.re, ev.im, S, out, count);
}

// The equilibrium's figures in a point's record: the driving coordinate and
// the first pressures; `value` reads the point's own from a real of eq (one
// instance: the real itself; lanes: its lane).
template <class System, class R, class Value>
HS_HD void record_equilibrium(const Equilibrium<System, R>& eq, const Value& value, StabilityOf<System>& out) {
  out.crank_angle = value(eq.x[eq.indep[0]]);
  out.pressure_count = System::r < kStabilityPressures ? System::r : kStabilityPressures;
  for (int k = 0; k < out.pressure_count; ++k) out.pressure[k] = value(eq.p[k]);
}

template <class System>
HS_HD StabilityOf<System> stability_point(const typename System::Params& P, const StabilitySettings& S) {
  if constexpr (HasOwnStabilityPoint<System>::value) {
    return System::stability_point(P, S);
  } else {
    StabilityOf<System> out;
    blank_stability(out);

    Equilibrium<System> eq;
    const Status st = solve_equilibrium<System>(P, eq, S.equilibrium);
    out.status = static_cast<int>(st);
    if (st != Status::ok) return out;
    record_equilibrium<System>(eq, [](double v) { return v; }, out);
    LinearizationTerms<System> L;
    if (!linearization_terms<System>(P, eq, L)) {
      out.status = static_cast<int>(Status::constraint_failure);
      return out;
    }
    finish_stability_point<System>(P, L, S, out);
    return out;
  }
}

// stability_point in the host's record (every backend stores these).
template <class System>
HS_HD StabilityRecord stability_record(const typename System::Params& P, const StabilitySettings& S) {
  return widen_stability<kStabilityRecordEigenvalues>(stability_point<System>(P, S));
}

}  // namespace hs
