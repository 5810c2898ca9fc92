// Linearization at equilibrium (seed 000): equilibrium, reduced Jacobian,
// counterpart, nonlinear reference run, stability figures.
// References are closed forms (eq 90 geometry), independent formulations
// of the same mechanism (planar relative coordinates vs the 3D model with
// 10 coordinates), the exact and finite-difference counterpart, and Eigen
// in extended precision.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "kernels/integrators/index1_trapezoidal.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/counterpart.hpp"
#include "kernels/linearize/reduced_jacobian.hpp"
#include "kernels/linearize/stability.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/planar_chain_dae.hpp"
#include "kernels/models/spatial_four_bar.hpp"

using namespace hs;
using Planar = ActuatedSystem<PlanarChainDae<3>, BrownMcPhee>;
using Spatial = ActuatedSystem<SpatialFourBarDae, BrownMcPhee>;
using Complex = std::complex<double>;

namespace {

constexpr double kDegree = kPi / 180.0;

FourBarParams with_friction_scale(double scale) {
  FourBarParams P = seed002_four_bar();
  scale_friction(P.friction, scale);
  return P;
}

// Diagonal similarity by powers of two (exact: the eigenvalues do not
// change) so that the reference eigen-solver sees rows and columns of
// comparable norm; written here independently of kernels/eigen.
template <class Matrix>
void balance_radix2(Matrix& A) {
  const int n = static_cast<int>(A.rows());
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < n; ++i) {
      long double c = 0, r = 0;
      for (int j = 0; j < n; ++j)
        if (j != i) { c += std::abs(A(j, i)); r += std::abs(A(i, j)); }
      if (c == 0 || r == 0) continue;
      long double f = 1;
      const long double s = c + r;
      while (c < r / 2) { c *= 4; f *= 2; }
      while (c > r * 2) { c /= 4; f /= 2; }
      if ((c + r) / f < 0.95L * s) {
        changed = true;
        A.row(i) /= static_cast<typename Matrix::Scalar>(f);
        A.col(i) *= static_cast<typename Matrix::Scalar>(f);
      }
    }
  }
}

// Reference eigenvalues (and condition numbers κ_i = ‖y_i‖‖x_i‖/|y_iᴴx_i|)
// in long double after balancing.
template <int N>
void reference_eigen(const Mat<double, N, N>& J, std::vector<Complex>& values, std::vector<double>* kappa = nullptr,
                     double* norm = nullptr) {
  using ML = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
  ML A(N, N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) A(i, j) = J(i, j);
  balance_radix2(A);
  Eigen::EigenSolver<ML> es(A, kappa != nullptr);
  values.clear();
  for (int i = 0; i < N; ++i)
    values.emplace_back(static_cast<double>(es.eigenvalues()(i).real()), static_cast<double>(es.eigenvalues()(i).imag()));
  if (norm) *norm = static_cast<double>(A.norm());
  if (kappa) {
    const auto V = es.eigenvectors();
    const auto W = V.inverse();  // rows: left eigenvectors, W V = I
    kappa->clear();
    for (int i = 0; i < N; ++i) kappa->push_back(static_cast<double>(W.row(i).norm() * V.col(i).norm()));
  }
}

// Greedy one-to-one matching: for each a, the nearest unused b.
double max_relative_mismatch(const std::vector<Complex>& a, const std::vector<Complex>& b) {
  std::vector<bool> used(b.size(), false);
  double worst = 0.0;
  for (const Complex& x : a) {
    int best = -1;
    for (size_t j = 0; j < b.size(); ++j)
      if (!used[j] && (best < 0 || std::abs(b[j] - x) < std::abs(b[best] - x))) best = static_cast<int>(j);
    used[best] = true;
    worst = std::max(worst, std::abs(b[best] - x) / std::abs(x));
  }
  return worst;
}

// The eigenvalues whose modulus exceeds `floor` × the spectral radius.
std::vector<Complex> nonzero(const std::vector<Complex>& v, double floor = 1e-9) {
  double radius = 0.0;
  for (const Complex& z : v) radius = std::max(radius, std::abs(z));
  std::vector<Complex> out;
  for (const Complex& z : v)
    if (std::abs(z) > floor * radius) out.push_back(z);
  return out;
}

template <class System>
Mat<double, 6, 6> jacobian_at(const FourBarParams& P, Equilibrium<System>* eq_out = nullptr) {
  Equilibrium<System> eq;
  EXPECT_EQ(solve_equilibrium<System>(P, eq), Status::ok);
  Mat<double, 6, 6> J;
  EXPECT_TRUE(reduced_jacobian<System>(P, eq, J));
  if (eq_out) *eq_out = eq;
  return J;
}

double wrap_degrees(double rad) {
  double d = std::fmod(rad / kDegree, 360.0);
  return d < 0 ? d + 360.0 : d;
}

}  // namespace

// Eq (90): x_G2 = 0, y_G2 = 0.5, z_G2 = √3/2, ψ2 = θ2 = 0, φ2 = 60°,
// s = √3, α = 30°, φ32 ≈ 322.1°, φ43 ≈ 266.4°; p1 = p2 (no throttle flow).
TEST(Linearize, SpatialEquilibriumAtSixtyDegrees) {
  const FourBarParams P = seed002_four_bar();
  ASSERT_DOUBLE_EQ(P.mechanism.initial_angle[0], 60.0 * kDegree);
  Equilibrium<Spatial> eq;
  ASSERT_EQ(solve_equilibrium<Spatial>(P, eq), Status::ok);
  using C = SpatialFourBarDae;
  EXPECT_NEAR(eq.x[C::xG2], 0.0, 1e-10);
  EXPECT_NEAR(eq.x[C::yG2], 0.5, 1e-10);
  EXPECT_NEAR(eq.x[C::zG2], std::sqrt(3.0) / 2.0, 1e-10);
  EXPECT_NEAR(eq.x[C::psi2], 0.0, 1e-10);
  EXPECT_NEAR(eq.x[C::theta2], 0.0, 1e-10);
  EXPECT_NEAR(eq.x[C::phi2], 60.0 * kDegree, 1e-15);
  EXPECT_NEAR(eq.x[C::s], std::sqrt(3.0), 1e-10);
  EXPECT_NEAR(eq.x[C::alpha], 30.0 * kDegree, 1e-10);
  // The printed angles have one decimal; the planar loop closure (an
  // independent formulation) gives them to rounding.
  EXPECT_NEAR(wrap_degrees(eq.x[C::phi32]), 322.1, 0.05);
  EXPECT_NEAR(wrap_degrees(eq.x[C::phi43]), 266.4, 0.05);
  Equilibrium<Planar> planar;
  ASSERT_EQ(solve_equilibrium<Planar>(P, planar), Status::ok);
  EXPECT_NEAR(eq.x[C::phi32], planar.x[1], 1e-10);
  EXPECT_NEAR(eq.x[C::phi43], planar.x[2], 1e-10);
  EXPECT_LE(eq.constraint_residual, 1e-12);
  // Pressures: p1 = p2, p3 prescribed; the same statics in both formulations.
  EXPECT_EQ(eq.p[0], eq.p[1]);
  EXPECT_EQ(eq.p[2], P.circuit.rod_side_initial_pressure);
  EXPECT_NEAR(eq.p[1], planar.p[1], 1e-9 * planar.p[1]);
  EXPECT_NEAR(eq.p[1], 2.75e6, 0.01e6);  // reference-parameters.md: "about 2.75 MPa"
  // Multipliers, eq (84): Λ1 = Λ4 = Λ5 = Λ8 = Λ9 = 0 (the cylinder force acts at G2).
  double largest = 0.0;
  for (double l : eq.lambda) largest = std::max(largest, std::fabs(l));
  for (int k : {0, 3, 4, 7, 8}) EXPECT_LE(std::fabs(eq.lambda[k]), 1e-12 * largest) << "Lambda" << k + 1;
  for (int k : {1, 2, 5, 6}) EXPECT_GT(std::fabs(eq.lambda[k]), 1e-3 * largest) << "Lambda" << k + 1;
  EXPECT_LE(eq.statics_residual, 1e-9 * largest);
}

// Eq (93): the sparsity of the 6×6 Jacobian in (φ2, ω2, p1, p2, p3, U).
TEST(Linearize, ReducedJacobianHasTheSparsityOfEq93) {
  const Mat<double, 6, 6> J = jacobian_at<Spatial>(seed002_four_bar());
  // Nonzero pattern, the valve column aside (below).
  const int pattern[6][5] = {{0, 1, 0, 0, 0},   // φ̃2' = ω̃2
                             {1, 1, 0, 1, 1},   // ω̃2' = ν1 φ̃2 + ν2 ω̃2 + ν3 p̃2 + ν4 p̃3
                             {0, 0, 1, 1, 0},   // p̃1' = ν5 (p̃1 − p̃2)
                             {0, 1, 1, 1, 0},   // p̃2' = ν6 ω̃2 + ν7 (p̃1 − p̃2)
                             {0, 1, 0, 0, 0},   // p̃3' = ν8 ω̃2
                             {0, 0, 0, 0, 0}};  // Ũ' = −Ũ/τ
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) {
      if (pattern[i][j]) EXPECT_NE(J(i, j), 0.0) << i << "," << j;
      else EXPECT_EQ(J(i, j), 0.0) << i << "," << j;
    }
  EXPECT_EQ(J(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(J(2, 3), -J(2, 2));  // ν5, −ν5
  EXPECT_DOUBLE_EQ(J(3, 3), -J(3, 2));  // ν7, −ν7
  // Valve column: only the DCV ports (V1 and V3) see the spool, and the
  // spool row is −1/τ alone. Eq (93) prints no Ũ coupling at all; the gain
  // here is ∂H/∂U for U → 0⁺ (one-sided: the closed-centre valve switches
  // ports at 0). It cannot change the eigenvalues: the Ũ row is decoupled.
  EXPECT_GT(J(2, 5), 0.0);  // opening P→A fills V1
  EXPECT_EQ(J(0, 5), 0.0);
  EXPECT_EQ(J(1, 5), 0.0);
  EXPECT_EQ(J(3, 5), 0.0);
  EXPECT_LT(J(4, 5), 0.0);  // B→T drains V3
  EXPECT_DOUBLE_EQ(J(5, 5), -1.0 / seed002_four_bar().circuit.valve_time_constant);
}

// Friction enters only ν2 = −F_μ'(0) T_s²/m0, linearly (§3.5).
TEST(Linearize, FrictionScalesOnlyNu2) {
  const Mat<double, 6, 6> J1 = jacobian_at<Spatial>(with_friction_scale(1.0));
  const Mat<double, 6, 6> J10 = jacobian_at<Spatial>(with_friction_scale(0.1));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      if (i == 1 && j == 1) EXPECT_NEAR(J10(i, j), 0.1 * J1(i, j), 1e-13 * std::fabs(J1(i, j)));
      else EXPECT_EQ(J10(i, j), J1(i, j)) << i << "," << j;
    }
  // ν2 from the closed form of the Brown–McPhee slope at 0 (linearization.md §1.1).
  const FrictionParams& f = seed002_four_bar().friction;
  const double slope = 4 * f.coulomb_force / f.stribeck_velocity +
                       16.0 / 9.0 * (f.static_force - f.coulomb_force) / f.stribeck_velocity + f.viscous_coefficient;
  // ν3 = A2 T_s/m0 gives T_s/m0; T_s = ∂s/∂φ2 = −sin φ2 d1 / s = −1/2 at 60°.
  const CircuitConstants K = ThreeVolumeCircuit::constants(seed002_four_bar().circuit);
  const double Ts = -0.5;
  const double m0 = K.A_piston * Ts / J1(1, 3);
  EXPECT_NEAR(J1(1, 1), -slope * Ts * Ts / m0, 1e-12 * slope * Ts * Ts / m0);
}

// Two structural zeros (rank 4), λ6 = −1/τ, and the damping pattern of
// seed 000 Table 3 for friction ×1, ×1/10, ×1/100 — with the per-thread
// eigen routine, checked against the extended-precision reference.
TEST(Linearize, EigenvaluesOfTheThreeFrictionScenarios) {
  const double tau = seed002_four_bar().circuit.valve_time_constant;
  for (double scale : {1.0, 0.1, 0.01}) {
    SCOPED_TRACE(scale);
    const FourBarParams P = with_friction_scale(scale);
    const Mat<double, 6, 6> J = jacobian_at<Spatial>(P);
    // Rank 4 on the balanced matrix (independent of the eigen-solver).
    Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic> A(6, 6);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = J(i, j);
    balance_radix2(A);
    Eigen::FullPivLU<decltype(A)> lu(A);
    lu.setThreshold(1e-14L);
    EXPECT_EQ(lu.rank(), 4);

    const StabilityOf<Spatial> s = stability_point<Spatial>(P, StabilitySettings{});
    ASSERT_EQ(s.status, 0);
    EXPECT_EQ(s.structural_zeros, 2);
    std::vector<Complex> ours, ref;
    for (int k = 0; k < 6; ++k) ours.emplace_back(s.re[k], s.im[k]);
    reference_eigen(J, ref);
    EXPECT_LE(max_relative_mismatch(nonzero(ours), nonzero(ref)), 1e-10);
    // λ6 = −1/τ.
    double valve = 1e300;
    for (const Complex& z : ours) valve = std::min(valve, std::abs(z + 1.0 / tau) * tau);
    EXPECT_LE(valve, 1e-12);
    // λ3..λ5: the remaining three.
    std::vector<Complex> rest;
    for (const Complex& z : nonzero(ours))
      if (std::abs(z + 1.0 / tau) * tau > 1e-9) rest.push_back(z);
    ASSERT_EQ(rest.size(), 3u);
    int complex_count = 0;
    for (const Complex& z : rest) {
      EXPECT_LT(z.real(), 0.0);
      if (std::fabs(z.imag()) > 1e-6 * std::abs(z)) ++complex_count;
    }
    if (scale == 1.0) {
      EXPECT_EQ(complex_count, 0);  // overdamped
      EXPECT_EQ(s.overdamped, 1);
      EXPECT_TRUE(std::isnan(s.damping_ratio));
    } else {
      EXPECT_EQ(complex_count, 2);  // one real + one complex pair
      EXPECT_EQ(s.overdamped, 0);
      EXPECT_GT(s.damping_ratio, 0.0);
      EXPECT_LT(s.damping_ratio, 1.0);
      EXPECT_GT(s.frequency, 0.0);
    }
    EXPECT_LT(s.max_real, 0.0);
  }
  // Lower friction, less damping of the pair (Figs 9–12).
  const auto s10 = stability_point<Spatial>(with_friction_scale(0.1), StabilitySettings{});
  const auto s100 = stability_point<Spatial>(with_friction_scale(0.01), StabilitySettings{});
  EXPECT_GT(s10.damping_ratio, s100.damping_ratio);
}

// The two left null vectors of §3.5 (conserved oil in V3 and in V1 ∪ V2)
// annihilate the pressure/mechanics block: the physical origin of the zeros.
TEST(Linearize, StructuralZerosAreTheConservedOilVolumes) {
  const Mat<double, 6, 6> J = jacobian_at<Spatial>(seed002_four_bar());
  const double nu5 = J(2, 2), nu6 = J(3, 1), nu7 = J(3, 2), nu8 = J(4, 1);
  const double w1[5] = {nu8, 0, 0, 0, -1};
  const double w2[5] = {-nu6, 0, -nu7 / nu5, 1, 0};
  for (const double* w : {w1, w2})
    for (int j = 0; j < 5; ++j) {
      double s = 0.0, scale = 0.0;
      for (int i = 0; i < 5; ++i) {
        s += w[i] * J(i, j);
        scale += std::fabs(w[i] * J(i, j));
      }
      EXPECT_LE(std::fabs(s), 1e-14 * std::max(scale, 1.0)) << j;
    }
}

// Same mechanism, two formulations: relative joint coordinates (3 coordinates,
// 2 constraints) and the 3D model (10, 9). Same nonzero eigenvalues, at the
// seed 000 point and at random admissible parameter points.
TEST(Linearize, PlanarAndSpatialFormulationsAgree) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (int trial = 0; trial < 25; ++trial) {
    FourBarParams P = with_friction_scale(trial == 0 ? 1.0 : std::pow(10.0, -3.0 * u01(rng)));
    if (trial > 0) {
      P.mechanism.initial_angle[0] = (45.0 + 30.0 * u01(rng)) * kDegree;
      P.circuit.oil_bulk_modulus = 0.5e9 + 1.5e9 * u01(rng);
      P.circuit.rod_side_initial_pressure = 2e6 + 3e6 * u01(rng);
      P.mechanism.body[1].mass *= 0.8 + 0.4 * u01(rng);
    }
    SCOPED_TRACE(trial);
    const auto a = stability_point<Planar>(P, StabilitySettings{});
    const auto b = stability_point<Spatial>(P, StabilitySettings{});
    ASSERT_EQ(a.status, 0);
    ASSERT_EQ(b.status, 0);
    EXPECT_EQ(a.structural_zeros, 2);
    EXPECT_EQ(b.structural_zeros, 2);
    std::vector<Complex> za, zb;
    for (int k = 0; k < 6; ++k) {
      za.emplace_back(a.re[k], a.im[k]);
      zb.emplace_back(b.re[k], b.im[k]);
    }
    EXPECT_LE(max_relative_mismatch(nonzero(za), nonzero(zb)), 1e-8);
    EXPECT_NEAR(a.pressure[1], b.pressure[1], 1e-9 * a.pressure[1]);
  }
}

// The reduced Jacobian takes every partial derivative along the admissible
// motions (directional jets, kernels/linearize/reduced_jacobian.hpp). Check
// the directional passes against the full derivatives projected afterwards,
// computed here the long way: ∂e/∂x, ∂e/∂ẋ, ∂e/∂ẍ and H_x, H_ẋ on Dual<n>,
// the multiplier Hessian ∇²(ΛᵀC) on the nested Dual<n, Dual<n>>. Random
// states away from equilibrium and random directions (not only T), both
// models. Tolerance: rounding of sums of n² products, 1e-12 of Σ|terms|.
template <class System>
void check_directional_derivatives(std::mt19937_64& rng) {
  constexpr int n = System::n, m = System::m, r = System::r, nd = 2;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const FourBarParams P = seed002_four_bar();
  Equilibrium<System> eq;
  ASSERT_EQ(solve_equilibrium<System>(P, eq), Status::ok);
  double x0[n], xd0[n], xdd0[n], p0[r], D[n][nd], lambda[m];
  for (int k = 0; k < n; ++k) {
    x0[k] = eq.x[k] + 0.05 * u(rng);
    xd0[k] = u(rng);
    xdd0[k] = 10.0 * u(rng);
    for (int j = 0; j < nd; ++j) D[k][j] = u(rng);
  }
  for (int k = 0; k < r; ++k) p0[k] = eq.p[k] * (1.0 + 0.1 * u(rng));
  for (int i = 0; i < m; ++i) lambda[i] = std::abs(eq.lambda[i]) * u(rng) + 1e3 * u(rng);
  const double U0 = 0.5 * (1.0 + u(rng));
  const Directions<nd> dir{D};

  // Along D: one pass, directions x·D | ẋ·D | ẍ·D.
  using Dw = Dual<3 * nd>;
  Dw x[n], xd[n], xdd[n], p[r], e_dir[nd], h_dir[r];
  for (int k = 0; k < n; ++k) {
    x[k] = Dw(x0[k]);
    xd[k] = Dw(xd0[k]);
    xdd[k] = Dw(xdd0[k]);
    for (int j = 0; j < nd; ++j) {
      x[k].v[j] = D[k][j];
      xd[k].v[nd + j] = D[k][j];
      xdd[k].v[2 * nd + j] = D[k][j];
    }
  }
  for (int k = 0; k < r; ++k) p[k] = Dw(p0[k]);
  System::evaluate_along(P, eq.K, dir, x, xd, xdd, p, U0, e_dir, h_dir);

  // Full: one Dual<n> pass per argument group, projected here.
  using Dn = Dual<n>;
  for (int group = 0; group < 3; ++group) {
    Dn xf[n], xdf[n], xddf[n], pf[r], e[n], h[r];
    for (int k = 0; k < n; ++k) {
      xf[k] = group == 0 ? Dn::variable(x0[k], k) : Dn(x0[k]);
      xdf[k] = group == 1 ? Dn::variable(xd0[k], k) : Dn(xd0[k]);
      xddf[k] = group == 2 ? Dn::variable(xdd0[k], k) : Dn(xdd0[k]);
    }
    for (int k = 0; k < r; ++k) pf[k] = Dn(p0[k]);
    System::evaluate(P, eq.K, xf, xdf, xddf, pf, U0, e, h);
    for (int i = 0; i < nd; ++i) {
      double value = 0.0, value_scale = 0.0;
      for (int k = 0; k < n; ++k) {
        value += D[k][i] * e[k].a;
        value_scale += std::abs(D[k][i] * e[k].a);
      }
      EXPECT_NEAR(e_dir[i].a, value, 1e-12 * value_scale) << "Dᵀe, direction " << i;
      for (int j = 0; j < nd; ++j) {
        double projected = 0.0, scale = 0.0;
        for (int k = 0; k < n; ++k)
          for (int l = 0; l < n; ++l) {
            projected += D[k][i] * e[k].v[l] * D[l][j];
            scale += std::abs(D[k][i] * e[k].v[l] * D[l][j]);
          }
        EXPECT_NEAR(e_dir[i].v[group * nd + j], projected, 1e-12 * scale + 1e-300)
            << "Dᵀ(∂e/∂·)D, group " << group << " (" << i << ", " << j << ")";
      }
    }
    for (int i = 0; i < r; ++i) {
      EXPECT_NEAR(h_dir[i].a, h[i].a, 1e-12 * std::abs(h[i].a)) << "H, row " << i;
      for (int j = 0; j < nd; ++j) {
        double projected = 0.0, scale = 0.0;
        for (int l = 0; l < n; ++l) {
          projected += h[i].v[l] * D[l][j];
          scale += std::abs(h[i].v[l] * D[l][j]);
        }
        EXPECT_NEAR(h_dir[i].v[group * nd + j], projected, 1e-12 * scale + 1e-300)
            << "H·D, group " << group << " (" << i << ", " << j << ")";
      }
    }
  }

  // Dᵀ∇²(ΛᵀC)D: nested directional jets vs the full nested Hessian.
  using Dd = Dual<nd, Dual<nd>>;
  using Dnn = Dual<n, Dn>;
  Dd xa[n], Ca[m];
  Dnn xh[n], Ch[m];
  for (int k = 0; k < n; ++k) {
    xa[k] = Dd(along(x0[k], dir, k));
    for (int j = 0; j < nd; ++j) xa[k].v[j] = Dual<nd>(D[k][j]);
    xh[k] = Dnn::variable(Dn::variable(x0[k], k), k);
  }
  System::Mechanism::constraints(P.mechanism, xa, Ca);
  System::Mechanism::constraints(P.mechanism, xh, Ch);
  Dd psi_dir(0.0);
  Dnn psi(0.0);
  for (int i = 0; i < m; ++i) {
    psi_dir += lambda[i] * Ca[i];
    psi += lambda[i] * Ch[i];
  }
  for (int i = 0; i < nd; ++i)
    for (int j = 0; j < nd; ++j) {
      double projected = 0.0, scale = 0.0;
      for (int k = 0; k < n; ++k)
        for (int l = 0; l < n; ++l) {
          projected += D[k][i] * psi.v[k].v[l] * D[l][j];
          scale += std::abs(D[k][i] * psi.v[k].v[l] * D[l][j]);
        }
      EXPECT_NEAR(psi_dir.v[i].v[j], projected, 1e-12 * scale + 1e-300) << "Dᵀ∇²(ΛᵀC)D (" << i << ", " << j << ")";
    }
}

TEST(Linearize, DirectionalDerivativesEqualTheProjectedFullOnes) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 20; ++trial) {
    check_directional_derivatives<Planar>(rng);
    check_directional_derivatives<Spatial>(rng);
  }
}

// The counterpart (index-1 ODE, 24×24 for the 3D model): its exact
// Jacobian has the reduced eigenvalues plus 2m = 18 spurious zeros; by
// central differences the error is U-shaped in h (truncation O(h²) against
// rounding O(eps/h)), best near h = 1e-5 (seed 000 Fig. 14).
TEST(Linearize, CounterpartHasTheReducedEigenvaluesPlusSpuriousZeros) {
  using Form = Index1Form<Spatial>;
  static_assert(Form::N == 24, "2n + r + u");
  const FourBarParams P = seed002_four_bar();
  Equilibrium<Spatial> eq;
  const Mat<double, 6, 6> J = jacobian_at<Spatial>(P, &eq);
  std::vector<Complex> reduced;
  reference_eigen(J, reduced);
  const std::vector<Complex> physical = nonzero(reduced);
  ASSERT_EQ(physical.size(), 4u);

  double X0[Form::N];
  Form::state_of(eq, X0);
  Form::Forcing f;
  double F0[Form::N];
  ASSERT_TRUE(Form::rates(P, eq.K, X0, f, F0));
  for (double v : F0) EXPECT_LE(std::fabs(v), 1e-6);  // an equilibrium of the counterpart too

  Mat<double, Form::N, Form::N> Jc;
  ASSERT_TRUE(Form::jacobian_exact(P, eq.K, X0, f, Jc));
  std::vector<Complex> counterpart;
  reference_eigen(Jc, counterpart);
  std::sort(counterpart.begin(), counterpart.end(), [](Complex a, Complex b) { return std::abs(a) > std::abs(b); });
  // 4 physical + the 2 structural + 18 spurious zeros: the 20 smallest are
  // zeros. The spurious ones sit on 2×2 Jordan blocks (C̈ = 0: C(t) = C0 + Ċ0 t),
  // so rounding δ moves them by ~sqrt(δ): "zero" means ≪ the physical ones.
  for (int k = 4; k < Form::N; ++k) EXPECT_LE(std::abs(counterpart[k]), 1e-5 * std::abs(physical.back())) << k;
  counterpart.resize(4);
  EXPECT_LE(max_relative_mismatch(physical, counterpart), 1e-8);

  // Central differences, eq (100).
  auto fd_error = [&](double h) {
    Mat<double, Form::N, Form::N> Jh;
    EXPECT_TRUE(Form::jacobian_central(P, eq.K, X0, f, h, Jh));
    std::vector<Complex> e;
    reference_eigen(Jh, e);
    return max_relative_mismatch(physical, e);
  };
  const double e3 = fd_error(1e-3), e5 = fd_error(1e-5), e8 = fd_error(1e-8);
  EXPECT_LT(e5, 1e-3);
  EXPECT_LT(10 * e5, e3);
  EXPECT_LT(10 * e5, e8);
}

// Linear vs nonlinear response after the input-link torque pulse M2 of
// eq (92) (M0 = 250 N·m, t1 = 1 s, t2 = 1.5 s), overdamped scenario: the
// 6×6 linear model started at t2 from the nonlinear state (eq 94) follows
// the Baumgarte run (eq 89, β = γ = 50) within 5 % of the peak deviation.
TEST(Linearize, LinearModelFollowsTheNonlinearRunAfterTheTorquePulse) {
  using Integrator = Index1Trapezoidal<Spatial>;
  using Form = Integrator::Form;
  const FourBarParams P = seed002_four_bar();
  Equilibrium<Spatial> eq;
  const Mat<double, 6, 6> J = jacobian_at<Spatial>(P, &eq);
  constexpr int phi = SpatialFourBarDae::phi2;
  const TorquePulse M2;
  auto forcing = [&](double t, Form::Forcing& f) {
    f.beta = 50.0;
    f.gamma = 50.0;
    f.applied[phi] = M2(t);
  };
  // dt resolves the fastest mode (λ ≈ −8.3e3 1/s: λ dt ≈ −0.8).
  auto run = [&](double dt, std::vector<double>& deviation, double* X_t2, double* max_drift) {
    Integrator::Settings S;
    S.dt = dt;
    Integrator::Workspace W;
    double X[Form::N], F[Form::N];
    Form::state_of(eq, X);
    Form::Forcing f0;
    forcing(0.0, f0);
    ASSERT_TRUE(Form::rates(P, eq.K, X, f0, F));
    const long steps = std::lround(2.5 / dt), at_t2 = std::lround(M2.t2 / dt);
    *max_drift = 0.0;
    for (long k = 0; k < steps; ++k) {
      ASSERT_EQ(Integrator::step(P, eq.K, S, W, k * dt, X, F, forcing), Status::ok) << k;
      if (k + 1 == at_t2) std::copy(X, X + Form::N, X_t2);
      if (k + 1 >= at_t2) deviation.push_back(X[phi] - eq.x[phi]);
      double C[SpatialFourBarDae::m];
      SpatialFourBarDae::constraints(P.mechanism, X, C);
      for (double c : C) *max_drift = std::max(*max_drift, std::fabs(c));
    }
  };
  const double dt = 1e-4;
  std::vector<double> nonlinear, nonlinear_half;
  double Xt2[Form::N], Xt2_half[Form::N], drift, drift_half;
  run(dt, nonlinear, Xt2, &drift);
  run(dt / 2, nonlinear_half, Xt2_half, &drift_half);
  EXPECT_LE(drift, 1e-9);  // Baumgarte keeps the constraints
  double peak = 0.0;
  for (double d : nonlinear) peak = std::max(peak, std::fabs(d));
  EXPECT_GT(peak, 1e-5);  // the pulse moves the crank measurably

  // Linear model, eq (94): x̃(t2) from the nonlinear state, Ũ(t2) = 0;
  // solved exactly through the eigendecomposition (in long double).
  using VL = Eigen::Matrix<std::complex<long double>, 6, 1>;
  Eigen::Matrix<long double, 6, 6> A;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) A(i, j) = J(i, j);
  Eigen::EigenSolver<Eigen::Matrix<long double, 6, 6>> es(A, true);
  VL x0;
  x0 << Xt2[phi] - eq.x[phi], Xt2[Form::iv + phi], Xt2[Form::ip] - eq.p[0], Xt2[Form::ip + 1] - eq.p[1],
      Xt2[Form::ip + 2] - eq.p[2], 0.0L;
  const VL c = es.eigenvectors().fullPivLu().solve(x0);
  double error = 0.0, error_half_vs_full = 0.0;
  for (size_t k = 0; k < nonlinear.size(); ++k) {
    const long double tau = k * dt;
    VL e;
    for (int i = 0; i < 6; ++i) e(i) = std::exp(es.eigenvalues()(i) * tau) * c(i);
    const double linear = static_cast<double>((es.eigenvectors() * e)(0).real());
    error = std::max(error, std::fabs(linear - nonlinear[k]));
    error_half_vs_full = std::max(error_half_vs_full, std::fabs(nonlinear_half[2 * k] - nonlinear[k]));
  }
  // The nonlinear run is converged in dt far below the comparison tolerance.
  EXPECT_LE(error_half_vs_full, 0.01 * peak);
  EXPECT_LE(error, 0.05 * peak) << "peak deviation " << peak << " rad";
}

// Per-thread eigen routine on 1000 model Jacobians (random friction, bulk
// modulus, crank angle, p3; both formulations): eigenvalue-wise relative
// error ≤ 1e-10 against the extended-precision reference, for every
// eigenvalue whose condition makes that attainable (κ‖J‖/|λ| ≤ 1e4).
TEST(Linearize, PerThreadEigenvaluesMatchTheReferenceOnModelJacobians) {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  long compared = 0, total = 0;
  double worst = 0.0;
  for (int trial = 0; trial < 1000; ++trial) {
    FourBarParams P = with_friction_scale(std::pow(10.0, -3.0 * u01(rng)));
    P.mechanism.initial_angle[0] = (40.0 + 40.0 * u01(rng)) * kDegree;
    P.circuit.oil_bulk_modulus = 0.5e9 + 1.5e9 * u01(rng);
    P.circuit.rod_side_initial_pressure = 2e6 + 3e6 * u01(rng);
    Mat<double, 6, 6> J = trial % 2 ? jacobian_at<Planar>(P) : jacobian_at<Spatial>(P);
    const EigenResult<6> ours = eigenvalues<6>(J);
    ASSERT_EQ(ours.status, eigen_ok);
    std::vector<Complex> ref, mine;
    std::vector<double> kappa;
    double norm = 0.0;
    reference_eigen(J, ref, &kappa, &norm);
    for (int k = 0; k < 6; ++k) mine.emplace_back(ours.re[k], ours.im[k]);
    for (size_t i = 0; i < ref.size(); ++i) {
      ++total;
      if (kappa[i] * norm / std::abs(ref[i]) > 1e4) continue;  // the structural zeros, mainly
      ++compared;
      double best = 1e300;
      for (const Complex& z : mine) best = std::min(best, std::abs(z - ref[i]) / std::abs(ref[i]));
      worst = std::max(worst, best);
      EXPECT_LE(best, 1e-10) << "trial " << trial << " lambda " << ref[i];
    }
  }
  // 4 of 6 per matrix are physical; the filter must not empty the test.
  EXPECT_GE(compared, total * 6 / 10);
  std::printf("compared %ld of %ld eigenvalues, worst relative error %.2e\n", compared, total, worst);
}

// Bad parameters fail alone, with a status, not a crash.
// A crank-angle sweep (the natural axis of a stability map) stays on the
// assembly branch of the nominal configuration: the equilibria of both models
// keep the orientation σ = sign sin(φ43 + β3 − β2) of seed 002's guess and
// move continuously (|Δφ32|, |Δφ43| < 3 |Δφ2| between neighbours, well below a
// branch switch, which flips the coupler by ~1 rad or more), and planar and 3D agree.
TEST(Linearize, CrankAngleSweepStaysOnOneAssemblyBranch) {
  const FourBarParams nominal = seed002_four_bar();
  const auto& body = nominal.mechanism.body;
  const double beta2 = std::atan2(body[1].distal_y, body[1].distal_x);
  const double beta3 = std::atan2(body[2].distal_y, body[2].distal_x);
  const double guessed = std::sin(nominal.mechanism.initial_angle[2] + beta3 - beta2);
  const double step = 2.0 * kDegree;
  double previous[2] = {0.0, 0.0};
  bool have_previous = false;
  int assembled = 0;
  for (int i = 0; i < 180; ++i) {
    FourBarParams P = nominal;
    P.mechanism.initial_angle[0] = i * step;
    Equilibrium<Spatial> spatial;
    Equilibrium<Planar> planar;
    const Status ss = solve_equilibrium<Spatial>(P, spatial);
    const Status sp = solve_equilibrium<Planar>(P, planar);
    EXPECT_EQ(ss, sp) << "crank " << i * 2 << " deg";
    // The closure is assembled for every angle; statics may still refuse
    // (a cylinder that would have to pull: p2 <= 0).
    if (spatial.constraint_residual > 1e-12) { have_previous = false; continue; }
    ++assembled;
    const double phi32 = spatial.x[SpatialFourBarDae::phi32], phi43 = spatial.x[SpatialFourBarDae::phi43];
    EXPECT_GT(std::sin(phi43 + beta3 - beta2) * guessed, 0.0) << "crank " << i * 2 << " deg";
    EXPECT_NEAR(std::remainder(phi32 - planar.x[1], 2 * kPi), 0.0, 1e-10);
    EXPECT_NEAR(std::remainder(phi43 - planar.x[2], 2 * kPi), 0.0, 1e-10);
    if (have_previous) {
      EXPECT_LT(std::abs(std::remainder(phi32 - previous[0], 2 * kPi)), 3 * step) << "crank " << i * 2 << " deg";
      EXPECT_LT(std::abs(std::remainder(phi43 - previous[1], 2 * kPi)), 3 * step) << "crank " << i * 2 << " deg";
    }
    previous[0] = phi32;
    previous[1] = phi43;
    have_previous = true;
  }
  EXPECT_EQ(assembled, 180);  // seed 002's four-bar is a crank-rocker: the crank turns fully
}

TEST(Linearize, InadmissiblePointsAreFlagged) {
  FourBarParams P = seed002_four_bar();
  P.mechanism.cut_x = 20.0;  // output pivot out of reach: the loop cannot close
  const auto s = stability_point<Spatial>(P, StabilitySettings{});
  EXPECT_NE(s.status, 0);
  EXPECT_TRUE(std::isnan(s.max_real));
  FourBarParams Q = seed002_four_bar();
  Q.circuit.rod_side_initial_pressure = 0.01e6;  // p2 would be negative
  const auto t = stability_point<Planar>(Q, StabilitySettings{});
  EXPECT_EQ(t.status, static_cast<int>(Status::invalid_parameters));
}
