// The actuator rows of the double step's Newton residual — piston force,
// seal friction and the circuit's pressure and friction-state rates, on the
// jets of the Newton tangent — evaluated one instance at a time (the scalar
// path every backend runs) and W = 4 or 8 instances at a time in SIMD lanes
// (kernels/core/lanes.hpp), each instance with its own parameters and state.
//
// What it measures is this piece of a step only (issue 16, stage 1: the
// actuator layer is on lanes; the mechanism and the Newton loop are not
// yet), so its speed-up is not a whole-step figure. Every lane's result is
// compared bit for bit with the scalar one before anything is timed.
//
//   bench_lanes_actuator [--instances N] [--repeats R] [--out FILE]
#include <chrono>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "kernels/actuators/hydraulic_cylinder.hpp"
#include "kernels/core/lanes.hpp"
#include "kernels/friction/lugre.hpp"

namespace hb = hs::bench;

namespace {

const char* kUsage =
    "usage: bench_lanes_actuator [--instances N] [--repeats R] [--out FILE]\n"
    "  --instances N  instances per law (default 4096, a multiple of 8)\n"
    "  --repeats R    timed passes over them; the fastest counts (default 200)\n"
    "  --out FILE     result file (default bench/results/lanes-actuator-<machine>.json)\n";

// One instance's operating point: the spool, the actuator's elongation and
// rate, its pressures and friction states (around the seed 002 work cycle's).
template <int np, int nw>
struct OperatingPoint {
  double U, ds, sdot, p[np], w[nw > 0 ? nw : 1];
};

template <class Cyl>
struct Workload {
  static constexpr int np = Cyl::np, nw = Cyl::nw;
  static constexpr int nx = 1 + np + nw;  // the four-bar's Newton unknowns: z_i, pressures, friction states
  using Params = typename Cyl::Params;
  std::vector<Params> params;
  std::vector<typename Cyl::Constants> constants;
  std::vector<OperatingPoint<np, nw>> points;

  explicit Workload(long n) {
    uint64_t state = 2024;
    auto u = [&](double lo, double hi) { return lo + (hi - lo) * hb::uniform01(state); };
    for (long i = 0; i < n; ++i) {
      Params P = hs::seed002_four_bar().actuator[0];
      P.friction.coulomb_force *= u(0.9, 1.1);
      P.circuit.oil_bulk_modulus *= u(0.7, 1.3);
      P.circuit.dcv_flow_coefficient *= u(0.8, 1.2);
      params.push_back(P);
      constants.push_back(Cyl::constants(P, u(0.8, 1.2)));
      OperatingPoint<np, nw> x;
      x.U = u(-10.0, 10.0);
      x.ds = u(-0.1, 0.1);
      x.sdot = u(-0.2, 0.2);
      for (int k = 0; k < np; ++k) x.p[k] = u(1e6, 7e6);
      for (int k = 0; k < (nw > 0 ? nw : 1); ++k) x.w[k] = k == 0 ? u(-1e-4, 1e-4) : u(0.0, 1.0);
      points.push_back(x);
    }
  }
};

// The rows on a real type R (double or Lanes<W>): unknowns seeded as the
// double step seeds them (direction 0 the independent coordinate, through
// ds and ṡ; then pressures and friction states).
template <class Cyl, class R, class P, class K>
void actuator_rows(const P& params, const K& constants, const R& U, const R& ds, const R& sdot, const R* p, const R* w,
                   hs::Dual<1 + Cyl::np + Cyl::nw, R>* out) {
  constexpr int np = Cyl::np, nw = Cyl::nw, nx = 1 + np + nw;
  using J = hs::Dual<nx, R>;
  J dsj = J::variable(ds, 0), sdotj = J::variable(sdot, 0), pj[np], wj[nw > 0 ? nw : 1], wd[nw > 0 ? nw : 1];
  sdotj.v[0] = R(2000.0);  // ∂ṡ/∂z_i of the trapezoidal rule, 2/dt (dt = 1 ms)
  for (int k = 0; k < np; ++k) pj[k] = J::variable(p[k], 1 + k);
  for (int k = 0; k < nw; ++k) wj[k] = J::variable(w[k], 1 + np + k);
  Cyl::state_rates(params, constants, pj, wj, U, dsj, sdotj, out + 2, wd);
  for (int k = 0; k < nw; ++k) out[2 + np + k] = wd[k];
  out[0] = Cyl::piston_force(constants, pj);
  out[1] = Cyl::friction_force(params, sdotj, wj, nw > 0 ? wd : static_cast<const J*>(nullptr));
}

struct Timing {
  std::string law;
  int nx = 0;
  double scalar_ns = 0.0, lanes4_ns = 0.0, lanes8_ns = 0.0;
  bool identical = true;
};

template <class F>
double best_ns_per_instance(long n, int repeats, F&& pass) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = s < best ? s : best;
  }
  return best * 1e9 / static_cast<double>(n);
}

template <class Cyl, int W>
struct LaneBatch {
  using L = hs::Lanes<W>;
  static constexpr int np = Cyl::np, nw = Cyl::nw;
  std::vector<typename Cyl::template ParamsOn<L>> params;
  std::vector<typename Cyl::template ConstantsOn<L>> constants;
  std::vector<L> U, ds, sdot, p, w;  // p: np per group, w: max(nw, 1) per group

  explicit LaneBatch(const Workload<Cyl>& wl) {
    const long n = static_cast<long>(wl.params.size());
    constexpr int nwp = nw > 0 ? nw : 1;
    for (long g = 0; g < n; g += W) {
      params.push_back(hs::gather_lanes<W, Cyl::template ParamsOn>(wl.params.data() + g, W));
      L s0, Ug, dsg, sdotg, pg[np], wg[nwp];
      for (int i = 0; i < W; ++i) {
        const auto& x = wl.points[g + i];
        s0.set(i, wl.constants[g + i].s0);
        Ug.set(i, x.U);
        dsg.set(i, x.ds);
        sdotg.set(i, x.sdot);
        for (int k = 0; k < np; ++k) pg[k].set(i, x.p[k]);
        for (int k = 0; k < nwp; ++k) wg[k].set(i, x.w[k]);
      }
      constants.push_back(Cyl::constants(params.back(), s0));
      U.push_back(Ug);
      ds.push_back(dsg);
      sdot.push_back(sdotg);
      for (int k = 0; k < np; ++k) p.push_back(pg[k]);
      for (int k = 0; k < nwp; ++k) w.push_back(wg[k]);
    }
  }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

template <class Friction>
Timing measure(const char* law, long n, int repeats) {
  using Cyl = hs::HydraulicCylinder<hs::ThreeVolumeCircuit, Friction>;
  constexpr int np = Cyl::np, nw = Cyl::nw, nx = 1 + np + nw, nout = 2 + np + nw, nwp = nw > 0 ? nw : 1;
  const Workload<Cyl> wl(n);
  const LaneBatch<Cyl, 4> b4(wl);
  const LaneBatch<Cyl, 8> b8(wl);
  std::vector<hs::Dual<nx>> scalar_out(static_cast<size_t>(n) * nout);
  std::vector<hs::Dual<nx, hs::Lanes<4>>> out4(static_cast<size_t>(n / 4) * nout);
  std::vector<hs::Dual<nx, hs::Lanes<8>>> out8(static_cast<size_t>(n / 8) * nout);

  auto scalar_pass = [&]() {
    for (long i = 0; i < n; ++i) {
      const auto& x = wl.points[i];
      actuator_rows<Cyl>(wl.params[i], wl.constants[i], x.U, x.ds, x.sdot, x.p, x.w, &scalar_out[i * nout]);
    }
  };
  auto lanes_pass = [&](const auto& b, auto& out) {
    const long groups = static_cast<long>(b.params.size());
    for (long g = 0; g < groups; ++g)
      actuator_rows<Cyl>(b.params[g], b.constants[g], b.U[g], b.ds[g], b.sdot[g], &b.p[g * np], &b.w[g * nwp],
                         &out[g * nout]);
  };
  scalar_pass();
  lanes_pass(b4, out4);
  lanes_pass(b8, out8);
  Timing t;
  t.law = law;
  t.nx = nx;
  for (long i = 0; i < n; ++i)
    for (int r = 0; r < nout; ++r) {
      const auto& s = scalar_out[i * nout + r];
      const auto& a4 = out4[(i / 4) * nout + r];
      const auto& a8 = out8[(i / 8) * nout + r];
      t.identical = t.identical && same_bits(s.a, a4.a[i % 4]) && same_bits(s.a, a8.a[i % 8]);
      for (int d = 0; d < nx; ++d)
        t.identical = t.identical && same_bits(s.v[d], a4.v[d][i % 4]) && same_bits(s.v[d], a8.v[d][i % 8]);
    }
  t.scalar_ns = best_ns_per_instance(n, repeats, scalar_pass);
  t.lanes4_ns = best_ns_per_instance(n, repeats, [&]() { lanes_pass(b4, out4); });
  t.lanes8_ns = best_ns_per_instance(n, repeats, [&]() { lanes_pass(b8, out8); });
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const hb::Args args(argc, argv);
  args.check_known({"--instances", "--repeats", "--out"}, {}, kUsage);
  const long n = static_cast<long>(args.number("--instances", 4096));
  const int repeats = static_cast<int>(args.number("--repeats", 200));
  const std::string out_path =
      args.get("--out", std::string(HS_SOURCE_DIR) + "/bench/results/lanes-actuator-" + hb::machine_tag() + ".json");
  if (n < 8 || n % 8 != 0 || repeats < 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::printf("bench_lanes_actuator: actuator rows of the Newton residual (three-volume cylinder), %ld instances, "
              "fastest of %d passes, 1 thread, %s\n\n",
              n, repeats, hb::cpu_model().c_str());
  std::vector<Timing> all = {measure<hs::BrownMcPhee>("brown-mcphee", n, repeats),
                             measure<hs::BengisuAkay>("bengisu-akay", n, repeats),
                             measure<hs::LuGre>("lugre", n, repeats),
                             measure<hs::ModifiedLuGre>("modified-lugre", n, repeats)};
  std::printf("%-15s %4s %12s %12s %12s %9s %9s %10s\n", "friction", "nx", "scalar ns", "W=4 ns", "W=8 ns", "W=4 x",
              "W=8 x", "identical");
  bool all_identical = true;
  for (const auto& t : all) {
    std::printf("%-15s %4d %12.1f %12.1f %12.1f %9.2f %9.2f %10s\n", t.law.c_str(), t.nx, t.scalar_ns, t.lanes4_ns,
                t.lanes8_ns, t.scalar_ns / t.lanes4_ns, t.scalar_ns / t.lanes8_ns, t.identical ? "yes" : "NO");
    all_identical = all_identical && t.identical;
  }
  std::printf("\n(ns per instance evaluation; x = speed-up over the scalar path. Not a whole step: the mechanism and\n"
              " the Newton loop are not on lanes yet, issue 16.)\n");

  hb::Json j;
  j.begin_object().field("benchmark", "lanes-actuator");
  hb::write_machine(j);
  j.begin_object("workload")
      .field("what", "piston force, seal friction, pressure and friction-state rates of a three-volume cylinder on "
                     "Dual<nx> jets (the double step's Newton residual rows of the four-bar actuator)")
      .field("instances", n)
      .field("repeats", repeats)
      .field("threads", 1)
      .field("perturbation", "coulomb force U(0.9,1.1), oil bulk modulus U(0.7,1.3), DCV coefficient U(0.8,1.2); "
                             "spool U(-10,10) V, pressures U(1,7) MPa, rate U(-0.2,0.2) m/s; splitmix64 seed 2024")
      .field("timing", "fastest pass / instances")
      .end_object();
  j.begin_array("results");
  for (const auto& t : all)
    j.begin_object()
        .field("friction", t.law)
        .field("nx", t.nx)
        .field("scalar_ns_per_instance", t.scalar_ns)
        .field("lanes4_ns_per_instance", t.lanes4_ns)
        .field("lanes8_ns_per_instance", t.lanes8_ns)
        .field("speedup_lanes4", t.scalar_ns / t.lanes4_ns)
        .field("speedup_lanes8", t.scalar_ns / t.lanes8_ns)
        .field("bit_identical_to_scalar", t.identical)
        .end_object();
  j.end_array();
  j.end_object();
  if (!hb::save_result(out_path, j)) return 1;
  return all_identical ? 0 : 1;
}
