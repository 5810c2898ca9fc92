// Lockstep lanes (kernels/core/lanes.hpp, docs/models/lanes.md): a kernel
// evaluated on Lanes<W> — W instances with their own parameters — gives in
// each lane exactly the bits of the scalar evaluation of that instance. The
// comparisons are bitwise (memcmp of the doubles), not within a tolerance:
// the lanes perform the scalar operations, IEEE-rounded the same way, and
// the build does not contract a·b + c into an FMA on either path
// (CMakeLists.txt, -ffp-contract=off).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "host/build_paths.hpp"
#include "host/registry/model_file.hpp"
#include "kernels/core/dual.hpp"
#include "kernels/friction/friction.hpp"
#include "kernels/friction/lugre.hpp"
#include "kernels/integrators/lockstep.hpp"
#include "kernels/models/lift_tilt.hpp"
#include "kernels/models/planar_multibody_descriptor.hpp"

using namespace hs;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// Values that put lanes of one batch on both sides of every branch of the
// friction laws: rest, the pre-sliding and Stribeck regimes, sliding, both
// signs, and the branch points themselves (|v| = v_s, |v| = 1e-4 v_s, v_b).
std::vector<double> velocities_across_branches(std::mt19937_64& rng, int n) {
  const double fixed[] = {0.0, -0.0, 0.005, -0.005, 5e-7, -5e-7, 0.05, -0.05, 1e-3, -2e-3, 0.3, -0.7};
  std::vector<double> v(fixed, fixed + sizeof(fixed) / sizeof(double));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  while (static_cast<int>(v.size()) < n) {
    const double x = u(rng);
    v.push_back(x * std::pow(10.0, 3.0 * u(rng) - 2.0));  // 1e-5 … 10 m/s, both signs
  }
  return v;
}

// Friction parameters varied per instance around the defaults (every field,
// so a transposition that mixed up fields or lanes would show).
std::vector<FrictionParams> varied_friction(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<FrictionParams> out(n);
  for (auto& f : out) {
    f.coulomb_force *= u(rng);
    f.static_force *= u(rng);
    f.stribeck_velocity *= u(rng);
    f.viscous_coefficient *= u(rng);
    f.bengisu_akay_decay *= u(rng);
    f.lugre_stiffness *= u(rng);
    f.lugre_damping *= u(rng);
    f.stribeck_exponent = 1.0 + 2.0 * (u(rng) - 0.5);
    f.film_time_acceleration *= u(rng);
    f.film_time_deceleration *= u(rng);
    f.film_time_dwell *= u(rng);
    f.film_velocity *= u(rng);
  }
  return out;
}

template <int W>
Lanes<W> lanes_from(const std::vector<double>& x, int first, int count) {
  Lanes<W> r;
  for (int i = 0; i < W; ++i) r.set(i, x[first + (i < count ? i : count - 1)]);
  return r;
}

// A friction law's force and state rates, on a scalar T built from double.
template <class Law, class R, class T>
void evaluate_law(const FrictionParamsT<R>& f, const T& v, const T* w, T& force, T* rates) {
  force = Law::force(f, v, w, static_cast<const T*>(nullptr));
  Law::state_rates(f, v, w, rates);
}

// The whole check for one law and lane width: batches of 1 … 3W+1 instances
// (ragged tails padded with the last instance), on plain values and on jets
// with three directions (the Newton tangent's scalar), lane i against the
// scalar evaluation of instance i.
template <class Law, int W>
void expect_lanes_equal_scalar(std::uint64_t seed) {
  constexpr int nw = Law::n_states > 0 ? Law::n_states : 1;
  std::mt19937_64 rng(seed);
  const int n = 3 * W + 1;
  const auto params = varied_friction(rng, n);
  const auto v = velocities_across_branches(rng, n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> w(n * nw);
  for (int i = 0; i < n; ++i) {
    w[i * nw] = 1e-4 * u(rng);                    // bristle deflection [m]
    if (nw > 1) w[i * nw + 1] = 0.5 + 0.5 * u(rng);  // film parameter h in [0, 1]
  }
  int compared = 0;
  // A batch of `batch` instances runs as ⌈batch/W⌉ groups of W lanes, the last
  // one ragged.
  for (int batch = 1; batch <= n; ++batch) {
    for (int first = 0; first < batch; first += W) {
      const int count = W < batch - first ? W : batch - first;
      const FrictionParamsT<Lanes<W>> fl = gather_lanes<W, FrictionParamsT>(params.data() + first, count);
      for (int lane = 0; lane < W; ++lane) {
        // Round trip of the transposition.
        const FrictionParams back = lane_of<W, FrictionParamsT>(fl, lane);
        ASSERT_EQ(std::memcmp(&back, &params[first + (lane < count ? lane : count - 1)], sizeof(FrictionParams)), 0);
      }
      // Plain values.
      const Lanes<W> vl = lanes_from<W>(v, first, count);
      Lanes<W> wl[nw];
      for (int k = 0; k < nw; ++k) {
        std::vector<double> wk(n);
        for (int i = 0; i < n; ++i) wk[i] = w[i * nw + k];
        wl[k] = lanes_from<W>(wk, first, count);
      }
      Lanes<W> Fl, rl[nw];
      evaluate_law<Law>(fl, vl, wl, Fl, rl);
      // Jets: v carries direction 0, the states directions 1 and 2.
      using JL = Dual<3, Lanes<W>>;
      JL vj = JL::variable(vl, 0), wj[nw], Fj, rj[nw];
      for (int k = 0; k < nw; ++k) wj[k] = JL::variable(wl[k], 1 + (k < 2 ? k : 1));
      evaluate_law<Law>(fl, vj, wj, Fj, rj);
      for (int lane = 0; lane < count; ++lane) {
        const int i = first + lane;
        double F, r[nw], wi[nw];
        for (int k = 0; k < nw; ++k) wi[k] = w[i * nw + k];
        evaluate_law<Law>(params[i], v[i], wi, F, r);
        EXPECT_TRUE(same_bits(Fl[lane], F)) << Law::name << " W=" << W << " v=" << v[i] << ": " << Fl[lane] << " vs " << F;
        for (int k = 0; k < Law::n_states; ++k) EXPECT_TRUE(same_bits(rl[k][lane], r[k])) << Law::name << " rate " << k;
        using J = Dual<3>;
        J vs = J::variable(v[i], 0), ws[nw], Fs, rs[nw];
        for (int k = 0; k < nw; ++k) ws[k] = J::variable(wi[k], 1 + (k < 2 ? k : 1));
        evaluate_law<Law>(params[i], vs, ws, Fs, rs);
        EXPECT_TRUE(same_bits(Fj.a[lane], Fs.a)) << Law::name << " jet value, v=" << v[i];
        for (int d = 0; d < 3; ++d)
          EXPECT_TRUE(same_bits(Fj.v[d][lane], Fs.v[d])) << Law::name << " ∂F/∂x" << d << ", v=" << v[i];
        for (int k = 0; k < Law::n_states; ++k) {
          EXPECT_TRUE(same_bits(rj[k].a[lane], rs[k].a)) << Law::name << " jet rate " << k;
          for (int d = 0; d < 3; ++d) EXPECT_TRUE(same_bits(rj[k].v[d][lane], rs[k].v[d])) << Law::name << " rate " << k;
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0);
}

}  // namespace

// Arithmetic and every math function on lanes against the scalar ones, bit
// for bit, on values that include signed zeros, subnormals and non-finite ones
// (sin and cos: the scalar path's polynomial, kernels/core/trig.hpp; the rest
// the C library's functions).
TEST(Lanes, ArithmeticAndMathFunctionsAreTheScalarOnesPerLane) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  const double special[] = {0.0, -0.0, 4.9e-324, -1e-310, 1e300, INFINITY, -INFINITY, NAN};
  for (int rep = 0; rep < 200; ++rep) {
    Lanes<8> a, b;
    double as[8], bs[8];
    for (int i = 0; i < 8; ++i) {
      as[i] = rep < 8 ? special[(i + rep) % 8] : u(rng) * std::pow(10.0, 4.0 * u(rng));
      bs[i] = u(rng);
      a.set(i, as[i]);
      b.set(i, bs[i]);
    }
    const Lanes<8> results[] = {a + b, a - b, a * b, a / b, 2.5 * a - b / 3.0, -a,
                                math::sqrt(math::abs(a)), math::sin(a), math::cos(a), math::exp(b), math::tanh(a),
                                math::pow(math::abs(a), 2.0 / 3.0), math::pow(math::abs(b), a), math::atan2(a, b),
                                math::sign(a), choose(a < b, a, b)};
    for (int i = 0; i < 8; ++i) {
      const double x = as[i], y = bs[i];
      const double scalar[] = {x + y, x - y, x * y, x / y, 2.5 * x - y / 3.0, -x,
                               std::sqrt(std::fabs(x)), math::sin(x), math::cos(x), std::exp(y), std::tanh(x),
                               std::pow(std::fabs(x), 2.0 / 3.0), std::pow(std::fabs(y), x), std::atan2(x, y),
                               math::sign(x), x < y ? x : y};
      for (int k = 0; k < static_cast<int>(sizeof(scalar) / sizeof(double)); ++k)
        EXPECT_TRUE(same_bits(results[k][i], scalar[k]) || (std::isnan(results[k][i]) && std::isnan(scalar[k])))
            << "function " << k << " at " << x << ", " << y << ": " << results[k][i] << " vs " << scalar[k];
    }
    // sin and cos of one argument (the mechanisms' poses): the polynomial of
    // kernels/core/trig.hpp on all lanes at once when every lane is in its
    // range, else lane by lane (the specials: ±∞, NaN, 1e300), the scalar
    // path's bits either way; and in range on every lane (b).
    Lanes<8> s, c, sb, cb;
    math::sincos(a, &s, &c);
    math::sincos(b, &sb, &cb);
    for (int i = 0; i < 8; ++i) {
      double ss, cs, ssb, csb;
      math::sincos(as[i], &ss, &cs);
      math::sincos(bs[i], &ssb, &csb);
      EXPECT_TRUE(same_bits(s[i], ss) || (std::isnan(s[i]) && std::isnan(ss))) << "sin at " << as[i];
      EXPECT_TRUE(same_bits(c[i], cs) || (std::isnan(c[i]) && std::isnan(cs))) << "cos at " << as[i];
      EXPECT_TRUE(same_bits(sb[i], ssb)) << "sin at " << bs[i];
      EXPECT_TRUE(same_bits(cb[i], csb)) << "cos at " << bs[i];
    }
  }
}

// lane_if computes only the branch every lane takes, and blends when they differ.
TEST(Lanes, LaneIfTakesOneBranchWhenTheLanesAgreeAndBlendsWhenTheyDiffer) {
  int then_calls = 0, else_calls = 0;
  auto run = [&](const Lanes<4>& x) {
    return lane_if(x > 0.0, [&]() { ++then_calls; return x * 2.0; }, [&]() { ++else_calls; return -x; });
  };
  Lanes<4> pos(1.0), mixed;
  for (int i = 0; i < 4; ++i) mixed.set(i, i % 2 ? 1.0 : -3.0);
  const Lanes<4> r1 = run(pos);
  EXPECT_EQ(then_calls, 1);
  EXPECT_EQ(else_calls, 0);
  EXPECT_EQ(r1[3], 2.0);
  const Lanes<4> r2 = run(mixed);
  EXPECT_EQ(then_calls, 2);
  EXPECT_EQ(else_calls, 1);
  EXPECT_EQ(r2[0], 3.0);
  EXPECT_EQ(r2[1], 2.0);
}

TEST(LanesFriction, BrownMcPheeIsTheScalarLawInEveryLane) {
  expect_lanes_equal_scalar<BrownMcPhee, 4>(1);
  expect_lanes_equal_scalar<BrownMcPhee, 8>(2);
}
TEST(LanesFriction, BengisuAkayIsTheScalarLawInEveryLaneAcrossItsBranch) {
  expect_lanes_equal_scalar<BengisuAkay, 4>(3);
  expect_lanes_equal_scalar<BengisuAkay, 8>(4);
}
TEST(LanesFriction, LuGreIsTheScalarLawInEveryLane) {
  expect_lanes_equal_scalar<LuGre, 4>(5);
  expect_lanes_equal_scalar<LuGre, 8>(6);
}
TEST(LanesFriction, ModifiedLuGreIsTheScalarLawInEveryLaneAcrossItsFilmBranches) {
  expect_lanes_equal_scalar<ModifiedLuGre, 4>(7);
  expect_lanes_equal_scalar<ModifiedLuGre, 8>(8);
}
TEST(LanesFriction, NoFrictionIsZeroInEveryLane) { expect_lanes_equal_scalar<NoFriction, 8>(9); }

// ---------------------------------------------------------------------------
// The actuator on lanes: a hydraulic cylinder (each circuit, each friction
// law) with its own parameters per lane, against the scalar cylinder.

#include "kernels/actuators/hydraulic_cylinder.hpp"
#include "kernels/hydraulics/servo_valve_circuit.hpp"

namespace {

// Every real parameter of a parameter struct scaled by its own factor in
// [0.8, 1.2] (a struct of doubles only, as the lane layout asserts), so the
// lanes differ in every field.
template <class P>
P varied(std::mt19937_64& rng) {
  P p{};
  constexpr int n = sizeof(P) / sizeof(double);
  double field[n];
  std::memcpy(field, &p, sizeof(P));
  std::uniform_real_distribution<double> u(0.8, 1.2);
  for (double& x : field) x *= u(rng);
  std::memcpy(static_cast<void*>(&p), field, sizeof(P));
  return p;
}

template <class Cyl, int W>
void expect_cylinder_lanes_equal_scalar(std::uint64_t seed) {
  using Circuit = typename Cyl::Circuit;
  using Params = typename Cyl::Params;
  using Constants = typename Cyl::Constants;
  constexpr int np = Cyl::np, nw = Cyl::nw > 0 ? Cyl::nw : 1;
  constexpr int nd = np + nw + 2;  // directions: pressures, friction states, s − s0, ṡ
  using L = Lanes<W>;
  using JL = Dual<nd, L>;
  using J = Dual<nd>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 3 * W + 1;
  std::vector<Params> params(n);
  for (auto& P : params) {
    P.circuit = varied<typename Circuit::Params>(rng);
    P.friction = varied<FrictionParams>(rng);
    P.friction.stribeck_exponent = 1.0 + 0.5 * (u(rng) + 1.0);
  }
  // States: spool openings of both signs and zero, pressures of which some
  // differ by less than the laminar limit, both signs of ṡ and rest.
  struct Point {
    double s0, U, U_prev, ds, sdot, p[np], w[nw];
  };
  std::vector<Point> pts(n);
  for (int i = 0; i < n; ++i) {
    Point& x = pts[i];
    x.s0 = 0.3 + 0.3 * (u(rng) + 1.0);
    x.U = i % 5 == 0 ? 0.0 : 10.0 * u(rng);
    x.U_prev = i % 3 == 0 ? x.U : 10.0 * u(rng);
    x.ds = 0.1 * u(rng);
    x.sdot = i % 7 == 0 ? 0.0 : 0.3 * u(rng) * std::pow(10.0, 2.0 * u(rng) - 1.0);
    for (int k = 0; k < np; ++k) x.p[k] = 4e6 + 3e6 * u(rng);
    if (i % 2) x.p[1] = x.p[0] + 1e5 * u(rng);  // inside the laminar region of the orifice between them
    x.w[0] = 1e-4 * u(rng);
    if (nw > 1) x.w[1] = 0.5 + 0.5 * u(rng);
  }
  int compared = 0;
  for (int first = 0; first < n; first += W) {
    const int count = W < n - first ? W : n - first;
    auto at = [&](int lane) { return first + (lane < count ? lane : count - 1); };
    const auto PL = gather_lanes<W, Cyl::template ParamsOn>(params.data() + first, count);
    L s0, U, U_prev, ds, sdot, p[np], w[nw];
    for (int lane = 0; lane < W; ++lane) {
      const Point& x = pts[at(lane)];
      s0.set(lane, x.s0); U.set(lane, x.U); U_prev.set(lane, x.U_prev); ds.set(lane, x.ds); sdot.set(lane, x.sdot);
      for (int k = 0; k < np; ++k) p[k].set(lane, x.p[k]);
      for (int k = 0; k < nw; ++k) w[k].set(lane, x.w[k]);
    }
    const auto KL = Cyl::constants(PL, s0);
    JL pj[np], wj[nw], dsj = JL::variable(ds, np + nw), sdotj = JL::variable(sdot, np + nw + 1), wdj[nw];
    for (int k = 0; k < np; ++k) pj[k] = JL::variable(p[k], k);
    for (int k = 0; k < nw; ++k) wj[k] = JL::variable(w[k], np + k);
    JL Fp = Cyl::piston_force(KL, pj), pdot[np], wdot[nw];
    Cyl::state_rates(PL, KL, pj, wj, U, dsj, sdotj, pdot, wdot);
    for (int k = 0; k < nw; ++k) wdj[k] = wdot[k];
    JL Ff = Cyl::friction_force(PL, sdotj, wj, Cyl::nw > 0 ? wdj : static_cast<const JL*>(nullptr));
    const L Us = Cyl::spool_step(PL, U_prev, U, 1e-3);
    L start_rates[np];
    for (int k = 0; k < np; ++k) start_rates[k] = L(-1.0);
    Cyl::step_start_rates(PL, KL, p, U_prev, U, s0 + ds, sdot, start_rates);
    L static_p[np], static_w[nw];
    Cyl::static_state(PL, KL, 1e4 * sdot, static_p, static_w);

    for (int lane = 0; lane < count; ++lane) {
      const int i = first + lane;
      const Params& P = params[i];
      const Point& x = pts[i];
      const Constants K = Cyl::constants(P, x.s0);
      J pjs[np], wjs[nw], dss = J::variable(x.ds, np + nw), sdots = J::variable(x.sdot, np + nw + 1), wds[nw];
      for (int k = 0; k < np; ++k) pjs[k] = J::variable(x.p[k], k);
      for (int k = 0; k < nw; ++k) wjs[k] = J::variable(x.w[k], np + k);
      J Fps = Cyl::piston_force(K, pjs), pdots[np], wdots[nw];
      Cyl::state_rates(P, K, pjs, wjs, x.U, dss, sdots, pdots, wdots);
      for (int k = 0; k < nw; ++k) wds[k] = wdots[k];
      J Ffs = Cyl::friction_force(P, sdots, wjs, Cyl::nw > 0 ? wds : static_cast<const J*>(nullptr));
      auto expect_jet = [&](const JL& a, const J& b, const char* what) {
        EXPECT_TRUE(same_bits(a.a[lane], b.a)) << what << " lane " << lane << ": " << a.a[lane] << " vs " << b.a;
        for (int d = 0; d < nd; ++d)
          EXPECT_TRUE(same_bits(a.v[d][lane], b.v[d])) << what << " derivative " << d << " lane " << lane;
      };
      expect_jet(Fp, Fps, "piston force");
      expect_jet(Ff, Ffs, "friction force");
      for (int k = 0; k < np; ++k) expect_jet(pdot[k], pdots[k], "pressure rate");
      for (int k = 0; k < Cyl::nw; ++k) expect_jet(wdot[k], wdots[k], "friction-state rate");
      EXPECT_TRUE(same_bits(Us[lane], Cyl::spool_step(P, x.U_prev, x.U, 1e-3)));
      double rates[np];
      for (int k = 0; k < np; ++k) rates[k] = -1.0;
      Cyl::step_start_rates(P, K, x.p, x.U_prev, x.U, x.s0 + x.ds, x.sdot, rates);
      double sp[np], sw[nw];
      Cyl::static_state(P, K, 1e4 * x.sdot, sp, sw);
      for (int k = 0; k < np; ++k) {
        EXPECT_TRUE(same_bits(start_rates[k][lane], rates[k])) << "start rate " << k << " lane " << lane;
        EXPECT_TRUE(same_bits(static_p[k][lane], sp[k])) << "static pressure " << k;
      }
      EXPECT_EQ(Circuit::stroke_admissible(P.circuit, K.circuit, x.ds),
                Circuit::stroke_admissible(PL.circuit, KL.circuit, ds)[lane]);
      ++compared;
    }
  }
  EXPECT_EQ(compared, n);
}

}  // namespace

TEST(LanesActuator, ThreeVolumeCylinderIsTheScalarOneInEveryLaneForEveryFrictionLaw) {
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<ThreeVolumeCircuit, BrownMcPhee>, 8>(11);
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<ThreeVolumeCircuit, BengisuAkay>, 8>(12);
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<ThreeVolumeCircuit, LuGre>, 4>(13);
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<ThreeVolumeCircuit, ModifiedLuGre>, 8>(14);
}
TEST(LanesActuator, TwoVolumeCylinderIsTheScalarOneInEveryLane) {
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<TwoVolumeCircuit, BrownMcPhee>, 4>(15);
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<TwoVolumeCircuit, LuGre>, 8>(16);
}
TEST(LanesActuator, ServoValveCylinderIsTheScalarOneInEveryLane) {
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<ServoValveCircuit, BengisuAkay>, 8>(17);
  expect_cylinder_lanes_equal_scalar<HydraulicCylinder<ServoValveCircuit, ModifiedLuGre>, 4>(18);
}

// ---- A model file's mechanism on lanes ---------------------------------------
// The generic planar mechanism of model files (kernels/models/planar_multibody.hpp)
// with its reals on lanes and its structure shared (gather_mechanism,
// kernels/integrators/lockstep.hpp): a shipped file's parameters with every
// real scaled per instance by its own factor in [0.95, 1.05], each lane at
// its own x, ẋ, ẍ; the semirecursive interface the integrators call — pose
// (Φ, Φ_x), motion (Φ̇_x ẋ and the centres of mass' biases), the constraint
// accelerations, each cylinder's s, ṡ, ∂s/∂x, the dynamics residual, both
// energies — gives in every lane the bits of the scalar call. A ragged last
// group repeats its last instance; instances of one file share a structure.
namespace {
template <class Capacity, int W>
void expect_file_mechanism_lanes_equal_scalar(const std::string& file, std::uint64_t seed) {
  using Mech = PlanarMultibody<Capacity>;
  using Params = PlanarMultibodyParams<Capacity>;
  using L = Lanes<W>;
  constexpr int nq = Mech::nq, nc = Mech::nc, na = Mech::na;
  const auto model = load_model_file(std::string(HYDROSWEEP_SOURCE_DIR) + "/models/" + file);
  PlanarFileModelParamsOf<Capacity> full;
  ASSERT_EQ(model->params_bytes.size(), sizeof full);
  std::memcpy(static_cast<void*>(&full), model->params_bytes.data(), sizeof full);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> scale(0.95, 1.05), u(-1.0, 1.0);
  const int n = 2 * W - 1;
  std::vector<Params> params(n, full.mechanism);
  struct Point {
    double x[nq], xd[nq], xdd[nq];
  };
  std::vector<Point> pts(n);
  for (int i = 0; i < n; ++i) {
    const Params base = params[i];
    for_each_planar_multibody_field<Capacity>(params[i], base, [&](double& to, double from) { to = from * scale(rng); },
                                              [](int&, int) {});
    EXPECT_TRUE(same_mechanism_structure(params[i], full.mechanism));
    for (int k = 0; k < nq; ++k) {
      pts[i].x[k] = 0.0;
      pts[i].xd[k] = u(rng);
      pts[i].xdd[k] = 10.0 * u(rng);
    }
    for (int b = 0; b < params[i].bodies; ++b) pts[i].x[params[i].body[b].slot] = params[i].body[b].initial + 0.05 * u(rng);
  }
  int compared = 0;
  for (int first = 0; first < n; first += W) {
    const int count = W < n - first ? W : n - first;
    auto at = [&](int lane) { return first + (lane < count ? lane : count - 1); };
    PlanarMultibodyParamsT<Capacity, L> PL;
    gather_mechanism<W>(params.data() + first, count, PL);
    L x[nq], xd[nq], xdd[nq];
    for (int lane = 0; lane < W; ++lane)
      for (int k = 0; k < nq; ++k) {
        x[k].set(lane, pts[at(lane)].x[k]);
        xd[k].set(lane, pts[at(lane)].xd[k]);
        xdd[k].set(lane, pts[at(lane)].xdd[k]);
      }
    const auto pose = Mech::pose(PL, x);
    const auto motion = Mech::motion(pose, xd);
    const auto acc = Mech::acceleration(pose, motion, xdd);
    L phidd[nc], residual[nq];
    Mech::constraint_acceleration(pose, motion, acc, phidd);
    Mech::dynamics_residual(PL, pose, motion, acc, residual);
    const L kinetic = Mech::kinetic_energy(PL, motion), potential = Mech::potential_energy(PL, pose);
    typename Mech::template Actuator<L> act[na];
    for (int a = 0; a < na; ++a) act[a] = Mech::actuator(PL, pose, motion, a);
    for (int lane = 0; lane < W; ++lane) {
      SCOPED_TRACE("instance " + std::to_string(at(lane)) + " in lane " + std::to_string(lane));
      const Params& P = params[at(lane)];
      const Point& pt = pts[at(lane)];
      const auto ps = Mech::pose(P, pt.x);
      const auto ms = Mech::motion(ps, pt.xd);
      const auto as = Mech::acceleration(ps, ms, pt.xdd);
      double phidd_s[nc], residual_s[nq];
      Mech::constraint_acceleration(ps, ms, as, phidd_s);
      Mech::dynamics_residual(P, ps, ms, as, residual_s);
      for (int r = 0; r < nc; ++r) {
        EXPECT_TRUE(same_bits(pose.phi[r][lane], ps.phi[r])) << "phi" << r;
        EXPECT_TRUE(same_bits(motion.phi_bias[r][lane], ms.phi_bias[r])) << "phi_bias" << r;
        EXPECT_TRUE(same_bits(phidd[r][lane], phidd_s[r])) << "phidd" << r;
        for (int k = 0; k < nq; ++k) EXPECT_TRUE(same_bits(pose.jacobian[r][k][lane], ps.jacobian[r][k])) << r << "," << k;
      }
      for (int k = 0; k < nq; ++k) EXPECT_TRUE(same_bits(residual[k][lane], residual_s[k])) << "residual" << k;
      for (int b = 0; b < P.bodies; ++b) {
        EXPECT_TRUE(same_bits(motion.com_bias[b].x[lane], ms.com_bias[b].x)) << "com_bias" << b;
        EXPECT_TRUE(same_bits(motion.com_bias[b].y[lane], ms.com_bias[b].y)) << "com_bias" << b;
      }
      EXPECT_TRUE(same_bits(kinetic[lane], Mech::kinetic_energy(P, ms)));
      EXPECT_TRUE(same_bits(potential[lane], Mech::potential_energy(P, ps)));
      for (int a = 0; a < na; ++a) {
        const auto one = Mech::actuator(P, ps, ms, a);
        EXPECT_TRUE(same_bits(act[a].length[lane], one.length)) << "cylinder " << a;
        EXPECT_TRUE(same_bits(act[a].rate[lane], one.rate)) << "cylinder " << a;
        for (int k = 0; k < nq; ++k) EXPECT_TRUE(same_bits(act[a].ds_dx[k][lane], one.ds_dx[k])) << "cylinder " << a;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 2 * W);  // two groups of W lanes, the second ragged (its last instance in two lanes)
}
}  // namespace

TEST(LanesMechanism, ModelFileMechanismIsTheScalarOneInEveryLane) {
  // Revolute joints and cuts (the four-bar), prismatic joints and cuts (the
  // quick-return), two cylinders on two degrees of freedom (the boom and arm).
  expect_file_mechanism_lanes_equal_scalar<PlanarFileCapacity, 4>("four_bar.toml", 11);
  expect_file_mechanism_lanes_equal_scalar<PlanarFileCapacity, 4>("quick_return.toml", 12);
  expect_file_mechanism_lanes_equal_scalar<PlanarFileTwoCylinderCapacity, 4>("excavator_boom_arm.toml", 13);
}

// ---- The manipulator's mechanism on lanes -------------------------------------
// Seed 004's Lift + Tilt (kernels/models/lift_tilt.hpp): every parameter a
// real, so the lanes transpose the struct whole. Every real of the default
// instance scaled per instance in [0.95, 1.05] (the payload mass to zero in
// one instance: the merged body's branch for a body without mass, per lane),
// each lane at its own joint angles, rates and accelerations; the Newton–Euler
// recursion the integrators and the controller call — the twists and their
// orientations, the inverse dynamics (actuator forces and generalized forces),
// both energies, the TCP, the DAE's constraints and residual — gives in every
// lane the bits of the scalar call.
TEST(LanesMechanism, ManipulatorIsTheScalarOneInEveryLane) {
  constexpr int W = 4;
  using L = Lanes<W>;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> scale(0.95, 1.05), u(-1.0, 1.0);
  const int n = 2 * W - 1;
  std::vector<LiftTiltParams> params(n, seed004_lift_tilt_mechanism());
  for (auto& P : params) {
    constexpr int fields = sizeof(LiftTiltParams) / sizeof(double);
    static_assert(sizeof(LiftTiltParams) == fields * sizeof(double), "reals only");
    double field[fields];
    std::memcpy(field, static_cast<const void*>(&P), sizeof field);
    for (double& x : field) x *= scale(rng);
    std::memcpy(static_cast<void*>(&P), field, sizeof field);
  }
  params[2].payload_mass = 0.0;
  params[2].segment[1].link.mass = 0.0;  // the merged body without mass: no centre, no inertia
  struct Point {
    double q[2], qd[2], qdd[2], x[4], xd[4], xdd[4];
  };
  std::vector<Point> pts(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2; ++j) {
      pts[i].q[j] = params[i].initial_angle[j] + 0.2 * u(rng);
      pts[i].qd[j] = u(rng);
      pts[i].qdd[j] = 5.0 * u(rng);
      pts[i].x[j] = pts[i].q[j];
      pts[i].xd[j] = pts[i].qd[j];
      pts[i].xdd[j] = pts[i].qdd[j];
      pts[i].x[2 + j] = 0.3 + 0.1 * u(rng);
      pts[i].xd[2 + j] = 0.1 * u(rng);
      pts[i].xdd[2 + j] = u(rng);
    }
  int compared = 0;
  for (int first = 0; first < n; first += W) {
    const int count = W < n - first ? W : n - first;
    auto at = [&](int lane) { return first + (lane < count ? lane : count - 1); };
    LiftTiltParamsT<L> PL;
    transpose_reals<W>(params.data() + first, count, PL);
    L q[2], qd[2], qdd[2], x[4], xd[4], xdd[4];
    for (int lane = 0; lane < W; ++lane) {
      const Point& pt = pts[at(lane)];
      for (int j = 0; j < 2; ++j) {
        q[j].set(lane, pt.q[j]);
        qd[j].set(lane, pt.qd[j]);
        qdd[j].set(lane, pt.qdd[j]);
      }
      for (int k = 0; k < 4; ++k) {
        x[k].set(lane, pt.x[k]);
        xd[k].set(lane, pt.xd[k]);
        xdd[k].set(lane, pt.xdd[k]);
      }
    }
    const LiftTilt::Twists<L> tw = LiftTilt::twists(PL, q, qd);
    L f_c[2], tau[2], phi[2], residual[4];
    LiftTilt::inverse_dynamics(PL, q, qd, qdd, f_c, tau);
    LiftTiltDae::constraints(PL, x, phi);
    LiftTiltDae::mechanism_residual(PL, x, xd, xdd, residual);
    const L kinetic = LiftTilt::kinetic_energy(PL, q, qd), potential = LiftTilt::potential_energy(PL, q);
    const V2<L> tcp = LiftTilt::tcp(PL, q);
    for (int lane = 0; lane < W; ++lane) {
      SCOPED_TRACE("instance " + std::to_string(at(lane)) + " in lane " + std::to_string(lane));
      const LiftTiltParams& P = params[at(lane)];
      const Point& pt = pts[at(lane)];
      const LiftTilt::Twists<double> ts = LiftTilt::twists(P, pt.q, pt.qd);
      for (int k = 0; k < LiftTilt::nb; ++k) {
        EXPECT_TRUE(same_bits(tw.V[k].x[lane], ts.V[k].x)) << "twist " << k;
        EXPECT_TRUE(same_bits(tw.V[k].y[lane], ts.V[k].y)) << "twist " << k;
        EXPECT_TRUE(same_bits(tw.V[k].w[lane], ts.V[k].w)) << "twist " << k;
        EXPECT_TRUE(same_bits(tw.cos_abs[k][lane], ts.cos_abs[k])) << "orientation " << k;
        EXPECT_TRUE(same_bits(tw.sin_abs[k][lane], ts.sin_abs[k])) << "orientation " << k;
      }
      double f_s[2], tau_s[2], phi_s[2], residual_s[4];
      LiftTilt::inverse_dynamics(P, pt.q, pt.qd, pt.qdd, f_s, tau_s);
      LiftTiltDae::constraints(P, pt.x, phi_s);
      LiftTiltDae::mechanism_residual(P, pt.x, pt.xd, pt.xdd, residual_s);
      for (int j = 0; j < 2; ++j) {
        EXPECT_TRUE(same_bits(f_c[j][lane], f_s[j])) << "f_c" << j;
        EXPECT_TRUE(same_bits(tau[j][lane], tau_s[j])) << "tau" << j;
        EXPECT_TRUE(same_bits(phi[j][lane], phi_s[j])) << "phi" << j;
      }
      for (int k = 0; k < 4; ++k) EXPECT_TRUE(same_bits(residual[k][lane], residual_s[k])) << "residual" << k;
      EXPECT_TRUE(same_bits(kinetic[lane], LiftTilt::kinetic_energy(P, pt.q, pt.qd)));
      EXPECT_TRUE(same_bits(potential[lane], LiftTilt::potential_energy(P, pt.q)));
      const V2<double> tcp_s = LiftTilt::tcp(P, pt.q);
      EXPECT_TRUE(same_bits(tcp.x[lane], tcp_s.x));
      EXPECT_TRUE(same_bits(tcp.y[lane], tcp_s.y));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 2 * W);
  // The merged body without mass: zero, not NaN.
  const PlanarBody empty = tilt_with_payload(params[2], params[2].payload_mass);
  EXPECT_EQ(empty.mass, 0.0);
  EXPECT_EQ(empty.com_x, 0.0);
  EXPECT_EQ(empty.inertia, 0.0);
}
