// The lockstep runner (kernels/integrators/lockstep.hpp, docs/models/lanes.md
// §4), with a reference trajectory for the tracking RMS and trajectories
// recorded every 7th step (each sample's bytes as the scalar run's): W instances of the four-bar in the lanes of Lanes<W> through the same
// double-step (or penalty-formulation) code as the scalar path; the 3D
// four-bar likewise. Every instance's summary must be its
// scalar run_instance summary bit for bit (memcmp of every double, equal
// status and step count), for batches of 1 … 3W+1 instances (ragged tails),
// with lanes that fail during the run (pressure range, stroke) or never start
// (no assembly) among lanes that finish, for every friction law, each through
// the policy the catalog compiles for it: the static laws as one
// StaticFrictionChoice with the law chosen per run (docs/models/friction.md
// §10), LuGre and modified LuGre as types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/friction/lugre.hpp"
#include "kernels/friction/law_choice.hpp"
#include "kernels/integrators/lockstep.hpp"
#include "kernels/integrators/penalty_trapezoidal.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/four_bar_3d.hpp"
#include "kernels/models/quick_return_descriptor.hpp"
#include "kernels/models/planar_multibody_descriptor.hpp"
#include "host/build_paths.hpp"
#include "host/registry/model_file.hpp"
#include "lockstep_checks.hpp"

using namespace hs;
using hs::lockstep_checks::expect_lanes_match_scalar;
using hs::lockstep_checks::expect_same_summary;
using hs::lockstep_checks::vary_cylinder;
using hs::lockstep_checks::vary_mechanism;

namespace {


// The static laws (Brown–McPhee, Bengisu–Akay, none) as the catalog compiles
// them for the four-bar: one policy, the law read from law_code.
using StaticLaws = FirstOf<CompiledFrictionPolicies<FrictionLawRegistry>::type>::type;
static_assert(StaticLaws::n_states == 0, "the first compiled policy is the static choice");

// A model's parameters with friction law `law` selected (law_code; the laws
// with states ignore it).
template <class Params>
Params with_law(Params P, const char* law) {
  const int code = friction_law_code_of(FrictionLawRegistry{}, law);
  EXPECT_GE(code, 0) << law;
  for (auto& a : P.actuator) a.friction.law_code = code;
  return P;
}

// The nominal instance of each model: the papers' defaults.
FourBarParams nominal(const FourBarParams*) { return seed002_four_bar(); }
QuickReturnModelParams nominal(const QuickReturnModelParams*) { return seed001_quick_return(); }
// A schedule gain that drives a pressure out of its range after the valve
// opens at 1 s: 30× for the four-bar; the quick-return's cylinder, pulling
// at −10 V, overruns its rod side with the schedule reversed (−30×: the
// scalar run stops at 1.165 s, pressure_out_of_range; +30× stays in range).
double failing_gain(const FourBarParams*) { return 30.0; }
double failing_gain(const QuickReturnModelParams*) { return -30.0; }

// The nominal instance with its parameters varied per instance: masses,
// bulk moduli, valve, supply, friction and the schedule's gain, so that the
// lanes of a batch take different Newton iteration counts. Two in five are
// pushed to fail: a gain that drives a pressure out of its range, a
// mechanism that cannot close its loop (never starts).
template <class Params>
std::vector<Params> varied_instances(int n, unsigned seed, const char* law) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.8, 1.25);
  std::vector<Params> out(n, with_law(nominal(static_cast<const Params*>(nullptr)), law));
  for (int i = 0; i < n; ++i) {
    Params& P = out[i];
    vary_mechanism(P.mechanism, rng, i);
    vary_cylinder(P.actuator[0], rng);
    P.input.gain *= u(rng);
    if (i % 5 == 1) P.input.gain = failing_gain(&P) * u(rng);  // a pressure leaves its range after ~1 s
  }
  return out;
}

template <class M>
using DoubleStepOf = DoubleStepTrapezoidal<M>;
template <class M>
using PenaltyOf = PenaltyTrapezoidal<M>;

template <class Friction>
using Planar = HydraulicFourBar<Friction>;
template <class Friction>
using Spatial = HydraulicFourBar3d<Friction>;  // seed 000's 3D four-bar: the same parameters
template <class Friction>
using QuickReturn = QuickReturnPhysics::Model<Friction>;  // seed 001's quick-return

template <template <class> class Formulation, class Friction, int W, template <class> class ModelOf = Planar>
void lockstep_matches_scalar(double duration, const char* law) {
  using Model = ModelOf<Friction>;
  using One = Formulation<Model>;
  using Params = typename One::Params;
  static_assert(LockstepFor<One>::value, "the combination runs on lanes");
  IntegratorSettings S;
  S.duration = duration;
  // Tracking against the nominal instance's driving angle, as a study's
  // reference run does (RunOptions::reference).
  std::vector<double> reference(static_cast<size_t>(S.duration / S.dt + 0.5) + 1);
  run_instance<One>(with_law(nominal(static_cast<const Params*>(nullptr)), law), S, 1, [&](long k, const SampleOf<One>& smp) {
    reference[k] = smp.q[One::driving_coordinate()];
  });
  RunOptions opt;
  opt.reference = reference.data();
  // Trajectories every 7th step (not a divisor of the run: the last steps
  // are not sampled), each lane's samples against its scalar run's.
  opt.stride = 7;
  const auto all = varied_instances<Params>(3 * W + 1, 17, law);
  // Lanes converge after different counts of Newton iterations and some
  // stop early: some lane-iterations idle, so utilization is below 1.
  const auto match = expect_lanes_match_scalar<One, W>(all, S, opt, law);
  const LockstepCounters& counters = match.counters;
  EXPECT_GT(counters.utilization(), 0.3);
  EXPECT_LT(counters.utilization(), 1.0);
  std::printf("W = %d, %d instances: lane utilization %.3f over %ld groups\n", W, 3 * W + 1, counters.utilization(),
              counters.groups);
  for (const auto& r : match.scalar) {  // the reference is in use
    if (r.status == Status::ok) {
      EXPECT_TRUE(std::isfinite(r.tracking_rms));
    }
  }
}

}  // namespace

// 1.2 s covers the valve opening at 1 s: the friction branch switches, Newton
// counts differ between lanes, and the high-gain lanes leave the pressure
// range at different times.
TEST(Lockstep, BrownMcPheeW4) { lockstep_matches_scalar<DoubleStepOf, StaticLaws, 4>(1.2, BrownMcPhee::name); }
TEST(Lockstep, BrownMcPheeW8) { lockstep_matches_scalar<DoubleStepOf, StaticLaws, 8>(1.2, BrownMcPhee::name); }
TEST(Lockstep, BengisuAkayW8) { lockstep_matches_scalar<DoubleStepOf, StaticLaws, 8>(1.2, BengisuAkay::name); }
TEST(Lockstep, LuGreW4) { lockstep_matches_scalar<DoubleStepOf, LuGre, 4>(1.2, LuGre::name); }
TEST(Lockstep, ModifiedLuGreW8) { lockstep_matches_scalar<DoubleStepOf, ModifiedLuGre, 8>(1.2, ModifiedLuGre::name); }
TEST(Lockstep, NoFrictionW4) { lockstep_matches_scalar<DoubleStepOf, StaticLaws, 4>(1.2, NoFriction::name); }

// The penalty formulation on lanes (PenaltyTrapezoidal<Model, Lanes<W>>):
// the same batches, every law, both widths; its multipliers λ are per lane.
TEST(LockstepPenalty, BrownMcPheeW8) { lockstep_matches_scalar<PenaltyOf, StaticLaws, 8>(1.2, BrownMcPhee::name); }
TEST(LockstepPenalty, BengisuAkayW4) { lockstep_matches_scalar<PenaltyOf, StaticLaws, 4>(1.2, BengisuAkay::name); }
TEST(LockstepPenalty, NoFrictionW8) { lockstep_matches_scalar<PenaltyOf, StaticLaws, 8>(1.2, NoFriction::name); }
TEST(LockstepPenalty, LuGreW8) { lockstep_matches_scalar<PenaltyOf, LuGre, 8>(1.2, LuGre::name); }
TEST(LockstepPenalty, ModifiedLuGreW4) { lockstep_matches_scalar<PenaltyOf, ModifiedLuGre, 4>(1.2, ModifiedLuGre::name); }

// The 3D four-bar (DaeMechanism<SpatialFourBarDae>, ten mixed coordinates,
// nine constraints, docs/models/lanes.md §8) on lanes: its constraint
// Jacobian and bias from jets nested over the lanes, the partition per lane
// (the double step; its penalty formulation has no lanes).
// One law here (each 3D instantiation on lanes costs ~100 s of compile); every
// law runs the 3D four-bar's lanes through the library's CPU backend against
// the scalar device code path, bit for bit, in
// GpuBackendCodePath.EveryModelFormulationAndFrictionLawAgreesWithCpuBitForBit.
TEST(Lockstep3d, BrownMcPheeW8) { lockstep_matches_scalar<DoubleStepOf, StaticLaws, 8, Spatial>(1.2, BrownMcPhee::name); }
// Seed 001's quick-return (DaeMechanism<QuickReturnDae>, five joint angles,
// four constraints of two cut translational joints, docs/models/lanes.md §9):
// its parameters are reals only, transposed whole.
TEST(LockstepQuickReturn, BrownMcPheeW8) {
  lockstep_matches_scalar<DoubleStepOf, StaticLaws, 8, QuickReturn>(1.2, BrownMcPhee::name);
}
TEST(LockstepQuickReturn, ModifiedLuGreW4) {
  lockstep_matches_scalar<DoubleStepOf, ModifiedLuGre, 4, QuickReturn>(1.2, ModifiedLuGre::name);
}
// Its penalty formulation too (multipliers per lane, docs/models/lanes.md §9).
TEST(LockstepQuickReturn, PenaltyBengisuAkayW8) {
  lockstep_matches_scalar<PenaltyOf, StaticLaws, 8, QuickReturn>(1.2, BengisuAkay::name);
}
static_assert(!LockstepFor<PenaltyTrapezoidal<Spatial<LuGre>>>::value,
              "the 3D four-bar's penalty formulation runs one instance at a time (docs/models/lanes.md §8)");

// `n` identical instances (n <= 8) in one group of 8 lanes: they converge
// together, so every lane holding one is busy at every Newton iteration.
namespace {
LockstepCounters identical_instances_in_8_lanes(int n) {
  using Model = HydraulicFourBar<StaticLaws>;
  IntegratorSettings S;
  S.duration = 0.3;
  std::vector<FourBarParams> same(static_cast<size_t>(n), with_law(seed002_four_bar(), BrownMcPhee::name));
  std::vector<SummaryOf<DoubleStepTrapezoidal<Model>>> out(static_cast<size_t>(n));
  LockstepCounters c;
  Lockstep<DoubleStepTrapezoidal<Model>, 8>::run(same.data(), n, S, RunOptions(), out.data(), &c);
  EXPECT_GT(c.lane_iterations, 0);
  EXPECT_EQ(c.groups, 1);
  for (const auto& o : out) EXPECT_EQ(o.status, Status::ok);
  return c;
}
}  // namespace

// Eight identical instances: utilization exactly 1 (a varied batch idles some).
TEST(Lockstep, UtilizationIsOneForIdenticalLanes) {
  const LockstepCounters c = identical_instances_in_8_lanes(8);
  EXPECT_EQ(c.active_lane_iterations, c.lane_iterations);
}

// A ragged group's padding lanes (copies of its last instance) count as
// idle: three identical instances in 8 lanes keep 3 of 8 lanes busy at
// every iteration, so the utilization is 3/8 exactly (they counted as busy,
// 1.0, before 2026-11-30; docs/models/lanes.md §4).
TEST(Lockstep, PaddingLanesOfARaggedGroupCountIdle) {
  const LockstepCounters c = identical_instances_in_8_lanes(3);
  EXPECT_EQ(8 * c.active_lane_iterations, 3 * c.lane_iterations);
}

// The laws with states as one compiled policy (DynamicFrictionChoice, the
// model files' generic kernels; docs/models/friction.md §10): each law runs
// through the choice as it does compiled alone, every summary field the same
// bits, for the double step and the penalty formulation, over a varied batch
// with instances that fail or never start. LuGre's padded film state is a
// Newton unknown whose row and column hold only the diagonal, so it changes
// no other entry of the elimination.
namespace {
template <template <class> class Formulation, class Law>
void dynamic_choice_runs_the_law_as_compiled_alone() {
  using Choice = DynamicFrictionChoice<LuGre, ModifiedLuGre>;
  using Alone = Formulation<HydraulicFourBar<Law>>;
  using Chosen = Formulation<HydraulicFourBar<Choice>>;
  static_assert(std::is_same<SummaryOf<Alone>, SummaryOf<Chosen>>::value, "the same record");
  IntegratorSettings S;
  S.duration = 1.2;
  const auto all = varied_instances<FourBarParams>(10, 23, Law::name);
  int finished = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto alone = run_instance<Alone>(all[i], S, RunOptions{}, [](long, const auto&) {});
    const auto chosen = run_instance<Chosen>(all[i], S, RunOptions{}, [](long, const auto&) {});
    expect_same_summary(chosen, alone, Law::name, static_cast<int>(i));
    finished += alone.status == Status::ok;
  }
  EXPECT_GT(finished, 0);
}
}  // namespace

TEST(DynamicFrictionChoice, RunsEachLawAsCompiledAloneBitForBit) {
  dynamic_choice_runs_the_law_as_compiled_alone<DoubleStepOf, LuGre>();
  dynamic_choice_runs_the_law_as_compiled_alone<DoubleStepOf, ModifiedLuGre>();
  dynamic_choice_runs_the_law_as_compiled_alone<PenaltyOf, LuGre>();
  dynamic_choice_runs_the_law_as_compiled_alone<PenaltyOf, ModifiedLuGre>();
}

// ---- Model files on lanes (docs/models/lanes.md §10) --------------------------
// The generic mechanism of model files with its input policy (CylinderInputs:
// valve schedules, or sampled PI controllers with a memory, a report and a
// probe per lane) on lanes: each instance a row of the file's parameter table
// varied by name (what a study does) and unpacked as the runner unpacks it;
// every summary field, the controller's report and every recorded sample
// (with its probe) bit for bit against the scalar run, for batches of 1 …
// 3W+1 instances, with lanes that stop mid-run (a pressure out of its range)
// and lanes that never assemble among those that finish.
namespace {

std::string model_text(const std::string& file) {
  std::ifstream in(std::string(HYDROSWEEP_SOURCE_DIR) + "/models/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
// The four-bar file with its cylinder under a PI stroke controller instead of
// the valve schedule: 5 cm of stroke from 0.5 s to 1.5 s.
std::string four_bar_under_stroke_control() {
  std::string t = model_text("four_bar.toml");
  const auto at = t.find("[input]");
  EXPECT_NE(at, std::string::npos);
  t = t.substr(0, at) +
      "[input]\ncontrol = \"stroke\"\ntimes = [0.0, 0.5, 1.5]\nvalues = [0.0, 0.0, 0.05]\nproportional_gain = 200.0\n"
      "integral_gain = 40.0\nvoltage_limit = 10.0\nsample_period = 0.01\n";
  const std::string path = testing::TempDir() + "lockstep_four_bar_stroke.toml";
  std::ofstream(path) << t;
  return path;
}

using RowEdit = std::function<void(const ModelDescriptor&, std::vector<double>& row, int i, std::mt19937_64& rng)>;
void set(const ModelDescriptor& m, std::vector<double>& row, const std::string& key, double value) {
  const ParameterInfo* p = m.find_parameter(key);
  ASSERT_NE(p, nullptr) << key;
  row[p->index] = value;
}
double get(const ModelDescriptor& m, const std::vector<double>& row, const std::string& key) {
  const ParameterInfo* p = m.find_parameter(key);
  EXPECT_NE(p, nullptr) << key;
  return p ? row[p->index] : NAN;
}

template <class Capacity, template <class> class Formulation, class Friction, int W>
void file_lockstep_matches_scalar(const std::string& path, const char* law, double duration, const RowEdit& vary) {
  using Model = typename PlanarMultibodyPhysicsOf<Capacity>::template Model<Friction>;
  using One = Formulation<Model>;
  using Params = typename One::Params;
  static_assert(LockstepFor<One>::value, "a model file runs on lanes");
  const auto model = load_model_file(path);
  Params base;
  ASSERT_EQ(model->params_bytes.size(), sizeof base);
  std::memcpy(static_cast<void*>(&base), model->params_bytes.data(), sizeof base);
  std::mt19937_64 rng(23);
  std::vector<Params> all;
  for (int i = 0; i < 3 * W + 1; ++i) {
    std::vector<double> row = model->defaults;
    vary(*model, row, i, rng);
    all.push_back(with_law(unpack_row(model->parameters, row.data(), base), law));
  }
  IntegratorSettings S;
  S.duration = duration;
  RunOptions opt;
  opt.stride = 7;
  const std::string what = model->name + ", " + law;
  expect_lanes_match_scalar<One, W>(all, S, opt, what.c_str());
}

// The four-bar file's variations: masses, bulk modulus, friction; every fifth
// instance (i % 5 == 3) with its crank's pin C moved out of the coupler's
// reach (no assembly: it never starts), and i % 5 == 1 driven out of its
// pressure range after ~1 s (the valve gain 30×, or the controller let past
// 10 V with a high gain).
void vary_four_bar(const ModelDescriptor& m, std::vector<double>& row, int i, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.8, 1.25);
  for (const char* key : {"body.crank.mass", "body.coupler.mass", "body.rocker.inertia", "cylinder.lift.oil_bulk_modulus",
                          "cylinder.lift.supply_pressure", "cylinder.lift.friction.coulomb_force",
                          "cylinder.lift.friction.lugre_stiffness"})
    set(m, row, key, get(m, row, key) * u(rng));
  const bool controlled = m.find_parameter("input.proportional_gain") != nullptr;
  if (controlled) {
    set(m, row, "input.proportional_gain", get(m, row, "input.proportional_gain") * u(rng));
    set(m, row, "input.integral_gain", get(m, row, "input.integral_gain") * u(rng));
  } else {
    set(m, row, "input.gain", u(rng));
  }
  if (i % 5 == 1) {
    if (controlled) {
      set(m, row, "input.voltage_limit", 300.0);
      set(m, row, "input.proportional_gain", 2e4);
    } else {
      set(m, row, "input.gain", 30.0 * u(rng));
    }
  }
  if (i % 5 == 3) set(m, row, "body.crank.C_x", 20.0);
}

// The boom and arm file (two cylinders, two PI stroke controllers): masses
// and gains varied; i % 5 == 1 with the boom's controller let past 10 V with a
// high gain (a pressure leaves its range once its reference moves at 1 s),
// i % 5 == 3 with an arm rod-side pressure no piston side can balance (the
// static state is refused: it never starts).
void vary_excavator(const ModelDescriptor& m, std::vector<double>& row, int i, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.8, 1.25);
  for (const char* key : {"body.boom.mass", "body.arm.mass", "input.boom.proportional_gain", "input.boom.integral_gain",
                          "input.arm.proportional_gain", "cylinder.arm.oil_bulk_modulus"})
    set(m, row, key, get(m, row, key) * u(rng));
  if (i % 5 == 1) {
    set(m, row, "input.boom.voltage_limit", 300.0);
    set(m, row, "input.boom.proportional_gain", 1e5);
  }
  if (i % 5 == 3) set(m, row, "cylinder.arm.rod_side_initial_pressure", 5e8);
}

}  // namespace

TEST(LockstepModelFile, TwoControllersDoubleStepBrownMcPheeW8) {
  file_lockstep_matches_scalar<PlanarFileTwoCylinderCapacity, DoubleStepOf, StaticLaws, 8>(
      std::string(HYDROSWEEP_SOURCE_DIR) + "/models/excavator_boom_arm.toml", BrownMcPhee::name, 1.5, vary_excavator);
}
TEST(LockstepModelFile, ValveScheduleDoubleStepBrownMcPheeW8) {
  file_lockstep_matches_scalar<PlanarFileCapacity, DoubleStepOf, StaticLaws, 8>(
      std::string(HYDROSWEEP_SOURCE_DIR) + "/models/four_bar.toml", BrownMcPhee::name, 1.2, vary_four_bar);
}
TEST(LockstepModelFile, StrokeControllerDoubleStepLuGreW4) {
  file_lockstep_matches_scalar<PlanarFileCapacity, DoubleStepOf, DynamicFrictionChoice<LuGre, ModifiedLuGre>, 4>(
      four_bar_under_stroke_control(), LuGre::name, 1.2, vary_four_bar);
}
TEST(LockstepModelFile, StrokeControllerPenaltyBengisuAkayW8) {
  file_lockstep_matches_scalar<PlanarFileCapacity, PenaltyOf, StaticLaws, 8>(four_bar_under_stroke_control(),
                                                                             BengisuAkay::name, 1.2, vary_four_bar);
}
