// Fixed-step implicit trapezoidal rule on the index-1 Baumgarte form of
// seed 000 eq (89) (kernels/linearize/counterpart.hpp):
//
//   X_{k+1} = X_k + dt/2 (F(X_k, t_k) + F(X_{k+1}, t_{k+1}))
//
// solved by simplified Newton: the exact Jacobian of F (dual numbers) is
// refreshed only when the iteration stops converging quickly. This is the nonlinear reference run of seed 000 §4.4 (the
// paper used ode15s); constraint drift is held by the Baumgarte terms
// 2βĊ + γ²C (β = γ = 50), and the trapezoidal rule is A-stable, so the
// stiff pressure modes do not limit dt.
#pragma once
#include <type_traits>

#include "../linearize/counterpart.hpp"
#include "../models/hydraulically_actuated.hpp"
#include "settings.hpp"

namespace hs {

template <class System>
struct Index1Trapezoidal {
  using Form = Index1Form<System>;
  using Forcing = typename Form::Forcing;
  static constexpr int N = Form::N;

  struct Settings {
    double t0 = 0.0;   // [s] start of the step grid, t_k = t0 + k·dt
    double dt = 1e-4;
    int max_newton_iterations = 12;
    // Convergence of the Newton increment, per block of X.
    double position_tolerance = 1e-11;   // m or rad
    double velocity_tolerance = 1e-9;    // m/s or rad/s
    double pressure_tolerance = 1e-4;    // Pa
    double spool_tolerance = 1e-12;      // V
  };

  // The Newton matrix I − dt/2 ∂F/∂X, factored, kept across steps while
  // Newton converges fast with it (simplified Newton): the exact Jacobian
  // costs ~2N evaluations of F, a step with a current matrix two or three.
  struct Workspace {
    Mat<double, N, N> lu;
    int perm[N];
    bool valid = false;
    long refreshes = 0;
  };

  HS_HD static bool refresh(const typename System::Params& P, const typename System::Constants& K, double dt,
                            const double* X, const Forcing& f, Workspace& W) {
    W.valid = false;
    if (!Form::jacobian_exact(P, K, X, f, W.lu)) return false;
    for (int i = 0; i < N; ++i)
      for (int c = 0; c < N; ++c) W.lu(i, c) = (i == c ? 1.0 : 0.0) - 0.5 * dt * W.lu(i, c);
    if (!lu_factor(W.lu, W.perm)) return false;
    W.valid = true;
    ++W.refreshes;
    return true;
  }

  // Step k = step_index: from (t_k, X, F(X)) to t_{k+1}, times on the grid t_k = t0 + k·dt
  // (grid_time; a caller's running sum would drift off it, and a forcing that
  // switches at a grid time, as TorquePulse at t2, would switch a step early
  // or late). `forcing(t, f)` sets the applied forces and U_ref at time t.
  // On success X and Fx hold the new state. `iterations` (if given) receives
  // the Newton iterations of the step, both attempts together.
  template <class StepIndex, class ForcingAt>
  HS_HD static Status step(const typename System::Params& P, const typename System::Constants& K,
                           const Settings& S, Workspace& W, StepIndex step_index, double* X, double* Fx,
                           ForcingAt forcing, int* iterations = nullptr) {
    static_assert(std::is_integral<StepIndex>::value, "step takes the step index k (t_k = t0 + k dt), not a time");
    const double dt = S.dt;
    Forcing f1;
    forcing(grid_time(S.t0, static_cast<double>(step_index + 1), dt), f1);
    double rhs0[N];
    for (int k = 0; k < N; ++k) rhs0[k] = X[k] + 0.5 * dt * Fx[k];
    int count = 0;
    if (iterations) *iterations = 0;
    // Two attempts: with the kept matrix, then with a fresh one.
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!W.valid || attempt == 1)
        if (!refresh(P, K, dt, X, f1, W)) return Status::constraint_failure;
      double Y[N];
      for (int k = 0; k < N; ++k) Y[k] = X[k] + dt * Fx[k];  // explicit predictor
      const int max_it = attempt == 0 ? 4 : S.max_newton_iterations;
      for (int it = 0; it < max_it; ++it) {
        if (iterations) *iterations = ++count;
        double FY[N], G[N], dY[N];
        if (!Form::rates(P, K, Y, f1, FY)) break;
        for (int i = 0; i < N; ++i) G[i] = -(Y[i] - rhs0[i] - 0.5 * dt * FY[i]);
        lu_solve(W.lu, W.perm, G, dY);
        bool converged = true, finite = true;
        for (int i = 0; i < N; ++i) {
          Y[i] += dY[i];
          finite = finite && fabs(dY[i]) < 1e300;
          const double tol = i < Form::iv ? S.position_tolerance
                           : i < Form::ip ? S.velocity_tolerance
                           : i < Form::iu ? S.pressure_tolerance
                                          : S.spool_tolerance;
          converged = converged && fabs(dY[i]) <= tol;
        }
        if (!finite) break;
        if (converged) {
          if (!Form::rates(P, K, Y, f1, Fx)) return Status::constraint_failure;
          for (int k = 0; k < N; ++k) X[k] = Y[k];
          return Status::ok;
        }
      }
    }
    return Status::newton_failure;
  }
};

}  // namespace hs
