// Model files (docs/model-files.md; docs/models/planar-multibody.md §7 says
// what each test asserts):
//  - proof by re-description: the seed 002 and seed 001 four-bars and the
//    quick-return written as model files (models/*.toml) run like the
//    compiled models — every summary column of the same run, the same
//    stability eigenvalues — within tolerances measured and stated below;
//  - every class of bad model file is refused with the element and key named;
//  - the inputs of model files (kernels/control/cylinder_inputs.hpp): the PI
//    controller's arithmetic by hand, two cylinders against each one alone,
//    the two formulations and the energy balance on the two-cylinder
//    excavator, the refusals of bad [input] tables (docs/model-files.md §6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "host/build_paths.hpp"
#include "host/registry/model_file.hpp"
#include "host/registry/models.hpp"
#include "host/run/batch.hpp"
#include "host/run/stability_map.hpp"
#include "kernels/control/cylinder_inputs.hpp"
#include "kernels/friction/law_choice.hpp"
#include "kernels/integrators/penalty_trapezoidal.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/planar_multibody_descriptor.hpp"
#include "tests/run_support.hpp"

namespace {

using hs::run_test::run_study_text;
using hs::run_test::StudyRun;

std::string model_path(const std::string& file) { return std::string(HYDROSWEEP_SOURCE_DIR) + "/models/" + file; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One instance of a model over the work cycle.
std::string study_of(const std::string& model_line, const std::string& friction, const std::string& formulation,
                     double duration) {
  std::ostringstream s;
  s << "[study]\n" << model_line << "\nfriction = \"" << friction << "\"\nformulation = \"" << formulation << "\"\n"
    << "[integrator]\ndt = 1e-3\nduration = " << duration << "\n";
  return s.str();
}

// Columns of the compiled model and of the file model that are the same
// quantity: q_k of the compiled model is q_{slot(k)} of the file model.
struct ColumnPair {
  std::string compiled, file;
};
std::vector<ColumnPair> same_columns(const hs::ModelDescriptor& compiled, const hs::ModelDescriptor& file,
                                     const std::vector<int>& slot_of_coordinate) {
  std::vector<ColumnPair> out;
  for (const auto& c : compiled.summary_columns) {
    std::string name = c.name;
    for (size_t k = 0; k < slot_of_coordinate.size(); ++k)
      for (const char* stem : {"q", "qd"}) {
        if (name == stem + std::to_string(k + 1)) {
          name = stem + std::to_string(slot_of_coordinate[k] + 1);
          goto mapped;
        }
      }
  mapped:
    if (file.summary_column(name) >= 0) out.push_back({c.name, name});
  }
  return out;
}

// Every continuous column within rel·|a| + abs, the step count exactly.
// rel = 1e-9 (measured ≤ 7.7e-11 over every column, case, formulation and
// law below); the columns whose values are rounding-level residues get an
// absolute floor ~10× their measured difference: the final rates at rest
// (measured ≤ 8.4e-12 rad/s), the energy drifts (T + V − E0 − W of ~1e3 J,
// measured ≤ 2.0e-9 J) and the constraint violation (the Newton tolerance's
// residue, measured ≤ 1.8e-15). Newton counts are not compared: one more or
// less iteration where a residual sits at the tolerance is rounding too.
// Returns the largest relative difference seen.
double expect_same_run(const StudyRun& a, const StudyRun& b, const std::vector<ColumnPair>& columns) {
  double worst = 0.0;
  for (const auto& c : columns) {
    const double x = a.column(c.compiled.c_str()), y = b.column(c.file.c_str());
    if (std::isnan(x) || std::isnan(y)) {
      EXPECT_EQ(std::isnan(x), std::isnan(y)) << c.compiled;
      continue;
    }
    if (c.compiled == "steps") {
      EXPECT_EQ(x, y) << c.compiled;
      continue;
    }
    if (c.compiled.find("newton_iterations") != std::string::npos) continue;
    double abs = 0.0;
    if (c.compiled.rfind("qd", 0) == 0) abs = 1e-10;
    if (c.compiled.find("energy_drift") != std::string::npos) abs = 2e-8;
    if (c.compiled == "max_constraint_violation") abs = 2e-14;
    const double d = std::fabs(x - y);
    EXPECT_LE(d, abs + 1e-9 * std::fabs(x)) << c.compiled << " vs " << c.file << ": " << x << " vs " << y;
    if (abs == 0.0 && x != 0.0) worst = std::max(worst, d / std::fabs(x));
    if (std::getenv("HS_SHOW_COLUMNS")) std::printf("    %s: %.17g vs %.17g\n", c.compiled.c_str(), x, y);
  }
  return worst;
}

struct Case {
  const char* compiled;
  const char* file;
  std::vector<int> slot_of_coordinate;  // the compiled model's coordinate k is the file's slot
};
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"four-bar", "four_bar.toml", {0, 1, 2}},
      {"four-bar-seed001", "four_bar_seed001.toml", {0, 1, 2}},
      // Compiled quick-return: z1 lever, z2 link, z3 ram, z4 crank (driving), z5
      // slider; the file puts the driving crank first.
      {"quick-return", "quick_return.toml", {1, 2, 3, 0, 4}},
  };
  return c;
}

// The file models run the compiled models' work cycles: every summary
// column as expect_same_run says (docs/models/planar-multibody.md §7–§8).
TEST(ModelFile, RedescribedModelsRunLikeTheCompiledOnes) {
  for (const auto& c : cases())
    for (const char* formulation : {"double-step", "penalty"})
      for (const char* friction : {"brown-mcphee", "lugre"}) {
        SCOPED_TRACE(std::string(c.compiled) + " " + formulation + " " + friction);
        const StudyRun compiled = run_study_text(study_of("model = \"" + std::string(c.compiled) + "\"", friction, formulation, 10.0));
        const StudyRun file =
            run_study_text(study_of("model_file = \"" + model_path(c.file) + "\"", friction, formulation, 10.0));
        ASSERT_EQ(compiled.result.status[0], hs::Status::ok);
        ASSERT_EQ(file.result.status[0], hs::Status::ok) << hs::status_name(file.result.status[0]);
        const auto columns = same_columns(*compiled.study.descriptor, *file.study.descriptor, c.slot_of_coordinate);
        ASSERT_GT(columns.size(), 20u);
        const double worst = expect_same_run(compiled, file, columns);
        std::printf("  %s %s %s: largest relative difference %.3g over %zu columns (rates at rest, drifts, violation apart)\n", c.compiled, formulation,
                    friction, worst, columns.size());
        // Padding coordinates stay exactly at rest.
        for (int k = static_cast<int>(c.slot_of_coordinate.size()); k < 5; ++k) {
          EXPECT_EQ(file.column(("q" + std::to_string(k + 1)).c_str()), 0.0);
          EXPECT_EQ(file.column(("qd" + std::to_string(k + 1)).c_str()), 0.0);
        }
      }
}

// The stability map's points: every eigenvalue of the reduced Jacobian at the
// same equilibrium.
TEST(ModelFile, RedescribedModelsHaveTheCompiledStabilityPoints) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.compiled);
    const hs::Study compiled = hs::parse_study("[study]\nmodel = \"" + std::string(c.compiled) + "\"\n", "compiled.toml");
    const hs::Study file = hs::parse_study("[study]\nmodel_file = \"" + model_path(c.file) + "\"\n", "file.toml");
    const auto a = hs::run_stability_cpu(compiled.record(), compiled.design(), 1);
    const auto b = hs::run_stability_cpu(file.record(), file.design(), 1);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    ASSERT_EQ(a[0].status, 0);
    ASSERT_EQ(b[0].status, 0);
    ASSERT_EQ(a[0].eigenvalue_count, b[0].eigenvalue_count);
    double scale = 0.0;
    for (int k = 0; k < a[0].eigenvalue_count; ++k) scale = std::max(scale, std::hypot(a[0].re[k], a[0].im[k]));
    double worst = 0.0;
    for (int k = 0; k < a[0].eigenvalue_count; ++k) {
      EXPECT_NEAR(a[0].re[k], b[0].re[k], 1e-9 * scale) << "eigenvalue " << k;
      EXPECT_NEAR(a[0].im[k], b[0].im[k], 1e-9 * scale) << "eigenvalue " << k;
      worst = std::max(worst, std::hypot(a[0].re[k] - b[0].re[k], a[0].im[k] - b[0].im[k]) / scale);
    }
    std::printf("  %s: %d eigenvalues, largest difference %.3g of |lambda|max = %.4g 1/s\n", c.compiled,
                a[0].eigenvalue_count, worst, scale);
    EXPECT_NEAR(a[0].crank_angle, b[0].crank_angle, 1e-12);
    for (int k = 0; k < a[0].pressure_count; ++k) EXPECT_NEAR(a[0].pressure[k], b[0].pressure[k], 1e-6 * std::fabs(a[0].pressure[k]));
  }
}

TEST(ModelFile, ParametersAreNamedAfterTheFilesElements) {
  const auto m = hs::load_model_file(model_path("four_bar.toml"));
  EXPECT_EQ(m->name, "four-bar-file");
  EXPECT_EQ(m->physics, "planar-multibody");
  for (const char* name : {"body.crank.mass", "body.coupler.inertia", "body.rocker.com_x", "body.crank.C_x",
                           "ground.E_x", "joint.O.initial", "joint.D.initial", "cylinder.lift.piston_diameter",
                           "cylinder.lift.friction.coulomb_force", "gravity_y", "input.gain"})
    EXPECT_NE(m->find_parameter(name), nullptr) << name;
  EXPECT_EQ(m->defaults[m->find_parameter("body.coupler.mass")->index], 64.0);
  EXPECT_EQ(m->defaults[m->find_parameter("ground.E_x")->index], 10.0);
  EXPECT_EQ(m->file_text, read_text(model_path("four_bar.toml")));
  EXPECT_TRUE(m->supports_command("stability"));
}

// A sampled geometry that cannot close is flagged per instance, not run.
TEST(ModelFile, AnInstanceThatCannotAssembleIsNamed) {
  const auto m = hs::load_model_file(model_path("four_bar.toml"));
  std::vector<double> row = m->defaults;
  row[m->find_parameter("ground.E_x")->index] = 100.0;  // rocker and coupler cannot reach
  const auto problem = m->instance_check(*m, row.data(), 1e-3, 10.0);
  EXPECT_EQ(problem.key, "joint.O.initial");
  EXPECT_NE(problem.why.find("does not assemble"), std::string::npos) << problem.why;
  EXPECT_TRUE(m->instance_check(*m, m->defaults.data(), 1e-3, 10.0).why.empty());
}

// ---- bad model files --------------------------------------------------------------

// `text` with each `from` replaced by its `to` must be refused with a
// message that starts with the file's name and holds every one of `expected`.
using Edits = std::vector<std::pair<std::string, std::string>>;
void expect_refused_text(std::string text, const Edits& edits, const std::vector<std::string>& expected) {
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  try {
    hs::parse_model_file(text, "bad.toml");
    ADD_FAILURE() << "accepted: " << edits.front().second;
  } catch (const hs::ModelFileError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("bad.toml:", 0), 0u) << what;
    for (const auto& s : expected) EXPECT_NE(what.find(s), std::string::npos) << "'" << s << "' not in: " << what;
  }
}
// The same on the four-bar file.
void expect_refused(const Edits& edits, const std::vector<std::string>& expected) {
  expect_refused_text(read_text(model_path("four_bar.toml")), edits, expected);
}

TEST(ModelFile, EveryClassOfBadFileIsRefusedNamingTheElement) {
  // No ground: the crank hangs from the rocker, so no chain reaches the ground.
  expect_refused({{"parent = \"ground.O\"", "parent = \"rocker.B\""}}, {"no body hangs from the ground"});
  // A body connected to nothing, a body hanging from two joints, a body from itself.
  expect_refused({{"parent = \"coupler.D\"\nchild = \"rocker\"", "parent = \"coupler.D\"\nchild = \"crank\""}},
                 {"joint.D", "crank already hangs from joint O"});
  expect_refused({{"[[joint]]\nname = \"D\"\ntype = \"revolute\"\nparent = \"coupler.D\"\nchild = \"rocker\"\ninitial = "
                   "-1.6332791140162937\n",
                   ""}},
                 {"body rocker is connected to nothing", "child = \"rocker\""});
  expect_refused({{"parent = \"coupler.D\"\nchild = \"rocker\"", "parent = \"rocker.B\"\nchild = \"rocker\""}},
                 {"joint.D", "cannot hang from its own point"});
  // Insufficient constraints: without its loop the chain has three degrees of freedom.
  expect_refused({{"[[joint]]\nname = \"E\"\ntype = \"revolute\"\nbetween = [\"rocker.B\", \"ground.E\"]\n", ""}},
                 {"3 degrees of freedom", "take 1"});
  // Redundant constraints: a loop closed at the crank's own pivot holds at every angle.
  expect_refused({{"points = { C = [2.0, 0.0], F = [1.0, 0.0] }", "points = { C = [2.0, 0.0], F = [1.0, 0.0], P0 = [0.0, 0.0] }"},
                  {"between = [\"rocker.B\", \"ground.E\"]", "between = [\"crank.P0\", \"ground.O\"]"}},
                 {"redundant constraints", "rank 0 of 2", "joint E"});
  expect_refused({{"between = [\"rocker.B\", \"ground.E\"]", "between = [\"crank.F\", \"crank.C\"]"}},
                 {"joint.E.between", "both points are on crank"});
  // An assembly that does not close: the rocker's ground pivot out of reach.
  expect_refused({{"E = [10.0, 0.0]", "E = [100.0, 0.0]"}}, {"does not assemble", "joint.O.initial", "joint E"});
  // Negative masses and inertias.
  expect_refused({{"mass = 64.0", "mass = -64.0"}}, {"body.coupler.mass = -64", "out of range (0, 1e+09]"});
  expect_refused({{"inertia = 83.33333333333333", "inertia = 0.0"}}, {"body.rocker.inertia = 0", "out of range"});
  // Unknown components, points, bodies and keys.
  expect_refused({{"circuit = \"three-volume\"", "circuit = \"proportional-valve\""}}, {"cylinder.lift.circuit", "three-volume"});
  expect_refused({{"rod = \"crank.F\"", "rod = \"crank.X\""}}, {"cylinder.lift.rod", "crank has no point \"X\"", "C, F"});
  expect_refused({{"base = \"ground.G\"", "base = \"crank.C\""}}, {"cylinder.lift", "base and rod are both on crank"});
  expect_refused({{"parent = \"crank.C\"", "parent = \"crank.X\""}}, {"joint.C.parent", "crank has no point \"X\""});
  expect_refused({{"parent = \"crank.C\"", "parent = \"crane.C\""}}, {"joint.C.parent", "no body \"crane\"", "did you mean \"crank\""});
  expect_refused({{"child = \"coupler\"", "child = \"couplr\""}}, {"joint.C.child", "did you mean \"coupler\""});
  expect_refused({{"mass = 16.0", "masss = 16.0"}}, {"unknown key 'body.masss'", "did you mean 'mass'"});
  expect_refused({{"circuit = \"three-volume\"", "circuit = \"three-volume\"\npiston_diametr = 0.1"}},
                 {"cylinder.lift.piston_diametr", "did you mean 'piston_diameter'"});
  expect_refused({{"circuit = \"three-volume\"", "circuit = \"three-volume\"\nrod_diameter = 0.5"}},
                 {"cylinder.lift.rod_diameter = 0.5 must be < cylinder.lift.piston_diameter"});
  expect_refused({{"type = \"revolute\"\nparent = \"crank.C\"", "type = \"hinge\"\nparent = \"crank.C\""}},
                 {"joint.C.type = \"hinge\"", "\"revolute\", \"prismatic\""});
  expect_refused({{"name = \"four-bar-file\"", "name = \"four-bar\""}}, {"compiled model"});
}

// A cylinder whose two points coincide at the assembly.
TEST(ModelFile, ACylinderOfZeroLengthIsRefused) {
  std::string text = read_text(model_path("four_bar.toml"));
  text.replace(text.find("G = [-1.0, 0.0]"), 15, "G = [0.5, 0.8660254037844386]");  // = F at 60°
  try {
    hs::parse_model_file(text, "bad.toml");
    ADD_FAILURE() << "accepted";
  } catch (const hs::ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("cylinder.lift has length"), std::string::npos) << e.what();
  }
}

// A model inside the study ([machine], as Python's dict studies carry one)
// is the same model as its file: the same run, bit for bit; its errors cite
// the study's lines.
TEST(ModelFile, AModelInsideTheStudyIsTheFilesModel) {
  std::string machine;
  {
    std::istringstream in(read_text(model_path("four_bar.toml")));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] == '[') {  // [model] -> [machine.model], [[body]] -> [[machine.body]]
        const size_t open = line.find_first_not_of('[');
        line = line.substr(0, open) + "machine." + line.substr(open);
      }
      machine += line + "\n";
    }
  }
  const std::string head = "[study]\nfriction = \"lugre\"\n[integrator]\nduration = 3.0\n";
  const StudyRun embedded = run_study_text(head + machine);
  const StudyRun file = run_study_text(std::string("[study]\nmodel_file = \"") + model_path("four_bar.toml") +
                                       "\"\nfriction = \"lugre\"\n[integrator]\nduration = 3.0\n");
  EXPECT_EQ(embedded.study.descriptor->file_path, "inline.toml [machine]");
  EXPECT_EQ(embedded.study.model, "four-bar-file");
  ASSERT_EQ(embedded.result.summaries.size(), file.result.summaries.size());
  for (size_t k = 0; k < file.result.summaries.size(); ++k)
    EXPECT_TRUE(std::memcmp(&embedded.result.summaries[k], &file.result.summaries[k], sizeof(double)) == 0) << k;
  // An error in the embedded model cites the study file and the element.
  std::string bad = head + machine;
  bad.replace(bad.find("mass = 64.0"), 11, "mass = -1.0");
  try {
    hs::parse_study(bad, "s.toml");
    ADD_FAILURE() << "accepted";
  } catch (const hs::StudyError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("body.coupler.mass = -1 is out of range"), std::string::npos) << what;
    EXPECT_EQ(what.rfind("s.toml:", 0), 0u) << what;
  }
  try {
    hs::parse_study("[study]\nmodel = \"four-bar\"\n" + machine, "s.toml");
    ADD_FAILURE() << "accepted [machine] beside study.model";
  } catch (const hs::StudyError& e) {
    EXPECT_NE(std::string(e.what()).find("[machine] describes this study's model"), std::string::npos) << e.what();
  }
}

// The Kokkos backend runs the same kernel over the same rows: bit for bit
// (tolerance 0), every formulation it takes (the index-1 reference aside, as
// for the compiled models in test_backends), a static and a LuGre law.
TEST(ModelFile, KokkosRunsTheFileModelBitForBit) {
  std::string why;
  if (!hs::backend_available(hs::Backend::kokkos, &why)) GTEST_SKIP() << why;
  for (const char* formulation : {"double-step", "penalty"})
    for (const char* friction : {"brown-mcphee", "lugre"}) {
      SCOPED_TRACE(std::string(formulation) + " " + friction);
      const hs::Study st = hs::parse_study(
          "[study]\nmodel_file = \"" + model_path("quick_return.toml") + "\"\nformulation = \"" + formulation +
              "\"\nfriction = \"" + friction + "\"\n[integrator]\nduration = 2.0\n[sample]\nmethod = \"monte-carlo\"\n"
              "count = 4\nseed = 5\n[[factor]]\nparameter = \"body.crank.mass\"\nrelative = 0.1\n[output]\n"
              "trajectory_stride = 100\n",
          "kokkos.toml");
      const hs::BatchSpec spec = hs::batch_spec(st.record(), st.design(), 2);
      const hs::BatchResult cpu = hs::run_batch_cpu(spec), kokkos = hs::run_batch_kokkos(spec);
      ASSERT_EQ(cpu.summaries.size(), kokkos.summaries.size());
      ASSERT_EQ(cpu.trajectories.size(), kokkos.trajectories.size());
      for (long i = 0; i < cpu.instance_count(); ++i) EXPECT_EQ(cpu.status[i], hs::Status::ok);
      EXPECT_EQ(std::memcmp(cpu.summaries.data(), kokkos.summaries.data(), cpu.summaries.size() * sizeof(double)), 0);
      EXPECT_EQ(std::memcmp(cpu.trajectories.data(), kokkos.trajectories.data(), cpu.trajectories.size() * sizeof(double)), 0);
    }
}

// An instance whose swept geometry cannot assemble: the design names it
// (the runner flags it invalid_parameters and never starts it), and the
// kernel given it anyway refuses it the same way (its assembly at t = 0
// fails: invalid_parameters) while the others run.
TEST(ModelFile, AnInstanceThatCannotAssembleIsFlaggedAndTheRestRun) {
  const StudyRun r = run_study_text("[study]\nmodel_file = \"" + model_path("four_bar.toml") +
                                    "\"\n[integrator]\nduration = 1.0\n[[grid]]\nparameter = \"ground.E_x\"\n"
                                    "values = [10.0, 100.0, 9.9]\n");
  EXPECT_TRUE(r.study.instance_problem(0L).empty());
  EXPECT_NE(r.study.instance_problem(1L).find("does not assemble"), std::string::npos) << r.study.instance_problem(1L);
  ASSERT_EQ(r.result.instance_count(), 3);
  EXPECT_EQ(r.result.status[0], hs::Status::ok);
  EXPECT_EQ(r.result.status[1], hs::Status::invalid_parameters);
  EXPECT_EQ(r.result.status[2], hs::Status::ok);
  EXPECT_EQ(r.column("t_end", 0), 1.0);
  EXPECT_EQ(r.column("t_end", 1), 0.0);
  EXPECT_EQ(r.column("steps", 2), 1000.0);
}

TEST(ModelFile, StudyNamesAMissingModelFile) {
  try {
    hs::parse_study("[study]\nmodel_file = \"no_such_model.toml\"\n", "/tmp/study.toml");
    ADD_FAILURE() << "accepted";
  } catch (const hs::StudyError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("study.model_file = \"no_such_model.toml\""), std::string::npos) << what;
    EXPECT_NE(what.find("cannot read the model file"), std::string::npos) << what;
  }
}


// ---- inputs: valve schedules and controllers, two cylinders ------------------------

// The controller's arithmetic at four samples, by hand (docs/models/planar-multibody.md §9):
// K_p = 100 V/m, K_i = 50 V/(m s), T = 0.01 s, U_max = 10 V, reference 0 → 0.1 m over 1 s.
TEST(CylinderInputs, StrokeControllerStepsAsWrittenByHand) {
  using Policy = hs::CylinderInputs<1>;
  Policy::Params P;
  auto& c = P.cylinder[0];
  c.mode = int(hs::CylinderInputMode::stroke);
  c.proportional_gain = 100.0;
  c.integral_gain = 50.0;
  c.voltage_limit = 10.0;
  c.schedule.count = 2;
  c.schedule.start[0] = 0.0, c.schedule.value[0] = 0.0;
  c.schedule.start[1] = 1.0, c.schedule.value[1] = 0.1;
  P.sample_period = 0.01;
  EXPECT_EQ(Policy::sample_period(P), 0.01);
  EXPECT_EQ(hs::reference_at(c.schedule, -1.0), 0.0);
  EXPECT_DOUBLE_EQ(hs::reference_at(c.schedule, 0.25), 0.025);
  EXPECT_EQ(hs::reference_at(c.schedule, 7.0), 0.1);
  Policy::Memory m;
  Policy::initialize(P, m);
  double q[1] = {0.0}, s[1] = {0.0};
  hs::Observation<1, 1, 3> obs{0.0, q, q, s, s, s};
  double U[1];
  auto sample = [&](double t, double stroke) {
    s[0] = stroke;
    Policy::reference(P, t, obs, m, U);
    return U[0];
  };
  EXPECT_EQ(sample(0.0, 2.0), 0.0);  // y0 = 2 m, e = 0
  // t = 0.5: y = 0.01, r = 0.05, e = 0.04, I = 0.0004: u = 4 + 0.02.
  EXPECT_NEAR(sample(0.5, 2.01), 4.02, 1e-12);
  // t = 1: e = 0.1, I would be 0.0014 and u = 10.07 > U_max with e pushing out:
  // the integral stays 0.0004, u = 10.02, saturated, clamped.
  EXPECT_EQ(sample(1.0, 2.0), 10.0);
  EXPECT_NEAR(m.integral[0], 0.0004, 1e-15);
  // t = 2: e = −0.1, I would be −0.0006 and u = −10.03 < −U_max with e pushing
  // out: the integral stays 0.0004, u = −9.98, inside the limit.
  EXPECT_NEAR(sample(2.0, 2.2), -9.98, 1e-12);
  Policy::Report r;
  Policy::report(P, m, r);
  EXPECT_NEAR(r.error_rms[0], std::sqrt((0.04 * 0.04 + 0.1 * 0.1 + 0.1 * 0.1) / 4.0), 1e-15);
  EXPECT_NEAR(r.error_peak[0], 0.1, 1e-15);
  EXPECT_EQ(r.saturation_time[0], 0.01);  // one sample of T
  // A joint controller reads its coordinate; a valve schedule is U_ref(t) itself.
  c.mode = int(hs::CylinderInputMode::joint);
  c.coordinate = 0;
  Policy::initialize(P, m);
  q[0] = 1.0;
  EXPECT_EQ(sample(0.0, 5.0), 0.0);
  q[0] = 0.99;
  EXPECT_NEAR(sample(0.5, 5.0), 100.0 * 0.06 + 50.0 * 0.0006, 1e-12);
  c.mode = int(hs::CylinderInputMode::valve);
  EXPECT_EQ(Policy::sample_period(P), 0.0);  // open loop alone: each step's midpoint, as OpenLoopSchedule
  EXPECT_EQ(sample(0.5, 0.0), 0.0);
  EXPECT_EQ(sample(1.5, 0.0), 0.1);
}

// Two cranks on one ground, each under its own cylinder, share nothing: the
// two-cylinder kernel must run each as the one-cylinder kernel runs it alone
// (a second, independent path through every part: capacity, padding,
// Newton, input policy). One crank follows a stroke reference, the other a
// valve schedule. Compared: each crank's angle, rate, pressures, stroke and
// spool, the controller's report, and the additive works (sum of the two).
// `second_circuit`: lines that put crank 2's cylinder on another circuit.
std::string crank_bodies(const std::vector<int>& which, const std::string& second_circuit = "") {
  std::ostringstream s;
  s << "[model]\nname = \"cranks\"\n[ground]\npoints = { O1 = [0.0, 0.0], G1 = [-1.0, 0.0], O2 = [6.0, 0.0], G2 = [5.0, 0.0] }\n";
  for (int k : which)
    s << "[[body]]\nname = \"crank" << k << "\"\nmass = " << (k == 1 ? 16.0 : 24.0) << "\ninertia = " << (k == 1 ? 5.3 : 8.0)
      << "\ncom = [1.0, 0.0]\npoints = { F = [1.0, 0.0], tip = [2.0, 0.0] }\n";
  for (int k : which)
    s << "[[joint]]\nname = \"O" << k << "\"\ntype = \"revolute\"\nparent = \"ground.O" << k << "\"\nchild = \"crank" << k
      << "\"\ninitial = " << (k == 1 ? 1.0 : 0.8) << "\ndriving = true\n";
  for (int k : which)
    s << "[[cylinder]]\nname = \"c" << k << "\"\nbase = \"ground.G" << k << "\"\nrod = \"crank" << k << ".F\"\n"
      << (k == 2 ? second_circuit : "");
  s << "[input]\nsample_period = 0.01\n";
  const bool one = which.size() == 1;
  for (int k : which) {
    if (!one) s << "[input.c" << k << "]\n";
    if (k == 1)
      s << "control = \"stroke\"\ntimes = [0.0, 0.5, 1.5]\nvalues = [0.0, 0.0, 0.05]\nproportional_gain = 200.0\n"
           "integral_gain = 40.0\n";
    else
      s << "times = [0.0, 0.3, 0.6, 1.2]\nvalues = [0.0, 3.0, 0.0, -2.0]\n";
  }
  return s.str();
}
// A study carrying `machine` (a model file's text) as its [machine] table.
std::string study_with_machine(const std::string& head, const std::string& machine) {
  std::string text = head;
  std::istringstream in(machine);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '[') {  // [model] -> [machine.model], [[body]] -> [[machine.body]]
      const size_t open = line.find_first_not_of('[');
      line = line.substr(0, open) + "machine." + line.substr(open);
    }
    text += line + "\n";
  }
  return text;
}
StudyRun run_machine(const std::string& machine, const std::string& formulation, double duration) {
  return run_study_text(study_with_machine("[study]\nfriction = \"brown-mcphee\"\nformulation = \"" + formulation +
                                               "\"\n[integrator]\ndt = 1e-3\nduration = " + std::to_string(duration) + "\n",
                                           machine));
}
hs::StabilityRecord stability_of_machine(const std::string& machine) {
  const hs::Study st = hs::parse_study(study_with_machine("[study]\nfriction = \"brown-mcphee\"\n", machine), "map.toml");
  const auto points = hs::run_stability_cpu(st.record(), st.design(), 1);
  EXPECT_EQ(points.size(), 1u);
  return points.at(0);
}

TEST(TwoCylinderModelFile, TwoIndependentCranksRunAsEachAlone) {
  for (const char* formulation : {"double-step", "penalty"}) {
    SCOPED_TRACE(formulation);
    const StudyRun both = run_machine(crank_bodies({1, 2}), formulation, 2.0);
    const StudyRun first = run_machine(crank_bodies({1}), formulation, 2.0);
    const StudyRun second = run_machine(crank_bodies({2}), formulation, 2.0);
    EXPECT_EQ(both.study.descriptor->physics, "planar-multibody-2");
    EXPECT_EQ(first.study.descriptor->physics, "planar-multibody");
    ASSERT_EQ(both.result.status[0], hs::Status::ok) << hs::status_name(both.result.status[0]);
    ASSERT_EQ(first.result.status[0], hs::Status::ok);
    ASSERT_EQ(second.result.status[0], hs::Status::ok);
    double worst = 0.0;
    auto same = [&](const std::string& pair_column, const StudyRun& alone, const std::string& alone_column, double abs) {
      const double x = both.column(pair_column.c_str()), y = alone.column(alone_column.c_str());
      const double d = std::fabs(x - y);
      EXPECT_LE(d, abs + 5e-10 * std::fabs(y)) << pair_column << " vs " << alone_column << ": " << x << " vs " << y;
      if (abs == 0.0 && y != 0.0) worst = std::max(worst, d / std::fabs(y));
    };
    const StudyRun* alone[2] = {&first, &second};
    for (int a = 0; a < 2; ++a) {
      const std::string n = std::to_string(a + 1), _n = "_" + n;
      same("q" + n, *alone[a], "q1", 0.0);
      same("qd" + n, *alone[a], "qd1", 1e-10);
      for (const char* p : {"p1", "p2", "p3", "p1_min", "p1_max", "p2_min", "p2_max", "p3_min", "p3_max"}) {
        std::string col(p);
        same(col + _n, *alone[a], col, 0.0);
      }
      same("s" + _n, *alone[a], "s", 0.0);
      same("U" + _n, *alone[a], "U", 1e-9);
    }
    same("control_error_rms_1", first, "control_error_rms", 0.0);
    same("control_error_peak_1", first, "control_error_peak", 0.0);
    EXPECT_TRUE(std::isnan(both.column("control_error_rms_2")));  // open loop
    for (const char* w : {"cylinder_work", "friction_work"}) {
      const double x = both.column(w), y = first.column(w) + second.column(w);
      EXPECT_LE(std::fabs(x - y), 5e-10 * std::fabs(y)) << w << ": " << x << " vs " << y;
    }
    std::printf("  %s: largest relative difference %.3g (pair vs each alone)\n", formulation, worst);
  }
}

// The two-cylinder excavator (models/excavator_boom_arm.toml) over its cycle:
// the double step and the penalty formulation agree (a tree: the penalty
// term acts on padding only), the energy balance T + V − E0 − W_cyl − W_fr
// closes to rounding, and the stroke controllers hold their references.
TEST(TwoCylinderModelFile, ExcavatorFormulationsAgreeAndEnergyBalances) {
  const std::string file = "model_file = \"" + model_path("excavator_boom_arm.toml") + "\"";
  const StudyRun ds = run_study_text(study_of(file, "brown-mcphee", "double-step", 12.0));
  const StudyRun pen = run_study_text(study_of(file, "brown-mcphee", "penalty", 12.0));
  ASSERT_EQ(ds.result.status[0], hs::Status::ok) << hs::status_name(ds.result.status[0]);
  ASSERT_EQ(pen.result.status[0], hs::Status::ok) << hs::status_name(pen.result.status[0]);
  double worst = 0.0;
  for (const char* c : {"q1", "q2", "p1_1", "p2_1", "p3_1", "p1_2", "p2_2", "p3_2", "p2_max_1", "p3_max_2", "s_1", "s_2",
                        "cylinder_work", "control_error_rms_1", "control_error_rms_2"}) {
    const double x = ds.column(c), y = pen.column(c);
    EXPECT_LE(std::fabs(x - y), 3e-10 * std::fabs(x)) << c << ": " << x << " vs " << y;
    worst = std::max(worst, std::fabs(x - y) / std::fabs(x));
  }
  std::printf("  double step vs penalty: largest relative difference %.3g\n", worst);
  for (const StudyRun* r : {&ds, &pen}) {
    const double drift = r->column("peak_energy_drift"), work = r->column("max_cylinder_work");
    std::printf("  peak energy drift %.3g J of %.3g J of cylinder work\n", drift, work);
    EXPECT_LE(std::fabs(drift), 1e-7 * work);
  }
  // The controllers follow: RMS errors of centimetres on 0.25 m moves.
  EXPECT_LT(ds.column("control_error_rms_1"), 0.05);
  EXPECT_LT(ds.column("control_error_rms_2"), 0.05);
  EXPECT_EQ(ds.study.descriptor->find_parameter("input.boom.proportional_gain")->unit, "V/m");
  EXPECT_EQ(ds.study.descriptor->summary_columns[ds.study.descriptor->summary_column("control_error_rms_2")].unit, "m");
}

// Bad [input] tables and capacities, each refused naming the key.
TEST(TwoCylinderModelFile, BadInputsAreRefusedNamingTheKey) {
  const std::string ex = read_text(model_path("excavator_boom_arm.toml"));
  expect_refused_text(ex, {{"sample_period = 0.01", "sample_period = 0.01\ntimes = [0.0]\nvalues = [1.0]\n"}},
                      {"input.times", "give each its own table [input.boom]"});
  expect_refused_text(ex, {{"control = \"stroke\"", "control = \"pid\""}}, {"input.boom.control = \"pid\"", "\"joint\""});
  expect_refused_text(ex, {{"control = \"stroke\"", "control = \"joint\""}}, {"input.boom.control = \"joint\" needs `joint`"});
  expect_refused_text(ex, {{"control = \"stroke\"", "control = \"joint\"\njoint = \"X\""}},
                      {"input.boom.joint = \"X\"", "O, T"});
  expect_refused_text(ex, {{"control = \"stroke\"", "control = \"valve\""}}, {"input.boom.proportional_gain belongs to a controller"});
  expect_refused_text(ex, {{"proportional_gain = 150.0      # V/m: 10 V at 67 mm of error", "proportinal_gain = 150.0"}},
                      {"input.boom.proportinal_gain", "did you mean 'proportional_gain'"});
  expect_refused_text(ex, {{"voltage_limit = 10.0", "voltage_limit = -1.0"}}, {"input.boom.voltage_limit = -1", "out of range"});
  expect_refused_text(ex, {{"[input.boom]", "[input.bom]"}}, {"unknown key 'input.bom'", "did you mean 'boom'"});
  expect_refused_text(ex, {{"initial = -1.9\ndriving = true", "initial = -1.9"}}, {"1 joints are marked `driving`", "2 degree"});
  // Three cylinders: more than any capacity.
  expect_refused_text(ex, {{"[input]", "[[cylinder]]\nname = \"third\"\nbase = \"ground.G\"\nrod = \"arm.tip\"\n[input]"}},
                      {"take 1 or 2 cylinders", "this file has 3"});
  // A study's [input] has no single schedule to set on it.
  try {
    hs::parse_study("[study]\nmodel_file = \"" + model_path("excavator_boom_arm.toml") +
                        "\"\n[input]\ntimes = [0.0]\nvalues = [1.0]\n",
                    "s.toml");
    ADD_FAILURE() << "accepted";
  } catch (const hs::StudyError& e) {
    EXPECT_NE(std::string(e.what()).find("[input.<cylinder>] tables"), std::string::npos) << e.what();
  }
  // A controller period off the step grid is named per instance.
  const auto m = hs::parse_model_file(ex, "ex.toml");
  EXPECT_TRUE(m->instance_check(*m, m->defaults.data(), 1e-3, 10.0).why.empty());
  EXPECT_EQ(m->instance_check(*m, m->defaults.data(), 3e-3, 10.0).key, "input.sample_period");
  EXPECT_EQ(m->instance_check(*m, m->defaults.data(), 1e-3, 0.01).key, "input.sample_period");
}


// The stability map of two cylinders (docs/models/planar-multibody.md §10):
// two independent cranks have the union of each one's eigenvalues (12 = 6 +
// 6, four structural zeros = 2 + 2), each one's equilibrium pressures
// (within 2e-15 relative); every non-zero eigenvalue within 1e-14 of the
// spectrum's magnitude (measured 6.6e-16: the eigensolver's rounding on 12 × 12
// against 6 × 6 matrices). With crank 2's cylinder on the servo valve, the
// pair leaves that cylinder's unused slot and ideal spool out (10 = 6 + 4:
// kernels/linearize/reduced_jacobian.hpp live_states) and still has the union.
void expect_union_of_the_cranks(const std::string& second_circuit, int second_count) {
  const hs::StabilityRecord both = stability_of_machine(crank_bodies({1, 2}, second_circuit));
  const hs::StabilityRecord first = stability_of_machine(crank_bodies({1}));
  const hs::StabilityRecord second = stability_of_machine(crank_bodies({2}, second_circuit));
  ASSERT_EQ(both.status, 0);
  ASSERT_EQ(first.status, 0);
  ASSERT_EQ(second.status, 0);
  ASSERT_EQ(both.eigenvalue_count, 6 + second_count);
  ASSERT_EQ(first.eigenvalue_count, 6);
  ASSERT_EQ(second.eigenvalue_count, second_count);
  EXPECT_EQ(both.structural_zeros, 4);
  EXPECT_EQ(first.structural_zeros + second.structural_zeros, 4);
  // The union, sorted as the record sorts (decreasing real part, then imaginary part).
  std::vector<std::pair<double, double>> alone, pair;
  double scale = 0.0;
  for (const hs::StabilityRecord* r : {&first, &second})
    for (int k = 0; k < r->eigenvalue_count; ++k) {
      alone.push_back({r->re[k], r->im[k]});
      scale = std::max(scale, std::hypot(r->re[k], r->im[k]));
    }
  for (int k = 0; k < both.eigenvalue_count; ++k) pair.push_back({both.re[k], both.im[k]});
  auto structural = [&](const std::pair<double, double>& l) { return std::hypot(l.first, l.second) <= 1e-9 * scale; };
  auto order = [](const std::pair<double, double>& a, const std::pair<double, double>& b) {
    return a.first > b.first || (a.first == b.first && a.second > b.second);
  };
  alone.erase(std::remove_if(alone.begin(), alone.end(), structural), alone.end());
  pair.erase(std::remove_if(pair.begin(), pair.end(), structural), pair.end());
  std::sort(alone.begin(), alone.end(), order);
  std::sort(pair.begin(), pair.end(), order);
  ASSERT_EQ(alone.size(), static_cast<size_t>(2 + second_count));
  ASSERT_EQ(pair.size(), alone.size());
  double worst = 0.0;
  for (size_t k = 0; k < alone.size(); ++k) {
    const double d = std::hypot(alone[k].first - pair[k].first, alone[k].second - pair[k].second);
    EXPECT_LE(d, 1e-14 * scale) << "eigenvalue " << k << ": " << pair[k].first << " vs " << alone[k].first;
    worst = std::max(worst, d / scale);
  }
  std::printf("  union of the cranks' spectra: largest difference %.3g of |lambda|max = %.4g 1/s\n", worst, scale);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(both.pressure[k], first.pressure[k], 2e-15 * first.pressure[k]);
    EXPECT_NEAR(both.pressure[3 + k], second.pressure[k], 2e-15 * second.pressure[k]);
  }
  EXPECT_EQ(both.crank_angle, first.crank_angle);
}
TEST(TwoCylinderModelFile, TwoIndependentCranksHaveTheUnionOfTheirStabilityPoints) {
  expect_union_of_the_cranks("", 6);
  // Crank 2's cylinder is 1.842 m long at 0.8 rad: the piston at x = 0.542 m of 1 m.
  SCOPED_TRACE("crank 2 on the servo valve");
  expect_union_of_the_cranks("circuit = \"servo-valve\"\nstroke = 1.0\nclosed_length = 1.3\n", 4);
}

// The excavator's equilibrium, two ways: the stability map's statics (the
// DAE's virtual work projected on the admissible motions, a 2 × 2 solve for
// the two cylinder forces) against the run's initial state (the integrator's
// own static pressures on the semirecursive mechanism), valves closed: the
// run stays there, its pressures' extrema equal the map's (within 2e-15
// relative; measured 2.3e-16).
TEST(TwoCylinderModelFile, ExcavatorMapEquilibriumIsTheRunsRestState) {
  std::string machine = read_text(model_path("excavator_boom_arm.toml"));
  machine = machine.substr(0, machine.find("[input]"));  // valves closed
  const hs::StabilityRecord map = stability_of_machine(machine);
  ASSERT_EQ(map.status, 0);
  EXPECT_EQ(map.structural_zeros, 4);
  EXPECT_LT(map.max_real, 0.0);  // open loop at rest: stable
  const StudyRun run = run_machine(machine, "double-step", 0.5);
  ASSERT_EQ(run.result.status[0], hs::Status::ok);
  double worst = 0.0;
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < 3; ++k) {
      const std::string c = "p" + std::to_string(k + 1) + "_min_" + std::to_string(a + 1);
      const double p = run.column(c.c_str()), q = map.pressure[3 * a + k];
      EXPECT_NEAR(p, q, 2e-15 * q) << c;
      worst = std::max(worst, std::fabs(p - q) / q);
    }
  std::printf("  equilibrium pressures, map vs run: largest relative difference %.3g\n", worst);
}


// A joint controller end to end: the four-bar file's crank (joint O) follows a
// 0.2 rad ramp under K_p = −100 V/rad, K_i = −20 V/(rad s) (negative: on this
// geometry a positive valve command shortens the cylinder and lowers the
// crank). Behavioural bounds, not precision: by 8 s the crank is within
// 0.03 rad of its reference (measured 0.020: the loop overshoots by 10 % and
// settles slowly) and the recorded reference is the ramp's; with the gains'
// signs flipped the crank runs the other way (the sign convention of
// docs/model-files.md §8).
TEST(ModelFileInputs, JointControllerMovesTheCrankToItsReference) {
  std::string machine = read_text(model_path("four_bar.toml"));
  auto with_gains = [&](double kp, double ki) {
    return machine.substr(0, machine.find("[input]")) + "[input]\nsample_period = 0.01\ncontrol = \"joint\"\njoint = \"O\"\n"
           "times = [0.0, 0.5, 2.5]\nvalues = [0.0, 0.0, 0.2]\nproportional_gain = " + std::to_string(kp) +
           "\nintegral_gain = " + std::to_string(ki) + "\n";
  };
  const double q0 = 1.0471975511965976;
  const StudyRun good = run_study_text(study_with_machine(
      "[study]\nfriction = \"brown-mcphee\"\n[integrator]\ndt = 1e-3\nduration = 8.0\n[output]\ntrajectory_stride = 100\n",
      with_gains(-100.0, -20.0)));
  ASSERT_EQ(good.result.status[0], hs::Status::ok);
  EXPECT_NEAR(good.column("q1") - q0, 0.2, 0.03);
  const std::vector<double> ref = good.channel("control_reference"), t = good.channel("t");
  // The sample at t = 1.5 s carries the controller's last sample, taken at the
  // start of the step that ended there (1.49 s): r = 0.2 (1.49 − 0.5)/2.
  EXPECT_EQ(t[15], 1.5);
  EXPECT_NEAR(ref[15], 0.099, 1e-15);
  EXPECT_EQ(ref.back(), 0.2);
  const StudyRun wrong = run_study_text(study_with_machine(
      "[study]\nfriction = \"brown-mcphee\"\n[integrator]\ndt = 1e-3\nduration = 3.0\n", with_gains(100.0, 20.0)));
  EXPECT_LT(wrong.column("q1") - q0, -0.1);
}


// Named points (docs/model-files.md §11): two cranks' tips, derived on the
// host from each recorded sample's joint angles, against the closed form
// O_k + 2 (cos q_k, sin q_k): within 2e-15 m (measured 2.2e-16: the
// kernel's sincos against the C library's); a sample never recorded gives NaN.
TEST(ModelFileOutputs, NamedPointsAreTheKinematicsOfEachSample) {
  const std::string machine = crank_bodies({1, 2}) + "[output]\npoints = [\"crank1.tip\", \"crank2.tip\"]\n";
  const StudyRun r = run_study_text(study_with_machine(
      "[study]\nfriction = \"brown-mcphee\"\n[integrator]\ndt = 1e-3\nduration = 2.0\n[output]\ntrajectory_stride = 50\n",
      machine));
  ASSERT_EQ(r.result.status[0], hs::Status::ok);
  const hs::ModelDescriptor& d = *r.study.descriptor;
  ASSERT_EQ(d.derived_channels.size(), 4u);
  EXPECT_EQ(d.derived_channels[0].name, "crank1_tip_x");
  EXPECT_EQ(d.derived_channels[3].name, "crank2_tip_y");
  const long m = r.result.samples_per_instance, W = r.result.sample_width;
  std::vector<double> out(static_cast<size_t>(m * 4));
  const std::vector<double> row = r.study.design().instance(0);
  d.derive_samples(d, row.data(), r.result.sample(0, 0), m, W, out.data());
  const std::vector<double> q1 = r.channel("q1"), q2 = r.channel("q2");
  double worst = 0.0;
  for (long k = 0; k < m; ++k) {
    const double expect[4] = {2.0 * std::cos(q1[k]), 2.0 * std::sin(q1[k]), 6.0 + 2.0 * std::cos(q2[k]), 2.0 * std::sin(q2[k])};
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(out[k * 4 + j], expect[j], 2e-15) << "sample " << k << " channel " << j;
      worst = std::max(worst, std::fabs(out[k * 4 + j] - expect[j]));
    }
  }
  std::printf("  named points against the closed form: largest difference %.3g m over %ld samples\n", worst, m);
  const std::vector<double> last_sample(out.end() - 4, out.end());
  std::vector<double> lost(static_cast<size_t>(W), std::nan(""));
  d.derive_samples(d, row.data(), lost.data(), 1, W, out.data());
  EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[3]));
  // The summary's columns: the same points at the run's end, from the final
  // joint angles (the same closed form, the same bound), and the last
  // sample's values bit for bit (the run ends on a recorded sample).
  ASSERT_EQ(d.derived_summary_count, 4);
  const char* names[4] = {"crank1_tip_x", "crank1_tip_y", "crank2_tip_x", "crank2_tip_y"};
  const double q1_end = r.column("q1"), q2_end = r.column("q2");
  const double at_end[4] = {2.0 * std::cos(q1_end), 2.0 * std::sin(q1_end), 6.0 + 2.0 * std::cos(q2_end),
                            2.0 * std::sin(q2_end)};
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(r.column(names[j]), at_end[j], 2e-15) << names[j];
    EXPECT_EQ(r.column(names[j]), last_sample[j]) << names[j];
  }
  // An instance that never ran: its point columns are NaN, as its q.
  std::vector<double> blank(static_cast<size_t>(d.summary_columns.size()), std::nan(""));
  d.derive_summary(d, row.data(), blank.data(), out.data());
  EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[3]));
  // Refusals: a ground point, a point named twice, an unknown key.
  const std::string base = crank_bodies({1, 2});
  expect_refused_text(base + "[output]\npoints = [\"ground.O1\"]\n", {{"[model]", "[model]"}}, {"output.points[0]", "does not move"});
  expect_refused_text(base + "[output]\npoints = [\"crank1.tip\", \"crank1.tip\"]\n", {{"[model]", "[model]"}},
                      {"output.points[1]", "named twice"});
  expect_refused_text(base + "[output]\npoint = [\"crank1.tip\"]\n", {{"[model]", "[model]"}}, {"unknown key 'output.point'"});
}

}  // namespace

// ---- cylinders with another circuit (kernels/hydraulics/circuit_choice.hpp) ----
namespace {
// models/four_bar.toml with its cylinder's circuit line replaced by `lines`
// (and any further text `edits`, from → to), written to a temporary file.
std::string four_bar_on_circuit(const std::string& lines, const std::string& file_name,
                                std::vector<std::pair<std::string, std::string>> edits = {}) {
  std::ifstream in(model_path("four_bar.toml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  edits.insert(edits.begin(), {"circuit = \"three-volume\"", lines});
  for (const auto& [from, to] : edits) {
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
  }
  const std::string path = testing::TempDir() + file_name;
  std::ofstream(path) << t;
  return path;
}
std::string two_volume_four_bar(const std::string& file_name) {
  return four_bar_on_circuit("circuit = \"two-volume\"\nhose_volume_A = 7.0e-5", file_name);
}
// The servo valve between the same pins: the cylinder is sqrt(3) m = 1.732 m
// long at the assembly (G = (-1, 0) to F = (0.5, 0.866)), so a closed length
// of 1.1 m starts the piston at x = 0.632 m of a 1.2 m stroke. Its valve
// takes volts and passes 40 L/min at 10 V and 35 bar per edge: the file's
// ±10 V schedule would swing the four-bar until its rod side cavitates
// (pressure_out_of_range at 2.1 s), so the schedule is ±2 V here.
// Each test writes its own file (ctest runs tests side by side).
std::string servo_valve_four_bar(const std::string& file_name, double closed_length = 1.1) {
  return four_bar_on_circuit("circuit = \"servo-valve\"\nstroke = 1.2\nclosed_length = " + std::to_string(closed_length),
                             file_name, {{"values = [0.0, 10.0, 0.0, -10.0, 0.0]", "values = [0.0, 2.0, 0.0, -2.0, 0.0]"}});
}
}  // namespace

namespace {
struct DoubleStep {
  template <class M>
  using Of = hs::DoubleStepTrapezoidal<M>;
};
struct Penalty {
  template <class M>
  using Of = hs::PenaltyTrapezoidal<M>;
};
}  // namespace

// A cylinder on another member of the choice runs as that circuit compiled
// alone does: the file's kernel (CircuitChoice, pressures on the last two of
// three slots, the first with a zero rate) against a model assembled here
// from the same mechanism, input and friction with HydraulicCylinder<Circuit,
// ...>: every summary field in the same bits (the coordinates, velocities,
// strokes, spools, works, energy drift, the two pressures and their extrema),
// both formulations, a static and a LuGre law; the unused slot holds the
// piston side's initial pressure.
template <class Circuit>
void expect_file_cylinder_runs_as_circuit_alone(const hs::ModelDescriptor& file) {
  using Cap = hs::PlanarFileCapacity;
  using FileParams = hs::PlanarFileModelParamsOf<Cap>;
  using Choice = hs::PlanarMultibodyDae<Cap>::Circuit;
  constexpr int code = Choice::code_of<Circuit>;
  FileParams P;
  ASSERT_EQ(file.params_bytes.size(), sizeof(FileParams));
  std::memcpy(&P, file.params_bytes.data(), sizeof(FileParams));
  ASSERT_EQ(P.actuator[0].circuit.circuit_code, static_cast<double>(code));
  // The file's row written into its Params as the runner does.
  P = hs::unpack_row(file.parameters, file.defaults.data(), P);
  using Alone = hs::ActuatedParams<hs::PlanarMultibodyParams<Cap>, hs::CylinderParams<typename Circuit::Params>, 1,
                                   hs::CylinderInputsParams<1>>;
  Alone A;
  A.mechanism = P.mechanism;
  A.input = P.input;
  A.actuator[0].friction = P.actuator[0].friction;
  A.actuator[0].circuit = hs::circuit_choice_detail::member<code>(P.actuator[0].circuit.member);
  auto check = [&](auto friction_tag, auto formulation_tag, const char* law) {
    using F = decltype(friction_tag);
    using FileModel = hs::ActuatedModel<hs::PlanarMultibody<Cap>, hs::HydraulicCylinder<Choice, F>, 1, hs::CylinderInputs<1>>;
    using AloneModel = hs::ActuatedModel<hs::PlanarMultibody<Cap>, hs::HydraulicCylinder<Circuit, F>, 1, hs::CylinderInputs<1>>;
    using FI = typename decltype(formulation_tag)::template Of<FileModel>;
    using AI = typename decltype(formulation_tag)::template Of<AloneModel>;
    SCOPED_TRACE(std::string(Circuit::name) + " " + law +
                 (std::is_same<FI, hs::PenaltyTrapezoidal<FileModel>>::value ? " penalty" : " double step"));
    FileParams Pf = P;
    Alone Pa = A;
    const int law_code = hs::friction_law_code_of(hs::FrictionLawRegistry{}, law);
    Pf.actuator[0].friction.law_code = Pa.actuator[0].friction.law_code = law_code;
    hs::IntegratorSettings S;
    S.duration = 4.0;
    const auto f = hs::run_instance<FI>(Pf, S, hs::RunOptions{}, [](long, const auto&) {});
    const auto a = hs::run_instance<AI>(Pa, S, hs::RunOptions{}, [](long, const auto&) {});
    ASSERT_EQ(a.status, hs::Status::ok);
    EXPECT_EQ(f.status, a.status);
    EXPECT_EQ(f.steps, a.steps);
    EXPECT_EQ(f.newton_iterations, a.newton_iterations);
    auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    for (int k = 0; k < Cap::nq; ++k) {
      EXPECT_TRUE(same(f.q[k], a.q[k])) << "q" << k;
      EXPECT_TRUE(same(f.qd[k], a.qd[k])) << "qd" << k;
    }
    for (int k = 0; k < 2; ++k) {
      EXPECT_TRUE(same(f.p[1 + k], a.p[k])) << "p" << k;
      EXPECT_TRUE(same(f.p_min[1 + k], a.p_min[k])) << "p_min" << k;
      EXPECT_TRUE(same(f.p_max[1 + k], a.p_max[k])) << "p_max" << k;
    }
    // The unused slot: the piston side's initial pressure, all run long.
    EXPECT_EQ(f.p_min[0], f.p_max[0]);
    EXPECT_NE(f.p[0], f.p[1]);  // the piston side moved away from it
    EXPECT_TRUE(same(f.s[0], a.s[0]));
    EXPECT_TRUE(same(f.U[0], a.U[0]));
    EXPECT_TRUE(same(f.cylinder_work, a.cylinder_work));
    EXPECT_TRUE(same(f.friction_work, a.friction_work));
    EXPECT_TRUE(same(f.peak_energy_drift, a.peak_energy_drift));
    EXPECT_GT(std::fabs(a.cylinder_work), 1.0);  // the cycle does work
  };
  using Static = hs::StaticFrictionChoice<hs::BrownMcPhee, hs::BengisuAkay, hs::NoFriction>;
  using Dynamic = hs::DynamicFrictionChoice<hs::LuGre, hs::ModifiedLuGre>;
  check(Static{}, DoubleStep{}, "brown-mcphee");
  check(Dynamic{}, DoubleStep{}, "lugre");
  check(Static{}, Penalty{}, "brown-mcphee");
}

TEST(ModelFileCircuits, TwoVolumeCylinderRunsAsTheCircuitCompiledAlone) {
  const auto file = hs::load_model_file(two_volume_four_bar("four_bar_two_volume.toml"));
  EXPECT_EQ(file->find_parameter("cylinder.lift.hose_volume_1"), nullptr);
  ASSERT_NE(file->find_parameter("cylinder.lift.hose_volume_A"), nullptr);
  EXPECT_EQ(file->defaults[file->find_parameter("cylinder.lift.hose_volume_A")->index], 7.0e-5);
  expect_file_cylinder_runs_as_circuit_alone<hs::TwoVolumeCircuit>(*file);
}

// The servo valve (seed 004's circuit) between the file's pins: its stroke
// is the pin-to-pin length less the closed length, a parameter it has only
// in model files (the lift-tilt's mechanism gives the stroke itself).
TEST(ModelFileCircuits, ServoValveCylinderRunsAsTheCircuitCompiledAlone) {
  const auto file = hs::load_model_file(servo_valve_four_bar("four_bar_servo_valve.toml"));
  EXPECT_EQ(file->find_parameter("cylinder.lift.hose_volume_1"), nullptr);
  for (const char* key : {"stroke", "closed_length", "valve_coefficient_pa", "dead_volume_b", "return_pressure"})
    EXPECT_NE(file->find_parameter(std::string("cylinder.lift.") + key), nullptr) << key;
  EXPECT_EQ(file->defaults[file->find_parameter("cylinder.lift.closed_length")->index], 1.1);
  EXPECT_EQ(file->defaults[file->find_parameter("cylinder.lift.stroke")->index], 1.2);
  // The pressure columns say what the slots hold.
  auto description = [&](const char* column) { return file->summary_columns[file->summary_column(column)].description; };
  EXPECT_NE(description("p2").find("chamber a (bore side)"), std::string::npos) << description("p2");
  EXPECT_NE(description("p1").find("unused: a servo-valve cylinder"), std::string::npos) << description("p1");
  expect_file_cylinder_runs_as_circuit_alone<hs::ServoValveCircuit>(*file);
  // The compiled lift-tilt has no closed length: its mechanism gives the stroke.
  const auto lift_tilt = hs::find_model("lift-tilt");
  ASSERT_NE(lift_tilt, nullptr);
  EXPECT_EQ(lift_tilt->find_parameter("actuator1.circuit.closed_length"), nullptr);
  EXPECT_NE(lift_tilt->find_parameter("actuator1.circuit.stroke"), nullptr);
}

// A closed length that puts the piston outside the cylinder at the assembly
// is refused by `check` naming the key, and in a study the design's check
// names the instance's problem while the rest of the batch runs.
TEST(ModelFileCircuits, ServoValvePistonOutsideItsCylinderIsRefusedByName) {
  for (double closed : {1.8, 0.4}) {  // stroke 1.732 - 1.8 < 0; 1.732 - 0.4 > 1.2
    SCOPED_TRACE(closed);
    try {
      hs::load_model_file(servo_valve_four_bar("four_bar_servo_valve_outside.toml", closed));
      ADD_FAILURE() << "a piston outside its cylinder accepted";
    } catch (const hs::ModelFileError& e) {
      EXPECT_NE(std::string(e.what()).find("cylinder.lift.closed_length"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("outside its cylinder"), std::string::npos) << e.what();
    }
  }
  const std::string path = servo_valve_four_bar("four_bar_servo_valve_swept.toml");
  const StudyRun r = run_study_text("[study]\nmodel_file = \"" + path +
                                    "\"\n[integrator]\nduration = 0.5\n[[grid]]\nparameter = \"cylinder.lift.closed_length\"\n"
                                    "values = [1.1, 1.8, 0.6]\n");
  ASSERT_EQ(r.result.instance_count(), 3);
  EXPECT_TRUE(r.study.instance_problem(0L).empty());
  EXPECT_NE(r.study.instance_problem(1L).find("outside its cylinder"), std::string::npos) << r.study.instance_problem(1L);
  EXPECT_EQ(r.result.status[0], hs::Status::ok);
  // The kernel, given it anyway, stops it by its own stroke check after the
  // first step (the CLI's runner then flags it invalid_parameters, as every
  // instance the design's check names: host/cli/run_study.cpp).
  EXPECT_EQ(r.result.status[1], hs::Status::stroke_out_of_range);
  EXPECT_LE(r.column("steps", 1), 1.0);
  EXPECT_EQ(r.result.status[2], hs::Status::ok);  // x0 = 1.132 m of 1.2: inside
}

// A file with a two-volume cylinder runs through the study and the CLI path
// (its parameters named after that circuit's, its pressures described) and
// has a stability map; the index-1 form, which integrates the three-volume
// circuit's spool, is refused; an unknown circuit names the circuits there are.
TEST(ModelFileCircuits, TwoVolumeFileRunsMapsAndRefusesWhatItCannot) {
  const std::string path = two_volume_four_bar("four_bar_two_volume_study.toml");
  const StudyRun r = run_study_text("[study]\nmodel_file = \"" + path + "\"\n[integrator]\nduration = 3.0\n");
  ASSERT_EQ(r.result.status[0], hs::Status::ok);
  EXPECT_GT(std::fabs(r.column("q1") - 1.0471975511965976), 1e-3);  // the crank moved
  const auto file = hs::load_model_file(path);
  EXPECT_TRUE(file->supports_command("stability"));  // its values: test_linearize.cpp, FileCylinderOn...
  EXPECT_FALSE(hs::ModelDescriptor::contains(file->formulations, "index1-baumgarte"));
  EXPECT_TRUE(hs::ModelDescriptor::contains(file->formulations, "penalty"));
  try {
    hs::parse_study("[study]\nmodel_file = \"" + path + "\"\nformulation = \"index1-baumgarte\"\n", "s.toml");
    ADD_FAILURE() << "the index-1 form accepted";
  } catch (const hs::StudyError& e) {
    EXPECT_NE(std::string(e.what()).find("index1-baumgarte"), std::string::npos) << e.what();
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string bad = text.str();
  bad.replace(bad.find("two-volume"), 10, "four-volume");
  const std::string bad_path = testing::TempDir() + "four_volume.toml";
  std::ofstream(bad_path) << bad;
  try {
    hs::load_model_file(bad_path);
    ADD_FAILURE() << "an unknown circuit accepted";
  } catch (const hs::ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("cylinder.lift.circuit = \"four-volume\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"three-volume\", \"two-volume\", \"servo-valve\""), std::string::npos) << e.what();
  }
}
