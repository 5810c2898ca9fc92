// Stability of a model under a sampled controller with zero-order hold,
// about a held pose (docs/models/linearization.md §11, docs/models/manipulator.md §11.7):
// one point of a closed-loop stability map.
//
// The loop is a discrete-time system at the controller's samples t_k = kT:
//   plant      ż = f(z, u)              (minimal_coordinates.hpp: z = (q, q̇, p))
//   law        v_k = g(z_k, m_k),  m_{k+1} = h(z_k, m_k)   (controller memory m)
//   valve      u_k = v_k / k_a(side)    (the law inverts the valve gain, seed 004 eq 91)
//   hold       u(t) = u_k on [t_k, t_k + T)
// Linearized about the closed-loop equilibrium (z*, m*, u = 0):
//   δz_{k+1} = Φ δz_k + Γ_σ δu_k,  Φ = e^{AT},  Γ = ∫₀ᵀ e^{As} ds B   (exact ZOH,
//   kernels/core/matrix_exponential.hpp), so the plant is not the integrator's
//   discretization but the continuous one sampled exactly;
//   the monodromy over one period
//     M_σ = [ Φ + Γ_σ K⁻¹ G_z    Γ_σ K⁻¹ G_m ]
//           [ H_z                H_m         ]
// with A = ∂f/∂z and G, H by dual numbers. The valve is not differentiable at
// u = 0: its flow is linear in u on each side with a different slope (P → A,
// B → T opens for u > 0, A → T, P → B for u < 0), and the law divides by the
// gain of the side it opens. So the loop is piecewise linear: per actuator a
// side σ_a ∈ {+, −}, B's column and the law's gain k_a(σ_a) taken together.
// The point reports the worst (largest Re λ) of the 2^na sign patterns; with
// the controller's valve model equal to the plant's all patterns coincide
// (the gain cancels: only the chambers' split of the flow differs, which
// moves the pressure level, not the force; see below).
//
// Eigenvalues are reported as continuous-time equivalents λ = ln μ / T
// (principal logarithm) so that a map reads as the open-loop maps do (Re λ
// in 1/s, < 0 stable; |μ| < 1 ⇔ Re λ < 0). Frequencies above the Nyquist
// frequency π/T fold; a negative real multiplier is a mode at π/T. A
// multiplier at 0 (a dead-beat memory mode) is Re λ = −∞.
//
// Structural multipliers: with the valves closed each cylinder's pressure
// level at constant piston force is free (no leakage: no flow changes it,
// the force does not see it, the law reads only the force), so every
// actuator without leakage adds a multiplier μ = 1, λ = 0, whatever the
// gains: excluded from max_real like the open-loop map's structural zeros.
#pragma once
#include "../core/decision_log.hpp"
#include "../core/matrix_exponential.hpp"
#include "minimal_coordinates.hpp"
#include "stability.hpp"

namespace hs {

template <class Model>
struct SampledClosedLoop {
  using Params = typename Model::Params;
  using Plant = MinimalCoordinates<Model>;
  using Input = typename Model::Input;
  using Circuit = typename Model::Circuit;
  static constexpr int N = Plant::N, ni = Plant::ni, na = Model::na, npa = Model::npa, np = Model::np;
  static constexpr int nm = Input::linear_memory;
  static constexpr int size = N + nm;
  static constexpr int r = np;  // pressures a point reports
  using Stability = StabilityResult<size>;

  // The law at a plant state z whose actuator lengths s and rates ṡ are
  // known (from the plant's rates at z): its observation q, q̇, s, ṡ, the
  // pressures; v the valve commands, m_next the memory.
  template <class T>
  HS_HD static void observed_law(const Params& P, const double* q_hold, const T* z, const T* s, const T* sdot, const T* m,
                                 T* v, T* m_next) {
    Input::sampled_law(P, q_hold, z + Plant::iz, z + Plant::izd, s, sdot, z + Plant::ip, m, v, m_next);
  }
  // The law's observation from a plant state z on any scalar: q, q̇, the
  // actuator lengths and rates, the pressures.
  template <class T>
  HS_HD static bool law(const Params& P, const typename Plant::Reference& R, const double* q_hold, const T* z, const T* m,
                        T* v, T* m_next) {
    T zdot[N], s[na], sdot[na];
    const double u0[na] = {};
    if (!Plant::rates(P, R, z, u0, zdot, s, sdot)) return false;
    observed_law(P, q_hold, z, s, sdot, m, v, m_next);
    return true;
  }

  // The closed-loop equilibrium about the held pose: q̇ = 0, z̈ = 0 and v = 0
  // with the memory at its fixed point m = h(z, m); unknowns the joint
  // coordinates and each actuator's piston-side pressure (the others at the
  // circuit's static values: the free pressure level). Newton on dual numbers.
  HS_HD static Status equilibrium(const Params& P, const typename Plant::Reference& R, const double* q_hold, double* z,
                                  double* m) {
    constexpr int nu = ni + na;
    using D = Dual<nu>;
    const int ps = Circuit::piston_side;
    for (int it = 0; it < 30; ++it) {
      D zj[N], mj[nm], mn[nm], v[na], zdot[N], s[na], sdot[na];
      for (int k = 0; k < N; ++k) zj[k] = D(z[k]);
      for (int j = 0; j < ni; ++j) zj[Plant::iz + j] = D::variable(z[Plant::iz + j], j);
      for (int a = 0; a < na; ++a) zj[Plant::ip + a * npa + ps] = D::variable(z[Plant::ip + a * npa + ps], ni + a);
      // The plant's rates once per iterate, with the law's observation (s,
      // ṡ): the law's two passes below read the same plant state. (Three
      // passes of the plant, one per law call and one for ż, were ~3/4 of a
      // manipulator map point, docs/models/manipulator.md §11.7.) ż is the
      // caller's array, never a pointer chosen between arrays: that form, in
      // the law's call, gave nvcc (CUDA 13, sm_90) a kernel whose equilibrium
      // left the CPU's (2026-11-26, tests/device_trace.cu).
      const double u0[na] = {};
      if (!Plant::rates(P, R, zj, u0, zdot, s, sdot)) return Status::constraint_failure;
      // The memory's fixed point: h does not read m for a law whose memory
      // is the last sample's output (checked: the second pass must agree).
      for (int k = 0; k < nm; ++k) mj[k] = D(0.0);
      observed_law(P, q_hold, zj, s, sdot, mj, v, mn);
      observed_law(P, q_hold, zj, s, sdot, mn, v, mj);
      D res[nu];
      for (int j = 0; j < ni; ++j) res[j] = zdot[Plant::izd + j];
      for (int a = 0; a < na; ++a) res[ni + a] = v[a];
      Mat<double, nu, nu> J;
      double f[nu], step[nu];
      double scale_q = 0.0, scale_v = 0.0;
      for (int i = 0; i < nu; ++i) {
        f[i] = res[i].a;
        for (int j = 0; j < nu; ++j) J(i, j) = res[i].v[j];
      }
      for (int k = 0; k < nm; ++k) m[k] = mj[k].a;
      // Converged when the step is at rounding level of the unknowns.
      if (!solve_linear(J, f, step)) return Status::newton_failure;
      for (int j = 0; j < ni; ++j) {
        z[Plant::iz + j] -= step[j];
        scale_q = fmax(scale_q, fabs(step[j]));
      }
      for (int a = 0; a < na; ++a) {
        double& p = z[Plant::ip + a * npa + ps];
        p -= step[ni + a];
        scale_v = fmax(scale_v, fabs(step[ni + a]) / fmax(fabs(p), 1.0));
      }
      if (!(scale_q < 1e30) || !(scale_v < 1e30)) return Status::newton_failure;
      if (HS_DECISION(equilibrium_converged, scale_q <= 1e-14 && scale_v <= 1e-14, fmax(scale_q, scale_v), 1e-14))
        return Status::ok;
    }
    return Status::newton_failure;
  }

  HS_HD static Stability stability_point(const Params& P, const StabilitySettings& S) {
    Stability out;
    blank_stability(out);
    const double T = Input::sample_period(P.input);
    double q_hold[ni];
    Input::held_pose(P, q_hold);
    typename Plant::Reference R;
    if (!(T > 0.0) || !Plant::reference(P, q_hold, R)) {
      out.status = static_cast<int>(Status::constraint_failure);
      return out;
    }
    // Start: the pose held by the plant's static forces.
    double z[N], m[nm];
    {
      double F[na];
      if (!Plant::holding_forces(P, R, F)) {
        out.status = static_cast<int>(Status::invalid_parameters);
        return out;
      }
      for (int j = 0; j < ni; ++j) {
        z[Plant::iz + j] = q_hold[j];
        z[Plant::izd + j] = 0.0;
      }
      for (int a = 0; a < na; ++a) {
        double w[Model::nwa > 0 ? Model::nwa : 1];
        Model::Actuator::static_state(P.actuator[a], R.K.actuator[a], F[a], z + Plant::ip + a * npa, w);
      }
    }
    const Status st = equilibrium(P, R, q_hold, z, m);
    out.status = static_cast<int>(st);
    if (st != Status::ok) return out;
    out.crank_angle = z[Plant::iz];
    out.pressure_count = np < kStabilityPressures ? np : kStabilityPressures;
    for (int k = 0; k < out.pressure_count; ++k) out.pressure[k] = z[Plant::ip + k];
    for (int k = 0; k < np; ++k)
      if (!(z[Plant::ip + k] > 0.0)) {
        out.status = static_cast<int>(Status::invalid_parameters);  // no admissible pressures hold the pose
        return out;
      }

    // A = ∂f/∂z at u = 0; B per actuator and side (the flow is linear in u on each side).
    Mat<double, N, N> A;
    Mat<double, N, 2 * na> B;
    double s_eq[na], sdot_eq[na];  // actuator lengths at the equilibrium (the law's gain reads them)
    {
      using D = Dual<N>;
      D zj[N], fj[N];
      for (int k = 0; k < N; ++k) zj[k] = D::variable(z[k], k);
      const double u0[na] = {};
      if (!Plant::rates(P, R, zj, u0, fj)) {
        out.status = static_cast<int>(Status::constraint_failure);
        return out;
      }
      for (int i = 0; i < N; ++i)
        for (int k = 0; k < N; ++k) A(i, k) = fj[i].v[k];
      double f0[N], f1[N];
      Plant::rates(P, R, z, u0, f0, s_eq, sdot_eq);
      for (int a = 0; a < na; ++a)
        for (int side = 0; side < 2; ++side) {
          double u[na] = {};
          u[a] = side == 0 ? 1.0 : -1.0;
          Plant::rates(P, R, z, u, f1);
          for (int i = 0; i < N; ++i) B(i, side * na + a) = side == 0 ? f1[i] - f0[i] : f0[i] - f1[i];
        }
    }
    // The law's Jacobians G_z, G_m, H_z, H_m.
    double Gz[na][N], Gm[na][nm], Hz[nm][N], Hm[nm][nm];
    {
      using D = Dual<N + nm>;
      D zj[N], mj[nm], v[na], mn[nm];
      for (int k = 0; k < N; ++k) zj[k] = D::variable(z[k], k);
      for (int k = 0; k < nm; ++k) mj[k] = D::variable(m[k], N + k);
      if (!law(P, R, q_hold, zj, mj, v, mn)) {
        out.status = static_cast<int>(Status::constraint_failure);
        return out;
      }
      for (int a = 0; a < na; ++a) {
        for (int k = 0; k < N; ++k) Gz[a][k] = v[a].v[k];
        for (int k = 0; k < nm; ++k) Gm[a][k] = v[a].v[N + k];
      }
      for (int i = 0; i < nm; ++i) {
        for (int k = 0; k < N; ++k) Hz[i][k] = mn[i].v[k];
        for (int k = 0; k < nm; ++k) Hm[i][k] = mn[i].v[N + k];
      }
    }
    Mat<double, N, N> Phi;
    Mat<double, N, 2 * na> Gamma;
    if (!zero_order_hold(A, B, T, Phi, Gamma)) {
      out.status = static_cast<int>(Status::diverged);
      return out;
    }
    double gain[2][na];
    for (int a = 0; a < na; ++a)
      for (int side = 0; side < 2; ++side) gain[side][a] = Input::input_gain(P, a, side == 0, z + Plant::ip, s_eq);

    // Every sign pattern; keep the worst.
    bool any = false;
    for (int pattern = 0; pattern < (1 << na); ++pattern) {
      double Gs[N][na];
      for (int a = 0; a < na; ++a) {
        const int side = (pattern >> a) & 1;
        const double k = gain[side][a];
        for (int i = 0; i < N; ++i) Gs[i][a] = k > 0.0 ? Gamma(i, side * na + a) / k : 0.0;
      }
      Mat<double, size, size> M;
      for (int i = 0; i < N; ++i) {
        for (int k = 0; k < N; ++k) {
          double s = Phi(i, k);
          for (int a = 0; a < na; ++a) s += Gs[i][a] * Gz[a][k];
          M(i, k) = s;
        }
        for (int k = 0; k < nm; ++k) {
          double s = 0.0;
          for (int a = 0; a < na; ++a) s += Gs[i][a] * Gm[a][k];
          M(i, N + k) = s;
        }
      }
      for (int i = 0; i < nm; ++i) {
        for (int k = 0; k < N; ++k) M(N + i, k) = Hz[i][k];
        for (int k = 0; k < nm; ++k) M(N + i, N + k) = Hm[i][k];
      }
      const EigenResult<size> ev = eigenvalues<size>(M);
      if (ev.status != eigen_ok) continue;
      double re[size], im[size];
      for (int k = 0; k < size; ++k) {
        const double mag = hypot(ev.re[k], ev.im[k]);
        re[k] = mag > 0.0 ? log(mag) / T : -INFINITY;
        im[k] = mag > 0.0 ? atan2(ev.im[k], ev.re[k]) / T : 0.0;
      }
      Stability candidate = out;
      classify_eigenvalues(re, im, S, candidate);
      if (!any || candidate.max_real > out.max_real) out = candidate;
      any = true;
    }
    if (!any) out.status = static_cast<int>(Status::diverged);
    return out;
  }
};

}  // namespace hs
