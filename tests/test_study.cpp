// Study-file parsing: the shipped studies, grid expansion, spacing, key
// forms, and one StudyError per mistake in tests/data/bad/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/build_paths.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "host/study/study.hpp"

namespace fs = std::filesystem;
using namespace hs;

namespace {

const std::string kRoot = HYDROSWEEP_SOURCE_DIR;

Study parse(const std::string& text) { return parse_study(text, "inline.toml"); }

// The kernel's parameters of a parameter row: the row through the model's
// parameter table, as every backend builds them (host/run/backends/instance_kernel.hpp).
FourBarParams params_of(const Study& s, const std::vector<double>& row) {
  return unpack_row(s.descriptor->parameters, row.data(), default_params<FourBarParams>(*s.descriptor, s.friction));
}
FourBarParams instance_params(const Study& s, long i) { return params_of(s, s.instance(i)); }
FourBarParams base_params(const Study& s) { return params_of(s, s.base); }

// Every parameter of the table is the same in both (read at its offset).
void expect_same_parameters(const FourBarParams& got, const FourBarParams& want, const Study& s) {
  for (const auto& p : s.descriptor->parameters) {
    const char* g = reinterpret_cast<const char*>(&got) + p.offset;
    const char* w = reinterpret_cast<const char*>(&want) + p.offset;
    if (p.integer) {
      int a, b;
      std::memcpy(&a, g, sizeof a);
      std::memcpy(&b, w, sizeof b);
      EXPECT_EQ(a, b) << p.name;
    } else {
      double a, b;
      std::memcpy(&a, g, sizeof a);
      std::memcpy(&b, w, sizeof b);
      EXPECT_EQ(a, b) << p.name;
    }
  }
  EXPECT_EQ(got.mechanism.actuator_body, want.mechanism.actuator_body);  // not in the table: the model's default
}

// The message of the StudyError `f` throws ("" if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const StudyError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Study, Seed002WorkCycleStudy) {
  const Study s = load_study(kRoot + "/studies/seed002_work_cycle.toml");
  EXPECT_EQ(s.name, "seed002_work_cycle");
  EXPECT_EQ(s.model, "four-bar");
  EXPECT_EQ(s.friction, "brown-mcphee");
  EXPECT_EQ(s.formulation, "double-step");
  EXPECT_EQ(s.settings.dt, 1e-3);
  EXPECT_EQ(s.settings.duration, 10.0);
  EXPECT_EQ(s.settings.tangent, Tangent::exact);
  EXPECT_EQ(s.trajectory_stride, 10);
  EXPECT_EQ(s.instance_count(), 1);
  EXPECT_TRUE(s.varied_names().empty());

  // Same schedule and parameters as the kernel's seed 002 reference.
  const InputSchedule ref = seed002_work_cycle();
  ASSERT_EQ(s.input.count, ref.count);
  for (int i = 0; i < ref.count; ++i) {
    EXPECT_EQ(s.input.start[i], ref.start[i]);
    EXPECT_EQ(s.input.value[i], ref.value[i]);
  }
  const FourBarParams got = instance_params(s, 0), want = seed002_four_bar();
  expect_same_parameters(got, want, s);
  EXPECT_EQ(got.input.count, 5);
  EXPECT_EQ(got.input(1.5), 10.0);
  EXPECT_EQ(got.input(6.0), -10.0);
  EXPECT_NE(s.text.find("trajectory_stride = 10"), std::string::npos);
}

TEST(Study, GridFrictionBulkStudy) {
  const Study s = load_study(kRoot + "/studies/grid_friction_bulk.toml");
  EXPECT_EQ(s.instance_count(), 1000);
  EXPECT_EQ(s.trajectory_stride, 0);
  EXPECT_EQ(s.varied_names(),
            (std::vector<std::string>{"friction.coulomb_force", "circuit.oil_bulk_modulus", "circuit.valve_time_constant"}));
  for (const auto& a : s.grid) EXPECT_EQ(a.values.size(), 10u);
  // First axis slowest: instance 123 = (1, 2, 3).
  const std::vector<double> v = s.varied_values(123);
  EXPECT_EQ(v[0], s.grid[0].values[1]);
  EXPECT_EQ(v[1], s.grid[1].values[2]);
  EXPECT_EQ(v[2], s.grid[2].values[3]);
  const FourBarParams p = instance_params(s, 123);
  EXPECT_EQ(p.actuator[0].friction.coulomb_force, v[0]);
  EXPECT_EQ(p.actuator[0].circuit.oil_bulk_modulus, v[1]);
  EXPECT_EQ(p.actuator[0].circuit.valve_time_constant, v[2]);
}

// Every study shipped in studies/ loads and expands: a broken example fails here,
// not in a user's hands.
TEST(Study, EveryShippedStudyLoads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kRoot + "/studies")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    Study s;
    ASSERT_EQ(error_of([&] { s = load_study(entry.path().string()); }), "");
    EXPECT_EQ(s.name, entry.path().stem().string());
    EXPECT_GT(s.instance_count(), 0);
    EXPECT_EQ(static_cast<long>(s.instances().size()), s.instance_count() * s.parameter_count());
    ++count;
  }
  EXPECT_GE(count, 6);
}

TEST(Study, EmptyFileGivesModelDefaults) {
  const Study s = parse("");
  EXPECT_EQ(s.name, "inline");
  EXPECT_EQ(s.instance_count(), 1);
  EXPECT_EQ(s.trajectory_stride, 0);
  EXPECT_EQ(s.settings.dt, IntegratorSettings{}.dt);
  EXPECT_EQ(s.settings.max_newton_iterations, IntegratorSettings{}.max_newton_iterations);
  const FourBarParams got = instance_params(s, 0), want = seed002_four_bar();
  expect_same_parameters(got, want, s);
}

TEST(Study, Seed001Model) {
  const Study s = parse("[study]\nmodel = \"four-bar-seed001\"\nfriction = \"bengisu-akay\"\n");
  EXPECT_EQ(s.friction, "bengisu-akay");
  const FourBarParams got = instance_params(s, 0), want = seed001_four_bar();
  expect_same_parameters(got, want, s);
}

TEST(Study, IntegratorKeys) {
  const Study s = parse(R"(
[integrator]
dt = 5e-4
duration = 2
tangent = "finite-difference"
max_newton_iterations = 7
max_position_iterations = 9
position_tolerance = 1e-6
pressure_tolerance = 0.5
friction_state_tolerance = 1e-5
constraint_tolerance = 1e-10
pressure_min = -1e5
pressure_max = 5e7
)");
  const IntegratorSettings& S = s.settings;
  EXPECT_EQ(S.dt, 5e-4);
  EXPECT_EQ(S.duration, 2.0);  // an integer is accepted where a number is expected
  EXPECT_EQ(S.tangent, Tangent::finite_difference);
  EXPECT_EQ(S.max_newton_iterations, 7);
  EXPECT_EQ(S.max_position_iterations, 9);
  EXPECT_EQ(S.position_tolerance, 1e-6);
  EXPECT_EQ(S.pressure_tolerance, 0.5);
  EXPECT_EQ(S.friction_state_tolerance, 1e-5);
  EXPECT_EQ(S.constraint_tolerance, 1e-10);
  EXPECT_EQ(S.pressure_min, -1e5);
  EXPECT_EQ(S.pressure_max, 5e7);
}

TEST(Study, GridExpansionOrder) {
  const Study s = parse(R"(
[parameters]
friction.static_force = 900.0
[[grid]]
parameter = "friction.coulomb_force"
values = [1.0, 2.0, 3.0]
[[grid]]
parameter = "circuit.oil_bulk_modulus"
values = [1e9, 2e9]
)");
  ASSERT_EQ(s.instance_count(), 6);
  const auto all = s.instances();
  const long P = s.parameter_count();
  ASSERT_EQ(all.size(), 6u * P);
  const double expect[6][2] = {{1, 1e9}, {1, 2e9}, {2, 1e9}, {2, 2e9}, {3, 1e9}, {3, 2e9}};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(s.varied_values(i), (std::vector<double>{expect[i][0], expect[i][1]})) << i;
    const FourBarParams p = params_of(s, std::vector<double>(all.begin() + i * P, all.begin() + (i + 1) * P));
    EXPECT_EQ(p.actuator[0].friction.coulomb_force, expect[i][0]);
    EXPECT_EQ(p.actuator[0].circuit.oil_bulk_modulus, expect[i][1]);
    EXPECT_EQ(p.actuator[0].friction.static_force, 900.0);  // base override kept
  }
  const BatchSpec spec = batch_spec(s.record(), s.design(), 3);
  EXPECT_EQ(spec.instance_count(), 6);
  EXPECT_EQ(spec.parameters, all);
  EXPECT_EQ(spec.threads, 3);
  EXPECT_EQ(spec.trajectory_stride, 0);
}

TEST(Study, LinearAndLogSpacing) {
  const Study s = parse(R"(
[[grid]]
parameter = "circuit.oil_bulk_modulus"
min = 1e8
max = 1e10
count = 5
spacing = "log"
[[grid]]
parameter = "friction.coulomb_force"
min = 100
max = 200
count = 5
[[grid]]
parameter = "friction.viscous_coefficient"
min = 42
max = 1000
count = 1
)");
  const auto& lg = s.grid[0].values;
  ASSERT_EQ(lg.size(), 5u);
  const double want[] = {1e8, 1e8 * std::sqrt(10.0), 1e9, 1e9 * std::sqrt(10.0), 1e10};
  for (int k = 0; k < 5; ++k) EXPECT_NEAR(lg[k] / want[k], 1.0, 1e-14) << k;
  EXPECT_EQ(lg.front(), 1e8);  // endpoints exact
  EXPECT_EQ(lg.back(), 1e10);
  EXPECT_EQ(s.grid[1].values, (std::vector<double>{100, 125, 150, 175, 200}));
  EXPECT_EQ(s.grid[2].values, (std::vector<double>{42}));  // count 1 gives min
  EXPECT_EQ(s.instance_count(), 25);
}

TEST(Study, NestedDottedAndQuotedParameterKeysAgree) {
  const char* forms[] = {
      "[parameters.circuit]\noil_bulk_modulus = 1.2e9\n[parameters.mechanism.body2]\nmass = 70\n",
      "[parameters]\ncircuit.oil_bulk_modulus = 1.2e9\nmechanism.body2.mass = 70\n",
      "[parameters]\n\"circuit.oil_bulk_modulus\" = 1.2e9\n\"mechanism.body2.mass\" = 70\n",
  };
  for (const char* text : forms) {
    const Study s = parse(text);
    EXPECT_EQ(base_params(s).actuator[0].circuit.oil_bulk_modulus, 1.2e9) << text;
    EXPECT_EQ(base_params(s).mechanism.body[1].mass, 70.0) << text;
  }
}

TEST(Study, InputScheduleAndGain) {
  const Study s = parse("[input]\ntimes = [0, 0.5]\nvalues = [2, -3]\ngain = 1.5\n");
  EXPECT_EQ(s.input.count, 2);
  EXPECT_EQ(base_params(s).input.gain, 1.5);
  EXPECT_EQ(instance_params(s, 0).input(0.25), 3.0);
  EXPECT_EQ(instance_params(s, 0).input(0.75), -4.5);
  // input.gain is also an ordinary (sweepable) parameter.
  const Study g = parse("[[grid]]\nparameter = \"input.gain\"\nvalues = [0.5, 2]\n");
  EXPECT_EQ(instance_params(g, 1).input(1.5), 20.0);
  EXPECT_NE(error_of([] { parse("[input]\ngain = 2\n[parameters]\ninput.gain = 3\n"); }).find("given twice"), std::string::npos);
}

TEST(Study, CrossFieldRulesPassWhenEveryInstanceIsValid) {
  EXPECT_NO_THROW(parse(R"(
[[grid]]
parameter = "circuit.rod_diameter"
values = [0.02, 0.05, 0.079]
[[grid]]
parameter = "circuit.piston_chamber_length0"
values = [0.01, 0.99]
)"));
  // The rule looks at the combination: a piston grid that dips below the rod fails.
  const std::string msg = error_of([] {
    parse("[[grid]]\nparameter = \"circuit.oil_bulk_modulus\"\nvalues = [1e9, 2e9]\n"
          "[[grid]]\nparameter = \"circuit.piston_diameter\"\nvalues = [0.1, 0.03]\n");
  });
  EXPECT_NE(msg.find("inline.toml:4: circuit.rod_diameter = 0.035 (model four-bar default) must be < circuit.piston_diameter = 0.03 (grid[1])"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("first violated by instance 1 of 4"), std::string::npos) << msg;
}

// Every file in tests/data/bad/ holds one mistake and lists, in "# expect: "
// lines, what the message must contain (file:line, key, range text).
TEST(Study, BadFilesThrowStudyErrorNamingFileAndKey) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kRoot + "/tests/data/bad")) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    const std::string path = entry.path().string();
    std::ifstream in(path);
    std::vector<std::string> expects;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("# expect: ", 0) == 0) expects.push_back(line.substr(10));
    EXPECT_FALSE(expects.empty()) << path << " has no '# expect: ' line";
    const std::string msg = error_of([&] { load_study(path); });
    ASSERT_FALSE(msg.empty()) << path << " was accepted";
    EXPECT_EQ(msg.rfind(path, 0), 0u) << "message does not start with the file: " << msg;
    for (const auto& e : expects) EXPECT_NE(msg.find(e), std::string::npos) << "expected '" << e << "' in: " << msg;
  }
  EXPECT_GE(files, 15);
}

TEST(Study, MissingFile) {
  const std::string path = kRoot + "/tests/data/bad/no_such_study.toml";
  const std::string msg = error_of([&] { load_study(path); });
  EXPECT_NE(msg.find(path + ": no such study file"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { load_study(kRoot + "/tests/data"); }).find("is a directory"), std::string::npos);
}

TEST(Study, StudyErrorIsARuntimeError) {
  EXPECT_THROW(parse("[integrator]\ndt = -1\n"), std::runtime_error);
}

// ---- sampled designs, scale factors, derived parameters -------------------

namespace {
const char* kFactors = R"(
[[factor]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force"]
min = 0.5
max = 1.5
[[factor]]
parameter = "circuit.oil_bulk_modulus"
distribution = "lognormal"
median = 1.5e9
sigma_log = 0.1
[[factor]]
parameter = "circuit.valve_time_constant"
distribution = "truncated-normal"
mean = 0.005
std = 0.002
min = 0.002
max = 0.01
)";
Study sampled(const std::string& method, long count, long seed) {
  return parse("[sample]\nmethod = \"" + method + "\"\ncount = " + std::to_string(count) + "\nseed = " + std::to_string(seed) +
               "\n" + kFactors + (method == "saltelli" ? "[analysis]\nquantities = [\"p2_max\"]\n" : ""));
}
}  // namespace

// Chunked and resumed runs regenerate any instance alone: the values must
// depend on (study text, index) only, not on what was generated before.
TEST(Study, SampledInstancesAreReproducibleAndIndexAddressable) {
  for (const std::string method : {"lhs", "sobol", "monte-carlo", "saltelli"}) {
    const Study a = sampled(method, 64, 11), b = sampled(method, 64, 11), c = sampled(method, 64, 12);
    const long n = a.instance_count();
    EXPECT_EQ(n, method == "saltelli" ? 64 * 5 : 64) << method;
    std::vector<std::vector<double>> forward(n);
    for (long i = 0; i < n; ++i) forward[i] = a.varied_values(i);
    bool differs = false;
    for (long i = n - 1; i >= 0; --i) {
      EXPECT_EQ(b.varied_values(i), forward[i]) << method << " instance " << i;
      differs = differs || c.varied_values(i) != forward[i];
    }
    EXPECT_TRUE(differs) << method << ": another seed should give another sample";
    for (long i = 0; i < n; ++i) {
      const auto& v = forward[i];
      EXPECT_GE(v[0], 0.5); EXPECT_LE(v[0], 1.5);
      EXPECT_GT(v[1], 0.0);
      EXPECT_GE(v[2], 0.002); EXPECT_LE(v[2], 0.01);
      EXPECT_TRUE(a.instance_problem(i).empty()) << a.instance_problem(i);
    }
  }
}

// LHS through the study: each factor's n values fall one per equal-probability
// stratum of its law (the stratification survives the inverse-CDF mapping).
TEST(Study, LatinHypercubeStratifiesEveryFactor) {
  const long n = 50;
  const Study s = sampled("lhs", n, 3);
  for (size_t k = 0; k < s.grid.size(); ++k) {
    std::vector<int> hits(n, 0);
    for (long i = 0; i < n; ++i) {
      const double u = s.grid[k].distribution.cdf(s.varied_values(i)[k]);
      const long stratum = std::min<long>(n - 1, static_cast<long>(u * n));
      ++hits[stratum];
    }
    for (long j = 0; j < n; ++j) EXPECT_EQ(hits[j], 1) << "factor " << k << " stratum " << j;
  }
}

// [[correlation]] (Gaussian copula, host/design/design.cpp Design::unit_point):
// Spearman's rank correlation of the drawn factors is the target within its
// sampling error (n = 4000: the estimate's standard deviation is about
// (1 - r^2) / sqrt(n), <= 0.016; tolerance 0.05, ~3 sigma for r = 0), an
// unlisted pair stays uncorrelated, and every factor keeps its law: its
// values' CDFs are uniform (mean 1/2 within 0.02, ~5 sigma of sqrt(1/12n)).
namespace {
std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<size_t> order(x.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (size_t k = 0; k < order.size(); ++k) r[order[k]] = static_cast<double>(k);
  return r;
}
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size()), mean = (n - 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  return sxy / std::sqrt(sxx * syy);
}
}  // namespace

TEST(Study, CorrelatedFactorsHaveTheirRankCorrelation) {
  for (const char* method : {"monte-carlo", "lhs"}) {
    SCOPED_TRACE(method);
    const long n = 4000;
    const Study s = parse(std::string("[sample]\nmethod = \"") + method + "\"\ncount = 4000\nseed = 11\n" + R"(
[[factor]]
parameter = "circuit.oil_bulk_modulus"
distribution = "truncated-normal"
mean = 1.5e9
std = 0.2e9
min = 0.8e9
max = 1.8e9
[[factor]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force"]
distribution = "lognormal"
median = 1.0
sigma_log = 0.15
[[factor]]
parameter = "circuit.valve_time_constant"
relative = 0.1
[[correlation]]
factors = ["friction_scale", "circuit.oil_bulk_modulus"]
rank = -0.6
[[correlation]]
factors = ["circuit.valve_time_constant", "circuit.oil_bulk_modulus"]
rank = 0.3
)");
    std::vector<std::vector<double>> v(3, std::vector<double>(n));
    for (long i = 0; i < n; ++i) {
      const std::vector<double> row = s.varied_values(i);
      for (int k = 0; k < 3; ++k) v[k][i] = row[k];
    }
    const double r01 = spearman(v[0], v[1]), r02 = spearman(v[0], v[2]), r12 = spearman(v[1], v[2]);
    std::printf("%s: rank correlations %.4f (target -0.6), %.4f (0.3), %.4f (0, unlisted)\n", method, r01, r02, r12);
    EXPECT_NEAR(r01, -0.6, 0.05);
    EXPECT_NEAR(r02, 0.3, 0.05);
    EXPECT_NEAR(r12, 0.0, 0.05);  // an unlisted pair: 0 in the copula's correlation
    for (int k = 0; k < 3; ++k) {
      double mean_u = 0;
      for (long i = 0; i < n; ++i) mean_u += s.grid[k].distribution.cdf(v[k][i]);
      EXPECT_NEAR(mean_u / n, 0.5, 0.02) << "factor " << k;
    }
    // Any instance on its own gives the same values (chunks, resume, threads).
    EXPECT_EQ(s.varied_values(1234), s.varied_values(1234));
  }
}

// Saltelli blocks: A, B, then A with column i from B (host/design/sampling.hpp).
TEST(Study, SaltelliBlocksShareColumnsAsDesigned) {
  const Study s = sampled("saltelli", 8, 1);
  const size_t d = s.grid.size();
  for (long r = 0; r < 8; ++r) {
    const long b0 = r * static_cast<long>(d + 2);
    const auto A = s.varied_values(b0), B = s.varied_values(b0 + 1);
    for (size_t i = 0; i < d; ++i) {
      const auto ABi = s.varied_values(b0 + 2 + static_cast<long>(i));
      for (size_t j = 0; j < d; ++j) EXPECT_EQ(ABi[j], j == i ? B[j] : A[j]) << r << " " << i << " " << j;
    }
  }
}

TEST(Study, ScaleFactorsMultiplyTheBaseValuesAndDerivedParametersFollow) {
  const Study s = parse(R"([parameters]
friction.coulomb_force = 200.0
[[grid]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force"]
values = [0.5, 2.0]
[derived]
"friction.viscous_coefficient" = "friction.coulomb_force + friction.static_force / 2"
"circuit.rod_diameter" = "0.5 * circuit.piston_diameter"
)");
  EXPECT_EQ(s.varied_names(), (std::vector<std::string>{"friction_scale", "friction.viscous_coefficient", "circuit.rod_diameter"}));
  const double Fs = 830.0, D = base_params(s).actuator[0].circuit.piston_diameter;
  for (long i = 0; i < 2; ++i) {
    const double k = i == 0 ? 0.5 : 2.0;
    const FourBarParams p = instance_params(s, i);
    EXPECT_EQ(p.actuator[0].friction.coulomb_force, 200.0 * k);
    EXPECT_EQ(p.actuator[0].friction.static_force, Fs * k);
    EXPECT_DOUBLE_EQ(p.actuator[0].friction.viscous_coefficient, 200.0 * k + Fs * k / 2);
    EXPECT_DOUBLE_EQ(p.actuator[0].circuit.rod_diameter, 0.5 * D);
    EXPECT_EQ(s.varied_values(i), (std::vector<double>{k, p.actuator[0].friction.viscous_coefficient, p.actuator[0].circuit.rod_diameter}));
  }
}

// A derived value that leaves its range for some instances only: the study
// loads (instance 0 is fine) and those instances are reported inadmissible,
// to be flagged at run time without stopping the others.
TEST(Study, InadmissibleInstancesAreReportedOneByOne) {
  const Study s = parse(R"([[grid]]
parameter = "friction.coulomb_force"
values = [100.0, 300.0]
[derived]
"friction.static_force" = "1000 - 4 * friction.coulomb_force"
)");
  EXPECT_TRUE(s.instance_problem(0L).empty());
  EXPECT_NE(s.instance_problem(1L).find("derived.friction.static_force = -200 is out of range [0, 1e+08] N"), std::string::npos)
      << s.instance_problem(1L);
}

// ---- what a model supports --------------------------------------------------------

// A study naming a formulation or friction law its model does not support is
// refused when it is read, naming the model and what it supports; one no
// model has gets a hint. With the registry's models as they are, and with a
// registry in which the four-bar lacks the index-1 formulation and the
// Bengisu-Akay law (another model still has them). (tests/data/bad/ has the
// file-level cases.)
TEST(Study, FormulationAndFrictionTheModelDoesNotSupportAreRefused) {
  for (const auto& m : models()) {
    SCOPED_TRACE(m.name);
    const Study s = parse("[study]\nmodel = \"" + m.name + "\"\n");
    EXPECT_EQ(s.descriptor, find_model(m.name));
    EXPECT_EQ(s.friction, m.friction_laws.front());
    EXPECT_EQ(s.formulation, m.formulations.empty() ? "" : m.formulations.front());
    const std::string unknown = error_of([&] { parse("[study]\nmodel = \"" + m.name + "\"\nfriction = \"dahl\"\n"); });
    EXPECT_NE(unknown.find("no model has the friction law \"dahl\"; model " + m.name + " supports"), std::string::npos)
        << unknown;
  }
  std::vector<ModelDescriptor> registry = models();
  for (auto& m : registry)
    if (m.name == "four-bar") {
      m.formulations = {"double-step"};
      m.friction_laws = {"brown-mcphee", "none"};
    }
  auto parse_with = [&](const std::string& text) { return parse_study(text, "inline.toml", registry); };
  const std::string f = error_of([&] { parse_with("[study]\nformulation = \"index1-baumgarte\"\n"); });
  EXPECT_NE(f.find("inline.toml:2: study.formulation = \"index1-baumgarte\": model four-bar does not support the "
                   "formulation \"index1-baumgarte\"; it supports \"double-step\""),
            std::string::npos)
      << f;
  const std::string r = error_of([&] { parse_with("[study]\nfriction = \"bengisu-akay\"\n"); });
  EXPECT_NE(r.find("inline.toml:2: study.friction = \"bengisu-akay\": model four-bar does not support the friction "
                   "law \"bengisu-akay\"; it supports \"brown-mcphee\", \"none\""),
            std::string::npos)
      << r;
  // What the model has is accepted, and another model keeps what it has.
  EXPECT_EQ(parse_with("[study]\nfriction = \"none\"\n").friction, "none");
  EXPECT_EQ(parse_with("[study]\nmodel = \"four-bar-seed001\"\nformulation = \"index1-baumgarte\"\n").formulation,
            "index1-baumgarte");
}

// A command the model does not support: require_command throws a StudyError
// (exit 2 in the CLI) naming the model and what it supports. Checked on every
// registered model with the command removed from a copy of its description,
// and with the real descriptions (each supports what it lists).
TEST(Study, CommandTheModelDoesNotSupportIsRefused) {
  for (const auto& m : models()) {
    SCOPED_TRACE(m.name);
    Study s = parse("[study]\nmodel = \"" + m.name + "\"\n");
    for (const auto& c : m.commands) EXPECT_NO_THROW(require_command(s, c));
    for (const std::string command : {"run", "stability"}) {
      ModelDescriptor without = m;
      without.commands.erase(std::remove(without.commands.begin(), without.commands.end(), command), without.commands.end());
      s.descriptor = &without;
      const std::string e = error_of([&] { require_command(s, command); });
      EXPECT_NE(e.find("inline.toml: model " + m.name + " does not support `hydrosweep " + command + "`; model " + m.name +
                       " supports commands"),
                std::string::npos)
          << e;
      s.descriptor = find_model(m.name);
    }
  }
}

// A friction law the command cannot take: LuGre with the index-1 reference
// integrator (no slot for friction states) or in a stability map (no tangent
// at v = 0) is refused by require_command, naming both keys and what is
// allowed; the double step runs it.
TEST(Study, FrictionLawTheCommandCannotTakeIsRefused) {
  for (const char* model : {"four-bar", "four-bar-3d", "quick-return"}) {
    SCOPED_TRACE(model);
    const std::string head = std::string("[study]\nmodel = \"") + model + "\"\nfriction = \"lugre\"\n";
    EXPECT_NO_THROW(require_command(parse(head), "run"));  // double step, the default
    const std::string r = error_of([&] { require_command(parse(head + "formulation = \"index1-baumgarte\"\n"), "run"); });
    EXPECT_NE(r.find("inline.toml: study.friction = \"lugre\" with study.formulation = \"index1-baumgarte\": formulation "
                     "index1-baumgarte integrates the friction laws \"brown-mcphee\", \"bengisu-akay\", \"none\"; \"lugre\" "
                     "runs with the formulations \"double-step\""),
              std::string::npos)
        << r;
    const std::string s = error_of([&] { require_command(parse(head), "stability"); });
    EXPECT_NE(s.find("inline.toml: study.friction = \"lugre\": `hydrosweep stability` linearizes the static friction laws "
                     "\"brown-mcphee\", \"bengisu-akay\", \"none\" only"),
              std::string::npos)
        << s;
    EXPECT_NO_THROW(require_command(parse(std::string("[study]\nmodel = \"") + model + "\"\n"), "stability"));
  }
}
