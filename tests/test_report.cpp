// `hydrosweep report DIR` and the summary `hydrosweep run` prints after a run
// (host/results/report.hpp): the statistics, the failure probability and the
// Sobol' indices of results.h5's /analysis, with the outputs' units; every
// figure printed is the stored value (%.4g); the same text from both
// commands; a missing or foreign file is a message, exit 1.
#include <gtest/gtest.h>

#include <cstdio>

#include "cli_support.hpp"

using namespace cli_test;

namespace {

std::string g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// Two factors and the analysis, shared by the Monte Carlo and Saltelli studies.
const std::string kFactors = R"(
[[factor]]
parameter = "circuit.oil_bulk_modulus"
min = 1.0e9
max = 1.8e9
[[factor]]
parameter = "input.gain"
min = 0.8
max = 1.2
[analysis]
quantities = ["p2_max", "q1"]
bootstrap = 100
)";
const std::string kMonteCarlo = "[integrator]\nduration = 1.5\n[sample]\nmethod = \"monte-carlo\"\ncount = 40\nseed = 3\n" +
                                kFactors + "[analysis.limit]\nquantity = \"p2_max\"\nabove = 4.4e6\n";
const std::string kSaltelli = "[integrator]\nduration = 1.5\n[sample]\nmethod = \"saltelli\"\ncount = 16\n" + kFactors;

}  // namespace

TEST(Report, RunPrintsTheAnalysisAndReportPrintsTheSame) {
  TempDir tmp;
  write_file(tmp.path / "mc.toml", kMonteCarlo);
  const fs::path out = tmp.path / "o";
  const Result run = hydrosweep("run '" + (tmp.path / "mc.toml").string() + "' --out '" + out.string() + "' --progress none",
                                tmp.path);
  ASSERT_EQ(run.code, 0) << run.err;
  const Result rep = hydrosweep("report '" + out.string() + "'", tmp.path);
  ASSERT_EQ(rep.code, 0) << rep.err;
  // The run ends with the report's text.
  ASSERT_GE(run.out.size(), rep.out.size());
  EXPECT_EQ(run.out.substr(run.out.size() - rep.out.size()), rep.out);
  std::printf("%s", rep.out.c_str());

  H5File f(out / "results.h5");
  const std::string s = "/analysis/statistics/p2_max";
  // p2_max's row: unit, mean, interval, std, the quantiles, the count.
  const auto quantiles = read_doubles(f.id, s + "/quantiles");
  ASSERT_EQ(quantiles.size(), 3u);
  EXPECT_NE(rep.out.find("p2_max"), std::string::npos) << rep.out;
  for (const std::string& figure :
       {g(double_attribute(f.id, s, "mean")), "[" + g(double_attribute(f.id, s, "mean_ci_low")) + ", " +
                                                  g(double_attribute(f.id, s, "mean_ci_high")) + "]",
        g(double_attribute(f.id, s, "std")), g(quantiles[0]), g(quantiles[1]), g(quantiles[2])})
    EXPECT_NE(rep.out.find(figure), std::string::npos) << figure << " in\n" << rep.out;
  EXPECT_NE(rep.out.find(" Pa "), std::string::npos) << rep.out;   // p2_max's unit
  EXPECT_NE(rep.out.find(" rad "), std::string::npos) << rep.out;  // q1's
  EXPECT_NE(rep.out.find("95% interval"), std::string::npos) << rep.out;
  const std::string fa = "/analysis/failure";
  EXPECT_NE(rep.out.find("failure probability P[p2_max > 4.4e+06 Pa] = " + g(double_attribute(f.id, fa, "probability")) +
                         " [" + g(double_attribute(f.id, fa, "ci_low")) + ", " + g(double_attribute(f.id, fa, "ci_high")) + "] (" +
                         std::to_string(int_attribute(f.id, fa, "failures")) + " of 40"),
            std::string::npos)
      << rep.out;
  EXPECT_NE(rep.out.find("40 instances, 0 failed"), std::string::npos) << rep.out;
}

TEST(Report, SaltelliStudyPrintsItsSobolIndices) {
  TempDir tmp;
  write_file(tmp.path / "s.toml", kSaltelli);
  const fs::path out = tmp.path / "o";
  ASSERT_EQ(hydrosweep("run '" + (tmp.path / "s.toml").string() + "' --out '" + out.string() + "' --quiet", tmp.path).code, 0);
  const Result rep = hydrosweep("report '" + out.string() + "'", tmp.path);
  ASSERT_EQ(rep.code, 0) << rep.err;
  std::printf("%s", rep.out.c_str());
  H5File f(out / "results.h5");
  const auto s1 = read_doubles(f.id, "/analysis/sobol/p2_max/first_order");
  const auto st = read_doubles(f.id, "/analysis/sobol/p2_max/total");
  ASSERT_EQ(s1.size(), 2u);
  EXPECT_NE(rep.out.find("Sobol' indices of p2_max (N = 16 base samples, 0 dropped"), std::string::npos) << rep.out;
  for (double v : {s1[0], s1[1], st[0], st[1]}) EXPECT_NE(rep.out.find(g(v)), std::string::npos) << g(v) << " in\n" << rep.out;
  EXPECT_NE(rep.out.find("circuit.oil_bulk_modulus"), std::string::npos);
  EXPECT_NE(rep.out.find("input.gain"), std::string::npos);
}

TEST(Report, SecondOrderSaltelliStudyPrintsItsPairs) {
  TempDir tmp;
  std::string study = kSaltelli;
  study.replace(study.find("count = 16\n"), 11, "count = 16\nsecond_order = true\n");
  write_file(tmp.path / "s2.toml", study);
  const fs::path out = tmp.path / "o";
  ASSERT_EQ(hydrosweep("run '" + (tmp.path / "s2.toml").string() + "' --out '" + out.string() + "' --quiet", tmp.path).code, 0);
  const Result rep = hydrosweep("report '" + out.string() + "'", tmp.path);
  ASSERT_EQ(rep.code, 0) << rep.err;
  std::printf("%s", rep.out.c_str());
  H5File f(out / "results.h5");
  // 16 blocks of 2d + 2 = 6 instances; S_01 at (0, 1) of the 2 x 2 matrix.
  EXPECT_EQ(int_attribute(f.id, "/metadata", "instance_count"), 16 * 6);
  const auto s2 = read_doubles(f.id, "/analysis/sobol/p2_max/second_order");
  const auto lo = read_doubles(f.id, "/analysis/sobol/p2_max/second_order_ci_low");
  const auto hi = read_doubles(f.id, "/analysis/sobol/p2_max/second_order_ci_high");
  ASSERT_EQ(s2.size(), 4u);
  EXPECT_TRUE(std::isnan(s2[0]) && std::isnan(s2[2]) && std::isnan(s2[3]));
  ASSERT_TRUE(std::isfinite(s2[1]));
  EXPECT_LE(lo[1], hi[1]);
  EXPECT_NE(rep.out.find("second order S2"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("circuit.oil_bulk_modulus x input.gain  " + g(s2[1])), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("[" + g(lo[1]) + ", " + g(hi[1]) + "]"), std::string::npos) << rep.out;
}

TEST(Report, MissingOrForeignFilesAreMessages) {
  TempDir tmp;
  const Result none = hydrosweep("report '" + (tmp.path / "nowhere").string() + "'", tmp.path);
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("no such file (report reads the results.h5 of a finished `hydrosweep run`)"), std::string::npos)
      << none.err;
  write_file(tmp.path / "results.h5", "not hdf5");
  const Result foreign = hydrosweep("report '" + tmp.path.string() + "'", tmp.path);
  EXPECT_EQ(foreign.code, 1);
  EXPECT_NE(foreign.err.find("not a hydrosweep results file"), std::string::npos) << foreign.err;
}
