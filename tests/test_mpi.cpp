// MPI-sharded studies (issue 17 item 1; host/run/ranks.hpp, README "Studies
// across ranks (MPI)"), through mpirun and the built executable. With MPI:
// K ranks write what one process writes (run and stability); a rank killed
// mid-run is reported by the launcher, its finished chunks stay, and --resume
// under MPI completes the study with nothing lost; only `run` and `stability`
// are shared. Without MPI (the
// sanitizer flavour builds without it): a run started as one of several ranks
// says the build lacks MPI and stops.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

constexpr auto npos = std::string::npos;

// 24 instances with trajectories, statistics, a failure limit and failed instances.
const char* const kStudy = kFailingGridStudy;

fs::path write_study(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

#ifdef HYDROSWEEP_TEST_MPIEXEC
// Open MPI refuses root without these two (CI containers run as root);
// --oversubscribe: more ranks than this machine's cores; --bind-to none: a
// rank's OpenMP threads are not confined to one core.
const std::string kMpi = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 '") +
                         HYDROSWEEP_TEST_MPIEXEC + "' --oversubscribe --bind-to none";

Result mpirun(int ranks, const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string cmd = kMpi + " -np " + std::to_string(ranks) + " '" + kExe + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

// The results of one process and of K ranks: summary.csv byte for byte, every
// dataset and attribute of results.h5 but the run record (which includes the
// rank count, checked here).
void expect_same_as_one_process(const fs::path& one, const fs::path& many, long ranks) {
  EXPECT_EQ(read_file(one / "summary.csv"), read_file(many / "summary.csv"));
  expect_same(h5_results(one / "results.h5"), h5_results(many / "results.h5"), "results.h5 of 1 process and of ranks");
  H5File a(one / "results.h5"), b(many / "results.h5");
  EXPECT_EQ(int_attribute(a.id, "/metadata", "ranks"), 1);
  EXPECT_EQ(int_attribute(b.id, "/metadata", "ranks"), ranks);
}

TEST(Mpi, RanksWriteWhatOneProcessWrites) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  ASSERT_EQ(hydrosweep("run " + q(study) + " --out " + q(tmp.path / "one") + " -j 1 --chunk-size 4 -q", tmp.path).code, 0);
  EXPECT_NE(read_file(tmp.path / "one" / "summary.csv").find("pressure_out_of_range"), npos);
  // 6 chunks over 4 ranks (uneven shares); 3 ranks with the automatic chunk size.
  const Result four = mpirun(4, "run " + q(study) + " --out " + q(tmp.path / "four") + " --chunk-size 4", tmp.path);
  ASSERT_EQ(four.code, 0) << four.err;
  EXPECT_NE(four.out.find("on cpu (4 MPI ranks x"), npos) << four.out;  // rank 0 reports, once
  EXPECT_NE(four.out.find("ran 24 instances"), npos) << four.out;
  EXPECT_EQ(four.out.find("ran 24 instances"), four.out.rfind("ran 24 instances")) << four.out;
  expect_same_as_one_process(tmp.path / "one", tmp.path / "four", 4);
  const Result three = mpirun(3, "run " + q(study) + " --out " + q(tmp.path / "three") + " -q", tmp.path);
  ASSERT_EQ(three.code, 0) << three.err;
  expect_same_as_one_process(tmp.path / "one", tmp.path / "three", 3);
  EXPECT_FALSE(fs::exists(tmp.path / "four" / ".hydrosweep-partial"));
}

// Errors: every rank ends with the status one process would have, and the
// message is printed once: a bad study (exit 2); `check` is not shared (exit 2).
TEST(Mpi, ErrorsEndEveryRankAndArePrintedOnce) {
  TempDir tmp;
  const fs::path bad = write_study(tmp.path, "bad.toml", "[integrator]\ndt = -1.0\n");
  const Result r = mpirun(3, "run " + q(bad) + " --out " + q(tmp.path / "out"), tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  const std::string message = "hydrosweep: error: ";
  ASSERT_NE(r.err.find(message), npos) << r.err;
  EXPECT_EQ(r.err.find(message), r.err.rfind(message)) << "printed by every rank:\n" << r.err;
  EXPECT_NE(r.err.find("bad.toml"), npos) << r.err;

  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  const Result s = mpirun(2, "check " + q(study), tmp.path);
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("only `hydrosweep run` and `hydrosweep stability` are shared between MPI ranks"), npos) << s.err;
  EXPECT_EQ(s.err.find(message), s.err.rfind(message)) << s.err;
}

// A stability map of 6 x 5 points of the 3D model over 4 ranks (contiguous
// shares of 7, 8, 7, 8 points): stability.csv byte for byte and stability.h5
// but the run record, as one process writes them.
TEST(Mpi, StabilityMapOverRanksIsTheOneProcessMap) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "map.toml", kStabilityGridStudy);
  ASSERT_EQ(hydrosweep("stability " + q(study) + " --out " + q(tmp.path / "one") + " -q", tmp.path).code, 0);
  const Result four = mpirun(4, "stability " + q(study) + " --out " + q(tmp.path / "four"), tmp.path);
  ASSERT_EQ(four.code, 0) << four.err;
  EXPECT_NE(four.out.find("stability: 30 points"), npos) << four.out;
  EXPECT_NE(four.out.find("4 MPI ranks x"), npos) << four.out;
  EXPECT_EQ(read_csv(tmp.path / "one" / "stability.csv").size(), 31u);
  EXPECT_EQ(read_file(tmp.path / "one" / "stability.csv"), read_file(tmp.path / "four" / "stability.csv"));
  expect_same(h5_results(tmp.path / "one" / "stability.h5"), h5_results(tmp.path / "four" / "stability.h5"),
              "stability.h5 of 1 process and of 4 ranks");
  H5File b(tmp.path / "four" / "stability.h5");
  EXPECT_EQ(int_attribute(b.id, "/metadata", "ranks"), 4);
}

std::vector<pid_t> children_named(pid_t parent, const std::string& name) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string stat = read_file(e.path() / "stat");
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid == parent && stat.substr(open + 1, close - open - 1) == name) pids.push_back(std::stoi(stat));
  }
  return pids;
}

// 800 instances in 100 chunks over 4 ranks; one rank is killed (SIGKILL)
// once 10 chunks are written. mpirun reports it and ends the others; the
// finished chunks stay; `mpirun ... --resume` completes the study, reusing
// them, with the results one process writes.
TEST(Mpi, KilledRankIsReportedAndResumeUnderMpiCompletesTheStudy) {
  TempDir tmp;
  const std::string text = "[integrator]\nduration = 10.0\n[[grid]]\nparameter = \"friction.coulomb_force\"\n"
                           "min = 100.0\nmax = 500.0\ncount = 800\n[analysis]\nquantities = [\"p2_max\"]\n"
                           "bootstrap = 100\n[output]\ntrajectory_stride = 1000\n";
  const fs::path study = write_study(tmp.path, "study.toml", text);
  const fs::path out = tmp.path / "out", log = tmp.path / "mpirun.log";
  const pid_t launcher = ::fork();
  if (launcher == 0) {
    const std::string cmd = "exec env " + kMpi.substr(0, kMpi.find(" '")) + " " + kMpi.substr(kMpi.find(" '") + 1) +
                            " -np 4 '" + kExe + "' run " + q(study) + " --out " + q(out) +
                            " --chunk-size 8 -q 2>" + q(log);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  wait_for_chunks(out / ".hydrosweep-partial", 10, launcher);
  std::vector<pid_t> ranks;
  for (int spin = 0; spin < 500 && ranks.size() < 4; ++spin) {
    ranks = children_named(launcher, "hydrosweep");
    if (ranks.size() < 4) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(ranks.size(), 4u) << "the ranks should be mpirun's children";
  ASSERT_EQ(::kill(ranks.back(), SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(launcher, &status, 0), launcher);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << "mpirun should fail when a rank is killed";
  const std::string report = read_file(log);
  EXPECT_NE(report.find("signal 9"), npos) << "mpirun should report the killed rank:\n" << report;
  EXPECT_FALSE(fs::exists(out / "results.h5"));
  long kept = 0;
  for (const auto& e : fs::directory_iterator(out / ".hydrosweep-partial")) kept += e.path().extension() == ".bin";
  EXPECT_GE(kept, 10);
  EXPECT_LT(kept, 100) << "the rank was killed after the study had finished";

  const Result resumed = mpirun(4, "run " + q(study) + " --out " + q(out) + " --resume -q", tmp.path);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  ASSERT_EQ(hydrosweep("run " + q(study) + " --out " + q(tmp.path / "one") + " --chunk-size 8 -q", tmp.path).code, 0);
  expect_same_as_one_process(tmp.path / "one", out, 4);
  H5File r(out / "results.h5");
  EXPECT_EQ(int_attribute(r.id, "/metadata", "resumed_instances"), 8 * kept) << "the kept chunks were not reused";
}

#else  // no MPI in this build

// Started as one of several ranks (the launcher's environment), a build
// without MPI refuses: each rank would run the whole study into the same directory.
TEST(Mpi, RunAsOneOfSeveralRanksWithoutMpiSaysTheBuildLacksIt) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", "[integrator]\nduration = 0.01\n");
  const Result r = hydrosweep_after("export OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=0",
                                    "run " + q(study) + " --out " + q(tmp.path / "out"), tmp.path);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("built without MPI"), npos) << r.err;
  EXPECT_NE(r.err.find("one of 4 ranks"), npos) << r.err;
  EXPECT_NE(r.err.find("libopenmpi-dev"), npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
  // One rank of one: nothing to share, it runs.
  const Result one = hydrosweep_after("export OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0",
                                      "run " + q(study) + " --out " + q(tmp.path / "one") + " -q", tmp.path);
  EXPECT_EQ(one.code, 0) << one.err;
}

#endif

}  // namespace
