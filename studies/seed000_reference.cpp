// Seed 000 reference cases of the linearization (kernels/linearize), written
// as CSV for studies/plot_seed000.py:
//
//   eigenvalues.csv        λ1..λ6 of the 3D four-bar at φ2 = 60° for the
//                          friction scenarios ×1, ×1/10, ×1/100 (Table 3's cases)
//   counterpart_h.csv      relative error of the nonzero eigenvalues of the
//                          finite-difference counterpart (24×24, eq 100) versus
//                          the step h, overdamped scenario (Fig. 14's study)
//   pulse_<scenario>.csv   crank angle and pressures after the input-link torque
//                          pulse M2 (eq 92): nonlinear Baumgarte run (eq 89,
//                          β = γ = 50) and the 6×6 linear model from t2 (eq 94)
//
//   seed000_reference --out DIR [--dt S] [--end S]
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/integrators/index1_trapezoidal.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/counterpart.hpp"
#include "kernels/linearize/stability.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/spatial_four_bar.hpp"

using namespace hs;
using System = ActuatedSystem<SpatialFourBarDae, BrownMcPhee>;
using Form = Index1Form<System>;
using Integrator = Index1Trapezoidal<System>;
using Complex = std::complex<double>;

namespace {

struct Scenario {
  const char* name;
  double friction_scale;
};
const Scenario kScenarios[] = {{"overdamped", 1.0}, {"friction_0.1", 0.1}, {"friction_0.01", 0.01}};

FourBarParams scenario_params(double scale) {
  FourBarParams P = seed002_four_bar();
  scale_friction(P.actuator[0].friction, scale);
  return P;
}

// Eigenvalues by the per-thread routine (kernels/eigen/small_eigen.hpp, which
// balances by powers of two first: an exact similarity).
template <int N>
std::vector<Complex> eigenvalues_of(const Mat<double, N, N>& J) {
  const EigenResult<N> r = eigenvalues<N>(J);
  std::vector<Complex> v;
  for (int k = 0; k < N; ++k) v.emplace_back(r.re[k], r.im[k]);
  return v;
}

FILE* open_csv(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  double dt = 1e-4, t_end = 2.5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--out") out = argv[i + 1];
    else if (a == "--dt") dt = std::atof(argv[i + 1]);
    else if (a == "--end") t_end = std::atof(argv[i + 1]);
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (out.empty() || !(dt > 0) || !(t_end > 1.5)) {
    std::fprintf(stderr, "usage: seed000_reference --out DIR [--dt S (1e-4)] [--end S (> 1.5, 2.5)]\n");
    return 2;
  }
  constexpr int phi = SpatialFourBarDae::phi2;

  FILE* ev = open_csv(out + "/eigenvalues.csv");
  std::fprintf(ev, "scenario,friction_scale,structural_zeros,overdamped,damping_ratio,frequency_rad_s");
  for (int k = 1; k <= 6; ++k) std::fprintf(ev, ",lambda%d_re,lambda%d_im", k, k);
  std::fprintf(ev, "\n");
  for (const Scenario& sc : kScenarios) {
    const auto s = stability_point<System>(scenario_params(sc.friction_scale), StabilitySettings{});
    std::fprintf(ev, "%s,%g,%d,%d,%.17g,%.17g", sc.name, sc.friction_scale, s.structural_zeros, s.overdamped,
                 s.damping_ratio, s.frequency);
    for (int k = 0; k < 6; ++k) std::fprintf(ev, ",%.17g,%.17g", s.re[k], s.im[k]);
    std::fprintf(ev, "\n");
  }
  std::fclose(ev);

  // Counterpart accuracy versus h (overdamped scenario).
  {
    const FourBarParams P = scenario_params(1.0);
    Equilibrium<System> eq;
    if (solve_equilibrium<System>(P, eq) != Status::ok) return 1;
    Mat<double, 6, 6> J;
    reduced_jacobian<System>(P, eq, J);
    std::vector<Complex> reduced = eigenvalues_of(J), physical;
    double radius = 0;
    for (auto z : reduced) radius = std::max(radius, std::abs(z));
    for (auto z : reduced)
      if (std::abs(z) > 1e-9 * radius) physical.push_back(z);
    std::sort(physical.begin(), physical.end(), [](Complex a, Complex b) { return a.real() > b.real(); });
    double X0[Form::N];
    Form::state_of(eq, X0);
    FILE* f = open_csv(out + "/counterpart_h.csv");
    std::fprintf(f, "h");
    for (size_t k = 0; k < physical.size(); ++k) std::fprintf(f, ",rel_error_lambda_%.6g", physical[k].real());
    std::fprintf(f, "\n");
    for (double e = -12.0; e <= -0.99; e += 0.25) {
      const double h = std::pow(10.0, e);
      Mat<double, Form::N, Form::N> Jc;
      if (!Form::jacobian_central(P, eq.K, X0, Form::Forcing{}, h, Jc)) continue;
      const std::vector<Complex> c = eigenvalues_of(Jc);
      std::fprintf(f, "%.6g", h);
      for (const Complex& z : physical) {
        double best = 1e300;
        for (const Complex& w : c) best = std::min(best, std::abs(w - z) / std::abs(z));
        std::fprintf(f, ",%.6g", best);
      }
      std::fprintf(f, "\n");
    }
    std::fclose(f);
  }

  // Torque pulse: nonlinear Baumgarte run and linear model from t2.
  for (const Scenario& sc : kScenarios) {
    const FourBarParams P = scenario_params(sc.friction_scale);
    Equilibrium<System> eq;
    if (solve_equilibrium<System>(P, eq) != Status::ok) return 1;
    Mat<double, 6, 6> J;
    reduced_jacobian<System>(P, eq, J);
    const TorquePulse M2;
    const double t2 = M2.t2;
    auto forcing = [&](double t, Form::Forcing& f) {
      f.beta = 50.0;
      f.gamma = 50.0;
      f.applied[phi] = M2(t);
    };
    Integrator::Settings S;
    S.dt = dt;
    Integrator::Workspace W;
    double X[Form::N], F[Form::N];
    Form::state_of(eq, X);
    Form::Forcing f0;
    forcing(0.0, f0);
    Form::rates(P, eq.K, X, f0, F);
    // Linear solution x̃(t) = V e^{Λ(t − t2)} V⁻¹ x̃(t2) (long double).
    using VL = Eigen::Matrix<std::complex<long double>, 6, 1>;
    Eigen::Matrix<long double, 6, 6> A;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = J(i, j);
    Eigen::EigenSolver<Eigen::Matrix<long double, 6, 6>> es(A, true);
    VL coefficients = VL::Zero();
    FILE* f = open_csv(out + "/pulse_" + sc.name + ".csv");
    std::fprintf(f, "t,phi2_deviation_nonlinear,phi2_deviation_linear,p2_nonlinear,p2_linear,p3_nonlinear,p3_linear\n");
    const long steps = std::lround(t_end / dt), at_t2 = std::lround(t2 / dt);
    const long every = std::max(1L, std::lround(1e-3 / dt));
    for (long k = 0; k <= steps; ++k) {
      const double t = k * dt;
      if (k > 0 && Integrator::step(P, eq.K, S, W, k - 1, X, F, forcing) != Status::ok) {
        std::fprintf(stderr, "%s: nonlinear run failed at t = %g\n", sc.name, t);
        return 1;
      }
      if (k == at_t2) {
        VL x0;
        x0 << X[phi] - eq.x[phi], X[Form::iv + phi], X[Form::ip] - eq.p[0], X[Form::ip + 1] - eq.p[1],
            X[Form::ip + 2] - eq.p[2], 0.0L;
        coefficients = es.eigenvectors().fullPivLu().solve(x0);
      }
      if (k % every != 0 && !(k >= at_t2 && k < at_t2 + 20 * every && k % std::max(1L, every / 10) == 0)) continue;
      double lin[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
      if (k >= at_t2) {
        VL e;
        for (int i = 0; i < 6; ++i) e(i) = std::exp(es.eigenvalues()(i) * static_cast<long double>(t - t2)) * coefficients(i);
        const VL x = es.eigenvectors() * e;
        for (int i = 0; i < 6; ++i) lin[i] = static_cast<double>(x(i).real());
      }
      std::fprintf(f, "%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n", t, X[phi] - eq.x[phi], lin[0], X[Form::ip + 1],
                   eq.p[1] + lin[3], X[Form::ip + 2], eq.p[2] + lin[4]);
    }
    std::fclose(f);
  }
  std::printf("wrote %s/{eigenvalues,counterpart_h,pulse_*}.csv\n", out.c_str());
  return 0;
}
