// Linearization at equilibrium (seed 000): equilibrium, reduced Jacobian,
// counterpart, nonlinear reference run, stability figures.
// References are closed forms (eq 90 geometry), independent formulations
// of the same mechanism (planar relative coordinates vs the 3D model with
// 10 coordinates), the exact and finite-difference counterpart, and Eigen
// in extended precision.
#include <gtest/gtest.h>

#include "host/eigen_dense.hpp"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "eigen_test_support.hpp"
#include "reference_numerics.hpp"
#include "kernels/hydraulics/servo_valve_circuit.hpp"
#include "kernels/hydraulics/two_volume_circuit.hpp"
#include "kernels/integrators/index1_trapezoidal.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/counterpart.hpp"
#include "kernels/linearize/reduced_jacobian.hpp"
#include "kernels/linearize/stability.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/planar_chain_dae.hpp"
#include "kernels/models/spatial_four_bar.hpp"
#include "host/build_paths.hpp"
#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"

using namespace hs;
using namespace eigen_test;
using Planar = ActuatedSystem<PlanarChainDae<3>, BrownMcPhee>;
using Spatial = ActuatedSystem<SpatialFourBarDae, BrownMcPhee>;
using Complex = std::complex<double>;

namespace {

constexpr double kDegree = kPi / 180.0;
constexpr double kEps = std::numeric_limits<double>::epsilon();
// Two computations of the same eigenvalues (two formulations, the per-thread
// routine and the long double reference, the closed form, the counterpart)
// agree to kEigenAgreement eps·ρ(J), ρ the spectral radius: a backward-stable
// eigensolver on the balanced J moves each eigenvalue by ~κ eps ‖J_bal‖ with
// ‖J_bal‖ ~ ρ and κ ~ 1 here; measured ≤ 4.4 (with and without -march=native).
constexpr double kEigenAgreement = 32.0;

FourBarParams with_friction_scale(double scale) {
  FourBarParams P = seed002_four_bar();
  scale_friction(P.actuator[0].friction, scale);
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
// in long double after balancing (reference_numerics.hpp).
template <int N>
void reference_eigen(const Mat<double, N, N>& J, std::vector<Complex>& values, std::vector<double>* kappa = nullptr,
                     double* norm = nullptr) {
  reference_numerics::MatrixLD A(N, N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) A(i, j) = J(i, j);
  balance_radix2(A);
  const reference_numerics::Spectrum<long double> s = reference_numerics::spectrum(A, kappa != nullptr);
  values.clear();
  for (int i = 0; i < N; ++i)
    values.emplace_back(static_cast<double>(s.values(i).real()), static_cast<double>(s.values(i).imag()));
  if (norm) *norm = static_cast<double>(A.norm());
  if (kappa) {
    kappa->clear();
    for (int i = 0; i < N; ++i) kappa->push_back(static_cast<double>(s.kappa[i]));
  }
}

// The eigenvalues whose modulus exceeds `floor` × the spectral radius.
std::vector<Complex> nonzero(const std::vector<Complex>& v, double floor = 1e-9) {
  const double radius = spectral_radius(v);
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

// ---- The seed 000 Jacobian written out by hand -----------------------------
//
// docs/models/linearization.md §5 (eq 93) gives J the sparsity pattern
//   φ̃2' = ω̃2,  ω̃2' = ν1 φ̃2 + ν2 ω̃2 + ν3 p̃2 + ν4 p̃3,  p̃1' = ν5 (p̃1 − p̃2),
//   p̃2' = ν6 ω̃2 + ν7 (p̃1 − p̃2),  p̃3' = ν8 ω̃2,  Ũ' = −Ũ/τ,
// and det(sI − J) = s² (s + 1/τ)(s³ + c2 s² + c1 s + c0) with
//   c2 = −ν2 − ν5 + ν7,  c1 = −ν1 + ν2(ν5 − ν7) − ν3ν6 − ν4ν8,
//   c0 = ν1(ν5 − ν7) + ν3ν5ν6 + ν4ν8(ν5 − ν7)
// (expanding the 5×5 determinant; checked symbolically). Here every ν comes
// from the physical parameters without the model code: no DAE, no dual
// numbers, no multipliers. The mechanism is reduced by hand to its one
// degree of freedom, the crank angle φ: the loop closure by intersecting two
// circles, the angle rates dθ/dφ and d²θ/dφ² from its first and second
// derivatives, and along that path the generalized mass m0 = Σ m|dr_G/dφ|² +
// I(dθ/dφ)², the gravity potential V(φ) and the cylinder length s(φ). The
// reduced equation m0 φ̈ = F s'(φ) − V'(φ) − F_μ(s'φ̇) s' with F = A2 p2 − A3 p3
// gives, at rest, F0 = V'/s' and
//   ν1 = (F0 s'' − V'')/m0,  ν2 = −F_μ'(0) s'²/m0,  ν3 = A2 s'/m0,  ν4 = −A3 s'/m0;
// the laminar throttle (seed 000 eq 6, conductance γt = C_vt/√Δp_lim) and
// the volumes and effective bulk moduli at s = s0 (eqs 74–75, l2 = l2_0) give
//   ν5 = −(Be1/V1) γt,  ν6 = −(Be2/V2) A2 s',  ν7 = (Be2/V2) γt,  ν8 = (Be3/V3) A3 s'
// (docs/models/linearization.md §5). Written for the topology of
// the seed 002 / seed 000 four-bar: slender links along their body x axes,
// the cylinder attached to the crank.
struct Vec2 {
  double x, y;
};
Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
Vec2 operator*(double s, Vec2 a) { return {s * a.x, s * a.y}; }
double dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
Vec2 direction(double angle) { return {std::cos(angle), std::sin(angle)}; }
Vec2 direction_rate(double angle) { return {-std::sin(angle), std::cos(angle)}; }  // d direction / d angle

struct ClosedFormJacobian {
  double coupler_angle, rocker_angle;  // absolute angles at the equilibrium [rad]
  double m0;                           // generalized mass along φ [kg·m²]
  double ds_dphi;                      // T_s = s'(φ) [m]
  double actuator_force;               // F0 holding the load [N]
  double cylinder_length;              // s at the equilibrium [m]
  double piston_pressure;              // p2 = (F0 + A3 p3)/A2 [Pa]
  double nu[9];                        // ν1..ν8 as nu[1]..nu[8]
  double c2, c1, c0;                   // the cubic factor of det(sI − J)
};

ClosedFormJacobian closed_form_jacobian(const FourBarParams& P) {
  const auto& M = P.mechanism;
  const auto& body = M.body;
  for (const auto& b : body) EXPECT_TRUE(b.com_y == 0.0 && b.distal_y == 0.0) << "links along their x axes";
  EXPECT_EQ(M.actuator_body, 0);
  EXPECT_EQ(M.actuator_local_y, 0.0);
  const double length[3] = {body[0].distal_x, body[1].distal_x, body[2].distal_x};
  const Vec2 base{M.base_x, M.base_y}, cut{M.cut_x, M.cut_y}, gravity{M.gravity_x, M.gravity_y};
  ClosedFormJacobian cf;

  // Loop closure: the coupler tip lies on the circle of radius L2 about the
  // crank tip and on that of radius L3 about the cut point. Of the two
  // intersections, the one with sin(θ3 − θ2) < 0 (seed 000 eq 90: φ43 ≈ 266.4°).
  double angle[3] = {M.initial_angle[0], 0.0, 0.0};
  const Vec2 crank_tip = base + length[0] * direction(angle[0]);
  const Vec2 chord = cut - crank_tip;
  const double chord_length = std::sqrt(dot(chord, chord));
  const Vec2 along_chord = (1.0 / chord_length) * chord, across_chord{-along_chord.y, along_chord.x};
  const double foot = (length[1] * length[1] - length[2] * length[2] + chord_length * chord_length) / (2 * chord_length);
  const double height = std::sqrt(length[1] * length[1] - foot * foot);
  for (double side : {1.0, -1.0}) {
    const Vec2 tip = crank_tip + foot * along_chord + side * height * across_chord;
    angle[1] = std::atan2(tip.y - crank_tip.y, tip.x - crank_tip.x);
    angle[2] = std::atan2(cut.y - tip.y, cut.x - tip.x);
    if (std::sin(angle[2] - angle[1]) < 0.0) break;
  }
  cf.coupler_angle = angle[1];
  cf.rocker_angle = angle[2];

  // d/dφ of L1 e(θ1) + L2 e(θ2) + L3 e(θ3) = const, once and twice:
  //   L2 e'(θ2) θ2' + L3 e'(θ3) θ3' = −L1 e'(θ1)
  //   L2 e'(θ2) θ2'' + L3 e'(θ3) θ3'' = L1 e(θ1) + L2 θ2'² e(θ2) + L3 θ3'² e(θ3)
  // solved by Cramer's rule.
  auto solve_closure = [&](Vec2 rhs, double& coupler, double& rocker) {
    const Vec2 a = length[1] * direction_rate(angle[1]), b = length[2] * direction_rate(angle[2]);
    const double det = a.x * b.y - a.y * b.x;
    coupler = (rhs.x * b.y - rhs.y * b.x) / det;
    rocker = (a.x * rhs.y - a.y * rhs.x) / det;
  };
  double rate[3] = {1.0, 0.0, 0.0}, curvature[3] = {0.0, 0.0, 0.0};  // dθ/dφ, d²θ/dφ²
  solve_closure(-length[0] * direction_rate(angle[0]), rate[1], rate[2]);
  solve_closure(length[0] * direction(angle[0]) + length[1] * rate[1] * rate[1] * direction(angle[1]) +
                    length[2] * rate[2] * rate[2] * direction(angle[2]),
                curvature[1], curvature[2]);

  // Generalized mass and the gravity potential's derivatives along φ: body j's
  // centre of mass is the sum of the links before it plus com_x along link j.
  double m0 = 0.0, dV = 0.0, ddV = 0.0;
  for (int j = 0; j < 3; ++j) {
    Vec2 velocity{0.0, 0.0}, acceleration{0.0, 0.0};  // dr/dφ, d²r/dφ²
    for (int i = 0; i <= j; ++i) {
      const double reach = i < j ? length[i] : body[j].com_x;
      velocity = velocity + reach * rate[i] * direction_rate(angle[i]);
      acceleration = acceleration + reach * (curvature[i] * direction_rate(angle[i]) -
                                             rate[i] * rate[i] * direction(angle[i]));
    }
    m0 += body[j].mass * dot(velocity, velocity) + body[j].inertia * rate[j] * rate[j];
    dV -= body[j].mass * dot(gravity, velocity);
    ddV -= body[j].mass * dot(gravity, acceleration);
  }
  // Cylinder from the ground point G to the point at actuator_local_x on the crank.
  const Vec2 rod_end = base + M.actuator_local_x * direction(angle[0]);
  const Vec2 cylinder = rod_end - Vec2{M.actuator_ground_x, M.actuator_ground_y};
  const Vec2 rod_end_rate = M.actuator_local_x * direction_rate(angle[0]);
  const Vec2 rod_end_curvature = -M.actuator_local_x * direction(angle[0]);
  const double s = std::sqrt(dot(cylinder, cylinder));
  const double ds = dot(cylinder, rod_end_rate) / s;
  const double dds = (dot(rod_end_rate, rod_end_rate) + dot(cylinder, rod_end_curvature) - ds * ds) / s;

  // Circuit (seed 000 eqs 5, 6, 74, 75) at s = s0 with the valve closed.
  const CircuitParams& c = P.actuator[0].circuit;
  const double A2 = 0.25 * kPi * c.piston_diameter * c.piston_diameter;
  const double A3 = A2 - 0.25 * kPi * c.rod_diameter * c.rod_diameter;
  const double throttle = c.throttle_discharge_coefficient * 0.25 * kPi * c.throttle_diameter * c.throttle_diameter *
                          std::sqrt(2.0 / c.oil_density) / std::sqrt(c.laminar_limit);
  const double l2 = c.piston_chamber_length0, l3 = c.cylinder_length - l2;
  const double V1 = c.hose_volume_1, V2 = c.hose_volume_2 + A2 * l2, V3 = c.hose_volume_3 + A3 * l3;
  const double Be1 = 1.0 / (1.0 / c.oil_bulk_modulus + 1.0 / c.hose_bulk_modulus);
  const double Be2 = 1.0 / (1.0 / c.oil_bulk_modulus + c.hose_volume_2 / (V2 * c.hose_bulk_modulus) +
                            A2 * l2 / (V2 * c.cylinder_bulk_modulus));
  const double Be3 = 1.0 / (1.0 / c.oil_bulk_modulus + c.hose_volume_3 / (V3 * c.hose_bulk_modulus) +
                            A3 * l3 / (V3 * c.cylinder_bulk_modulus));
  // Brown–McPhee slope at rest, seed 000 eq (8): 4F_c/v_s + (16/9)(F_s − F_c)/v_s + σ2.
  const FrictionParams& f = P.actuator[0].friction;
  const double friction_slope = 4 * f.coulomb_force / f.stribeck_velocity +
                                16.0 / 9.0 * (f.static_force - f.coulomb_force) / f.stribeck_velocity +
                                f.viscous_coefficient;

  cf.m0 = m0;
  cf.ds_dphi = ds;
  cf.cylinder_length = s;
  cf.actuator_force = dV / ds;
  cf.piston_pressure = (cf.actuator_force + A3 * c.rod_side_initial_pressure) / A2;
  double* nu = cf.nu;
  nu[0] = NAN;
  nu[1] = (cf.actuator_force * dds - ddV) / m0;
  nu[2] = -friction_slope * ds * ds / m0;
  nu[3] = A2 * ds / m0;
  nu[4] = -A3 * ds / m0;
  nu[5] = -Be1 / V1 * throttle;
  nu[6] = -Be2 / V2 * A2 * ds;
  nu[7] = Be2 / V2 * throttle;
  nu[8] = Be3 / V3 * A3 * ds;
  cf.c2 = -nu[2] - nu[5] + nu[7];
  cf.c1 = -nu[1] + nu[2] * (nu[5] - nu[7]) - nu[3] * nu[6] - nu[4] * nu[8];
  cf.c0 = nu[1] * (nu[5] - nu[7]) + nu[3] * nu[5] * nu[6] + nu[4] * nu[8] * (nu[5] - nu[7]);
  return cf;
}

// The three roots of s³ + c2 s² + c1 s + c0 (c0 > 0: a real root below 0),
// without any eigenvalue routine: bisection for a real root on [−R, 0]
// (R = 1 + max|c_k| bounds every root, Cauchy), the quadratic left by
// synthetic division, then Newton on the cubic itself for each root, all in
// long double.
std::vector<Complex> cubic_roots(double c2, double c1, double c0) {
  using LD = long double;
  using CL = std::complex<LD>;
  auto cubic = [&](CL s) { return ((s + LD(c2)) * s + LD(c1)) * s + LD(c0); };
  auto slope = [&](CL s) { return (LD(3) * s + LD(2 * c2)) * s + LD(c1); };
  EXPECT_GT(c0, 0.0);
  LD lo = -(1 + std::max({std::fabs(c2), std::fabs(c1), std::fabs(c0)})), hi = 0;
  for (int k = 0; k < 200; ++k) {
    const LD mid = (lo + hi) / 2;
    (cubic(mid).real() < 0 ? lo : hi) = mid;
  }
  const LD real_root = (lo + hi) / 2;
  const LD b = LD(c2) + real_root, q = LD(c1) + real_root * b;  // s² + b s + q
  const CL root_of_discriminant = std::sqrt(CL(b * b - 4 * q));
  // The root of larger modulus first, the other from the product q (no cancellation).
  const CL big = b >= 0 ? (-b - root_of_discriminant) / LD(2) : (-b + root_of_discriminant) / LD(2);
  std::vector<Complex> roots;
  for (CL s : {CL(real_root), big, CL(q) / big}) {
    for (int k = 0; k < 8; ++k) {
      const CL d = slope(s);
      if (d == CL(0)) break;
      s -= cubic(s) / d;
    }
    roots.emplace_back(static_cast<double>(s.real()), static_cast<double>(s.imag()));
  }
  return roots;
}

}  // namespace

// Eq (90): x_G2 = 0, y_G2 = 0.5, z_G2 = √3/2, ψ2 = θ2 = 0, φ2 = 60°,
// s = √3, α = 30°, φ32 ≈ 322.1°, φ43 ≈ 266.4°; p1 = p2 (no throttle flow).
// References: eq (90) itself, the hand-written loop closure and statics of
// closed_form_jacobian (never the model code) for the angles and p2.
// Tolerances: the assembly's own tolerance is |C|∞ ≤ 1e-12 m, but its
// closed-form starting point (PlanarLoopChain::assembly_guess) already closes
// the loop to rounding and Newton has nothing left to do, so the coordinates
// are rounding-level: measured 1.1e-16 (coordinates), 0 (angles),
// 2.2e-16 m (|C|∞), 3.4e-16 (p2, relative), with and without -march=native.
// Bounds ~10× that: 1e-15 on unit-size coordinates (≈ 5 ulp), 4e-15 rad on
// the angles, 2e-15 m on |C|∞ (rounding of sums of 10 m terms), 2e-15 on p2.
TEST(Linearize, SpatialEquilibriumAtSixtyDegrees) {
  const FourBarParams P = seed002_four_bar();
  ASSERT_DOUBLE_EQ(P.mechanism.initial_angle[0], 60.0 * kDegree);
  Equilibrium<Spatial> eq;
  ASSERT_EQ(solve_equilibrium<Spatial>(P, eq), Status::ok);
  using C = SpatialFourBarDae;
  constexpr double kCoordinate = 1e-15, kAngle = 4e-15;
  EXPECT_NEAR(eq.x[C::xG2], 0.0, kCoordinate);
  EXPECT_NEAR(eq.x[C::yG2], 0.5, kCoordinate);
  EXPECT_NEAR(eq.x[C::zG2], std::sqrt(3.0) / 2.0, kCoordinate);
  EXPECT_NEAR(eq.x[C::psi2], 0.0, kCoordinate);
  EXPECT_NEAR(eq.x[C::theta2], 0.0, kCoordinate);
  EXPECT_EQ(eq.x[C::phi2], P.mechanism.initial_angle[0]);  // the driving coordinate is held, not solved
  EXPECT_NEAR(eq.x[C::s], std::sqrt(3.0), kCoordinate);
  EXPECT_NEAR(eq.x[C::alpha], 30.0 * kDegree, kCoordinate);
  // The printed angles have one decimal; the loop closure in closed form
  // (intersection of two circles) and the planar formulation give them to rounding.
  EXPECT_NEAR(wrap_degrees(eq.x[C::phi32]), 322.1, 0.05);
  EXPECT_NEAR(wrap_degrees(eq.x[C::phi43]), 266.4, 0.05);
  const ClosedFormJacobian cf = closed_form_jacobian(P);
  const double phi32 = cf.coupler_angle - P.mechanism.initial_angle[0], phi43 = cf.rocker_angle - cf.coupler_angle;
  Equilibrium<Planar> planar;
  ASSERT_EQ(solve_equilibrium<Planar>(P, planar), Status::ok);
  for (double angle : {eq.x[C::phi32], planar.x[1]}) EXPECT_NEAR(std::remainder(angle - phi32, 2 * kPi), 0.0, kAngle);
  for (double angle : {eq.x[C::phi43], planar.x[2]}) EXPECT_NEAR(std::remainder(angle - phi43, 2 * kPi), 0.0, kAngle);
  EXPECT_LE(eq.constraint_residual, 2e-15);
  // Pressures: p1 = p2, p3 prescribed; p2 = (F0 + A3 p3)/A2 with F0 from the
  // hand-written statics (docs/physics-checks.md §5: 2.753 MPa; docs/models/linearization.md §4).
  for (const double* p : {eq.p, planar.p}) {
    EXPECT_EQ(p[0], p[1]);
    EXPECT_EQ(p[2], P.actuator[0].circuit.rod_side_initial_pressure);
    EXPECT_NEAR(p[1], cf.piston_pressure, 2e-15 * cf.piston_pressure);
  }
  EXPECT_NEAR(eq.p[1], 2.753e6, 0.0005e6);
  // Multipliers, eq (84): Λ1 = Λ4 = Λ5 = Λ8 = Λ9 = 0 (the cylinder force acts
  // at G2). Least squares on the normal equations leaves rounding of the
  // largest multiplier (725 N): measured ≤ 2.4e-15 of it for the zeros and
  // 5.0e-15 for the statics residual (6e-16 and 8e-16 with -march=native).
  double largest = 0.0;
  for (double l : eq.lambda) largest = std::max(largest, std::fabs(l));
  for (int k : {0, 3, 4, 7, 8}) EXPECT_LE(std::fabs(eq.lambda[k]), 2e-14 * largest) << "Lambda" << k + 1;
  for (int k : {1, 2, 5, 6}) EXPECT_GT(std::fabs(eq.lambda[k]), 1e-3 * largest) << "Lambda" << k + 1;
  EXPECT_LE(eq.statics_residual, 4e-14 * largest);
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
  EXPECT_EQ(J(2, 3), -J(2, 2));  // ν5, −ν5: the laminar throttle's two partials, exact negatives
  EXPECT_EQ(J(3, 3), -J(3, 2));  // ν7, −ν7
  // Valve column: only the DCV ports (V1 and V3) see the spool, and the
  // spool row is −1/τ alone. Eq (93) prints no Ũ coupling at all; the gain
  // here is ∂H/∂U for U → 0⁺ (one-sided: the closed-centre valve switches
  // ports at 0). It cannot change the eigenvalues: the Ũ row is decoupled.
  EXPECT_GT(J(2, 5), 0.0);  // opening P→A fills V1
  EXPECT_EQ(J(0, 5), 0.0);
  EXPECT_EQ(J(1, 5), 0.0);
  EXPECT_EQ(J(3, 5), 0.0);
  EXPECT_LT(J(4, 5), 0.0);  // B→T drains V3
  EXPECT_EQ(J(5, 5), -1.0 / seed002_four_bar().actuator[0].circuit.valve_time_constant);
}

// Friction enters only ν2 = −F_μ'(0) T_s²/m0, linearly (docs/models/linearization.md §5); ν2 itself
// against its closed form is in SeedZeroEigenvaluesEqualTheClosedForm.
// Scaling F_c, F_s, σ2 by 0.1 rounds each once, and the slope sums three
// terms: |ν2(×0.1) − 0.1 ν2(×1)| ≤ ~3 eps; measured ≤ 0.7 eps, bound 4 eps.
TEST(Linearize, FrictionScalesOnlyNu2) {
  const Mat<double, 6, 6> J1 = jacobian_at<Spatial>(with_friction_scale(1.0));
  const Mat<double, 6, 6> J10 = jacobian_at<Spatial>(with_friction_scale(0.1));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      if (i == 1 && j == 1) EXPECT_NEAR(J10(i, j), 0.1 * J1(i, j), 4 * kEps * std::fabs(J10(i, j)));
      else EXPECT_EQ(J10(i, j), J1(i, j)) << i << "," << j;
    }
}

// Two structural zeros (rank 4) and the damping pattern of seed 000 Table 3
// for friction ×1, ×1/10, ×1/100, with the per-thread eigen routine checked
// against the extended-precision reference on the same J (the values
// themselves: SeedZeroEigenvaluesEqualTheClosedForm).
TEST(Linearize, EigenvaluesOfTheThreeFrictionScenarios) {
  const double tau = seed002_four_bar().actuator[0].circuit.valve_time_constant;
  for (double scale : {1.0, 0.1, 0.01}) {
    SCOPED_TRACE(scale);
    const FourBarParams P = with_friction_scale(scale);
    const Mat<double, 6, 6> J = jacobian_at<Spatial>(P);
    // Rank 4 on the balanced matrix (independent of the eigen-solver): the
    // pivots of full-pivoting LU relative to the first are ≥ 2.3e-3 for the
    // four physical directions and ≤ 1.2e-25 for the two null ones (measured),
    // so the threshold 1e-14 sits in a gap of twenty decades.
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
    EXPECT_LE(matched_distance(nonzero(ours), nonzero(ref), kEps * spectral_radius(ref)), kEigenAgreement);
    // λ3..λ5: the nonzero ones other than λ6 = −1/τ.
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
    }
    EXPECT_LT(s.max_real, 0.0);
  }
  // Lower friction, less damping of the pair (Figs 9–12).
  const auto s10 = stability_point<Spatial>(with_friction_scale(0.1), StabilitySettings{});
  const auto s100 = stability_point<Spatial>(with_friction_scale(0.01), StabilitySettings{});
  EXPECT_GT(s10.damping_ratio, s100.damping_ratio);
}

// The seed 000 eigenvalues at friction ×1, ×1/10, ×1/100 from the closed
// form (closed_form_jacobian, docs/models/linearization.md §5): every ν of eq (93)
// against the reduced Jacobian of both formulations, the eigenvalues and
// figures of stability_point against {0, 0, −1/τ} and the roots of the
// cubic, and the values docs/seeds.md §1 prints (and the
// linearization check table) against the roots.
// Tolerances: each ν is a few dozen roundings on either side, measured
// ≤ 1.3e-15 relative (6 eps) with and without -march=native: bound 1e-14.
// The eigenvalues agree to kEigenAgreement eps·ρ(J) (measured 3.9).
TEST(Linearize, SeedZeroEigenvaluesEqualTheClosedForm) {
  const double tau = seed002_four_bar().actuator[0].circuit.valve_time_constant;
  struct Printed {
    double scale;
    Complex lambda[3];  // λ3..λ5 as docs/seeds.md §1 prints them (largest imaginary part first)
    double digits;      // half a unit of the last printed digit
    double zeta;        // ζ of the pair as printed (NaN: overdamped)
  };
  const Printed printed[] = {{1.0, {{-55.2, 0.0}, {-446.1, 0.0}, {-8338.0, 0.0}}, 0.05, NAN},
                             {0.1, {{-25.20, 154.91}, {-25.20, -154.91}, {-8338.0, 0.0}}, 0.005, 0.161},
                             {0.01, {{-2.65, 156.93}, {-2.65, -156.93}, {-8338.0, 0.0}}, 0.005, 0.017}};
  for (const Printed& row : printed) {
    SCOPED_TRACE(row.scale);
    const FourBarParams P = with_friction_scale(row.scale);
    const ClosedFormJacobian cf = closed_form_jacobian(P);
    EXPECT_NEAR(cf.ds_dphi, -0.5, 2 * kEps);  // −d1 (L2/2) sin φ2 / s = −1·1·(√3/2)/√3
    EXPECT_NEAR(cf.actuator_force, -386.00, 0.005);  // docs/models/four-bar.md §8: −386.00 N
    std::vector<Complex> expected = cubic_roots(cf.c2, cf.c1, cf.c0);
    // The printed values, to their last digit (−8338 is printed to the unit).
    for (const Complex& value : row.lambda) {
      const double digits = value.real() == -8338.0 ? 0.5 : row.digits;
      double nearest = 1e300;
      for (const Complex& z : expected) nearest = std::min(nearest, std::max(std::fabs(z.real() - value.real()), std::fabs(z.imag() - value.imag())));
      EXPECT_LE(nearest, digits) << value;
    }
    std::optional<Complex> pair;
    for (const Complex& z : expected)
      if (z.imag() > 0) pair = z;
    if (std::isnan(row.zeta)) EXPECT_FALSE(pair.has_value());
    else {
      ASSERT_TRUE(pair.has_value());
      EXPECT_NEAR(-pair->real() / std::abs(*pair), row.zeta, 0.0005);
    }
    expected.emplace_back(-1.0 / tau, 0.0);  // λ6
    double max_real = -1e300;
    for (const Complex& z : expected) max_real = std::max(max_real, z.real());
    const double agreement = kEigenAgreement * kEps * spectral_radius(expected);

    for (int formulation = 0; formulation < 2; ++formulation) {
      SCOPED_TRACE(formulation ? "3D" : "planar");
      Equilibrium<Spatial> spatial;
      Equilibrium<Planar> planar;
      const Mat<double, 6, 6> J = formulation ? jacobian_at<Spatial>(P, &spatial) : jacobian_at<Planar>(P, &planar);
      const double entry[9] = {NAN, J(1, 0), J(1, 1), J(1, 3), J(1, 4), J(2, 2), J(3, 1), J(3, 2), J(4, 1)};
      for (int k = 1; k <= 8; ++k) EXPECT_NEAR(entry[k], cf.nu[k], 1e-14 * std::fabs(cf.nu[k])) << "nu" << k;
      const StabilityOf<Spatial> s = formulation ? stability_point<Spatial>(P, StabilitySettings{})
                                                 : stability_point<Planar>(P, StabilitySettings{});
      ASSERT_EQ(s.status, 0);
      EXPECT_EQ(s.structural_zeros, 2);
      std::vector<Complex> computed;
      for (int k = 0; k < 6; ++k) computed.emplace_back(s.re[k], s.im[k]);
      EXPECT_LE(matched_distance(expected, nonzero(computed), kEps * spectral_radius(expected)), kEigenAgreement);
      // The structural zeros come out at the backward-error level (docs/usage.md §4,
      // "Structural zeros"): measured ≤ 0.3 eps·ρ(J).
      for (const Complex& z : computed) {
        if (std::abs(z) <= StabilitySettings{}.zero_tolerance * spectral_radius(computed)) {
          EXPECT_LE(std::abs(z), agreement);
        }
      }
      EXPECT_NEAR(s.max_real, max_real, agreement);
      if (pair) {
        // ζ = −Re λ/|λ| and ω_d = Im λ move by at most 2|δλ|/|λ| and |δλ|.
        EXPECT_NEAR(s.damping_ratio, -pair->real() / std::abs(*pair), 2 * agreement / std::abs(*pair));
        EXPECT_NEAR(s.frequency, pair->imag(), agreement);
      }
    }
  }
}

// The two left null vectors of docs/models/linearization.md §5 (conserved oil in V3 and in V1 ∪ V2)
// annihilate the pressure/mechanics block: the physical origin of the zeros.
// Each product wᵀJ(:, j) cancels terms that are equal by construction up to
// the one rounding of ν7/ν5 · ν5, so |wᵀJ(:, j)| ≤ 2 eps Σ|w_i J_ij|
// (measured exactly 0; a column of zeros must give exactly 0).
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
      EXPECT_LE(std::fabs(s), 2 * kEps * scale) << j;
    }
}

// Same mechanism, two formulations: relative joint coordinates (3 coordinates,
// 2 constraints) and the 3D model (10, 9). Same nonzero eigenvalues, at the
// seed 000 point and at random admissible parameter points: measured
// ≤ 2.3 eps·ρ(J) (kEigenAgreement = 32) and p2 to ≤ 7.7e-16 relative
// (bound 4e-15), with and without -march=native.
TEST(Linearize, PlanarAndSpatialFormulationsAgree) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (int trial = 0; trial < 25; ++trial) {
    FourBarParams P = with_friction_scale(trial == 0 ? 1.0 : std::pow(10.0, -3.0 * u01(rng)));
    if (trial > 0) {
      P.mechanism.initial_angle[0] = (45.0 + 30.0 * u01(rng)) * kDegree;
      P.actuator[0].circuit.oil_bulk_modulus = 0.5e9 + 1.5e9 * u01(rng);
      P.actuator[0].circuit.rod_side_initial_pressure = 2e6 + 3e6 * u01(rng);
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
    EXPECT_LE(matched_distance(nonzero(za), nonzero(zb), kEps * spectral_radius(za)), kEigenAgreement);
    EXPECT_NEAR(a.pressure[1], b.pressure[1], 4e-15 * a.pressure[1]);
  }
}

// The reduced Jacobian takes every partial derivative along the admissible
// motions (directional jets, kernels/linearize/reduced_jacobian.hpp). Check
// the directional passes against the full derivatives projected afterwards,
// computed here the long way: ∂e/∂x, ∂e/∂ẋ, ∂e/∂ẍ and H_x, H_ẋ on Dual<n>,
// the multiplier Hessian ∇²(ΛᵀC) on the nested Dual<n, Dual<n>>. Random
// states away from equilibrium and random directions (not only T), both
// models. Tolerance: rounding of sums of up to n² products (and of the
// derivative chains behind each term), relative to Σ|terms|: measured
// ≤ 4.9e-15 (22 eps) with and without -march=native, bound 5e-14.
constexpr double kDirectional = 5e-14;
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
      EXPECT_NEAR(e_dir[i].a, value, kDirectional * value_scale) << "Dᵀe, direction " << i;
      for (int j = 0; j < nd; ++j) {
        double projected = 0.0, scale = 0.0;
        for (int k = 0; k < n; ++k)
          for (int l = 0; l < n; ++l) {
            projected += D[k][i] * e[k].v[l] * D[l][j];
            scale += std::abs(D[k][i] * e[k].v[l] * D[l][j]);
          }
        EXPECT_NEAR(e_dir[i].v[group * nd + j], projected, kDirectional * scale + 1e-300)
            << "Dᵀ(∂e/∂·)D, group " << group << " (" << i << ", " << j << ")";
      }
    }
    for (int i = 0; i < r; ++i) {
      EXPECT_NEAR(h_dir[i].a, h[i].a, kDirectional * std::abs(h[i].a)) << "H, row " << i;
      for (int j = 0; j < nd; ++j) {
        double projected = 0.0, scale = 0.0;
        for (int l = 0; l < n; ++l) {
          projected += h[i].v[l] * D[l][j];
          scale += std::abs(h[i].v[l] * D[l][j]);
        }
        EXPECT_NEAR(h_dir[i].v[group * nd + j], projected, kDirectional * scale + 1e-300)
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
      EXPECT_NEAR(psi_dir.v[i].v[j], projected, kDirectional * scale + 1e-300) << "Dᵀ∇²(ΛᵀC)D (" << i << ", " << j << ")";
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
  // An equilibrium of the counterpart too: ẋ = 0, ṗ = 0 (no flow: p1 = p2
  // bitwise, ṡ = 0, valve closed) and U̇ = 0 exactly; the accelerations
  // M⁻¹(Q − C_xᵀΛ) are the rounding of forces of up to Λ_max = 725 N over
  // masses of 16–64 kg (≈ 45 m/s²): measured ≤ 1.6e-14, bound 1e-13.
  for (int k = 0; k < Form::N; ++k) {
    if (k >= Form::iv && k < Form::ip) EXPECT_LE(std::fabs(F0[k]), 1e-13) << k;
    else EXPECT_EQ(F0[k], 0.0) << k;
  }

  Mat<double, Form::N, Form::N> Jc;
  ASSERT_TRUE(Form::jacobian_exact(P, eq.K, X0, f, Jc));
  std::vector<Complex> counterpart;
  reference_eigen(Jc, counterpart);
  std::sort(counterpart.begin(), counterpart.end(), [](Complex a, Complex b) { return std::abs(a) > std::abs(b); });
  // 4 physical + the 2 structural + 18 spurious zeros: the 20 smallest are
  // zeros. The spurious ones sit on 2×2 Jordan blocks (C̈ = 0: C(t) = C0 + Ċ0 t),
  // so rounding δ moves them by ~sqrt(δ): measured 3.7e-10 of the smallest
  // physical |λ| (55.2 1/s); bound 4e-9, what a 100× larger rounding would give.
  for (int k = 4; k < Form::N; ++k) EXPECT_LE(std::abs(counterpart[k]), 4e-9 * std::abs(physical.back())) << k;
  counterpart.resize(4);
  // Measured 4.4 eps·ρ (2.7 without -march=native).
  EXPECT_LE(matched_distance(physical, counterpart, kEps * spectral_radius(physical)), kEigenAgreement);

  // Central differences, eq (100). Measured relative errors at h = 1e-3, 1e-5,
  // 1e-8: 0.135, 1.8e-5 (8.3e-5 without -march=native: the rounding branch
  // depends on contraction), 0.038 (0.048). The bottom of the U is asserted
  // below 5e-4, and its sides by ratios ≥ 150 (h²: 1e4 expected, measured
  // ≥ 1.6e3) and ≥ 50 (eps/h: 1e3 expected, measured ≥ 5.8e2).
  auto fd_error = [&](double h) {
    Mat<double, Form::N, Form::N> Jh;
    EXPECT_TRUE(Form::jacobian_central(P, eq.K, X0, f, h, Jh));
    std::vector<Complex> e;
    reference_eigen(Jh, e);
    return matched_relative_distance(physical, e);
  };
  const double e3 = fd_error(1e-3), e5 = fd_error(1e-5), e8 = fd_error(1e-8);
  EXPECT_LT(e5, 5e-4);
  EXPECT_GT(e3, 150 * e5);
  EXPECT_GT(e8, 50 * e5);
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
      ASSERT_EQ(Integrator::step(P, eq.K, S, W, k, X, F, forcing), Status::ok) << k;
      if (k + 1 == at_t2) std::copy(X, X + Form::N, X_t2);
      if (k + 1 >= at_t2) deviation.push_back(X[phi] - eq.x[phi]);
      double C[SpatialFourBarDae::m];
      SpatialFourBarDae::constraints(P.mechanism, X, C);
      for (double c : C) *max_drift = std::max(*max_drift, std::fabs(c));
    }
  };
  // The run at dt, and one at 2 dt for its discretization error (cheaper
  // than dt/2; for a first- or second-order error the dt run is off by at
  // most its distance to the 2 dt run).
  const double dt = 1e-4;
  std::vector<double> nonlinear, nonlinear_coarse;
  double Xt2[Form::N], Xt2_coarse[Form::N], drift, drift_coarse;
  run(dt, nonlinear, Xt2, &drift);
  run(2 * dt, nonlinear_coarse, Xt2_coarse, &drift_coarse);
  // Baumgarte keeps the constraints: the drift is where Newton stops (its
  // increment tolerance, position_tolerance = 1e-11 m), not rounding;
  // measured 1.8e-13 m.
  EXPECT_LE(std::max(drift, drift_coarse), Integrator::Settings{}.position_tolerance);
  // At t2 the crank has settled under M0 (the slowest mode, 55 1/s, has
  // decayed over the 0.5 s hold): its deviation is the static deflection of
  // the closed-form linear model under M0. At rest p̃1 = p̃2, p̃3 = ν8 φ̃ and
  // (1 − ν7/ν5) p̃2 = ν6 φ̃ (the two conserved oil volumes), so
  // 0 = ν1 φ̃ + ν3 p̃2 + ν4 p̃3 + M0/m0 gives
  //   φ̃ = −M0 / (m0 (ν1 + ν3 ν6/(1 − ν7/ν5) + ν4 ν8)) = 5.2316e-5 rad.
  // Measured 7.1e-5 relative (the nonlinearity at that amplitude): bound 5e-4.
  const ClosedFormJacobian cf = closed_form_jacobian(P);
  const double* nu = cf.nu;
  const double deflection = -M2.M0 / (cf.m0 * (nu[1] + nu[3] * nu[6] / (1 - nu[7] / nu[5]) + nu[4] * nu[8]));
  ASSERT_FALSE(nonlinear.empty());
  EXPECT_NEAR(nonlinear[0], deflection, 5e-4 * deflection);
  double peak = 0.0;
  for (double d : nonlinear) peak = std::max(peak, std::fabs(d));

  // Linear model, eq (94): x̃(t2) from the nonlinear state, Ũ(t2) = 0;
  // solved exactly through the eigendecomposition (in long double).
  using VL = reference_numerics::ComplexVector<long double>;
  reference_numerics::MatrixLD A(6, 6);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) A(i, j) = J(i, j);
  const reference_numerics::Spectrum<long double> es = reference_numerics::spectrum(A, true);
  VL x0(6);
  x0 << Xt2[phi] - eq.x[phi], Xt2[Form::iv + phi], Xt2[Form::ip] - eq.p[0], Xt2[Form::ip + 1] - eq.p[1],
      Xt2[Form::ip + 2] - eq.p[2], 0.0L;
  const VL c = reference_numerics::solve(es.vectors, x0);
  double error = 0.0, discretization = 0.0;
  for (size_t k = 0; k < nonlinear.size(); ++k) {
    const long double tau = k * dt;
    std::complex<long double> first = 0;  // component 0 of V e^{Λτ} c
    for (int i = 0; i < 6; ++i) first += es.vectors(0, i) * std::exp(es.values(i) * tau) * c(i);
    const double linear = static_cast<double>(first.real());
    error = std::max(error, std::fabs(linear - nonlinear[k]));
    if (k % 2 == 0) discretization = std::max(discretization, std::fabs(nonlinear_coarse[k / 2] - nonlinear[k]));
  }
  // The nonlinear run is converged in dt far below the comparison tolerance:
  // dt and 2 dt differ by 2.3e-3 of the peak (first order in dt: the pulse
  // ends at t2 within a step), bound 2e-2.
  EXPECT_LE(discretization, 0.02 * peak);
  // What the comparison measures is the linearization error (the friction
  // law's curvature, Fig. 13): 3.4 % of the peak, bound 5 %.
  EXPECT_LE(error, 0.05 * peak) << "peak deviation " << peak << " rad";
  std::printf("linear vs nonlinear after the pulse: %.2f %% of the peak deviation %.4e rad (dt vs 2 dt: %.2f %%)\n",
              100 * error / peak, peak, 100 * discretization / peak);
}

// Per-thread eigen routine on 1000 model Jacobians (random friction, bulk
// modulus, crank angle, p3; both formulations) against the extended-precision
// reference. Every eigenvalue, the structural zeros included, within the
// backward-error bound kBackward κ eps ‖J_bal‖_F (κ from the reference's
// eigenvectors; measured ≤ 6.3 of κ eps ‖J_bal‖_F with and without
// -march=native); and a plain relative error ≤ 1.5e-13 (measured 1.8e-14)
// for the eigenvalues whose condition makes that attainable (κ‖J‖/|λ| ≤ 1e4:
// the physical ones).
TEST(Linearize, PerThreadEigenvaluesMatchTheReferenceOnModelJacobians) {
  constexpr double kBackward = 64.0;
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  long compared = 0, total = 0;
  double worst = 0.0, worst_backward = 0.0;
  for (int trial = 0; trial < 1000; ++trial) {
    FourBarParams P = with_friction_scale(std::pow(10.0, -3.0 * u01(rng)));
    P.mechanism.initial_angle[0] = (40.0 + 40.0 * u01(rng)) * kDegree;
    P.actuator[0].circuit.oil_bulk_modulus = 0.5e9 + 1.5e9 * u01(rng);
    P.actuator[0].circuit.rod_side_initial_pressure = 2e6 + 3e6 * u01(rng);
    Mat<double, 6, 6> J = trial % 2 ? jacobian_at<Planar>(P) : jacobian_at<Spatial>(P);
    const EigenResult<6> ours = eigenvalues<6>(J);
    ASSERT_EQ(ours.status, eigen_ok);
    std::vector<Complex> ref, mine;
    std::vector<double> kappa;
    double norm = 0.0;
    reference_eigen(J, ref, &kappa, &norm);
    for (int k = 0; k < 6; ++k) mine.emplace_back(ours.re[k], ours.im[k]);
    const std::vector<int> m = match(ref, mine);
    for (size_t i = 0; i < ref.size(); ++i) {
      ++total;
      const double distance = std::abs(mine[m[i]] - ref[i]);
      worst_backward = std::max(worst_backward, distance / (kappa[i] * kEps * norm));
      EXPECT_LE(distance, kBackward * kappa[i] * kEps * norm) << "trial " << trial << " lambda " << ref[i];
      if (kappa[i] * norm / std::abs(ref[i]) > 1e4) continue;  // the structural zeros
      ++compared;
      worst = std::max(worst, distance / std::abs(ref[i]));
      EXPECT_LE(distance, 1.5e-13 * std::abs(ref[i])) << "trial " << trial << " lambda " << ref[i];
    }
  }
  // 4 of 6 per matrix are physical; the filter must not empty the test.
  EXPECT_GE(compared, total * 6 / 10);
  std::printf("compared %ld of %ld eigenvalues, worst relative error %.2e, worst |err|/(kappa eps ||J||) %.2f\n",
              compared, total, worst, worst_backward);
}

// A crank-angle sweep (the natural axis of a stability map) stays on the
// assembly branch of the nominal configuration: the equilibria of both models
// keep the orientation σ = sign sin(φ43 + β3 − β2) of seed 002's guess, equal
// the loop closure in closed form on that branch (closed_form_jacobian; measured
// ≤ 4.4e-16 rad over the 180 angles, bound 4e-15) and move continuously
// (|Δφ32|, |Δφ43| < 3 |Δφ2| between neighbours, measured ≤ 1.26 |Δφ2|: a branch
// switch flips the coupler by ~1 rad or more, 28 steps).
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
    const ClosedFormJacobian cf = closed_form_jacobian(P);
    const double closed_phi32 = cf.coupler_angle - P.mechanism.initial_angle[0];
    const double closed_phi43 = cf.rocker_angle - cf.coupler_angle;
    for (double angle : {phi32, planar.x[1]})
      EXPECT_NEAR(std::remainder(angle - closed_phi32, 2 * kPi), 0.0, 4e-15) << "crank " << i * 2 << " deg";
    for (double angle : {phi43, planar.x[2]})
      EXPECT_NEAR(std::remainder(angle - closed_phi43, 2 * kPi), 0.0, 4e-15) << "crank " << i * 2 << " deg";
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

// Bad parameters fail alone, with a status, not a crash.
TEST(Linearize, InadmissiblePointsAreFlagged) {
  FourBarParams P = seed002_four_bar();
  P.mechanism.cut_x = 20.0;  // output pivot out of reach: the loop cannot close
  const auto s = stability_point<Spatial>(P, StabilitySettings{});
  EXPECT_NE(s.status, 0);
  EXPECT_TRUE(std::isnan(s.max_real));
  FourBarParams Q = seed002_four_bar();
  Q.actuator[0].circuit.rod_side_initial_pressure = 0.01e6;  // p2 would be negative
  const auto t = stability_point<Planar>(Q, StabilitySettings{});
  EXPECT_EQ(t.status, static_cast<int>(Status::invalid_parameters));
}

// ---- A model file's cylinder on the two-volume and servo-valve circuits ----
// models/four_bar.toml (seed 002's four-bar re-described) with its cylinder
// on the two-volume circuit, or on seed 004's servo valve between the same
// pins, has a state of four: (φ, ω, p_piston, p_rod). The model file's
// kernel holds three pressure slots and a spool per cylinder (the circuit
// choice); its map leaves the unused slot and the ideal spool out
// (kernels/linearize/reduced_jacobian.hpp live_states). The reference is J
// written by hand (docs/models/linearization.md §3.4): the mechanism's row
// from closed_form_jacobian (m0, ν1, ν2 and s' do not depend on the circuit),
// the piston force A_p p_p − A_r p_r, and with the valve closed (no flow,
// whatever the pressures: the flows are linear in U)
//   ṗ_p = −(B_p/V_p) (A_p s' ω + Q_L),   ṗ_r = (B_r/V_r) (A_r s' ω + Q_L),
//   Q_L = c_l (p_p − p_r) (the servo valve's internal leakage; 0 for the two-volume circuit),
// B the effective bulk modulus of seed 000 eq (75) for the two-volume
// circuit, β for the servo valve (seed 004 eqs 80–81), V at the assembly's
// stroke. det(sI − J) = s² (s² − ν2 s − ν1 − Σ ν_F ν_p) without leakage
// (two structural zeros: each chamber's oil is conserved), one zero with it.
// A leaking cylinder is at rest only with p_p = p_r = F0/(A_p − A_r), which
// must be positive: that case hangs the four-bar under gravity +y (F0 > 0).
// Each eigenvalue of the study's map against the long double eigenvalues of
// that J within kEigenAgreement eps·ρ(J) (measured ≤ 2.3, printed below).
namespace {
struct FileCircuit {
  const char* circuit;
  std::string lines;            // the [[cylinder]]'s circuit and its keys
  int structural_zeros;
  double gravity_y;             // the file's gravity, y component [m/s²]
  // J's hydraulic rows at the equilibrium from the circuit's keys, the
  // closed form's mechanism and s'.
  // (NaN until the circuit's function sets them.)
  double piston_area = NAN, rod_area = NAN;          // A_p, A_r [m²]
  double piston_volume = NAN, rod_volume = NAN;      // V_p, V_r [m³]
  double piston_bulk = NAN, rod_bulk = NAN;          // B_p, B_r [Pa]
  double leakage = NAN;                              // c_l [m³/(s·Pa)]
  double rod_pressure = NAN;                         // p_r at rest [Pa]
  double stroke = NAN, closed_length = NAN;  // the servo valve's [m]
};

std::string four_bar_file_on(const FileCircuit& c) {
  std::ifstream in(std::string(HYDROSWEEP_SOURCE_DIR) + "/models/four_bar.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  std::ostringstream gravity;
  gravity.precision(17);
  gravity << "gravity = [0.0, " << c.gravity_y << "]";
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"circuit = \"three-volume\"", c.lines},
                                 {"gravity = [0.0, -9.81]", gravity.str()}}) {
    EXPECT_NE(t.find(from), std::string::npos) << from;
    if (t.find(from) != std::string::npos) t.replace(t.find(from), from.size(), to);
  }
  const std::string path = testing::TempDir() + "linearize_four_bar_" + c.circuit + ".toml";
  std::ofstream(path) << t;
  return path;
}

FileCircuit two_volume_circuit() {
  FileCircuit c{"two-volume", "circuit = \"two-volume\"\nhose_volume_A = 7.0e-5", 2, -9.81};
  const TwoVolumeCircuitParams k;  // the keys the file leaves at their defaults
  const double hose_A = 7.0e-5;
  c.piston_area = 0.25 * kPi * k.piston_diameter * k.piston_diameter;
  c.rod_area = c.piston_area - 0.25 * kPi * k.rod_diameter * k.rod_diameter;
  const double l2 = k.piston_chamber_length0, l3 = k.cylinder_length - l2;  // at s = s0
  c.piston_volume = hose_A + c.piston_area * l2;
  c.rod_volume = k.hose_volume_B + c.rod_area * l3;
  c.piston_bulk = 1.0 / (1.0 / k.oil_bulk_modulus + hose_A / (c.piston_volume * k.hose_bulk_modulus) +
                         c.piston_area * l2 / (c.piston_volume * k.cylinder_bulk_modulus));
  c.rod_bulk = 1.0 / (1.0 / k.oil_bulk_modulus + k.hose_volume_B / (c.rod_volume * k.hose_bulk_modulus) +
                      c.rod_area * l3 / (c.rod_volume * k.cylinder_bulk_modulus));
  c.leakage = 0.0;
  c.rod_pressure = k.rod_side_initial_pressure;
  return c;
}

// The servo valve between the file's pins (stroke 1.2 m, the piston at
// x = s − 1.1 m), with and without internal leakage.
FileCircuit servo_valve_circuit(double leakage) {
  const double closed_length = 1.1, stroke = 1.2;
  std::ostringstream lines;
  lines.precision(17);
  lines << "circuit = \"servo-valve\"\nstroke = " << stroke << "\nclosed_length = " << closed_length
        << "\nleakage_coefficient = " << leakage;
  FileCircuit c{leakage > 0 ? "servo-valve-leaking" : "servo-valve", lines.str(), leakage > 0 ? 1 : 2,
                leakage > 0 ? 9.81 : -9.81};
  const ServoValveCircuitParams k;
  c.piston_area = 0.25 * kPi * k.piston_diameter * k.piston_diameter;
  c.rod_area = c.piston_area - 0.25 * kPi * k.rod_diameter * k.rod_diameter;
  c.piston_bulk = c.rod_bulk = k.oil_bulk_modulus;
  c.leakage = leakage;
  c.rod_pressure = k.rod_side_initial_pressure;  // the leaking case's: below, from F0
  c.piston_volume = c.rod_volume = NAN;            // below, from s at the assembly
  c.stroke = stroke;
  c.closed_length = closed_length;
  return c;
}

Mat<double, 4, 4> file_cylinder_jacobian(const ClosedFormJacobian& cf, FileCircuit& c) {
  if (std::isfinite(c.stroke)) {  // the servo valve: its volumes at the assembly's stroke
    const ServoValveCircuitParams k;
    const double x = cf.cylinder_length - c.closed_length;
    c.piston_volume = k.dead_volume_a + c.piston_area * x;
    c.rod_volume = k.dead_volume_b + c.rod_area * (c.stroke - x);
    if (c.leakage > 0) c.rod_pressure = cf.actuator_force / (c.piston_area - c.rod_area);
  }
  const double ds = cf.ds_dphi, m0 = cf.m0;
  const double gp = c.piston_bulk / c.piston_volume, gr = c.rod_bulk / c.rod_volume;
  Mat<double, 4, 4> J = Mat<double, 4, 4>::zero();
  J(0, 1) = 1.0;
  J(1, 0) = cf.nu[1];
  J(1, 1) = cf.nu[2];
  J(1, 2) = c.piston_area * ds / m0;
  J(1, 3) = -c.rod_area * ds / m0;
  J(2, 1) = -gp * c.piston_area * ds;
  J(2, 2) = -gp * c.leakage;
  J(2, 3) = gp * c.leakage;
  J(3, 1) = gr * c.rod_area * ds;
  J(3, 2) = gr * c.leakage;
  J(3, 3) = -gr * c.leakage;
  return J;
}
}  // namespace

TEST(Linearize, FileCylinderOnTwoVolumeAndServoValveCircuitsHasTheClosedFormEigenvalues) {
  for (FileCircuit c : {two_volume_circuit(), servo_valve_circuit(0.0), servo_valve_circuit(2e-12)}) {
    SCOPED_TRACE(c.circuit);
    FourBarParams P = seed002_four_bar();
    P.mechanism.gravity_y = c.gravity_y;
    const ClosedFormJacobian cf = closed_form_jacobian(P);
    const Mat<double, 4, 4> J = file_cylinder_jacobian(cf, c);
    std::vector<Complex> expected;
    reference_eigen<4>(J, expected);
    const Study st = parse_study("[study]\nmodel_file = \"" + four_bar_file_on(c) + "\"\nfriction = \"brown-mcphee\"\n",
                                 "map.toml");
    const std::vector<StabilityRecord> points = run_stability_cpu(st.record(), st.design(), 1);
    ASSERT_EQ(points.size(), 1u);
    const StabilityRecord& s = points[0];
    ASSERT_EQ(s.status, 0);
    ASSERT_EQ(s.eigenvalue_count, 4);
    EXPECT_EQ(st.design().descriptor->stability_eigenvalues, 4);
    EXPECT_EQ(s.structural_zeros, c.structural_zeros);
    std::vector<Complex> computed;
    for (int k = 0; k < s.eigenvalue_count; ++k) computed.emplace_back(s.re[k], s.im[k]);
    for (int k = s.eigenvalue_count; k < StabilityRecord::capacity; ++k) EXPECT_TRUE(std::isnan(s.re[k])) << k;
    const double distance = matched_distance(nonzero(expected), nonzero(computed), kEps * spectral_radius(expected));
    EXPECT_LE(distance, kEigenAgreement);
    std::printf("  %s: eigenvalues within %.2g eps rho(J), rho = %.4g 1/s, %d structural zeros, p = %.6g, %.6g Pa\n",
                c.circuit, distance, spectral_radius(expected), s.structural_zeros, s.pressure[1], s.pressure[2]);
    EXPECT_EQ(nonzero(computed).size(), 4u - c.structural_zeros);
    // The equilibrium: the crank at 60° (measured exact; bound 5 ulp), the
    // piston side holding F0 (slot 2 of the three; slot 1, unused, holds the
    // same value). The pressures differ from the closed form's F0 by its
    // rounding: measured 4.7e-16 relative, 6.1e-15 where the leak puts F0 on
    // the rod's section alone (bounds ~10× that).
    EXPECT_NEAR(s.crank_angle, 60 * kDegree, 1e-15);
    const double piston_pressure = (cf.actuator_force + c.rod_area * c.rod_pressure) / c.piston_area;
    const double relative = c.leakage > 0 ? 6e-14 : 5e-15;
    EXPECT_NEAR(s.pressure[1], piston_pressure, relative * piston_pressure);
    EXPECT_EQ(s.pressure[0], s.pressure[1]);
    EXPECT_NEAR(s.pressure[2], c.rod_pressure, relative * c.rod_pressure);
  }
}
