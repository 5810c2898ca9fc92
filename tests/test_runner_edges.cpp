// Runner and command-line edges, through the built executable (issue 11
// item 4; the rules are in docs/study-files.md, "Resuming", "The output
// directory" and "Exit status"): resuming from a partial run written by
// another build or with damaged chunk files, --resume with nothing to resume,
// whole runs at -j 1 and -j 2, the Kokkos backend end to end, outputs that
// cannot be written, `check` on bad studies and the design it prints, and a
// user's own files in the output directory.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "host/run/batch.hpp"
#include "host/run/chunk_store.hpp"
#include "host/study/study.hpp"
#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

constexpr auto npos = std::string::npos;
const std::string kPartial = ".hydrosweep-partial";

// kStudy: cli_support.hpp's kFailingGridStudy (24 instances, trajectories, analysis, failures).
const char* const kStudy = kFailingGridStudy;
constexpr int kStudyInstances = 24;

// 20 short instances without trajectories: chunk files of a few hundred
// bytes, a results.h5 of about 50 kB.
const char* kSmallStudy = R"([integrator]
duration = 0.2
[[grid]]
parameter = "friction.coulomb_force"
min = 100.0
max = 300.0
count = 20
)";

// A stability map of 6 x 5 points of the 3D model (cli_support.hpp).
const char* const kStabilityStudy = kStabilityGridStudy;

// A file-size limit the chunk files of kSmallStudy and the manifest fit under
// and results.h5 and stability.h5 do not: 16 blocks are 8 kB in dash's
// `ulimit -f` (512-byte blocks), 16 kB in bash's (1024). It works as root,
// where a read-only directory would not stop the writes.
const std::string kFileSizeLimit = "ulimit -f 16";

fs::path write_study(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path p = dir / name;
  write_file(p, text);
  return p;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

Result run(const fs::path& study, const fs::path& out, const std::string& flags, const fs::path& scratch) {
  return hydrosweep("run " + q(study) + " --out " + q(out) + " " + flags, scratch);
}

Result resume(const fs::path& study, const fs::path& out, const fs::path& scratch) {
  return run(study, out, "--resume -j 2 -q", scratch);
}

// Runs `study` into `out` in chunks of 3 instances on one thread (about 60 ms
// a chunk, 8 chunks) and sends `signal` once at least `chunks` chunk files
// exist. True when the run was stopped before it finished.
bool interrupt_run(const fs::path& study, const fs::path& out, int chunks, int signal, const fs::path& scratch) {
  const pid_t pid = spawn({"run", study.string(), "--out", out.string(), "-j", "1", "--chunk-size", "3", "-q"},
                          scratch / "interrupted.log");
  wait_for_chunks(out / kPartial, chunks, pid);
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (signal == SIGINT) {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << read_file(scratch / "interrupted.log");
  }
  return fs::exists(out / kPartial / "manifest") && (signal != SIGKILL || WIFSIGNALED(status));
}

// The manifest with one "key value" line's value replaced.
std::string with_manifest_line(const std::string& manifest, const std::string& key, const std::string& value) {
  std::istringstream in(manifest);
  std::string out, line;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.rfind(key + " ", 0) == 0) {
      line = key + " " + value;
      found = true;
    }
    out += line + "\n";
  }
  EXPECT_TRUE(found) << "the manifest has no line " << key << ":\n" << manifest;
  return out;
}

// The files of a directory outside the partial-run directory.
std::map<std::string, std::string> files_outside_partial(const fs::path& dir) {
  auto files = file_tree(dir);
  for (auto it = files.begin(); it != files.end();) it = it->first.rfind(kPartial, 0) == 0 ? files.erase(it) : std::next(it);
  return files;
}

std::vector<std::string> directory_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

// ---- resuming -------------------------------------------------------------------

// A partial run whose manifest another build wrote (another version, other
// summary or trajectory columns, another manifest format) or whose chunking line is damaged
// is refused with exit 2, naming the manifest, the line and what to do; the
// directory is left byte for byte as it was, and once the manifest is this
// build's again the resumed run equals an uninterrupted one.
TEST(RunnerEdges, ResumeRefusesAManifestFromAnotherBuild) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  ASSERT_EQ(run(study, tmp.path / "whole", "-j 2 -q", tmp.path).code, 0);
  const fs::path out = tmp.path / "o";
  ASSERT_TRUE(interrupt_run(study, out, 1, SIGKILL, tmp.path)) << "the run finished before it could be killed";
  const fs::path manifest = out / kPartial / "manifest";
  const std::string original = read_file(manifest);

  struct Edit {
    std::string key, value, says;
  };
  // The chunk rows are recorded by content (the column lists), so a build
  // whose summary or trajectory layout differs is refused by name.
  const std::vector<Edit> edits = {{"version", "0.0.0-other", "written by another build"},
                                   {"summary_columns", "t_end,steps,q1,q2,q3", "written by another build"},
                                   {"trajectory_channels", "t,q1,q2,q3,p1,p2,p3", "written by another build"},
                                   {"hydrosweep", "partial run 1", "written by another build"},
                                   {"chunk_size", "three", "is damaged"}};
  for (const Edit& e : edits) {
    write_file(manifest, with_manifest_line(original, e.key, e.value));
    const auto before = file_tree(out);
    const Result r = resume(study, out, tmp.path);
    EXPECT_EQ(r.code, 2) << e.key << "\n" << r.err;
    EXPECT_NE(r.err.find(manifest.string()), npos) << r.err;
    EXPECT_NE(r.err.find(e.key + " = \"" + e.value + "\""), npos) << r.err;
    EXPECT_NE(r.err.find(e.says), npos) << r.err;
    EXPECT_NE(r.err.find("delete " + q(out / kPartial) + " to start over"), npos) << r.err;
    EXPECT_EQ(file_tree(out), before) << "a refused resume changed " << out << " (" << e.key << ")";
  }
  write_file(manifest, original);
  ASSERT_EQ(resume(study, out, tmp.path).code, 0);
  EXPECT_EQ(read_file(out / "summary.csv"), read_file(tmp.path / "whole" / "summary.csv"));
}

// A truncated chunk file and one with a flipped byte are refused with exit 2,
// each named with what is wrong and the command that deletes them; nothing
// is changed, and a leftover *.tmp (normal after a kill) is not mistaken for
// damage. Deleting the named files as told, the resumed run re-runs those
// chunks and writes what an uninterrupted run writes.
// The chunk files written behind the next chunk's integration (ChunkWriter,
// host/run/chunk_store.hpp): the same file as a write in place, each one on
// disk once the next is handed over or the writer finishes; a write that
// fails is reported at the next hand-over or at finish, and the instances
// counted as written are those of the files that are there.
TEST(ChunkStore, WritingBehindGivesTheSameFilesAndReportsAFailureAtTheNextStep) {
  TempDir tmp;
  hs::BatchResult r;
  r.status = {hs::Status::ok, hs::Status::diverged, hs::Status::ok};
  r.summary_width = 2;
  r.summaries = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  const hs::ChunkIdentity id{0x1234u, 3};
  const hs::ChunkLayout layout{3, 0, 2, 0};
  for (const bool behind : {false, true}) {
    const fs::path dir = tmp.path / (behind ? "behind" : "in_place");
    fs::create_directories(dir);
    hs::ChunkWriter writer(behind);
    writer.write(dir / "c0.bin", 0, r, id);
    writer.write(dir / "c1.bin", 3, r, id);
    // In place both are written; behind, the first finished before the second began.
    EXPECT_EQ(writer.written(), behind ? 3 : 6) << behind;
    EXPECT_TRUE(fs::exists(dir / "c0.bin"));
    writer.finish();
    EXPECT_EQ(writer.written(), 6) << behind;
    std::vector<hs::Status> status(3);
    std::vector<double> rows(6);
    EXPECT_EQ(hs::read_chunk_summaries(dir / "c1.bin", 3, layout, id, status.data(), rows.data()), "") << behind;
    EXPECT_EQ(rows, r.summaries);
    EXPECT_EQ(status, r.status);
    // A directory that is not there: behind, the write's error comes at finish.
    const fs::path missing = dir / "missing" / "c2.bin";
    std::string message;
    try {
      writer.write(missing, 6, r, id);
      EXPECT_TRUE(behind) << "a write in place throws at once";
      writer.finish();
    } catch (const hs::OutputError& e) { message = e.what(); }
    EXPECT_NE(message.find(missing.string() + ".tmp"), npos) << message;
    EXPECT_EQ(writer.written(), 6) << behind;
    writer.finish();  // the error was reported once
  }
  EXPECT_EQ(read_file(tmp.path / "behind" / "c1.bin"), read_file(tmp.path / "in_place" / "c1.bin"));
}

// A chunk size that is not a whole number of lane groups on every thread
// leaves lanes or a thread idle at each chunk's end: the run says so and
// names the next size that does not (main.cpp); the automatic size and a
// whole multiple say nothing.
TEST(RunnerEdges, AChunkSizeThatLeavesLanesIdleGetsANote) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "s.toml", kSmallStudy);  // 20 instances
  Result r = run(study, tmp.path / "a", "-j 2 --chunk-size 10", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  if (r.out.find("-lane lockstep") != npos) {
    // 8 lanes x 2 threads, or 4 x 2: 16 is the next whole number of groups either way.
    EXPECT_NE(r.err.find("note: chunks of 10 instances do not fill whole lane groups on every thread ("), npos) << r.err;
    EXPECT_NE(r.err.find("--chunk-size 16 would keep every lane busy"), npos) << r.err;
  } else {
    EXPECT_EQ(r.err.find("lane groups"), npos) << r.err;  // a build without lanes
  }
  for (const char* flags : {"-j 2 --chunk-size 16", "-j 2"}) {
    r = run(study, tmp.path / "b", flags, tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("lane groups"), npos) << flags << ": " << r.err;
  }
}

TEST(RunnerEdges, ResumeRefusesDamagedChunkFiles) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  ASSERT_EQ(run(study, tmp.path / "whole", "-j 2 -q", tmp.path).code, 0);
  const fs::path out = tmp.path / "o";
  ASSERT_TRUE(interrupt_run(study, out, 2, SIGKILL, tmp.path)) << "the run finished before it could be killed";
  const fs::path truncated = out / kPartial / "chunk-00000000.bin", flipped = out / kPartial / "chunk-00000001.bin";
  std::string bytes = read_file(truncated);
  write_file(truncated, bytes.substr(0, bytes.size() / 2));
  bytes = read_file(flipped);
  bytes[bytes.size() / 2] ^= 0x10;
  write_file(flipped, bytes);
  write_file(out / kPartial / "chunk-00000007.bin.tmp", "half a chunk, left by a killed run");

  const auto before = file_tree(out);
  const Result r = resume(study, out, tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(truncated.string() + " has " + std::to_string(bytes.size() / 2) + " bytes where " +
                       std::to_string(bytes.size()) + " are expected"),
            npos)
      << r.err;
  EXPECT_NE(r.err.find(flipped.string() + " fails its checksum"), npos) << r.err;
  EXPECT_NE(r.err.find("rm " + q(truncated) + " " + q(flipped)), npos) << r.err;
  EXPECT_EQ(r.err.find(".tmp"), npos) << r.err;
  EXPECT_EQ(file_tree(out), before) << "a refused resume changed " << out;

  fs::remove(truncated);
  fs::remove(flipped);
  ASSERT_EQ(resume(study, out, tmp.path).code, 0);
  EXPECT_EQ(directory_names(out), (std::vector<std::string>{"results.h5", "summary.columns.csv", "summary.csv"})) << "the .tmp was not cleaned";
  EXPECT_EQ(read_file(out / "summary.csv"), read_file(tmp.path / "whole" / "summary.csv"));
  expect_same(h5_results(tmp.path / "whole" / "results.h5"), h5_results(out / "results.h5"), "resumed results.h5");
}

// --resume where there is no interrupted run is refused (exit 2) rather than
// taken as a fresh start, with a message for each case; nothing is created
// or changed.
TEST(RunnerEdges, ResumeWithNothingToResume) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "small.toml", kSmallStudy);

  const fs::path missing = tmp.path / "missing";
  Result r = resume(study, missing, tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing to resume: " + missing.string() + " does not exist; run without --resume"), npos) << r.err;
  EXPECT_FALSE(fs::exists(missing));

  const fs::path other = tmp.path / "other";  // a directory with a user's file, no run
  fs::create_directories(other);
  write_file(other / "notes.txt", "mine");
  r = resume(study, other, tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing to resume: " + other.string() + " holds no interrupted run"), npos) << r.err;
  EXPECT_EQ(directory_names(other), std::vector<std::string>{"notes.txt"});

  const fs::path finished = tmp.path / "finished";
  ASSERT_EQ(run(study, finished, "-q", tmp.path).code, 0);
  const auto results = file_tree(finished);
  r = resume(study, finished, tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing to resume: " + finished.string() + " holds finished results (results.h5)"), npos) << r.err;
  EXPECT_NE(r.err.find("run without --resume to run the study again"), npos) << r.err;
  EXPECT_EQ(file_tree(finished), results);
}

// ---- thread count and backend ---------------------------------------------------

// The same study at -j 1 in one chunk and at -j 2 in chunks of 5: summary.csv
// byte for byte, and every dataset and attribute of results.h5 except the
// run record (wall time, date, threads, chunking: cli_support.hpp kRunRecord).
TEST(RunnerEdges, RunIsIdenticalAtOneAndTwoThreads) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  ASSERT_EQ(run(study, tmp.path / "j1", "-j 1 --chunk-size 24 -q", tmp.path).code, 0);
  ASSERT_EQ(run(study, tmp.path / "j2", "-j 2 --chunk-size 5 -q", tmp.path).code, 0);

  const std::string csv = read_file(tmp.path / "j1" / "summary.csv");
  EXPECT_EQ(csv, read_file(tmp.path / "j2" / "summary.csv"));
  EXPECT_NE(csv.find("pressure_out_of_range"), npos) << "the study should have failed instances";
  const auto one = h5_results(tmp.path / "j1" / "results.h5"), two = h5_results(tmp.path / "j2" / "results.h5");
  for (const char* key : {"/outputs/status", "/trajectories/p2", "/inputs/all", "/analysis/failure@probability",
                          "/analysis/statistics/tracking_rms/quantiles", "/metadata@study_text"})
    EXPECT_TRUE(one.count(key)) << key;
  expect_same(one, two, "results.h5 at -j 1 and -j 2");

  H5File a(tmp.path / "j1" / "results.h5"), b(tmp.path / "j2" / "results.h5");  // what was excluded did differ
  EXPECT_EQ(int_attribute(a.id, "/metadata", "threads"), 1);
  EXPECT_EQ(int_attribute(b.id, "/metadata", "threads"), 2);
  EXPECT_EQ(int_attribute(a.id, "/metadata", "chunks"), 1);
  EXPECT_EQ(int_attribute(b.id, "/metadata", "chunks"), 5);
}

// The writers stream the summary rows back from the chunk files a block at a
// time (host/results/output.cpp for_each_summary_block: 2^17 doubles, 4369
// rows of the four-bar's 30 columns), so rows span chunk files and writer
// blocks. 9000 instances in chunks of 777, each with its own initial crank
// angle and the valve open from t = 0 (every row different): the rows on both
// sides of chunk and block boundaries are those a one-instance run of the same
// parameters writes, and results.h5 equals that of a one-chunk run.
TEST(RunnerEdges, StreamedSummaryRowsBelongToTheirInstancesAcrossChunksAndBlocks) {
  TempDir tmp;
  const std::string settings = "[integrator]\nduration = 0.003\n[input]\ntimes = [0.0]\nvalues = [10.0]\n"
                               "[analysis]\nquantities = [\"q1\"]\nbootstrap = 10\nreference_run = false\n";
  const fs::path study = write_study(tmp.path, "many.toml", settings + "[[grid]]\nparameter = \"mechanism.initial_angle1\"\n"
                                                                       "min = 0.9\nmax = 1.2\ncount = 9000\n");
  ASSERT_EQ(run(study, tmp.path / "chunked", "--chunk-size 777 -q", tmp.path).code, 0);
  ASSERT_EQ(run(study, tmp.path / "whole", "--chunk-size 9000 -q", tmp.path).code, 0);
  expect_same(h5_results(tmp.path / "chunked" / "results.h5"), h5_results(tmp.path / "whole" / "results.h5"),
              "results.h5 in chunks of 777 and in one chunk");
  EXPECT_EQ(read_file(tmp.path / "chunked" / "summary.csv"), read_file(tmp.path / "whole" / "summary.csv"));

  const auto rows = read_csv(tmp.path / "chunked" / "summary.csv");
  ASSERT_EQ(rows.size(), 9001u);
  ASSERT_EQ(rows[0][2], "mechanism.initial_angle1");
  const size_t q1 = csv_column(rows[0], "q1");
  EXPECT_NE(rows[1][q1], rows[2][q1]) << "rows must differ for the check to mean anything";
  // The writers' block: 2^17 doubles of summary rows (the columns after index, status and the varied input).
  const long block = (1L << 17) / static_cast<long>(rows[0].size() - 3);
  for (long i : {0L, 776L, 777L, block - 1, block, 4661L, 4662L, 2 * block - 1, 2 * block, 8999L}) {
    const auto& row = rows[static_cast<size_t>(i) + 1];
    ASSERT_EQ(row[0], std::to_string(i));
    const fs::path one = write_study(tmp.path, "one" + std::to_string(i) + ".toml",
                                     settings + "[[grid]]\nparameter = \"mechanism.initial_angle1\"\nvalues = [" + row[2] + "]\n");
    ASSERT_EQ(run(one, tmp.path / ("one" + std::to_string(i)), "-q", tmp.path).code, 0);
    auto alone = read_csv(tmp.path / ("one" + std::to_string(i)) / "summary.csv").at(1);
    alone[0] = row[0];  // its index is 0
    EXPECT_EQ(alone, row) << "instance " << i;
  }
}

// `hydrosweep stability` at -j 1 and -j 2: stability.csv byte for byte, and
// stability.h5 except the run record (wall time, date, threads, points/s).
// With no Python (HYDROSWEEP_PYTHON naming none, nothing on PATH) the map's
// PNG, not compared here, is skipped with a warning (it takes 3 s a run).
TEST(RunnerEdges, StabilityIsIdenticalAtOneAndTwoThreads) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "map.toml", kStabilityStudy);
  for (const char* j : {"1", "2"}) {
    const Result r = hydrosweep_after("export PATH=/nonexistent HYDROSWEEP_PYTHON=/nonexistent/python3",
                                      "stability " + q(study) + " --out " + q(tmp.path / ("j" + std::string(j))) + " -j " + j + " -q",
                                      tmp.path);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("python3 not found"), npos) << r.err;
  }
  EXPECT_EQ(read_csv(tmp.path / "j1" / "stability.csv").size(), 31u);
  EXPECT_EQ(read_file(tmp.path / "j1" / "stability.csv"), read_file(tmp.path / "j2" / "stability.csv"));
  const auto one = h5_results(tmp.path / "j1" / "stability.h5");
  EXPECT_TRUE(one.count("/stability/eigenvalues_real") && one.count("/metadata@zero_tolerance"));
  expect_same(one, h5_results(tmp.path / "j2" / "stability.h5"), "stability.h5 at -j 1 and -j 2");
  H5File b(tmp.path / "j2" / "stability.h5");
  EXPECT_EQ(int_attribute(b.id, "/metadata", "threads"), 2);
}

// `run --backend kokkos` end to end equals `--backend cpu`: the same kernel
// code compiled by the same compiler, measured bit-identical (Debian 12 GCC,
// Kokkos 3.4 Serial), so summary.csv and every dataset and attribute of
// results.h5 except the run record and the backend's name and device. (Should
// a compiler ever contract the two translation units differently, the
// tolerance is test_backends' 1e-10 relative.)
TEST(RunnerEdges, KokkosBackendEndToEnd) {
  std::string why;
  if (!hs::backend_available(hs::Backend::kokkos, &why)) GTEST_SKIP() << "this build has no Kokkos backend: " << why;
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  ASSERT_EQ(run(study, tmp.path / "cpu", "--backend cpu -q", tmp.path).code, 0);
  const Result r = run(study, tmp.path / "kokkos", "--backend kokkos", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("on kokkos"), npos) << r.out;
  EXPECT_EQ(read_file(tmp.path / "cpu" / "summary.csv"), read_file(tmp.path / "kokkos" / "summary.csv"));
  auto cpu = h5_results(tmp.path / "cpu" / "results.h5"), kokkos = h5_results(tmp.path / "kokkos" / "results.h5");
  EXPECT_EQ(cpu["/metadata@backend"], std::string("cpu") + '\0');
  EXPECT_EQ(kokkos["/metadata@backend"], std::string("kokkos") + '\0');
  for (auto* h5 : {&cpu, &kokkos}) {
    h5->erase("/metadata@backend");
    h5->erase("/metadata@device");
  }
  expect_same(cpu, kokkos, "results.h5 of the cpu and kokkos backends");
}

// ---- outputs that cannot be written ---------------------------------------------

// Exit 1 with the path named and nothing left behind, whether --out cannot
// be a directory (below a regular file; in /proc, where not even root may
// create one) or writing fails part-way (a file-size limit: at the end, at a
// chunk, at stability.h5). After a failure at the end the finished chunks are
// kept and --resume writes the results without running anything again.
TEST(RunnerEdges, UnwritableOutputExits1AndLeavesNothing) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "small.toml", kSmallStudy);
  const fs::path map = write_study(tmp.path, "map.toml", kStabilityStudy);

  write_file(tmp.path / "file", "x");
  for (const fs::path& s : {study, map}) {
    const std::string command = s == study ? "run " : "stability ";
    const Result r = hydrosweep(command + q(s) + " --out " + q(tmp.path / "file" / "out"), tmp.path);
    EXPECT_EQ(r.code, 1) << command << r.err;
    EXPECT_NE(r.err.find((tmp.path / "file").string() + " is not a directory"), npos) << r.err;
    EXPECT_EQ(read_file(tmp.path / "file"), "x");
  }
  Result r = run(study, "/proc/self/hydrosweep-out", "-q", tmp.path);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("/proc/self/hydrosweep-out"), npos) << r.err;

  // results.h5 does not fit: the chunks stay for --resume, nothing else.
  const fs::path out = tmp.path / "o";
  r = hydrosweep_after(kFileSizeLimit, "run " + q(study) + " --out " + q(out) + " --chunk-size 1 -q", tmp.path);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find((out / ".results.h5.hydrosweep-tmp.").string()), npos) << r.err;
  EXPECT_NE(r.err.find("20 finished instances are kept in " + (out / kPartial).string()), npos) << r.err;
  EXPECT_NE(r.err.find("--resume"), npos) << r.err;
  EXPECT_EQ(directory_names(out), std::vector<std::string>{kPartial});
  r = run(study, out, "--resume", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ran 0 instances"), npos) << r.out;
  EXPECT_NE(r.out.find("20 more resumed"), npos) << r.out;
  ASSERT_EQ(run(study, tmp.path / "whole", "-q", tmp.path).code, 0);
  EXPECT_EQ(read_file(out / "summary.csv"), read_file(tmp.path / "whole" / "summary.csv"));

  // The first chunk does not fit (4 instances of 101 trajectory samples):
  // no chunk finished, so the directories this run created are removed.
  const fs::path with_trajectories = write_study(tmp.path, "traj.toml", std::string(kSmallStudy) + "[output]\ntrajectory_stride = 2\n");
  const fs::path out2 = tmp.path / "new" / "o";
  r = hydrosweep_after(kFileSizeLimit, "run " + q(with_trajectories) + " --out " + q(out2) + " --chunk-size 4 -q", tmp.path);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find((out2 / kPartial / "chunk-00000000.bin.tmp").string()), npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path / "new"));

  const fs::path out3 = tmp.path / "map";
  r = hydrosweep_after(kFileSizeLimit, "stability " + q(map) + " --out " + q(out3) + " -q", tmp.path);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find((out3 / ".stability.h5.hydrosweep-tmp.").string()), npos) << r.err;
  EXPECT_FALSE(fs::exists(out3));
}

// ---- the output directory holds a user's files ------------------------------------

// A user's files in --out, and results.h5 / summary.csv from before, are
// untouched by an interrupted run (Ctrl-C), a refused plain run, and a resume
// that fails writing; the successful resume replaces results.h5 and
// summary.csv (atomically, at its end) and leaves everything else.
TEST(RunnerEdges, UserFilesInTheOutputDirectorySurvive) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  ASSERT_EQ(run(study, tmp.path / "whole", "-j 2 -q", tmp.path).code, 0);
  const fs::path out = tmp.path / "o";
  fs::create_directories(out / "data");
  write_file(out / "notes.txt", "my notes");
  write_file(out / "data" / "measured.bin", std::string("\0\1\2\3", 4));
  write_file(out / "results.h5", "results of an earlier study");
  write_file(out / "summary.csv", "index,status\n0,ok\n");
  const auto user = file_tree(out);

  ASSERT_TRUE(interrupt_run(study, out, 1, SIGINT, tmp.path)) << "the run finished before it could be interrupted";
  EXPECT_EQ(files_outside_partial(out), user);
  EXPECT_EQ(run(study, out, "-q", tmp.path).code, 2);  // holds an interrupted run
  EXPECT_EQ(files_outside_partial(out), user);
  const Result failed = hydrosweep_after(kFileSizeLimit, "run " + q(study) + " --out " + q(out) + " --resume -q", tmp.path);
  EXPECT_EQ(failed.code, 1) << failed.err;
  EXPECT_EQ(files_outside_partial(out), user) << "a failed resume changed the user's files";

  ASSERT_EQ(resume(study, out, tmp.path).code, 0);
  auto after = file_tree(out);
  EXPECT_EQ(read_file(out / "summary.csv"), read_file(tmp.path / "whole" / "summary.csv"));
  EXPECT_GT(after.at("results.h5").size(), 1000u);
  for (const char* output : {"results.h5", "summary.csv", "summary.columns.csv"}) after.erase(output);
  auto untouched = user;
  for (const char* output : {"results.h5", "summary.csv", "summary.columns.csv"}) untouched.erase(output);
  EXPECT_EQ(after, untouched) << "the user's files changed, or the run left files behind";
}

// Ctrl-C before the first chunk finished (one chunk of all 24 instances,
// about 0.5 s on one thread): exit 130, "nothing was saved", and no partial
// directory left to make the next plain run refuse; the user's file stays.
TEST(RunnerEdges, InterruptBeforeTheFirstChunkLeavesNothing) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  const fs::path out = tmp.path / "o";
  fs::create_directories(out);
  write_file(out / "notes.txt", "my notes");
  const pid_t pid = spawn({"run", study.string(), "--out", out.string(), "-j", "1", "--chunk-size", "24", "-q"},
                          tmp.path / "log");
  for (int spin = 0; spin < 3000 && !fs::exists(out / kPartial / "manifest"); ++spin) ::usleep(1000);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(tmp.path / "log");
  EXPECT_NE(read_file(tmp.path / "log").find("interrupted before the first chunk finished: nothing was saved"), npos)
      << read_file(tmp.path / "log");
  EXPECT_EQ(file_tree(out), (std::map<std::string, std::string>{{"notes.txt", "my notes"}}));
  EXPECT_EQ(directory_names(out), std::vector<std::string>{"notes.txt"});
}

// ---- hydrosweep check ---------------------------------------------------------

// `check` on every bad study of tests/data/bad: exit 2, the message naming the
// file and key on stderr, nothing on stdout, nothing written (run in an empty
// working directory that stays empty).
TEST(RunnerEdges, CheckOnABadStudyExits2AndWritesNothing) {
  TempDir tmp;
  const fs::path cwd = tmp.path / "cwd";
  fs::create_directories(cwd);
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kRoot + "/tests/data/bad")) {
    if (entry.path().extension() != ".toml") continue;
    ++n;
    const Result r = hydrosweep_after("cd " + q(cwd), "check " + q(entry.path()), tmp.path);
    EXPECT_EQ(r.code, 2) << entry.path() << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("hydrosweep: error: " + entry.path().string(), 0), 0u) << r.err;
    std::ifstream in(entry.path());
    std::string expect;
    std::getline(in, expect);  // "# expect: FILE:LINE"
    EXPECT_NE(r.err.find(expect.substr(10)), npos) << r.err;
    EXPECT_EQ(r.out, "") << entry.path();
  }
  EXPECT_GE(n, 60);
  EXPECT_TRUE(fs::is_empty(cwd));
}

namespace {

// The design table `check` prints: the "design: ..." line, then the header,
// then one line per row (index, values).
struct PrintedDesign {
  std::string summary, header;
  std::vector<std::vector<std::string>> rows;
  std::string tail;  // the line after the rows ("" if none)
};

PrintedDesign printed_design(const std::string& out) {
  PrintedDesign d;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line) && line.rfind("design: ", 0) != 0) {}
  d.summary = line;
  std::getline(in, d.header);
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::vector<std::string> row;
    for (std::string cell; cells >> cell;) row.push_back(cell);
    if (row.empty() || row[0] == "...") {
      d.tail = line;
      break;
    }
    d.rows.push_back(row);
  }
  return d;
}

// `check` prints what Study::varied_values gives, value for value (printed
// shortest-round-trip, so strtod reads back the same double), under headers
// "name [unit]" in varied_names()/varied_units() order.
void expect_check_prints_design(const fs::path& study_path, long rows_shown, const fs::path& scratch) {
  const hs::Study study = hs::load_study(study_path.string());
  const Result r = hydrosweep("check " + q(study_path), scratch);
  ASSERT_EQ(r.code, 0) << r.err;
  const PrintedDesign d = printed_design(r.out);
  const long n = study.instance_count();
  const auto names = study.varied_names(), units = study.varied_units();
  EXPECT_EQ(d.summary.rfind("design: " + std::to_string(n) + " instances x " + std::to_string(names.size()) + " varied input", 0), 0u)
      << r.out;
  size_t at = d.header.find("index");
  EXPECT_NE(at, npos) << d.header;
  for (size_t k = 0; k < names.size(); ++k) {
    at = d.header.find(names[k] + " [" + units[k] + "]", at);
    EXPECT_NE(at, npos) << "column " << names[k] << " [" << units[k] << "] in " << d.header;
  }
  ASSERT_EQ(static_cast<long>(d.rows.size()), rows_shown) << r.out;
  for (long i = 0; i < rows_shown; ++i) {
    ASSERT_EQ(d.rows[i].size(), names.size() + 1) << "row " << i;
    EXPECT_EQ(d.rows[i][0], std::to_string(i));
    const std::vector<double> want = study.varied_values(i);
    for (size_t k = 0; k < names.size(); ++k) EXPECT_EQ(csv_double(d.rows[i][k + 1]), want[k]) << names[k] << " row " << i;
  }
  if (rows_shown < n) EXPECT_EQ(d.tail, "  ... " + std::to_string(n - rows_shown) + " more rows");
  else EXPECT_EQ(d.tail, "");
}

}  // namespace

// `hydrosweep check` prints the design its documentation promises: every row
// of a design of up to 20 instances, the first 10 of a larger one, each value
// equal to Study::varied_values (grid axes, a scale factor, a derived
// parameter whose unit has a space, Monte Carlo draws); and says so when
// nothing is varied.
TEST(RunnerEdges, CheckPrintsTheDesign) {
  TempDir tmp;
  const std::string grid = R"([[grid]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force"]
values = [0.5, 2.0]
[[grid]]
parameter = "circuit.oil_bulk_modulus"
min = 1e9
max = 1.7e9
count = COUNT
spacing = "log"
[derived]
"friction.viscous_coefficient" = "2 * friction.coulomb_force / 3"
)";
  auto grid_with = [&](int count) {
    std::string text = grid;
    text.replace(text.find("COUNT"), 5, std::to_string(count));
    return write_study(tmp.path, "grid" + std::to_string(count) + ".toml", text);
  };
  expect_check_prints_design(grid_with(3), 6, tmp.path);    // 6 rows: all
  expect_check_prints_design(grid_with(10), 20, tmp.path);  // 20 rows: all
  expect_check_prints_design(grid_with(11), 10, tmp.path);  // 22 rows: the first 10
  expect_check_prints_design(write_study(tmp.path, "mc.toml", R"([sample]
method = "monte-carlo"
count = 50
seed = 3
[[factor]]
parameter = "circuit.valve_time_constant"
distribution = "lognormal"
median = 0.005
sigma_log = 0.2
[[factor]]
parameter = "mechanism.body3.mass"
relative = 0.1
)"),
                             10, tmp.path);

  const Result r = hydrosweep("check " + q(kRoot + "/studies/seed002_work_cycle.toml"), tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\ndesign: 1 instance, no varied input (the base parameters)\n"), npos) << r.out;
}

// ---- issue 36: what a hostile sweep found (docs/study-files.md, "The output directory") ----

// A second run into an --out that another run is writing is refused, with
// or without --resume, naming the holder's PID, and takes nothing of the
// first run's directory; once the lock is free the same command runs. The
// "other run" is this test process holding the lock a run holds (fcntl,
// host/run/chunk_store.cpp RunLock).
TEST(RunnerEdges, ASecondRunIntoAnOutputDirectoryInUseIsRefused) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kSmallStudy);
  const fs::path out = tmp.path / "o";
  fs::create_directories(out / kPartial);
  const fs::path lock_path = out / kPartial / "lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  ASSERT_EQ(::fcntl(fd, F_SETLK, &whole), 0);
  for (const std::string flags : {"-q", "--resume -q"}) {
    const Result r = run(study, out, flags, tmp.path);
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.err;
    EXPECT_NE(r.err.find("is being written by another hydrosweep run (PID " + std::to_string(::getpid()) + ","), npos) << r.err;
    EXPECT_TRUE(fs::exists(lock_path)) << "the refused run removed the other run's directory";
    EXPECT_FALSE(fs::exists(out / "summary.csv"));
  }
  ::close(fd);  // the other run ends
  const Result r = run(study, out, "-q", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "summary.csv"));
  EXPECT_FALSE(fs::exists(out / kPartial)) << "a finished run leaves no partial directory (nor its lock)";
}

// More threads than the machine has processors (-j or OMP_NUM_THREADS) ran
// into OpenMP's thread creation and died with SIGSEGV; now lowered, with a
// note, and the results are those of a plain run.
TEST(RunnerEdges, ThreadCountsBeyondTheMachineAreLoweredWithANote) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kSmallStudy);
  ASSERT_EQ(run(study, tmp.path / "plain", "-q", tmp.path).code, 0);
  const Result many = run(study, tmp.path / "many", "-j 100000", tmp.path);
  EXPECT_EQ(many.code, 0) << many.err;
  EXPECT_NE(many.err.find("note: --threads 100000 is more than the"), npos) << many.err;
  EXPECT_EQ(read_file(tmp.path / "many" / "summary.csv"), read_file(tmp.path / "plain" / "summary.csv"));
  const Result env = hydrosweep_after("export OMP_NUM_THREADS=100000",
                                      "run " + q(study) + " --out " + q(tmp.path / "env"), tmp.path);
  EXPECT_EQ(env.code, 0) << env.err;
  EXPECT_NE(env.err.find("note: OMP_NUM_THREADS=100000 is more than the"), npos) << env.err;
  EXPECT_EQ(read_file(tmp.path / "env" / "summary.csv"), read_file(tmp.path / "plain" / "summary.csv"));
  const fs::path map = write_study(tmp.path, "map.toml", kStabilityStudy);
  const Result stab = hydrosweep("stability " + q(map) + " --out " + q(tmp.path / "map") + " -j 100000", tmp.path);
  EXPECT_EQ(stab.code, 0) << stab.err;
  EXPECT_NE(stab.err.find("note: --threads 100000 is more than the"), npos) << stab.err;
}

// A "study file" that never ends (/dev/zero) was read until the kernel
// killed the process; now at most 16 MiB are read and the file is refused.
TEST(RunnerEdges, AStudyFileThatNeverEndsIsRefused) {
  TempDir tmp;
  for (const std::string& command : std::vector<std::string>{"check /dev/zero", "run /dev/zero --out " + q(tmp.path / "o")}) {
    const Result r = hydrosweep(command, tmp.path);
    EXPECT_EQ(r.code, 2) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("/dev/zero: is larger than 16 MiB, the limit for a study file"), npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp.path / "o"));
}

// A directory where an output goes (the user's results.h5/ or summary.csv/)
// was moved aside and replaced; now the run is refused before it starts and
// the directory keeps what it holds. An empty --out is refused too (it
// would have written into the working directory).
TEST(RunnerEdges, AnOutputNameTakenByADirectoryIsRefused) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kSmallStudy);
  const fs::path map = write_study(tmp.path, "map.toml", kStabilityStudy);
  for (const std::string name : {"results.h5", "summary.csv", "stability.h5", "stability.csv"}) {
    const fs::path out = tmp.path / ("o_" + name);
    fs::create_directories(out / name);
    write_file(out / name / "mine.txt", "the user's");
    const bool is_map = name.rfind("stability", 0) == 0;
    const Result r = is_map ? hydrosweep("stability " + q(map) + " --out " + q(out) + " -q", tmp.path)
                            : run(study, out, "-q", tmp.path);
    EXPECT_NE(r.code, 0) << name;
    EXPECT_NE(r.err.find((out / name).string() + " exists and is a directory, where hydrosweep writes its " + name), npos)
        << r.err;
    EXPECT_EQ(read_file(out / name / "mine.txt"), "the user's");
    EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1) << "the run wrote into " << out;
  }
  const Result empty = hydrosweep("run " + q(study) + " --out ''", tmp.path);
  EXPECT_NE(empty.code, 0);
  EXPECT_NE(empty.err.find("the output directory is empty"), npos) << empty.err;
}

// `plot --out FILE` (a regular file) ended in a Python traceback; now a
// one-line error and status 2, for a study's plots and a stability map.
// Every PNG is written under a temporary name and renamed into place
// (studies/plot_study.py save_png).
TEST(RunnerEdges, PlotIntoARegularFileEndsInAMessageNotATraceback) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kSmallStudy);
  const fs::path map = write_study(tmp.path, "map.toml", kStabilityStudy);
  ASSERT_EQ(run(study, tmp.path / "o", "-q", tmp.path).code, 0);
  ASSERT_EQ(hydrosweep("stability " + q(map) + " --out " + q(tmp.path / "m") + " -q", tmp.path).code, 0);
  const fs::path file = tmp.path / "a-file";
  write_file(file, "not a directory");
  for (const std::string dir : {"o", "m"}) {
    const Result r = hydrosweep("plot " + q(tmp.path / dir) + " --out " + q(file), tmp.path);
    EXPECT_EQ(r.code, 2) << dir << "\n" << r.err;
    EXPECT_NE(r.err.find("--out " + file.string() + " exists and is not a directory"), npos) << r.err;
    EXPECT_EQ(r.err.find("Traceback (most recent call last)"), npos) << r.err;
  }
  EXPECT_EQ(read_file(file), "not a directory");
}

// Ctrl-C reached only between instances: one instance of hours of simulated
// time went on for minutes after it. Now the flag is looked at inside the
// step loop (every 4096 steps, RunOptions::cancel), on one instance at a time,
// on the lockstep lanes and in the analysis' reference run: the run below, one
// instance of 10^9 steps (half an hour or more), stops as interrupted, keeps
// nothing, and says at once that it is stopping. Had the flag not reached
// inside, the run would go on for that half hour: the test gives up after
// 300 s, a liveness bound a thousand times the check's interval, not a speed
// figure.
TEST(RunnerEdges, InterruptStopsInsideALongInstance) {
  TempDir tmp;
  // 10^9 steps: half an hour or more. Without the analysis' reference run
  // (the nominal instance, run first; it stops the same way, and its
  // trajectory would not fit in memory at this length).
  const fs::path study = write_study(tmp.path, "long.toml", R"([integrator]
duration = 1000000.0
[analysis]
reference_run = false
)");
  for (const std::string lanes : {"1", "automatic"}) {  // one instance at a time; the build's lockstep lanes
    const fs::path out = tmp.path / ("o_" + lanes);
    std::vector<std::string> args = {"run", study.string(), "--out", out.string(), "-j", "1", "-q"};
    if (lanes == "1") args.insert(args.end(), {"--lanes", "1"});
    const pid_t pid = spawn(args, tmp.path / "log");
    for (int spin = 0; spin < 3000 && !fs::exists(out / kPartial / "manifest"); ++spin) ::usleep(1000);
    ::usleep(200000);  // inside the instance's step loop
    ::kill(pid, SIGINT);
    int status = 0;
    for (int spin = 0; spin < 3000 && ::waitpid(pid, &status, WNOHANG) == 0; ++spin) ::usleep(100000);
    if (::kill(pid, 0) == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "--lanes " << lanes << ": the run did not stop within 300 s of Ctrl-C";
    }
    ASSERT_TRUE(WIFEXITED(status));
    const std::string log = read_file(tmp.path / "log");
    EXPECT_EQ(WEXITSTATUS(status), 130) << "--lanes " << lanes << ": " << log;
    EXPECT_NE(log.find("hydrosweep: stopping: the finished chunks are kept"), npos) << log;
    EXPECT_NE(log.find("interrupted before the first chunk finished: nothing was saved"), npos) << log;
    EXPECT_FALSE(fs::exists(out / "results.h5"));
  }
}

// An instance flagged invalid_parameters never said which parameter or why;
// the run now names the first ones on stderr with their index and reason.
TEST(RunnerEdges, InvalidParametersSayWhichParameterAndWhy) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", R"([integrator]
duration = 0.05
[[grid]]
parameter = "friction.coulomb_force"
values = [300.0, 200.0]
[derived]
"friction.static_force" = "4 * friction.coulomb_force - 1000"
)");
  const Result r = run(study, tmp.path / "o", "", tmp.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("hydrosweep: note: not run (invalid_parameters): instance 1: derived.friction.static_force = -200 "
                       "is out of range [0, 1e+08] N"),
            npos)
      << r.err;
  EXPECT_EQ(r.err.find("instance 0"), npos) << r.err;
}

// --resume trusted what it found: a chunk file copied in from another study of
// the same shape was accepted (its rows paired with this study's inputs), and
// an edited manifest blamed good chunks as damaged. A chunk now carries its
// run's study hash and chunk size (host/run/chunk_store.hpp ChunkHeader).
TEST(RunnerEdges, ResumeRefusesAChunkOfAnotherStudyAndAnEditedManifest) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kStudy);
  const fs::path other = write_study(tmp.path, "other.toml", std::string(kStudy) + "# another study of the same shape\n");
  const fs::path out = tmp.path / "o", elsewhere = tmp.path / "elsewhere";
  ASSERT_TRUE(interrupt_run(study, out, 2, SIGKILL, tmp.path)) << "the run finished before it could be killed";
  ASSERT_TRUE(interrupt_run(other, elsewhere, 2, SIGKILL, tmp.path)) << "the run finished before it could be killed";
  const fs::path chunk = out / kPartial / "chunk-00000001.bin";
  const std::string own = read_file(chunk);
  fs::copy_file(elsewhere / kPartial / "chunk-00000001.bin", chunk, fs::copy_options::overwrite_existing);
  Result r = resume(study, out, tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(chunk.string() + " belongs to another study"), npos) << r.err;
  EXPECT_EQ(r.err.find("checksum"), npos) << r.err;
  write_file(chunk, own);

  const fs::path manifest = out / kPartial / "manifest";
  const std::string text = read_file(manifest);
  const size_t at = text.find("chunk_size 3");
  ASSERT_NE(at, npos) << text;
  write_file(manifest, text.substr(0, at) + "chunk_size 4" + text.substr(at + 12));
  r = resume(study, out, tmp.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("was written in chunks of 3 instances, but the manifest says chunk_size = 4: the manifest was "
                       "changed after the run began"),
            npos)
      << r.err;
  write_file(manifest, text);
  ASSERT_EQ(resume(study, out, tmp.path).code, 0);
}

// A kill at every step of `run`'s final write (HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP,
// host/results/commit.hpp) over an earlier run's outputs: right after the
// kill, results.h5 and summary.csv are each a whole file, the earlier run's
// or the new one's (a mixture only while the commit journal is there); the
// resume that follows finishes the write, and the directory holds the new
// run's outputs and nothing else of the killed run.
TEST(RunnerEdges, AKillAtEveryStepOfTheFinalWriteLeavesAWholeSet) {
  TempDir tmp;
  const fs::path earlier = write_study(tmp.path, "earlier.toml", kSmallStudy);
  std::string later_text = kSmallStudy;
  later_text.replace(later_text.find("max = 300.0"), 11, "max = 400.0");
  const fs::path later = write_study(tmp.path, "later.toml", later_text);
  ASSERT_EQ(run(earlier, tmp.path / "a", "-q", tmp.path).code, 0);
  ASSERT_EQ(run(later, tmp.path / "b", "-q", tmp.path).code, 0);
  const std::string csv_a = read_file(tmp.path / "a" / "summary.csv"), csv_b = read_file(tmp.path / "b" / "summary.csv");
  const std::string h5_a = read_file(tmp.path / "a" / "results.h5");
  ASSERT_NE(csv_a, csv_b);
  const std::string hdf5_signature("\x89HDF\r\n\x1a\n", 8);
  int killed = 0, mixed = 0;
  for (int k = 1; k <= 20; ++k) {
    const fs::path out = tmp.path / ("k" + std::to_string(k));
    fs::create_directories(out);
    for (const char* output : {"results.h5", "summary.csv", "summary.columns.csv"})
      fs::copy_file(tmp.path / "a" / output, out / output);
    const Result r = hydrosweep_after("export HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP=" + std::to_string(k),
                                      "run " + q(later) + " --out " + q(out) + " -q", tmp.path);
    if (r.code == 0) {  // past the last step
      EXPECT_EQ(read_file(out / "summary.csv"), csv_b);
      EXPECT_EQ(directory_names(out), (std::vector<std::string>{"results.h5", "summary.columns.csv", "summary.csv"}));
      break;
    }
    ASSERT_EQ(r.code, 128 + SIGKILL) << "step " << k << ": " << r.err;
    ++killed;
    const std::string csv = read_file(out / "summary.csv"), h5 = read_file(out / "results.h5");
    EXPECT_TRUE(csv == csv_a || csv == csv_b) << "step " << k << ": summary.csv is neither run's";
    EXPECT_EQ(h5.substr(0, 8), hdf5_signature) << "step " << k << ": results.h5 is not a whole HDF5 file";
    const bool h5_earlier = h5 == h5_a, csv_earlier = csv == csv_a;
    if (h5_earlier != csv_earlier) {
      ++mixed;
      EXPECT_TRUE(fs::exists(out / ".hydrosweep-commit")) << "step " << k << ": a mixture without the journal";
    }
    const Result resumed = resume(later, out, tmp.path);
    ASSERT_EQ(resumed.code, 0) << "step " << k << ": " << resumed.err;
    EXPECT_EQ(read_file(out / "summary.csv"), csv_b) << "step " << k;
    EXPECT_EQ(directory_names(out), (std::vector<std::string>{"results.h5", "summary.columns.csv", "summary.csv"})) << "step " << k;
  }
  // 3 keeps of the earlier files (results.h5, summary.csv, its sidecar
  // summary.columns.csv), the journal, 3 renames, retiring the earlier run's
  // plot set, 3 removals, the journal's removal; the mixture of results.h5
  // and summary.csv: between their two renames.
  EXPECT_EQ(killed, 12);
  EXPECT_EQ(mixed, 1);
}

// Messages stay readable whatever was typed (issue 36 class 7): a flag's
// range in words, not CLI11's 309-digit "0.000000 to 1797693...", and an
// echo of a 2 MB expression cut to its start and end with the length left
// out, in an error and in the study's listing.
TEST(RunnerEdges, FlagRangesAreWordsAndLongEchoesAreCut) {
  TempDir tmp;
  const fs::path study = write_study(tmp.path, "study.toml", kSmallStudy);
  const fs::path out = tmp.path / "o";
  for (const std::string flag : {"-j 1e308", "-j -5", "-j 0", "--chunk-size 1e400", "--chunk-size -1", "--lanes 3",
                                 "--lanes 1e308"}) {
    const Result r = run(study, out, flag + " -q", tmp.path);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find(flag.substr(0, flag.find(' ')) == "--lanes" ? "must be 1, 4 or 8, not "
                                                                     : "must be a whole number from 1 to "),
              npos)
        << flag << ": " << r.err;
    EXPECT_LT(r.err.size(), 200u) << flag << ": " << r.err;
    EXPECT_EQ(r.err.find("17976931348623157"), npos) << flag << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << flag;
  }
  const Result stab = hydrosweep("stability " + q(study) + " --out " + q(out) + " -j 1e308", tmp.path);
  EXPECT_EQ(stab.code, 2) << stab.err;
  EXPECT_NE(stab.err.find("--threads: must be a whole number from 1 to 2147483647, not 1e308"), npos) << stab.err;

  std::string terms;
  for (int k = 0; k < 1000000; ++k) terms += "1+";
  const fs::path bad = write_study(tmp.path, "bad.toml",
                                   std::string(kSmallStudy) + "[derived]\n\"friction.static_force\" = \"" + terms + "x\"\n");
  const Result r = hydrosweep("check " + q(bad), tmp.path);
  EXPECT_EQ(r.code, 2) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 2200u);
  EXPECT_NE(r.err.find("derived.friction.static_force = \"1+1+"), npos) << r.err;
  EXPECT_NE(r.err.find("characters left out"), npos) << r.err;
  EXPECT_NE(r.err.find("unknown name 'x' at column 2000001"), npos) << r.err;

  // A long expression that is valid (1,000,000 terms of 0 plus 150): the
  // listing `check` prints shows its start and end.
  std::string zeros;
  for (int k = 0; k < 1000000; ++k) zeros += "0+";
  const fs::path good = write_study(tmp.path, "good.toml",
                                    std::string(kSmallStudy) + "[derived]\n\"friction.static_force\" = \"" + zeros + "150\"\n");
  const Result listed = hydrosweep("check " + q(good), tmp.path);
  EXPECT_EQ(listed.code, 0) << listed.err.substr(0, 300);
  EXPECT_LT(listed.out.size(), 20000u);
  EXPECT_NE(listed.out.find("characters left out"), npos) << listed.out.substr(0, 2000);
  EXPECT_NE(listed.out.find("0+0+150"), npos) << listed.out.substr(0, 2000);
}

// A new run into DIR takes `hydrosweep plot`'s pictures of the earlier run
// away in its final write (they would sit beside data they do not show); a
// plot run replaces its own earlier set; a user's file in plots/ stays.
TEST(RunnerEdges, ARunRetiresTheEarlierRunsPlotsAndKeepsTheUsersFiles) {
  TempDir tmp;
  const fs::path earlier = write_study(tmp.path, "earlier.toml", std::string(kSmallStudy) + "[analysis]\nquantities = [\"p2_max\"]\n");
  const fs::path out = tmp.path / "o";
  ASSERT_EQ(run(earlier, out, "-q", tmp.path).code, 0);
  Result r = hydrosweep("plot " + q(out), tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path plots = out / "plots";
  const auto first = directory_names(plots);
  ASSERT_GT(first.size(), 2u);
  EXPECT_TRUE(std::find(first.begin(), first.end(), ".hydrosweep-plots") != first.end());
  write_file(plots / "mine.png", "the user's picture");
  write_file(plots / "hist_stale.png", "a picture no plot run listed");

  r = hydrosweep("plot " + q(out), tmp.path);  // the same set again: replaced, not added to
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(directory_names(plots).size(), first.size() + 2);

  ASSERT_EQ(run(earlier, out, "-q", tmp.path).code, 0);
  EXPECT_EQ(directory_names(plots), (std::vector<std::string>{"hist_stale.png", "mine.png"}));
  EXPECT_EQ(read_file(plots / "mine.png"), "the user's picture");
}

// `--extend N` (docs/study-files.md, "Extending a Monte Carlo study"): 30
// instances, then 20 more, then 5 more in chunks of 7, equal one run of 55
// value for value (results.h5 outside the run record, summary.csv byte for
// byte); the study file keeps its count = 30 throughout. Refused (exit 2,
// nothing changed): another study's results, a design that is not Monte
// Carlo, and a directory without a finished run.
TEST(RunnerEdges, ExtendingAMonteCarloStudyEqualsOneRunOfTheLargerCount) {
  TempDir tmp;
  const std::string text = R"([integrator]
duration = 0.4
[sample]
method = "monte-carlo"
count = 30
seed = 9
[[factor]]
parameter = "circuit.oil_bulk_modulus"
min = 1.0e9
max = 1.8e9
[[factor]]
parameter = "friction.coulomb_force"
distribution = "truncated-normal"
mean = 200.0
std = 60.0
min = 50.0
max = 400.0
[output]
trajectory_stride = 40
[analysis]
quantities = ["p2_max", "q1"]
bootstrap = 50
[analysis.limit]
quantity = "p2_max"
above = 3.3e6
)";
  const fs::path study = write_study(tmp.path, "mc.toml", text);
  std::string larger = text;
  larger.replace(larger.find("count = 30"), 10, "count = 55");
  // The same file name in another folder: study_name and study_path agree.
  fs::create_directories(tmp.path / "whole");
  const fs::path whole_study = write_study(tmp.path / "whole", "mc.toml", larger);
  const fs::path out = tmp.path / "out", whole = tmp.path / "whole" / "out";
  ASSERT_EQ(run(whole_study, whole, "-j 2 -q", tmp.path).code, 0);
  ASSERT_EQ(run(study, out, "-j 2 -q", tmp.path).code, 0);
  // 20 more in chunks of 7: three chunks after the 30 kept (their offsets).
  const Result more = run(study, out, "--extend 20 --chunk-size 7 -j 2 --progress none", tmp.path);
  ASSERT_EQ(more.code, 0) << more.err;
  EXPECT_NE(more.out.find("ran 20 instances"), npos) << more.out;
  EXPECT_NE(more.out.find("(30 kept from the finished run it extends)"), npos) << more.out;
  ASSERT_EQ(run(study, out, "--extend 5 --chunk-size 7 -j 1 -q", tmp.path).code, 0);
  EXPECT_EQ(read_file(out / "summary.csv"), read_file(whole / "summary.csv"));
  std::map<std::string, std::string> a = h5_results(out / "results.h5"), b = h5_results(whole / "results.h5");
  a.erase("/metadata@study_path");
  b.erase("/metadata@study_path");
  expect_same(a, b, "extended vs one run of 55");
  {
    H5File f(out / "results.h5");
    EXPECT_EQ(int_attribute(f.id, "/metadata", "instance_count"), 55);
    EXPECT_EQ(int_attribute(f.id, "/metadata", "resumed_instances"), 50);  // not run by the last call
  }
  EXPECT_NE(read_file(study).find("count = 30"), npos);

  // Refusals leave the directory as it was.
  const auto before = file_tree(out);
  std::string other = text;
  other.replace(other.find("seed = 9"), 8, "seed = 8");
  const fs::path other_study = write_study(tmp.path, "other.toml", other);
  Result r = run(other_study, out, "--extend 5 -q", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds the results of another study"), npos) << r.err;
  std::string lhs = text;
  lhs.replace(lhs.find("monte-carlo"), 11, "lhs");
  r = run(write_study(tmp.path, "lhs.toml", lhs), out, "--extend 5 -q", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--extend adds samples to a Monte Carlo study"), npos) << r.err;
  r = run(study, tmp.path / "empty", "--extend 5 -q", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("has no results.h5 (run the study first)"), npos) << r.err;
  EXPECT_EQ(file_tree(out), before);
}

// An interrupted `--extend` (SIGINT once chunks exist) continues only as that
// extension: a plain --resume of the larger study text is refused naming
// --extend, nothing changed; `--extend N --resume` completes it, equal to one
// run of the larger count (summary.csv byte for byte).
TEST(RunnerEdges, AnInterruptedExtensionResumesOnlyAsThatExtension) {
  TempDir tmp;
  const std::string text = R"([integrator]
duration = 2.0
[sample]
method = "monte-carlo"
count = 10
seed = 4
[[factor]]
parameter = "circuit.oil_bulk_modulus"
min = 1.0e9
max = 1.8e9
)";
  const fs::path study = write_study(tmp.path, "mc.toml", text);
  std::string larger = text;
  larger.replace(larger.find("count = 10"), 10, "count = 250");
  fs::create_directories(tmp.path / "big");
  const fs::path big = write_study(tmp.path / "big", "mc.toml", larger);
  const fs::path out = tmp.path / "out";
  ASSERT_EQ(run(study, out, "-j 1 -q", tmp.path).code, 0);
  const pid_t pid = spawn({"run", study.string(), "--out", out.string(), "--extend", "240", "--chunk-size", "3", "-j", "1",
                           "-q"},
                          tmp.path / "extend.log");
  wait_for_chunks(out / kPartial, 2, pid);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!fs::exists(out / kPartial / "manifest")) GTEST_SKIP() << "the extension finished before the interrupt";
  EXPECT_NE(read_file(out / kPartial / "manifest").find("extends 10"), npos);
  const auto before = file_tree(out);
  const Result plain = run(big, out, "--resume -q", tmp.path);
  EXPECT_EQ(plain.code, 2) << plain.err;
  EXPECT_NE(plain.err.find("extends a finished run of 10 instances"), npos) << plain.err;
  EXPECT_NE(plain.err.find("--extend N --resume"), npos) << plain.err;
  EXPECT_EQ(file_tree(out), before);
  ASSERT_EQ(run(study, out, "--extend 240 --resume -j 2 -q", tmp.path).code, 0);
  ASSERT_EQ(run(big, tmp.path / "big" / "out", "-j 2 -q", tmp.path).code, 0);
  EXPECT_EQ(read_file(out / "summary.csv"), read_file(tmp.path / "big" / "out" / "summary.csv"));
}
