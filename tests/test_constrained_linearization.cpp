// Seed 003's linearizations (host/constrained/linearization.hpp) on
// the N-loop four-bar linkage and the flexible double pendulum
// (docs/models/nloop-and-flexible.md). References: the closed forms of §3
// item 7 (computed here, independently of the code), seed 003's Tables 1–2
// and singular case to their printed digits, the rigid double pendulum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>

#include "host/constrained/linearization.hpp"
#include "host/registry/models.hpp"
#include "host/constrained/points.hpp"
#include "kernels/linearize/constrained_per_thread.hpp"
#include "kernels/models/flexible_pendulum.hpp"
#include "kernels/models/nloop_linkage.hpp"

namespace hs {
namespace {

const ConstrainedMethod kMethods[] = {ConstrainedMethod::mcs, ConstrainedMethod::rcs, ConstrainedMethod::ucs};

template <class Model>
struct Built {
  ConstrainedSystem sys;
  ConstrainedEquilibrium eq;
  explicit Built(const typename Model::Params& p)
      : sys(Model::coordinates(p), Model::constraint_count(p)) {
    Model::build(p, sys);
    Eigen::VectorXd q0(sys.n());
    Model::initial_guess(p, q0.data());
    eq = lagrange_equilibrium(sys, q0);
  }
};

// The N-loop linkage's closed forms (m = 1 kg, l = 1 m): the stable
// equilibrium in (π/2, π) by bisection, and the roots of M_r s² + C_r s + K_r.
struct NLoopClosedForm {
  double phi, Mr, Kr, Cr;
  std::complex<double> s1;  // Im > 0
  NLoopClosedForm(int N, double k, double c, double g = 9.81) {
    const double r2 = std::sqrt(2.0);
    auto L = [](double f) { return std::sqrt(2.0 + 2.0 * std::cos(f)); };
    auto balance = [&](double f) { return g * (3 * N + 1) / 2.0 * std::cos(f) - N * k * (L(f) - r2) * std::sin(f) / L(f); };
    double a = M_PI / 2 + 1e-3, b = M_PI - 1e-3;
    EXPECT_LT(balance(a) * balance(b), 0.0);
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (a + b);
      (balance(a) * balance(mid) <= 0.0 ? b : a) = mid;
    }
    phi = 0.5 * (a + b);
    Mr = (4.0 * N + 1.0) / 3.0;
    Kr = -g * (3 * N + 1) / 2.0 * std::sin(phi) + N * k * ((1 - std::cos(phi)) / 2 - (L(phi) - r2) * L(phi) / 4);
    Cr = N * c * std::sin(phi) * std::sin(phi) / (2 + 2 * std::cos(phi));
    s1 = (-Cr + std::sqrt(std::complex<double>(Cr * Cr - 4 * Mr * Kr))) / (2 * Mr);
  }
};

TEST(NLoopLinkage, Table1EquilibriumAndEigenvaluesForEveryMethod) {
  // seed 003 Table 1: N, d (= φ_eq), Im s_1
  const double table[3][3] = {{1, 2.2343, 2.1477}, {5, 1.8922, 1.5455}, {10, 1.8454, 1.4352}};
  for (const auto& row : table) {
    const int N = static_cast<int>(row[0]);
    SCOPED_TRACE("N = " + std::to_string(N));
    NLoopLinkageParams p;
    p.loops = N;
    Built<NLoopLinkage> b(p);
    ASSERT_EQ(b.eq.status, Status::ok) << b.eq.message;
    const NLoopClosedForm exact(N, p.spring_stiffness, 0.0);
    const double phi = b.eq.q[NLoopLinkage::phi(p)];
    EXPECT_NEAR(phi, exact.phi, 1e-12);  // Newton converged to rounding
    EXPECT_NEAR(phi, row[1], 5e-5);      // the printed digits
    for (ConstrainedMethod m : kMethods) {
      SCOPED_TRACE(method_name(m));
      const ConstrainedLinearization L = linearize_constrained(b.sys, b.eq, m);
      ASSERT_EQ(L.status, Status::ok) << L.message;
      ASSERT_EQ(L.eigenvalues.size(), 2u);  // one degree of freedom: ±s_1
      // MCS and RCS exact (measured 1e-15..2e-13); UCS the penalty's error
      // (measured 3.9e-7 .. 7.6e-7; seed 003: below 3e-6 rad/s).
      const double tol = m == ConstrainedMethod::ucs ? 3e-6 : 2e-12;
      EXPECT_NEAR(L.eigenvalues[0].imag(), exact.s1.imag(), tol);
      EXPECT_NEAR(L.eigenvalues[1].imag(), -exact.s1.imag(), tol);
      EXPECT_NEAR(L.eigenvalues[0].real(), 0.0, tol);
      EXPECT_NEAR(L.eigenvalues[0].imag(), row[2], 5e-5);
    }
  }
}

TEST(NLoopLinkage, DampedTable2) {
  NLoopLinkageParams p;
  p.damping = 1.0;
  Built<NLoopLinkage> b(p);
  ASSERT_EQ(b.eq.status, Status::ok);
  const NLoopClosedForm exact(1, p.spring_stiffness, 1.0);
  EXPECT_NEAR(exact.Cr, 0.807953, 5e-7);  // docs/models/nloop-and-flexible.md §3
  for (ConstrainedMethod m : kMethods) {
    SCOPED_TRACE(method_name(m));
    const ConstrainedLinearization L = linearize_constrained(b.sys, b.eq, m);
    ASSERT_EQ(L.status, Status::ok) << L.message;
    ASSERT_EQ(L.eigenvalues.size(), 2u);
    const double tol = m == ConstrainedMethod::ucs ? 3e-6 : 2e-12;
    EXPECT_NEAR(L.eigenvalues[0].real(), exact.s1.real(), tol);
    EXPECT_NEAR(L.eigenvalues[0].imag(), exact.s1.imag(), tol);
    EXPECT_NEAR(L.eigenvalues[0].real(), -0.2424, 5e-5);  // seed 003 Table 2
    EXPECT_NEAR(L.eigenvalues[0].imag(), 2.1340, 5e-5);
  }
}

TEST(NLoopLinkage, SingularConfigurationRcsAndUcsFindBothModesMcsRefuses) {
  NLoopLinkageParams p;  // seed 003 §5.1: k_f = 0, gravity along +x, φ = 0
  p.spring_stiffness = 0.0;
  p.gravity_x = 9.81;
  p.gravity_y = 0.0;
  p.angle_guess = 0.0;
  Built<NLoopLinkage> b(p);
  ASSERT_EQ(b.eq.status, Status::ok) << b.eq.message;
  EXPECT_EQ(b.eq.rank, 3);  // Φ_q loses a rank: m = 4
  // Minimum-norm multipliers: rod tensions m g / 2, no coupler force.
  const double expected[4] = {4.905, 4.905, 0.0, 0.0};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(b.eq.lambda[k], expected[k], 1e-12) << k;

  const ConstrainedLinearization mcs = linearize_constrained(b.sys, b.eq, ConstrainedMethod::mcs);
  EXPECT_EQ(mcs.status, Status::constraint_failure);
  EXPECT_NE(mcs.message.find("rank 3 < m = 4"), std::string::npos) << mcs.message;

  const double w1 = std::sqrt(6 * 9.81 / 5), w2 = std::sqrt(2 * 9.81);  // §3: in- and anti-phase
  for (ConstrainedMethod m : {ConstrainedMethod::rcs, ConstrainedMethod::ucs}) {
    SCOPED_TRACE(method_name(m));
    const ConstrainedLinearization L = linearize_constrained(b.sys, b.eq, m);
    ASSERT_EQ(L.status, Status::ok) << L.message;
    ASSERT_EQ(L.eigenvalues.size(), 4u);
    const double tol = m == ConstrainedMethod::ucs ? 1e-6 : 1e-10;  // measured 4e-8 (UCS), 5e-14 (RCS)
    EXPECT_NEAR(L.eigenvalues[0].imag(), w1, tol);
    EXPECT_NEAR(L.eigenvalues[1].imag(), -w1, tol);
    EXPECT_NEAR(L.eigenvalues[2].imag(), w2, tol);
    EXPECT_NEAR(L.eigenvalues[3].imag(), -w2, tol);
    EXPECT_NEAR(L.eigenvalues[0].imag(), 3.4310, 5e-5);  // the printed digits
    EXPECT_NEAR(L.eigenvalues[2].imag(), 4.4294, 5e-5);
  }
}

// docs/models/nloop-and-flexible.md §5: the sizes and spurious counts.
TEST(ConstrainedLinearization, EigenvalueCountsOfEachMethod) {
  auto check = [](const ConstrainedSystem& sys, const ConstrainedEquilibrium& eq, double alpha) {
    const int n = sys.n(), m = sys.m();
    ConstrainedSettings S;
    S.penalty.alpha = alpha;
    const ConstrainedLinearization mcs = linearize_constrained(sys, eq, ConstrainedMethod::mcs, S);
    const ConstrainedLinearization rcs = linearize_constrained(sys, eq, ConstrainedMethod::rcs, S);
    const ConstrainedLinearization ucs = linearize_constrained(sys, eq, ConstrainedMethod::ucs, S);
    EXPECT_EQ(mcs.total, 2 * (n - m));
    EXPECT_EQ(mcs.spurious, 0);
    EXPECT_EQ(rcs.total, 2 * n + m);
    EXPECT_EQ(rcs.spurious, 3 * m);
    EXPECT_GT(rcs.separation, 10.0);  // the removed ones are clearly infinite
    EXPECT_EQ(ucs.total, 2 * n);
    EXPECT_EQ(ucs.spurious, 2 * m);
    EXPECT_GT(ucs.separation, 100.0);  // constraint test: removed ≫ kept
    for (const auto* L : {&mcs, &rcs, &ucs}) EXPECT_EQ(static_cast<int>(L->eigenvalues.size()), 2 * (n - m));
  };
  for (int N : {1, 5}) {
    NLoopLinkageParams p;
    p.loops = N;
    p.damping = 1.0;
    Built<NLoopLinkage> b(p);
    SCOPED_TRACE("N-loop N = " + std::to_string(N));
    check(b.sys, b.eq, 1e6);
  }
  FlexiblePendulumParams fp;
  fp.elements = 5;
  Built<FlexiblePendulum> b(fp);
  SCOPED_TRACE("pendulum n_p = 5");
  check(b.sys, b.eq, 1e7);
}

// The three methods agree on the physical eigenvalues of the pendulum: MCS
// and RCS to round-off, UCS to the penalty's modification (α = 1e7).
TEST(FlexiblePendulum, MethodsAgreeOnTheFirstFourEigenvalues) {
  FlexiblePendulumParams p;
  p.elements = 10;
  Built<FlexiblePendulum> b(p);
  ASSERT_EQ(b.eq.status, Status::ok) << b.eq.message;
  ConstrainedSettings S;
  S.penalty.alpha = 1e7;
  const auto mcs = linearize_constrained(b.sys, b.eq, ConstrainedMethod::mcs, S);
  const auto rcs = linearize_constrained(b.sys, b.eq, ConstrainedMethod::rcs, S);
  const auto ucs = linearize_constrained(b.sys, b.eq, ConstrainedMethod::ucs, S);
  for (int k = 0; k < 8; k += 2) {
    SCOPED_TRACE(k / 2 + 1);
    const double s = mcs.eigenvalues[k].imag();
    EXPECT_NEAR(rcs.eigenvalues[k].imag(), s, 1e-8 * s);   // measured 4e-10 relative
    EXPECT_NEAR(std::fabs(rcs.eigenvalues[k].real()), 0.0, 1e-8);
    EXPECT_NEAR(ucs.eigenvalues[k].imag(), s, 1e-5 * s);   // measured 1.8e-6 relative
  }
}

// Conforming finite elements with nested meshes: the frequencies fall
// monotonically as n_p doubles (Rayleigh–Ritz upper bounds), and stay below
// the rigid double pendulum's, which flexibility lowers; with a stiff
// material they approach it (two uniform rods l = 4 m: ω² = (g/l)(3 ∓ √(36/7))).
TEST(FlexiblePendulum, ConvergesFromAboveAndApproachesTheRigidPendulum) {
  const double a = 9.81 / 4.0;
  const double rigid[2] = {std::sqrt(a * (3 - std::sqrt(36.0 / 7.0))), std::sqrt(a * (3 + std::sqrt(36.0 / 7.0)))};
  EXPECT_NEAR(rigid[0], 1.3401, 5e-5);  // docs/models/nloop-and-flexible.md §4
  EXPECT_NEAR(rigid[1], 3.5943, 5e-5);
  double previous[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
  for (int np : {2, 4, 8, 16}) {
    SCOPED_TRACE("n_p = " + std::to_string(np));
    FlexiblePendulumParams p;
    p.elements = np;
    Built<FlexiblePendulum> b(p);
    ASSERT_EQ(b.eq.status, Status::ok);
    const auto L = linearize_constrained(b.sys, b.eq, ConstrainedMethod::mcs);
    ASSERT_EQ(L.status, Status::ok);
    for (int k = 0; k < 4; ++k) {
      const double w = L.eigenvalues[2 * k].imag();
      EXPECT_LE(w, previous[k] * (1 + 1e-12)) << "mode " << k + 1;
      previous[k] = w;
    }
    EXPECT_LT(L.eigenvalues[0].imag(), rigid[0]);
    EXPECT_LT(L.eigenvalues[2].imag(), rigid[1]);
  }
  // Stiffer material: below the rigid values by a gap ∝ 1/E (measured at
  // n_p = 4: 2.08e-5 / 2.07e-6 rad/s for mode 1 at E = 1e10 / 1e11).
  double gap[2][2];
  for (int e = 0; e < 2; ++e) {
    FlexiblePendulumParams stiff;
    stiff.elements = 4;
    stiff.young_modulus = e == 0 ? 1e10 : 1e11;
    Built<FlexiblePendulum> b(stiff);
    const auto L = linearize_constrained(b.sys, b.eq, ConstrainedMethod::mcs);
    gap[e][0] = rigid[0] - L.eigenvalues[0].imag();
    gap[e][1] = rigid[1] - L.eigenvalues[2].imag();
  }
  for (int k = 0; k < 2; ++k) {
    EXPECT_GT(gap[1][k], 0.0) << "mode " << k + 1;
    EXPECT_NEAR(gap[0][k] / gap[1][k], 10.0, 0.2) << "mode " << k + 1;  // measured 10.04, 10.02
  }
}

// The rigid double pendulum (kernels/models/rigid_double_pendulum.hpp), a
// model that entered the catalog as its own two files and one catalog line:
// through its registered host table (the stability map's path) every method
// finds the hanging equilibrium θ1 = −π/2 and the closed-form frequencies
// ω² = (g/l)(3 ∓ √(36/7)) of two uniform rods (docs/models/nloop-and-flexible.md §7).
TEST(RigidDoublePendulum, ClosedFormFrequenciesByEveryMethodThroughTheCatalog) {
  const ModelDescriptor* d = find_model("rigid-double-pendulum");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(d->constrained, nullptr);
  const double a = 9.81 / 4.0;
  const double exact[2] = {std::sqrt(a * (3 - std::sqrt(36.0 / 7.0))), std::sqrt(a * (3 + std::sqrt(36.0 / 7.0)))};
  ConstrainedSettings S;
  S.penalty = d->constrained->default_penalty;
  for (ConstrainedMethod m : kMethods) {
    SCOPED_TRACE(static_cast<int>(m));
    const StabilityRecord r = constrained_stability_point(*d->constrained, d->defaults.data(), m, S, {});
    ASSERT_EQ(r.status, 0);
    EXPECT_NEAR(r.crank_angle, -M_PI / 2, 1e-12);
    // Tolerances (relative): MCS and RCS are exact to rounding (measured
    // below 1e-15 in both frequency and real part); UCS carries its penalty's
    // O(1/alpha) error and the penalty dashpot's damping (measured 4.2e-8 in
    // frequency, 1.1e-7 in real part at alpha = 1e7).
    const bool ucs = m == ConstrainedMethod::ucs;
    const double tol_w = ucs ? 5e-7 : 1e-13, tol_re = ucs ? 1e-6 : 1e-13;
    std::vector<double> w;
    double worst_re = 0.0;
    for (int k = 0; k < r.eigenvalue_count; ++k) {
      worst_re = std::max(worst_re, std::fabs(r.re[k]) / std::hypot(r.re[k], r.im[k]));
      if (r.im[k] > 0) w.push_back(r.im[k]);
    }
    EXPECT_LE(worst_re, tol_re) << "undamped: no real part";
    std::sort(w.begin(), w.end());
    ASSERT_EQ(w.size(), 2u);
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(w[k], exact[k], tol_w * exact[k]) << "mode " << k + 1;
    std::printf("rigid double pendulum, method %d: %.12f %.12f rad/s (exact %.12f %.12f), errors %.1e %.1e, "
                "real part %.1e\n", static_cast<int>(m), w[0], w[1], exact[0], exact[1],
                std::fabs(w[0] / exact[0] - 1), std::fabs(w[1] / exact[1] - 1), worst_re);
  }
}

// The nested-dual Hessian of a constraint element against central
// differences of its dual gradient (kernels/linearize/element_derivatives.hpp).
TEST(ElementDerivatives, ConstraintHessianMatchesDifferencesOfTheGradient) {
  const ffr::PinToBeamTip e{4.0};
  const double q[7] = {0.1, -0.2, -1.3, 0.01, 0.02, 0.3, -3.9};
  const double lambda[2] = {1.7, -0.6};
  double H[49];
  constraint_hessian(e, q, lambda, H);
  const double h = 1e-6;
  for (int j = 0; j < 7; ++j) {
    double qp[7], qm[7], phi[2], Jp[14], Jm[14];
    for (int k = 0; k < 7; ++k) qp[k] = qm[k] = q[k];
    qp[j] += h;
    qm[j] -= h;
    constraint_derivatives(e, qp, phi, Jp);
    constraint_derivatives(e, qm, phi, Jm);
    for (int i = 0; i < 7; ++i) {
      const double fd = (lambda[0] * (Jp[i] - Jm[i]) + lambda[1] * (Jp[7 + i] - Jm[7 + i])) / (2 * h);
      EXPECT_NEAR(H[i * 7 + j], fd, 1e-8) << i << "," << j;  // central differences: O(h²) ~ 1e-11, rounding 1e-10
    }
  }
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// The size switch (docs/models/nloop-and-flexible.md §6 item 10): the
// per-thread MCS code (kernels/linearize/constrained_per_thread.hpp) against
// the host path (Eigen + LAPACK) and the closed form, N = 1, 2, 3, undamped
// and damped, over spring, mass, length and gravity. Different algorithms
// (LU Newton vs minimum-norm steps, Gaussian elimination vs full-pivoting
// LU, Hessenberg QR of a 2 x 2 vs dsygvd / QZ): they agree to rounding.
TEST(PerThreadMcs, AgreesWithTheHostPathAndTheClosedForm) {
  const ModelDescriptor& linkage = *find_model("nloop-linkage");
  const ConstrainedModel& model = *linkage.constrained;
  const auto& table = linkage.parameters;
  auto at = [&](const char* name) { return linkage.find_parameter(name)->index; };
  double worst_phi = 0.0, worst_s = 0.0, worst_exact = 0.0;
  for (int N = 1; N <= 3; ++N)
    for (double k : {0.0, 25.0, 400.0})
      for (double c : {0.0, 1.0, 30.0})
        for (double mass : {0.3, 1.0}) {
          SCOPED_TRACE("N = " + std::to_string(N) + " k = " + std::to_string(k) + " c = " + std::to_string(c) +
                       " m = " + std::to_string(mass));
          std::vector<double> row = linkage.defaults;
          row[at("linkage.loops")] = N;
          row[at("linkage.spring_stiffness")] = k;
          row[at("linkage.damping")] = c;
          row[at("linkage.rod_mass")] = mass;
          NLoopLinkageParams p = unpack_row(table, row.data(), NLoopLinkageParams{});
          ASSERT_TRUE(fits_per_thread<NLoopLinkage>(p));
          const StabilityRecord fast = constrained_mcs_point<NLoopLinkage>(p, PerThreadConstrainedSettings{}, {});
          const StabilityRecord host =
              constrained_stability_point_host(model, row.data(), ConstrainedMethod::mcs, ConstrainedSettings{}, {});
          ASSERT_EQ(fast.status, 0);
          ASSERT_EQ(host.status, 0);
          ASSERT_EQ(fast.eigenvalue_count, 2);
          ASSERT_EQ(host.eigenvalue_count, 2);
          worst_phi = std::fmax(worst_phi, std::fabs(fast.crank_angle - host.crank_angle));
          const double scale = std::hypot(host.re[0], host.im[0]);
          for (int j = 0; j < 2; ++j)
            worst_s = std::fmax(worst_s, std::hypot(fast.re[j] - host.re[j], fast.im[j] - host.im[j]) / scale);
          EXPECT_EQ(fast.overdamped, host.overdamped);
          EXPECT_EQ(fast.structural_zeros, host.structural_zeros);
          if (mass == 1.0 && k == 25.0) {  // the closed form: m = 1 kg, l = 1 m, φ_eq in (π/2, π)
            const NLoopClosedForm exact(N, k, c);
            worst_exact = std::fmax(worst_exact, std::fabs(fast.crank_angle - exact.phi));
            const std::complex<double> s0(fast.re[0], fast.im[0]);
            // The root with Im ≥ 0 of the closed form; the record's first is the one of lowest |Im|.
            const std::complex<double> e = fast.im[0] >= 0 ? exact.s1 : std::conj(exact.s1);
            const std::complex<double> e2 = (-exact.Cr - std::sqrt(std::complex<double>(exact.Cr * exact.Cr - 4 * exact.Mr * exact.Kr))) / (2 * exact.Mr);
            worst_exact = std::fmax(worst_exact, std::min(std::abs(s0 - e), std::abs(s0 - e2)) / std::abs(e));
          }
        }
  // Measured: φ 8.9e-16 apart, eigenvalues 4.4e-14 of |s|, the closed form 2.6e-15.
  EXPECT_LT(worst_phi, 1e-14);
  EXPECT_LT(worst_s, 5e-13);
  EXPECT_LT(worst_exact, 3e-14);
  std::printf("per-thread vs host: phi %.2e, s %.2e of |s|; vs closed form %.2e\n", worst_phi, worst_s, worst_exact);
}

TEST(PerThreadMcs, Table1Row1AndTheSingularCase) {
  NLoopLinkageParams p;
  const StabilityRecord r = constrained_mcs_point<NLoopLinkage>(p, {}, {});
  ASSERT_EQ(r.status, 0);
  EXPECT_NEAR(r.crank_angle, 2.2343, 5e-5);  // seed 003 Table 1, N = 1
  EXPECT_NEAR(r.im[0], 2.1477, 5e-5);
  EXPECT_NEAR(r.im[1], -2.1477, 5e-5);
  EXPECT_NEAR(r.frequency, r.im[0], 0.0);
  EXPECT_EQ(r.overdamped, 0);

  NLoopLinkageParams s;  // seed 003 §5.1: MCS cannot linearize there
  s.spring_stiffness = 0.0;
  s.gravity_x = 9.81;
  s.gravity_y = 0.0;
  s.angle_guess = 0.0;
  const StabilityRecord bad = constrained_mcs_point<NLoopLinkage>(s, {}, {});
  EXPECT_EQ(bad.status, static_cast<int>(Status::constraint_failure));
  EXPECT_TRUE(std::isnan(bad.re[0]));

  // From that singular guess with gravity along (1, −1): Newton leaves it
  // (regularized steps) and finds the hanging φ = −π/4, a regular point.
  s.gravity_y = -9.81;
  const StabilityRecord hanging = constrained_mcs_point<NLoopLinkage>(s, {}, {});
  ASSERT_EQ(hanging.status, 0);
  EXPECT_NEAR(hanging.crank_angle, -M_PI / 4, 1e-12);
}

// Where the switch is: n ≤ 9 (N ≤ 3) per thread, above it the host path,
// through the one entry point a map calls; RCS and UCS always on the host.
TEST(PerThreadMcs, TheSizeSwitch) {
  const ModelDescriptor& linkage = *find_model("nloop-linkage");
  const ConstrainedModel& model = *linkage.constrained;
  EXPECT_EQ(model.per_thread_coordinates, 9);
  EXPECT_FALSE(find_model("flexible-pendulum")->constrained->per_thread_mcs);
  auto at = [&](const char* name) { return linkage.find_parameter(name)->index; };
  for (int N : {3, 4}) {
    std::vector<double> row = linkage.defaults;
    row[at("linkage.loops")] = N;
    StabilityRecord r;
    EXPECT_EQ(model.per_thread_mcs(row.data(), ConstrainedSettings{}, {}, r), N <= 3) << N;
    // Through the switch: N = 3 is the per-thread record bit for bit, N = 4 the host's.
    const StabilityRecord chosen = constrained_stability_point(model, row.data(), ConstrainedMethod::mcs, {}, {});
    const StabilityRecord host =
        constrained_stability_point_host(model, row.data(), ConstrainedMethod::mcs, {}, {});
    const StabilityRecord& expect = N <= 3 ? r : host;
    EXPECT_EQ(chosen.crank_angle, expect.crank_angle) << N;
    EXPECT_EQ(chosen.im[0], expect.im[0]) << N;
    const StabilityRecord rcs = constrained_stability_point(model, row.data(), ConstrainedMethod::rcs, {}, {});
    const StabilityRecord rcs_host =
        constrained_stability_point_host(model, row.data(), ConstrainedMethod::rcs, {}, {});
    EXPECT_EQ(rcs.im[0], rcs_host.im[0]) << N;
  }
}

}  // namespace
}  // namespace hs
