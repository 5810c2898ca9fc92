// kernels/models/quick_return.hpp: seed 001's quick-return mechanism in the
// DAE contract, against independent derivations (docs/models/quick-return.md §8).
//
// - Assembly: Newton on Φ(z) = 0 with z4 held reproduces seed 001's z(0).
// - Dynamics: the virtual-power residual (rigid_body_system.hpp, from body
//   frames) equals Lagrange's equations built from kinetic_energy and
//   potential_energy (explicit point velocities) by nested dual numbers.
// - Constraints: Φ_z by dual numbers vs central differences; the
//   acceleration constraint Φ̈ vs d²Φ/dt² along a path (exact jets and
//   second differences).
// - Cylinder: s0 by hand (law of cosines), ∂s/∂z vs finite differences.
// - Statics: the cylinder force that holds z(0) and the pressure it needs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>

#include "kernels/core/lu.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/equilibrium.hpp"
#include "kernels/linearize/stability.hpp"
#include "kernels/models/quick_return.hpp"

using namespace hs;
using Mech = QuickReturnDae;
using System = ActuatedSystem<QuickReturnDae, NoFriction>;

namespace {

constexpr double kDegree = kPi / 180.0;
constexpr int n = Mech::n, m = Mech::m;
// Dependent coordinates when z4 (index 3) is independent.
constexpr int kDep[m] = {0, 1, 2, 4};

double max_abs(const double* v, int k) {
  double r = 0.0;
  for (int i = 0; i < k; ++i) r = std::fmax(r, std::fabs(v[i]));
  return r;
}

// Φ and Φ_z (dual numbers).
void constraints_and_jacobian(const Mech::Params& P, const double* z, double* phi, double (*J)[n]) {
  Dual<n> zj[n], pj[m];
  for (int k = 0; k < n; ++k) zj[k] = Dual<n>::variable(z[k], k);
  Mech::constraints(P, zj, pj);
  for (int i = 0; i < m; ++i) {
    phi[i] = pj[i].a;
    for (int k = 0; k < n; ++k) J[i][k] = pj[i].v[k];
  }
}

// Newton on the dependent coordinates with z4 held; returns the iterations
// used (−1: no convergence to |Φ|∞ ≤ tol).
int close_loop(const Mech::Params& P, double* z, double tol, double* residual) {
  for (int it = 0; it <= 50; ++it) {
    double phi[m], J[m][n];
    constraints_and_jacobian(P, z, phi, J);
    *residual = max_abs(phi, m);
    if (*residual <= tol) return it;
    Mat<double, m, m> Jd;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) Jd(i, j) = J[i][kDep[j]];
    double step[m];
    if (!solve_linear(Jd, phi, step)) return -1;
    for (int j = 0; j < m; ++j) z[kDep[j]] -= step[j];
  }
  return -1;
}

// Admissible motion T (Φ_z T = 0, T4 = 1) at z.
void admissible_motion(const Mech::Params& P, const double* z, double* T) {
  double phi[m], J[m][n];
  constraints_and_jacobian(P, z, phi, J);
  Mat<double, m, m> Jd;
  double rhs[m], Td[m];
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j) Jd(i, j) = J[i][kDep[j]];
    rhs[i] = -J[i][3];
  }
  ASSERT_TRUE(solve_linear(Jd, rhs, Td));
  T[3] = 1.0;
  for (int j = 0; j < m; ++j) T[kDep[j]] = Td[j];
}

// ∂s/∂z by dual numbers.
void actuator_gradient(const Mech::Params& P, const double* z, double* ds) {
  Dual<n> zj[n];
  for (int k = 0; k < n; ++k) zj[k] = Dual<n>::variable(z[k], k);
  const Dual<n> s = Mech::actuator_length(P, zj);
  for (int k = 0; k < n; ++k) ds[k] = s.v[k];
}

// The static cylinder force at an assembled z (docs/models/quick-return.md
// §6.6): Tᵀ(e_grav − F ∂s/∂z) = 0 with e_grav = e(z, 0, 0) = −Q_grav.
double static_force(const Mech::Params& P, const double* z) {
  double T[n], ds[n], e[n];
  admissible_motion(P, z, T);
  actuator_gradient(P, z, ds);
  const double zero[n] = {};
  Mech::mechanism_residual(P, z, zero, zero, e);
  double a = 0.0, b = 0.0;
  for (int k = 0; k < n; ++k) {
    a += T[k] * e[k];
    b += T[k] * ds[k];
  }
  return a / b;
}

// Assembled z(0) of the seed set (closed-form guess + Newton polish).
void assembled_seed_configuration(const Mech::Params& P, double* z) {
  Mech::initial_guess(P, z);
  double residual;
  ASSERT_GE(close_loop(P, z, 1e-14, &residual), 0);
}

// d/dt (∂T/∂ż) along a motion through (z, ż, z̈), exact: the momentum ∂T/∂ż
// (outer jet, along ż) on the path z(τ) = z + τ ż, ż(τ) = ż + τ z̈ (inner
// jet along τ), differentiated at τ = 0 (as in tests/test_mechanism.cpp).
void momentum_rate(const Mech::Params& P, const double* z, const double* zd, const double* zdd, double* out) {
  using Path = Dual<1>;
  using Jet = Dual<n, Path>;
  Jet zj[n], zdj[n];
  for (int k = 0; k < n; ++k) {
    Path position(z[k]), velocity(zd[k]);
    position.v[0] = zd[k];
    velocity.v[0] = zdd[k];
    zj[k] = Jet(position);
    zdj[k] = Jet::variable(velocity, k);
  }
  const Jet T = Mech::kinetic_energy(P, zj, zdj);
  for (int k = 0; k < n; ++k) out[k] = T.v[k].v[0];
}

// Seed 001 §2.2: Gaussian elimination with full pivoting on Φ_z; the
// column that never holds a pivot is the independent coordinate.
int full_pivoting_independent(double (*J)[n]) {
  int col[n] = {0, 1, 2, 3, 4};
  for (int k = 0; k < m; ++k) {
    int pr = k, pc = k;
    for (int r = k; r < m; ++r)
      for (int c = k; c < n; ++c)
        if (std::fabs(J[r][c]) > std::fabs(J[pr][pc])) { pr = r; pc = c; }
    for (int c = 0; c < n; ++c) std::swap(J[k][c], J[pr][c]);
    for (int r = 0; r < m; ++r) std::swap(J[r][k], J[r][pc]);
    std::swap(col[k], col[pc]);
    for (int r = k + 1; r < m; ++r) {
      const double l = J[r][k] / J[k][k];
      for (int c = k; c < n; ++c) J[r][c] -= l * J[k][c];
    }
  }
  return col[m];
}

}  // namespace

// The seed set: the body table of seed 001 §5, the points, z(0), gravity,
// the default circuit and the eq (47) work cycle (docs/models/quick-return.md §7).
TEST(QuickReturn, Seed001ParameterSet) {
  const QuickReturnModelParams P = seed001_quick_return();
  const auto& b = P.mechanism.body;
  const double mass[5] = {25, 12, 3, 100, 30}, inertia[5] = {52.083333, 1.44, 0.045, 8.333333, 0.45};
  for (int j = 0; j < 5; ++j) {
    EXPECT_EQ(b[j].mass, mass[j]);
    EXPECT_NEAR(b[j].inertia, inertia[j], 5e-7);  // table printed to 6 decimals
  }
  EXPECT_EQ(P.actuator[0].circuit.rod_side_initial_pressure, 3.5e6);
  EXPECT_EQ(P.actuator[0].circuit.supply_pressure, CircuitParams{}.supply_pressure);
  EXPECT_EQ(P.actuator[0].circuit.piston_diameter, CircuitParams{}.piston_diameter);
  // Seed 001 eq (47), last zero segment 8–10 s (A9).
  const double t[] = {0.0, 0.999, 1.0, 3.999, 4.0, 6.499, 6.5, 7.999, 8.0, 10.0};
  const double u[] = {0.0, 0.0, -10.0, -10.0, 0.0, 0.0, 10.0, 10.0, 0.0, 0.0};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(P.input(t[i]), u[i]) << "t = " << t[i];
}

// Seed 001 §5: z(0) = (76.22°, 96.89°, 6.89°, 30.59°, 45.63°) with z4 the
// driving crank angle. Newton on Φ = 0 holding z4, from initial_guess and
// from the seed's rounded angles, closes the loop and lands on the same
// configuration, which rounds to the seed's values.
TEST(QuickReturn, AssemblesSeed001InitialConfiguration) {
  const Mech::Params P = seed001_quick_return().mechanism;
  const double seed[n] = {76.22, 96.89, 6.89, 30.59, 45.63};

  double z[n];
  Mech::initial_guess(P, z);
  EXPECT_EQ(z[3], P.initial_angle[3]);  // the driving angle is held exactly
  double residual;
  const int iterations = close_loop(P, z, 1e-12, &residual);
  // The closed-form guess is already closed: measured |Φ|∞ = 5.8e-17 (FMA) /
  // 1.1e-16 (no FMA), 0 Newton steps.
  EXPECT_GE(iterations, 0);
  EXPECT_LE(iterations, 1);
  EXPECT_LT(residual, 1e-12);

  double from_seed[n];
  for (int k = 0; k < n; ++k) from_seed[k] = P.initial_angle[k];
  const int seed_iterations = close_loop(P, from_seed, 1e-12, &residual);
  // From the rounded angles (|Φ|∞ = 2.6e-4 m): measured 2 iterations, |Φ|∞ 2.2e-16.
  ASSERT_GE(seed_iterations, 0);
  EXPECT_LE(seed_iterations, 4);
  EXPECT_LT(residual, 1e-12);
  EXPECT_EQ(from_seed[3], P.initial_angle[3]);
  for (int k = 0; k < n; ++k) {
    // Same configuration: measured max difference 2.2e-16 rad.
    EXPECT_NEAR(from_seed[k], z[k], 2e-15) << "z" << k + 1;
    // Seed rounds to 0.01°: measured z = (76.21595, 96.89210, 6.89195, 30.59,
    // 45.62595)°, deviations (−0.0041, +0.0021, +0.0020, 0, −0.0041)°, inside
    // half a unit of the last printed digit.
    EXPECT_NEAR(z[k] / kDegree, seed[k], 0.005) << "z" << k + 1;
  }
  // The reconstruction (docs/models/quick-return.md §2): the ram block is
  // horizontal, the slider parallel to the lever, I on y = 5 near x = 0.
  // Exact by construction of the guess (measured 0); bound ~4 ulp of 180°.
  EXPECT_NEAR((z[0] + z[1] + z[2]) / kDegree, 180.0, 1e-13);
  EXPECT_NEAR((z[3] + z[4]) / kDegree, z[0] / kDegree, 1e-13);
  Mech::Kinematics<double> k;
  Mech::kinematics(k, P, z);
  // Measured H = (1.191316, 4.856003), I = (−0.000013, 5), L = (0.860831, 3.508891).
  EXPECT_NEAR(k.H.p.x, 1.1913, 5e-5);
  EXPECT_NEAR(k.H.p.y, 4.8560, 5e-5);
  EXPECT_NEAR(k.I.p.x, 0.0, 5e-5);
  EXPECT_NEAR(k.I.p.y, 5.0, 1e-14);
  EXPECT_NEAR(k.L.p.x, 0.8608, 5e-5);
  EXPECT_NEAR(k.L.p.y, 3.5089, 5e-5);
}

// The crank turns fully (docs/models/quick-return.md §6.4): at every crank
// angle the closed-form assembly closes the loop, in the mode of the guess
// (link pointing along the ram line's direction: cos(θ2 − α_J) > 0; slider
// on the lever's positive axis), and Newton from it needs nothing more.
// Positions without rates (QuickReturnDae::positions, docs/models/quick-return.md
// §6.2) leave the rates out and nothing else: every angle and point position
// is the full kinematics' bit for bit (the same operations), and Φ from the
// loop closure's five points alone is Φ from the full kinematics. At 50
// random poses around z(0) with random rates and accelerations.
TEST(QuickReturn, PositionsWithoutRatesAreTheKinematicsPositionsBitForBit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Mech::Params P = seed001_quick_return().mechanism;
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int trial = 0; trial < 50; ++trial) {
    double z[n], zd[n], zdd[n];
    Mech::initial_guess(P, z);
    for (int k = 0; k < n; ++k) {
      z[k] += 0.3 * u(rng);
      zd[k] = u(rng);
      zdd[k] = u(rng);
    }
    Mech::Kinematics<double> full, pos;
    Mech::kinematics(full, P, z, zd, zdd);
    Mech::positions<true>(pos, P, z);
    for (int j = 0; j < 5; ++j) {
      EXPECT_TRUE(same(full.th[j].t, pos.th[j].t) && same(full.th[j].c, pos.th[j].c) && same(full.th[j].s, pos.th[j].s))
          << "angle " << j;
    }
    const Mech::Point<double>* a[] = {&full.H, &full.I, &full.L, &full.PJ, &full.PM, &full.com[0], &full.com[1],
                                      &full.com[2], &full.com[3], &full.com[4], &full.F};
    const Mech::Point<double>* b[] = {&pos.H, &pos.I, &pos.L, &pos.PJ, &pos.PM, &pos.com[0], &pos.com[1],
                                      &pos.com[2], &pos.com[3], &pos.com[4], &pos.F};
    for (int k = 0; k < 11; ++k)
      EXPECT_TRUE(same(a[k]->p.x, b[k]->p.x) && same(a[k]->p.y, b[k]->p.y)) << "point " << k;
    double phi_full[m], phidd[m], phi[m];
    Mech::constraints_of(P, full, phi_full, phidd);
    Mech::constraints(P, z, phi);
    for (int r = 0; r < m; ++r) EXPECT_TRUE(same(phi_full[r], phi[r])) << "phi" << r;
  }
}

TEST(QuickReturn, AssemblyGuessClosesTheLoopAroundTheCrankCircle) {
  for (int i = 0; i < 72; ++i) {
    Mech::Params P = seed001_quick_return().mechanism;
    P.initial_angle[3] = i * 5.0 * kDegree;
    double z[n];
    Mech::initial_guess(P, z);
    double phi[m];
    Mech::constraints(P, z, phi);
    // Measured worst |Φ|∞ 5.9e-16 over the circle (angles, lengths O(5 m)).
    EXPECT_LT(max_abs(phi, m), 5e-15) << "crank " << i * 5 << " deg";
    EXPECT_GT(std::cos(z[0] + z[1] - P.ram_line_angle), 0.0);
    Mech::Kinematics<double> k;
    Mech::kinematics(k, P, z);
    EXPECT_GT(k.th[0].c * (k.L.p.x - P.lever_pivot_x) + k.th[0].s * (k.L.p.y - P.lever_pivot_y), 0.0);
  }
}

// Seed 001 (docs/models/quick-return.md §1): "full pivoting picks z4 as
// independent" throughout its work cycle. At z(0) the pivots
// land on z1 (−3.613), z2 (1.191), z5 (1), z3 (1), leaving z4. Over the
// crank circle (5° grid) z4 stays independent for z4 ∈ [−15°, 195°] and z5
// takes over outside (docs/models/quick-return.md §6.4); asserted on
// [−10°, 190°].
TEST(QuickReturn, FullPivotingLeavesTheCrankAngleIndependent) {
  for (int deg = -10; deg <= 190; deg += 5) {
    Mech::Params P = seed001_quick_return().mechanism;
    P.initial_angle[3] = deg * kDegree;
    double z[n], phi[m], J[m][n];
    Mech::initial_guess(P, z);
    constraints_and_jacobian(P, z, phi, J);
    EXPECT_EQ(full_pivoting_independent(J), 3) << "crank " << deg << " deg";
  }
  Mech::Params P = seed001_quick_return().mechanism;  // z(0) itself
  double z[n], phi[m], J[m][n];
  Mech::initial_guess(P, z);
  constraints_and_jacobian(P, z, phi, J);
  EXPECT_EQ(full_pivoting_independent(J), 3);
}

// Lagrange's equations from the energies, every derivative exact:
//   e = d/dt(∂T/∂ż) − ∂T/∂z + ∂V/∂z
// against the virtual-power residual from the body frames. The two share
// the positions of the points only: the residual differentiates the frames
// by jets, the energies use the explicit point velocities of
// docs/models/quick-return.md §6.2.
TEST(QuickReturn, ResidualIsLagrangesEquations) {
  const Mech::Params P = seed001_quick_return().mechanism;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> angle(-kPi, kPi), rate(-2.0, 2.0);
  double worst = 0.0;
  for (int trial = 0; trial < 40; ++trial) {
    double z[n], zd[n], zdd[n];
    for (int k = 0; k < n; ++k) { z[k] = angle(rng); zd[k] = rate(rng); zdd[k] = rate(rng); }
    double e[n];
    Mech::mechanism_residual(P, z, zd, zdd, e);

    double dp_dt[n];
    momentum_rate(P, z, zd, zdd, dp_dt);
    Dual<n> zj[n], zdj[n];
    for (int k = 0; k < n; ++k) { zj[k] = Dual<n>::variable(z[k], k); zdj[k] = zd[k]; }
    const Dual<n> dT = Mech::kinetic_energy(P, zj, zdj);
    const Dual<n> dV = Mech::potential_energy(P, zj);
    for (int k = 0; k < n; ++k) {
      const double lagrange = dp_dt[k] - dT.v[k] + dV.v[k];
      const double terms = std::fabs(dp_dt[k]) + std::fabs(dT.v[k]) + std::fabs(dV.v[k]);
      worst = std::fmax(worst, std::fabs(e[k] - lagrange) / terms);
      // Relative to the terms (|e| up to 2.7e3 N·m): measured worst 9.5e-16
      // with FMA, 6.8e-16 without (40 states, seed 5).
      EXPECT_NEAR(e[k], lagrange, 1e-14 * terms) << "trial " << trial << " coordinate z" << k + 1;
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
}

// e is affine in z̈ with the mass matrix M(z) as slope: symmetric, positive
// definite, independent of ż, and equal to ∂²T/∂ż² (T = ½ żᵀ M ż).
TEST(QuickReturn, MassMatrixIsSymmetricPositiveDefiniteAndTheKineticEnergyHessian) {
  const Mech::Params P = seed001_quick_return().mechanism;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> angle(-kPi, kPi), rate(-2.0, 2.0);
  for (int trial = 0; trial < 20; ++trial) {
    double z[n], zd[n];
    for (int k = 0; k < n; ++k) { z[k] = angle(rng); zd[k] = rate(rng); }
    // M = ∂e/∂z̈ (dual numbers on z̈).
    Dual<n> zj[n], zdj[n], zddj[n], ej[n];
    for (int k = 0; k < n; ++k) { zj[k] = z[k]; zdj[k] = zd[k]; zddj[k] = Dual<n>::variable(0.0, k); }
    Mech::mechanism_residual(P, zj, zdj, zddj, ej);
    double M[n][n];
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) M[i][k] = ej[i].v[k];
    // ∂²T/∂ż² by nested jets.
    using H = Dual<n, Dual<n>>;
    H zh[n], zdh[n];
    for (int k = 0; k < n; ++k) {
      zh[k] = H(Dual<n>(z[k]));
      zdh[k] = H(Dual<n>::variable(zd[k], k));
      zdh[k].v[k] = Dual<n>(1.0);
    }
    const H T = Mech::kinetic_energy(P, zh, zdh);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
        // Entries up to 696 kg·m²: measured worst asymmetry 7.1e-15 and worst
        // difference to the Hessian 1.1e-13 with FMA, 2.3e-13 without (~2 ulp
        // of the largest entry).
        EXPECT_NEAR(M[i][k], M[k][i], 1e-13) << i << "," << k;
        EXPECT_NEAR(M[i][k], T.v[i].v[k], 2e-12) << i << "," << k;
      }
    // Cholesky: every pivot positive.
    double L[n][n] = {};
    for (int j = 0; j < n; ++j) {
      double d = M[j][j];
      for (int k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
      ASSERT_GT(d, 0.0) << "trial " << trial << " pivot " << j;
      L[j][j] = std::sqrt(d);
      for (int i = j + 1; i < n; ++i) {
        double s = M[i][j];
        for (int k = 0; k < j; ++k) s -= L[i][k] * L[j][k];
        L[i][j] = s / L[j][j];
      }
    }
  }
}

// Φ_z by dual numbers against central differences (h = 1e-6: truncation
// ~h²·|Φ'''| ~ 1e-11, rounding ~eps·|Φ|/h ~ 1e-9 m).
TEST(QuickReturn, ConstraintJacobianMatchesCentralDifferences) {
  const Mech::Params P = seed001_quick_return().mechanism;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  const double h = 1e-6;
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    double z[n], phi[m], J[m][n];
    for (int k = 0; k < n; ++k) z[k] = angle(rng);
    constraints_and_jacobian(P, z, phi, J);
    for (int c = 0; c < n; ++c) {
      double zp[n], zm[n], fp[m], fm[m];
      for (int k = 0; k < n; ++k) zp[k] = zm[k] = z[k];
      zp[c] += h;
      zm[c] -= h;
      Mech::constraints(P, zp, fp);
      Mech::constraints(P, zm, fm);
      for (int r = 0; r < m; ++r) {
        const double fd = (fp[r] - fm[r]) / (2 * h);
        worst = std::fmax(worst, std::fabs(fd - J[r][c]));
        // Measured worst 8.0e-10.
        EXPECT_NEAR(J[r][c], fd, 5e-9) << "row " << r << " column " << c;
      }
    }
    // Structure (docs/models/quick-return.md §6.3): the angle rows are
    // constant; z4 enters J only through Φ3, Φ4; branch A (z1..z3) and B (z4, z5)
    // meet only in the slot (Φ3, Φ4 depend on z1).
    const double angle_rows[2][n] = {{1, 1, 1, 0, 0}, {-1, 0, 0, 1, 1}};
    for (int c = 0; c < n; ++c) {
      EXPECT_EQ(J[0][c], angle_rows[0][c]);
      EXPECT_EQ(J[2][c], angle_rows[1][c]);
    }
    EXPECT_EQ(J[1][3], 0.0);
    EXPECT_EQ(J[1][4], 0.0);
  }
  RecordProperty("worst_abs_error", std::to_string(worst));
}

// The acceleration constraint Φ̈ = Φ_z z̈ + (Φ_z ż)_z ż from the explicit
// point accelerations (constraint_acceleration) against d²Φ/dt² along the
// path z(t) = z + ż t + ½ z̈ t²: exactly, by a path jet (the τ1τ2
// coefficient of Φ(z + ż τ1 + ż τ2 + z̈ τ1τ2)), and by second central
// differences. With z̈ = 0 it is the bias (Φ_z ż)_z ż of the double step.
TEST(QuickReturn, ConstraintAccelerationIsSecondDerivativeAlongAPath) {
  const Mech::Params P = seed001_quick_return().mechanism;
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> angle(-kPi, kPi), rate(-2.0, 2.0);
  const double h = 1e-4;
  for (int trial = 0; trial < 20; ++trial) {
    double z[n], zd[n], zdd[n];
    for (int k = 0; k < n; ++k) { z[k] = angle(rng); zd[k] = rate(rng); zdd[k] = trial % 2 ? rate(rng) : 0.0; }
    double phidd[m];
    Mech::constraint_acceleration(P, z, zd, zdd, phidd);
    using Path = Dual<1, Dual<1>>;
    Path zp[n], fp[m];
    for (int k = 0; k < n; ++k) {
      Dual<1> a(z[k]), b(zd[k]);
      a.v[0] = zd[k];
      b.v[0] = zdd[k];
      zp[k].a = a;
      zp[k].v[0] = b;
    }
    Mech::constraints(P, zp, fp);
    double f0[m], f1[m], f2[m], z1[n], z2[n];
    for (int k = 0; k < n; ++k) {
      z1[k] = z[k] + zd[k] * h + 0.5 * zdd[k] * h * h;
      z2[k] = z[k] - zd[k] * h + 0.5 * zdd[k] * h * h;
    }
    Mech::constraints(P, z, f0);
    Mech::constraints(P, z1, f1);
    Mech::constraints(P, z2, f2);
    for (int r = 0; r < m; ++r) {
      // Path jet: measured worst 1.8e-15 with FMA, 3.6e-15 without.
      EXPECT_NEAR(phidd[r], fp[r].v[0].v[0], 3e-14) << "trial " << trial << " row " << r;
      // Second differences: truncation ~h²|Φ''''|/12, rounding ~4 eps|Φ|/h²
      // ~ 1e-7: measured worst 2.2e-7.
      EXPECT_NEAR(phidd[r], (f1[r] - 2 * f0[r] + f2[r]) / (h * h), 2e-6) << "trial " << trial << " row " << r;
    }
  }
}

// Cylinder from Q = (−0.96, 3) to N, the crank's CoM at 0.5 m along the
// crank from K = (0, 3) (docs/models/quick-return.md §6.1). Q, K and N form
// a triangle with |QK| = 0.96 m, |KN| = 0.5 m and the angle π − z4 at K:
//   s² = 0.96² + 0.5² + 2·0.96·0.5 cos z4,   ∂s/∂z4 = −0.96·0.5 sin z4 / s,
// s0 = 1.4135054 m at z4 = 30.59° (the doc's 1.4135 m). Only z4 moves it.
TEST(QuickReturn, ActuatorLengthAndGradient) {
  const Mech::Params P = seed001_quick_return().mechanism;
  double z[n];
  assembled_seed_configuration(P, z);
  const double c = std::cos(30.59 * kDegree), s_ = std::sin(30.59 * kDegree);
  const double s0 = std::sqrt(0.96 * 0.96 + 0.25 + 2 * 0.96 * 0.5 * c);
  // Measured exact (0 difference).
  EXPECT_NEAR(Mech::actuator_length(P, z), s0, 1e-14);
  EXPECT_NEAR(s0, 1.4135, 5e-5);  // s0 = 1.4135054 m
  double ds[n];
  actuator_gradient(P, z, ds);
  EXPECT_NEAR(ds[3], -0.96 * 0.5 * s_ / s0, 1e-15);  // −0.17318 m/rad; measured 5.6e-17
  // Central differences at random configurations: only ∂s/∂z4 ≠ 0.
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  const double h = 1e-6;
  for (int trial = 0; trial < 20; ++trial) {
    double x[n];
    for (int k = 0; k < n; ++k) x[k] = angle(rng);
    actuator_gradient(P, x, ds);
    for (int c2 = 0; c2 < n; ++c2) {
      double xp[n], xm[n];
      for (int k = 0; k < n; ++k) xp[k] = xm[k] = x[k];
      xp[c2] += h;
      xm[c2] -= h;
      const double fd = (Mech::actuator_length(P, xp) - Mech::actuator_length(P, xm)) / (2 * h);
      // Measured worst 1.2e-10 (rounding eps·s/h).
      EXPECT_NEAR(ds[c2], fd, 1e-9) << "coordinate z" << c2 + 1;
      if (c2 != 3) {
        EXPECT_EQ(ds[c2], 0.0);
      }
    }
  }
}

// The cylinder force that holds the mechanism at rest at z(0)
// (docs/models/quick-return.md §6.6): Tᵀ(e_grav − F ∂s/∂z) = 0, with T the
// admissible motion (Φ_z T = 0, T4 = 1). Cross-checks: virtual work along
// the constrained path (F = (dV/dz4)/(ds/dz4), V restricted to the closed
// loop, by central differences of the closed-form assembly), and the
// linearization's solve_equilibrium on the same contract. Then the pressure
// it needs: p2 = (F + A3 p3)/A2 with p3 = 3.5 MPa, which must stay below the
// supply pressure.
TEST(QuickReturn, StaticCylinderForceIsWithinTheSupplyPressure) {
  const QuickReturnModelParams MP = seed001_quick_return();
  const Mech::Params& P = MP.mechanism;
  double z[n];
  assembled_seed_configuration(P, z);
  const double F = static_force(P, z);
  ASSERT_TRUE(std::isfinite(F));
  // Measured F = −4151.5555740 N, the same with and without FMA: the
  // cylinder pulls (tension). A regression value of this model, printed to
  // 7 decimals (measured 2.9e-9 N from the printed value).
  EXPECT_NEAR(F, -4151.5555740, 1e-7);

  // Virtual work: the potential energy along the closed loop.
  const double h = 1e-5;
  double V[2], s[2];
  for (int i = 0; i < 2; ++i) {
    Mech::Params Q = P;
    Q.initial_angle[3] = P.initial_angle[3] + (i == 0 ? h : -h);
    double x[n];
    Mech::initial_guess(Q, x);
    V[i] = Mech::potential_energy(Q, x);
    s[i] = Mech::actuator_length(Q, x);
  }
  const double F_work = (V[0] - V[1]) / (s[0] - s[1]);
  // Rounding ~eps·|V|/h/|ds/dz4| ~ 4e-7 N (|V| = 5.5e3 J, h = 1e-5) plus
  // truncation O(h²): measured 2.2e-7 N apart.
  EXPECT_NEAR(F, F_work, 2e-6);

  // The same equilibrium through the DAE contract of kernels/linearize.
  Equilibrium<System> eq;
  ASSERT_EQ(solve_equilibrium<System>(MP, eq), Status::ok);
  EXPECT_EQ(eq.indep[0], 3);
  // Same closed-form guess, same projection: measured identical (0 apart).
  for (int k = 0; k < n; ++k) EXPECT_NEAR(eq.x[k], z[k], 1e-15);
  EXPECT_NEAR(eq.actuator_force, F, 1e-9);
  // |e + C_xᵀΛ|∞ at rest: measured 6.5e-14 (FMA) / 1.6e-13 N·m.
  EXPECT_LT(eq.statics_residual, 2e-12);

  const CircuitConstants K = ThreeVolumeCircuit::constants(MP.actuator[0].circuit);
  const double p2 = (F + K.A_rod * MP.actuator[0].circuit.rod_side_initial_pressure) / K.A_piston;
  // Measured p2 = 2.00415239 MPa: above the tank pressure and well below
  // pP = 7.6 MPa (A2 = 5.0265e-3 m², A3 p3 = 14 225.5 N).
  EXPECT_NEAR(p2, eq.p[1], 1e-6);
  EXPECT_GT(p2, MP.actuator[0].circuit.tank_pressure);
  EXPECT_LT(p2, MP.actuator[0].circuit.supply_pressure);
  EXPECT_NEAR(p2 / 1e6, 2.00415239, 1e-8);
}

// The linearization runs on the new mechanism unchanged (issue 12 item 5):
// one stability point at z(0) with the default circuit, valve closed.
TEST(QuickReturn, StabilityPointRunsOnTheContract) {
  const QuickReturnModelParams MP = seed001_quick_return();
  const auto out = stability_point<System>(MP, StabilitySettings{});
  ASSERT_EQ(out.status, static_cast<int>(Status::ok));
  EXPECT_EQ(out.structural_zeros, 2);  // closed valve: two conserved oil volumes
  EXPECT_NEAR(out.crank_angle, 30.59 * kDegree, 1e-15);
  // No friction: a lightly damped oscillation of the oil column against the
  // mechanism, measured λ = −0.0397 ± 81.79i 1/s, and a real −219.9 1/s
  // (the valve, 1/τ). Only its existence and sign are asserted here.
  EXPECT_TRUE(std::isfinite(out.max_real));
  EXPECT_LT(out.max_real, 0.0);
}

// ---- time integration (the checks the four-bar passes, docs/models/quick-return.md §8) ----

#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/index1_baumgarte.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/dae_mechanism.hpp"

namespace {
using QuickReturnModel = HydraulicallyActuated<DaeMechanism<QuickReturnDae>, BrownMcPhee>;
using DoubleStep = DoubleStepTrapezoidal<QuickReturnModel>;
using Index1 = Index1Baumgarte<ActuatedSystem<QuickReturnDae, BrownMcPhee>>;

// The crank angle z4 at time t of the seed 001 eq (47) cycle, and the summary.
template <class Integrator>
std::pair<double, RunSummary<5, 3>> crank_at(double t, double dt) {
  IntegratorSettings S;
  S.dt = dt;
  S.duration = t;
  const RunSummary<5, 3> r = run_instance<Integrator>(seed001_quick_return(), S, 0, [](long, const Sample<5, 3>&) {});
  return {r.q[QuickReturnDae::z4], r};
}
}  // namespace

// The whole 10 s work cycle of seed 001 eq (47), double step, dt = 1 ms:
// the loop closes at every step (max_t |Φ| below the constraint tolerance),
// energy balances (peak |T + V − E0 − W_cyl − W_fr| small against the
// cylinder's work) and Newton needs what seed 001 reports for its double
// step (1.49 average, 3 maximum iterations per step). Measured: ok,
// |Φ| ≤ 9.99e-12 m, peak drift 5.10e-3 J of max |W_cyl| = 320.3 J
// (1.6e-5; seed 001: 0.23 J of 357.47 J with its lost circuit table),
// 1.4959 / 3 Newton iterations per step.
TEST(QuickReturnRun, WorkCycleClosesTheLoopAndBalancesEnergy) {
  const auto [z4, r] = crank_at<DoubleStep>(10.0, 1e-3);
  ASSERT_EQ(r.status, Status::ok) << status_name(r.status) << " at t = " << r.t_end;
  EXPECT_EQ(r.steps, 10000);
  EXPECT_LE(r.max_constraint_violation, IntegratorSettings{}.constraint_tolerance);
  EXPECT_GT(r.max_cylinder_work, 100.0);
  EXPECT_LT(r.peak_energy_drift, 5e-2);
  EXPECT_LT(r.peak_energy_drift, 2e-4 * r.max_cylinder_work);
  const double mean_newton = double(r.newton_iterations) / double(r.steps);
  EXPECT_NEAR(mean_newton, 1.49, 0.05);
  EXPECT_LE(r.max_newton_iterations, 3);
  // The cycle pulls the crank up and pushes it back: z4 ends above its start.
  EXPECT_GT(z4, seed001_quick_return().mechanism.initial_angle[3]);
}

// Order 2: z4 at t = 3 s (mid-stroke, valve open) with dt, dt/2, dt/4; the
// differences shrink by 4. Measured ratio printed.
TEST(QuickReturnRun, DoubleStepConvergesAtOrderTwo) {
  const double a = crank_at<DoubleStep>(3.0, 1e-3).first;
  const double b = crank_at<DoubleStep>(3.0, 5e-4).first;
  const double c = crank_at<DoubleStep>(3.0, 2.5e-4).first;
  const double ratio = (a - b) / (b - c);
  std::printf("quick-return z4(3 s): differences %.3g, %.3g rad, ratio %.3f\n", a - b, b - c, ratio);
  EXPECT_GT(std::fabs(a - b), 1e-10);  // above the Newton tolerance's reach
  EXPECT_NEAR(ratio, 4.0, 0.4);
}

// The second formulation (index-1 Baumgarte form of the same DAE) converges
// to the same motion: |z4 difference| to the double step shrinks by ~4 when
// dt halves.
TEST(QuickReturnRun, IndexOneFormulationConvergesToTheDoubleStep) {
  const double d1 = crank_at<Index1>(3.0, 1e-3).first - crank_at<DoubleStep>(3.0, 1e-3).first;
  const double d2 = crank_at<Index1>(3.0, 5e-4).first - crank_at<DoubleStep>(3.0, 5e-4).first;
  std::printf("quick-return index-1 vs double step at 3 s: %.3g rad (1 ms), %.3g rad (0.5 ms)\n", d1, d2);
  EXPECT_LT(std::fabs(d1), 2e-9);  // measured 2.3e-10
  EXPECT_NEAR(d1 / d2, 4.0, 0.6);
}
