// Study-sized allocations are checked against the memory budget before they
// happen (host/run/memory_budget.hpp): a study that does not fit is refused with
// exit 2, a message naming the study file, the key, the bytes and the budget,
// and nothing written; the automatic chunk size shrinks to fit and gives the
// same results. HYDROSWEEP_MEMORY_LIMIT stands in for a small machine.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "host/run/batch.hpp"
#include "host/run/memory_budget.hpp"
#include "tests/cli_support.hpp"

namespace {
using namespace cli_test;

// Sets HYDROSWEEP_MEMORY_LIMIT for the scope (the child processes inherit it).
struct MemoryLimit {
  explicit MemoryLimit(const char* value) { ::setenv("HYDROSWEEP_MEMORY_LIMIT", value, 1); }
  ~MemoryLimit() { ::unsetenv("HYDROSWEEP_MEMORY_LIMIT"); }
};

const char* const kGrid100x100 = R"(
[integrator]
duration = 0.01
[[grid]]
parameter = "friction.coulomb_force"
min = 100.0
max = 500.0
count = 100
[[grid]]
parameter = "circuit.oil_bulk_modulus"
min = 1e9
max = 2e9
count = 100
)";

void expect_refused(const Result& r, const fs::path& out, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.code, 2) << r.err;
  for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "expected '" << p << "' in: " << r.err;
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << "nothing may be written when the study is refused";
}

TEST(MemoryBudget, EnvironmentLimitParsesSizesAndRejectsOthers) {
  {
    MemoryLimit m("2G");
    const auto b = hs::memory_budget();
    // 2 GiB is below any machine this runs on unless the container is smaller.
    if (b.source == "HYDROSWEEP_MEMORY_LIMIT") EXPECT_EQ(b.bytes, 2.0 * 1024 * 1024 * 1024);
    else EXPECT_LT(b.bytes, 2.0 * 1024 * 1024 * 1024);
  }
  {
    MemoryLimit m("1048576");
    EXPECT_EQ(hs::memory_budget().bytes, 1048576.0);
  }
  {
    MemoryLimit m("512M");
    EXPECT_EQ(hs::memory_budget().bytes, 512.0 * 1024 * 1024);
  }
  for (const char* bad : {"lots", "-1", "0", "10X", "1e999"}) {
    MemoryLimit m(bad);
    EXPECT_THROW(hs::memory_budget(), hs::StudyError) << bad;
  }
  const auto unlimited = hs::memory_budget();
  EXPECT_GT(unlimited.bytes, 64.0 * 1024 * 1024) << unlimited.source;
  EXPECT_NE(unlimited.source, "HYDROSWEEP_MEMORY_LIMIT");
}

TEST(MemoryBudget, FormatBytes) {
  EXPECT_EQ(hs::format_bytes(640), "640 B");
  EXPECT_EQ(hs::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(hs::format_bytes(3.0 * 1024 * 1024 * 1024), "3 GiB");
}

TEST(MemoryBudget, RunRefusesAStudyWhosePerInstanceResultsDoNotFit) {
  TempDir tmp;
  write_file(tmp.path / "big.toml", kGrid100x100);
  // What stays per instance for the whole run: the status, the analysed
  // columns (none here), the two varied inputs and four doubles of the
  // writers and the analysis, 7 doubles: 560 kB for 10 000 instances. The
  // other summary columns are streamed from the chunk files.
  MemoryLimit m("512K");
  const auto r = hydrosweep("run " + (tmp.path / "big.toml").string() + " --out " + (tmp.path / "out").string(), tmp.path);
  expect_refused(r, tmp.path / "out",
                 {"big.toml", "grid's size", "per-instance results of 10000 instances", "memory budget of 512 KiB",
                  "HYDROSWEEP_MEMORY_LIMIT"});
}

TEST(MemoryBudget, StabilityRefusesAMapThatDoesNotFit) {
  TempDir tmp;
  write_file(tmp.path / "big.toml", kGrid100x100);
  MemoryLimit m("1M");
  const auto r = hydrosweep("stability " + (tmp.path / "big.toml").string() + " --out " + (tmp.path / "out").string(), tmp.path);
  expect_refused(r, tmp.path / "out", {"big.toml", "grid's size", "10000 points", "memory budget of 1 MiB"});
}

TEST(MemoryBudget, ReferenceRunAndOneInstancesTrajectoryAreChecked) {
  TempDir tmp;
  // One instance, 10 s at dt = 1 ms: the reference run keeps 10001 samples
  // (> 1 MiB); without it, the instance's own stride-1 trajectory is too big.
  const std::string base = "[output]\ntrajectory_stride = 1\n";
  write_file(tmp.path / "ref.toml", base);
  write_file(tmp.path / "noref.toml", base + "[analysis]\nreference_run = false\n");
  MemoryLimit m("1M");
  auto r = hydrosweep("run " + (tmp.path / "ref.toml").string() + " --out " + (tmp.path / "a").string(), tmp.path);
  expect_refused(r, tmp.path / "a", {"ref.toml", "analysis.reference_run", "10000 steps", "reference_run = false"});
  r = hydrosweep("run " + (tmp.path / "noref.toml").string() + " --out " + (tmp.path / "b").string(), tmp.path);
  expect_refused(r, tmp.path / "b", {"noref.toml", "output.trajectory_stride = 1", "trajectories of one instance"});
}

TEST(MemoryBudget, ExplicitChunkSizeThatDoesNotFitIsRefused) {
  TempDir tmp;
  write_file(tmp.path / "chunk.toml", std::string(kGrid100x100) + "[output]\ntrajectory_stride = 1\n[analysis]\nreference_run = false\n");
  MemoryLimit m("16M");
  const auto r = hydrosweep("run " + (tmp.path / "chunk.toml").string() + " --out " + (tmp.path / "out").string() +
                                " --chunk-size 5000",
                            tmp.path);
  expect_refused(r, tmp.path / "out", {"chunk.toml", "chunk size 5000", "--chunk-size or execution.chunk_size"});
}

TEST(MemoryBudget, AutomaticChunkShrinksToFitAndGivesTheSameResults) {
  TempDir tmp;
  const fs::path study = tmp.path / "shrink.toml";
  write_file(study, R"(
[integrator]
duration = 1.0
[input]
times = [0.0]
values = [10.0]
[[grid]]
parameter = "friction.coulomb_force"
min = 100.0
max = 500.0
count = 64
[output]
trajectory_stride = 1
)");
  const auto free_run = hydrosweep("run " + study.string() + " --out " + (tmp.path / "free").string() + " -q -j 2", tmp.path);
  ASSERT_EQ(free_run.code, 0) << free_run.err;
  const hs::Study s = hs::load_study(study.string());
  const double one = hs::run_chunk_bytes(s.record(), s.design(), 1);  // ~2 x 1001 samples
  const double budget = 6.0 * one * 4.0;         // a quarter of it holds 6 instances
  MemoryLimit m(std::to_string(static_cast<long>(budget)).c_str());
  const auto small = hydrosweep("run " + study.string() + " --out " + (tmp.path / "small").string() + " -q -j 2", tmp.path);
  ASSERT_EQ(small.code, 0) << small.err;
  H5File free_h5(tmp.path / "free" / "results.h5"), small_h5(tmp.path / "small" / "results.h5");
  const long long free_chunk = int_attribute(free_h5.id, "/metadata", "chunk_size");
  const long long small_chunk = int_attribute(small_h5.id, "/metadata", "chunk_size");
  // automatic: 64/20 = 3, raised to four lockstep groups per thread (8 lanes x 2 threads x 4:
  // 64, the whole study; the sanitizer flavour's 4 lanes: 32)
  EXPECT_EQ(free_chunk, std::min(64, 8 * hs::widest_lanes()));
  EXPECT_EQ(small_chunk, 4);  // halved from the automatic chunk until 2 x per-instance bytes x chunk <= budget / 4
  EXPECT_EQ(read_file(tmp.path / "free" / "summary.csv"), read_file(tmp.path / "small" / "summary.csv"));
  for (const char* channel : {"t", "q1", "p2", "energy_drift"}) {
    const auto a = read_doubles(free_h5.id, std::string("/trajectories/") + channel);
    const auto b = read_doubles(small_h5.id, std::string("/trajectories/") + channel);
    ASSERT_EQ(a.size(), b.size()) << channel;
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << channel;
  }
}

// The automatic chunk: about 20 chunks on the CPU (at most 65536, a whole
// number of lockstep groups per thread: a multiple of the widest lane width
// times the threads), the whole study on a GPU backend (up to 262144
// instances: a GPU needs ~1e5 in flight), each lowered by halving until a
// chunk takes at most a quarter of the memory budget (on the CPU, still a
// whole number of groups per thread).
TEST(MemoryBudget, AutomaticChunkIsLargeOnAGpuBackend) {
  TempDir tmp;
  const fs::path study = tmp.path / "grid.toml";
  write_file(study, kGrid100x100);  // 10 000 instances, no trajectories
  const hs::Study s = hs::load_study(study.string());
  const long lanes = hs::widest_lanes();
  auto whole_groups = [&](long n, long threads) { return (n + lanes * threads - 1) / (lanes * threads) * (lanes * threads); };
  // 10 000 / 20 = 500, rounded up to whole groups (8 lanes x 2 threads: 512; 8 x 3: 504).
  EXPECT_EQ(hs::plan_run_memory(s.record(), s.design(), 0, 2, false), whole_groups(500, 2));
  EXPECT_EQ(hs::plan_run_memory(s.record(), s.design(), 0, 3, false), whole_groups(500, 3));
  EXPECT_EQ(hs::plan_run_memory(s.record(), s.design(), 0, 2, true), 10000);    // the whole study
  EXPECT_EQ(hs::plan_run_memory(s.record(), s.design(), 123, 2, true), 123);    // an explicit size wins
  EXPECT_EQ(hs::plan_run_memory(s.record(), s.design(), 123, 2, false), 123);
  const double one = hs::run_chunk_bytes(s.record(), s.design(), 1);
  {
    MemoryLimit m(std::to_string(static_cast<long>(4.0 * 3000.0 * one)).c_str());  // a quarter holds 3000
    EXPECT_EQ(hs::plan_run_memory(s.record(), s.design(), 0, 2, true), 2500);     // 10 000 halved twice
  }
  MemoryLimit m(std::to_string(static_cast<long>(4.0 * 300.0 * one)).c_str());  // a quarter holds 300
  // 8 lanes x 3 threads: 504 halved to 252, down to whole groups of 24: 240.
  const long cpu = hs::plan_run_memory(s.record(), s.design(), 0, 3, false);
  EXPECT_EQ(cpu % (lanes * 3), 0) << cpu;
  EXPECT_LE(cpu, 300);
  EXPECT_GT(cpu, 150);
  if (lanes == 8) {
    EXPECT_EQ(cpu, 240);
  }
}

TEST(MemoryBudget, BadLimitValueIsAClearError) {
  TempDir tmp;
  write_file(tmp.path / "s.toml", "[integrator]\nduration = 0.01\n");
  MemoryLimit m("plenty");
  const auto r = hydrosweep("run " + (tmp.path / "s.toml").string() + " --out " + (tmp.path / "out").string(), tmp.path);
  expect_refused(r, tmp.path / "out", {"HYDROSWEEP_MEMORY_LIMIT = \"plenty\" is not a size"});
}

}  // namespace
