// hydrosweep: command-line front end.
//
//   hydrosweep run STUDY.toml --out DIR [--threads N] [--lanes 1|4|8] [--resume] [--chunk-size N]
//                                       [--progress auto|bar|lines|none] [--quiet]
//   hydrosweep check STUDY.toml            validate a study, print its design (varied inputs per instance)
//   hydrosweep parameters [--model NAME]   Markdown table of all parameters
//   hydrosweep plot DIR [--out PLOTDIR]    PNG plots of a finished study (python3)
//   hydrosweep stability STUDY.toml --out DIR [--threads N] [--lanes 1|4|8] [--backend auto|cpu|kokkos|cuda] [--quiet]
//                                          equilibrium eigenvalues of every instance
//
// Exit codes: 0 success (instances that failed are flagged in the outputs,
// they are results, not errors); 2 bad study file, command line or refused
// resume (nothing is written or changed); 130 interrupted by Ctrl-C (finished
// chunks are kept for --resume); 1 anything else: the output cannot be
// written (an --out that is not a writable directory, a full disk, a
// file-size limit), HDF5, out of memory. docs/study-files.md, "Exit status".
#include <CLI/CLI.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <charconv>
#include <chrono>
#include <filesystem>
#include <optional>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/build_paths.hpp"
#include "host/run/batch.hpp"
#include "host/results/output.hpp"
#include "host/results/report.hpp"
#include "host/registry/model_file.hpp"
#include "host/registry/models.hpp"
#include "host/run/rank_collectives.hpp"
#include "host/run/ranks.hpp"
#include "host/cli/run_study.hpp"
#include "host/run/memory_budget.hpp"
#include "host/run/stability_lanes.hpp"
#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, the shell convention

// Ctrl-C: the first asks the run to stop after the instances in flight; the
// handler then restores the default, so a second Ctrl-C kills at once.
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");
extern "C" void on_interrupt(int) {
  g_cancel.store(true);
  std::signal(SIGINT, SIG_DFL);
  // Acknowledged at once (write(2) is async-signal-safe); the instances in
  // flight stop within about a second (RunOptions::cancel).
  static const char kAck[] = "\nhydrosweep: stopping: the finished chunks are kept (Ctrl-C again to quit at once)\n";
  const ssize_t ignored = ::write(2, kAck, sizeof kAck - 1);
  (void)ignored;
}

// A usage-class error (exit 2), raised after CLI11 has parsed the line.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string fmt(double v) { return hs::round_trip_text(v); }

std::string plural(long n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// Text echoed from what the user wrote can be as long as what they wrote (a
// 2 MB [derived] expression, issue 36 class 7): at most `limit` characters
// are printed, the middle left out with its length, so that the key at the
// start and the reason at the end of a message stay.
std::string elided(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  const size_t head = limit * 3 / 5, tail = limit - head;
  return text.substr(0, head) + " [... " + std::to_string(text.size() - head - tail) + " characters left out ...] " +
         text.substr(text.size() - tail);
}
// A whole-number flag from 1 to `max`, said in words. CLI11's PositiveNumber
// printed its range as "0.000000 to 1797693...", all 309 digits of the
// largest double (issue 36 class 7).
CLI::Validator whole_number_from_1_to(long max) {
  return CLI::Validator(
      [max](std::string& text) {
        long value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc() && stop == end && value >= 1 && value <= max) return std::string();
        return "must be a whole number from 1 to " + std::to_string(max) + ", not " + elided(text, 40);
      },
      "1.." + std::to_string(max), "whole number from 1");
}
constexpr size_t kMaxMessage = 2000;  // an error message
constexpr size_t kMaxEcho = 200;      // an expression in the study's listing

void print_study(const hs::Study& s) {
  std::printf("study \"%s\" (%s): %s (%s), model %s, formulation %s, friction %s, dt %s s, duration %s s\n",
              elided(s.name, kMaxEcho).c_str(), s.path.c_str(), plural(s.instance_count(), "instance").c_str(),
              hs::sample_method_name(s.method), s.model.c_str(), s.formulation.c_str(), s.friction.c_str(),
              fmt(s.settings.dt).c_str(), fmt(s.settings.duration).c_str());
  for (size_t i = 0; i < s.grid.size(); ++i) {
    const auto& a = s.grid[i];
    std::string what = a.info ? a.name : a.name + " (scales";
    for (size_t k = 0; k < a.scaled.size(); ++k) what += (k ? ", " : " ") + a.scaled[k]->name;
    if (!a.info) what += ")";
    if (s.method == hs::SampleMethod::rows)
      std::printf("  column[%zu] %s: %s row by row %s\n", i, what.c_str(), s.user_rows->path.c_str(), a.unit.c_str());
    else if (s.method == hs::SampleMethod::grid)
      std::printf("  grid[%zu] %s: %zu values, %s .. %s %s\n", i, what.c_str(), a.values.size(), fmt(a.values.front()).c_str(),
                  fmt(a.values.back()).c_str(), a.unit.c_str());
    else
      std::printf("  factor[%zu] %s: %s %s\n", i, what.c_str(), a.distribution.describe().c_str(), a.unit.c_str());
  }
  for (const auto& d : s.derived)
    std::printf("  derived %s = %s\n", d.target->name.c_str(), elided(d.expression->text(), kMaxEcho).c_str());
}

// Fails before a run, not after it, when --out cannot take the outputs: exit 1,
// like an output failure at the end (the same cause either way).
void check_out_dir(const std::string& out_dir) {
  try {
    hs::check_output_dir(out_dir);
  } catch (const hs::OutputError& e) {
    throw hs::OutputError(std::string("--out: ") + e.what());
  }
}

// --threads (or OMP_NUM_THREADS) at most the processors here, with a note
// when lowered (hs::usable_threads).
int usable_threads(int threads, bool quiet) {
  std::string note;
  threads = hs::usable_threads(threads, &note);
  if (!note.empty() && !quiet) std::fprintf(stderr, "hydrosweep: note: %s\n", note.c_str());
  return threads;
}

struct RunFlags {
  int threads = 0;
  int lanes = 0;  // 0: automatic
  bool quiet = false, resume = false;
  long chunk_size = 0;
  long extend = 0;  // --extend N: Monte Carlo samples added to the finished run in DIR
  std::string progress = "auto";
  std::string backend = "auto";
};

// Under mpirun/srun every rank runs this with the same arguments
// (host/run/ranks.hpp); rank 0 alone prints.
int run(const std::string& study_path, const std::string& out_dir, RunFlags flags, const hs::Ranks& ranks) {
  if (!ranks.root()) flags.quiet = true;
  hs::Study study = hs::load_study(study_path);  // StudyError: exit 2, nothing written
  hs::require_command(study, "run");  // StudyError: exit 2
  check_out_dir(out_dir);
  std::unique_ptr<hs::FinishedRun> finished;
  if (flags.extend > 0) {
    // Refused before anything in DIR is touched (extend_study completes a
    // committed write): one process reads the finished run.
    if (ranks.size() > 1)
      throw UsageError("--extend runs in one process (the finished run is read by one); run it without mpirun");
    try {
      hs::ExtendedStudy larger = hs::extend_study(study, out_dir, flags.extend);
      study = std::move(larger.study);
      finished = std::move(larger.finished);
    } catch (const hs::ResumeError& e) {
      throw UsageError(e.what());
    }
  }
  if (!flags.quiet) print_study(study);

  hs::StudyRunOptions opt;
  opt.threads = usable_threads(flags.threads, flags.quiet);
  opt.lanes = flags.lanes;
  opt.chunk_size = flags.chunk_size;
  opt.resume = flags.resume;
  opt.progress = flags.quiet ? hs::ProgressStyle::none
                 : flags.progress == "bar" ? hs::ProgressStyle::bar
                 : flags.progress == "lines" ? hs::ProgressStyle::lines
                 : flags.progress == "none" ? hs::ProgressStyle::none : hs::ProgressStyle::automatic;
  opt.cancel = &g_cancel;
  opt.ranks = &ranks;
  opt.extend = finished.get();
  hs::parse_backend(flags.backend, opt.backend);
  std::signal(SIGINT, on_interrupt);
  hs::StudyRunReport rep;
  try {
    rep = hs::run_study(study.record(), study.design(), out_dir, opt);
  } catch (const hs::ResumeError& e) {
    throw UsageError(e.what());
  }
  std::signal(SIGINT, SIG_DFL);
  if (!rep.note.empty() && !flags.quiet) std::fprintf(stderr, "hydrosweep: note: %s\n", rep.note.c_str());
  if (rep.interrupted) {
    if (!ranks.root()) return kExitInterrupted;
    const long saved = rep.resumed + rep.ran;
    if (saved == 0)  // run_study removed the empty partial directory
      std::fprintf(stderr, "interrupted before the first chunk finished: nothing was saved\n");
    else
      std::fprintf(stderr, "interrupted: %ld of %ld instances are saved in %s/%s; continue with\n  hydrosweep run %s --out %s%s --resume\n",
                   saved, rep.instances, out_dir.c_str(), hs::kPartialDirName, study_path.c_str(), out_dir.c_str(),
                   flags.extend > 0 ? (" --extend " + std::to_string(flags.extend)).c_str() : "");
    return kExitInterrupted;
  }
  if (flags.quiet) return 0;
  // Why instances were flagged invalid_parameters: the parameter and its
  // range, or the model's reason (issue 36), the first few by index.
  for (const auto& why : rep.invalid_reasons) std::fprintf(stderr, "hydrosweep: note: not run (invalid_parameters): %s\n", why.c_str());
  if (rep.invalid_count > static_cast<long>(rep.invalid_reasons.size()))
    std::fprintf(stderr, "hydrosweep: note: ... and %ld more instances not run as invalid_parameters\n",
                 rep.invalid_count - static_cast<long>(rep.invalid_reasons.size()));
  // A chunk that is not a whole number of lane groups on every thread ends in
  // a part-filled group or an idle thread at each chunk's end (its padding
  // lanes idle, docs/models/lanes.md §4); the automatic chunk size never is.
  const long lane_group = static_cast<long>(rep.lanes) * std::max(rep.threads, 1);
  if (rep.lanes > 1 && rep.chunks > 1 && rep.chunk_size % lane_group != 0)
    std::fprintf(stderr,
                 "hydrosweep: note: chunks of %ld instances do not fill whole lane groups on every thread (%d lanes x %s); "
                 "--chunk-size %ld would keep every lane busy\n",
                 rep.chunk_size, rep.lanes, plural(rep.threads, "thread").c_str(),
                 (rep.chunk_size + lane_group - 1) / lane_group * lane_group);
  const std::string where = (rep.ranks > 1 ? plural(rep.ranks, "MPI rank") + " x " : std::string()) +
                            (rep.backend == "cpu" ? plural(rep.threads, "thread") : std::string("device"));
  std::printf("ran %s on %s (%s) in %.3f s: %.4g instance-steps/s", plural(rep.ran, "instance").c_str(),
              rep.backend.c_str(), where.c_str(), rep.wall_seconds, rep.wall_seconds > 0 ? rep.steps / rep.wall_seconds : 0.0);
  if (rep.lanes > 1 && rep.lane_iterations > 0)
    std::printf(", %d-lane lockstep (lane utilization %.1f%%)", rep.lanes,
                100.0 * static_cast<double>(rep.active_lane_iterations) / static_cast<double>(rep.lane_iterations));
  if (rep.resumed > 0) std::printf(" (%ld more resumed from the interrupted run)", rep.resumed);
  if (rep.extended_from > 0) std::printf(" (%ld kept from the finished run it extends)", rep.extended_from);
  std::printf("\nfailed: %ld of %ld", rep.failed, rep.instances);
  if (!rep.failures.empty()) {
    std::printf(" (");
    const char* sep = "";
    for (const auto& [name, count] : rep.failures) { std::printf("%s%s %ld", sep, name.c_str(), count); sep = ", "; }
    std::printf(")");
  }
  std::printf("\nwrote %s and %s\n", rep.paths.results_h5.c_str(), rep.paths.summary_csv.c_str());
  // The analysis at a glance, as `hydrosweep report DIR` prints it.
  if (!study.analysis.columns().empty()) {
    try {
      std::printf("\n%s", hs::analysis_report(out_dir).c_str());
    } catch (const std::exception& e) {  // the run and its files are fine: say so, do not fail it
      std::fprintf(stderr, "hydrosweep: note: the analysis could not be read back for its summary: %s\n", e.what());
    }
  }
  return 0;
}

// The studies folder of an installed CLI (PREFIX/share/hydrosweep/studies
// beside PREFIX/bin, cmake/install.cmake); empty for a build in the source tree.
std::filesystem::path installed_studies_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path studies = exe.parent_path().parent_path() / "share" / "hydrosweep" / "studies";
  return fs::is_directory(studies, ec) ? studies : fs::path();
}

// The interpreter of the plot scripts: $HYDROSWEEP_PYTHON; else the project's
// virtual environment that scripts/setup.sh fills ($HYDROSWEEP_VENV, or
// .venv in the source tree of a build that is not installed), where it
// exists; else python3 on PATH.
std::string plot_python() {
  namespace fs = std::filesystem;
  if (const char* p = std::getenv("HYDROSWEEP_PYTHON"); p && *p) return p;
  std::error_code ec;
  if (const char* v = std::getenv("HYDROSWEEP_VENV"); v && *v && fs::exists(fs::path(v) / "bin" / "python3", ec))
    return (fs::path(v) / "bin" / "python3").string();
  const fs::path venv = fs::path(HYDROSWEEP_SOURCE_DIR) / ".venv" / "bin" / "python3";
  if (installed_studies_dir().empty() && fs::exists(venv, ec)) return venv.string();
  return "python3";
}

// Runs PYTHON SCRIPT ARGS... (plot_python) and waits: its exit status, 127
// when the interpreter cannot be started. quiet: its stdout goes to /dev/null.
int run_python(const std::string& script, std::vector<std::string> args, bool quiet) {
  const std::string python = plot_python();
  args.insert(args.begin(), {python, script});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    if (quiet) {
      if (std::FILE* null = std::freopen("/dev/null", "w", stdout); !null) ::_exit(127);
    }
    ::execvp(python.c_str(), argv.data());  // a name is looked up on PATH, a path run as it is
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// A plot script of studies/: beside an installed CLI in
// PREFIX/share/hydrosweep/studies (cmake/install.cmake), else in the source
// tree this binary was built from.
std::string plot_script(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path installed = installed_studies_dir();
  if (!installed.empty() && fs::exists(installed / name, ec)) return (installed / name).string();
  return std::string(HYDROSWEEP_SOURCE_DIR) + "/studies/" + name;
}

const std::string kStabilityPlotScript = plot_script("plot_stability.py");

// Draws DIR/stability_map.png (or PLOTDIR/...); never fails the caller: a
// missing python3 or matplotlib is a warning. Returns the PNG path or "".
// quiet: the script's stdout (the PNG path) is dropped.
std::string plot_stability_map(const std::string& dir, const std::string& plot_dir, bool quiet) {
  if (::access(kStabilityPlotScript.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "hydrosweep: warning: plot script not found (%s); no stability_map.png\n", kStabilityPlotScript.c_str());
    return "";
  }
  std::vector<std::string> args = {dir};
  if (!plot_dir.empty()) { args.push_back("--out"); args.push_back(plot_dir); }
  const int rc = run_python(kStabilityPlotScript, args, quiet);
  if (rc == 0)
    return std::filesystem::absolute((plot_dir.empty() ? std::filesystem::path(dir) : std::filesystem::path(plot_dir)) /
                                     "stability_map.png")
        .string();
  if (rc == 127)
    std::fprintf(stderr, "hydrosweep: warning: %s not found; no stability_map.png (plot later with `hydrosweep plot DIR`)\n",
                 plot_python().c_str());
  else if (rc == 3)
    std::fprintf(stderr, "hydrosweep: warning: %s lacks h5py, matplotlib or numpy (scripts/setup.sh installs them); no stability_map.png\n",
                 plot_python().c_str());
  else std::fprintf(stderr, "hydrosweep: warning: plot_stability.py failed (exit %d); no stability_map.png\n", rc);
  return "";
}

// The plots are matplotlib's: run studies/plot_study.py (plot_script).
// `hydrosweep plot`'s choices, passed to the plot scripts (studies/plot_study.py, plot_stability.py).
struct PlotFlags {
  std::vector<std::string> quantities;  // --quantity: outputs of a run to plot
  std::vector<std::string> slices;      // --slice NAME=VALUE: a stability map's held axes
  std::string format = "png";           // --format png|pdf|svg
};

// `hydrosweep plot`'s run of a plot script: its exit status as the CLI's
// (2: usage, else 1); python3 or its plotting packages missing is the same
// error for a run's plots and a map's (the script names the missing module
// first, status 3).
int run_plot_script(const std::string& script, const std::vector<std::string>& args) {
  const int rc = run_python(script, args, false);
  if (rc == 127) throw std::runtime_error("cannot run " + plot_python() + " (scripts/setup.sh installs python3)");
  if (rc == 3) throw std::runtime_error(plot_python() + " lacks h5py, matplotlib or numpy (scripts/setup.sh installs them)");
  return rc == 0 ? 0 : rc == 2 ? kExitUsage : rc == 130 ? 130 : kExitFailure;  // 130: interrupted (Ctrl-C)
}

int plot(const std::string& dir, const std::string& plot_dir, const PlotFlags& flags) {
  namespace fs = std::filesystem;
  // A final write that a killed run committed is finished first, so that the
  // plots read one run's files.
  hs::finish_interrupted_write(dir);
  // A `hydrosweep stability` directory: its map (and then a study's plots too
  // when DIR also holds results.h5).
  const bool map = fs::exists(fs::path(dir) / "stability.h5"), run = fs::exists(fs::path(dir) / "results.h5");
  if (!flags.slices.empty() && !map)
    throw UsageError("--slice holds an axis of a stability map; " + dir + " has no stability.h5");
  if (!flags.quantities.empty() && map && !run)
    throw UsageError("--quantity picks outputs of a run; " + dir + " holds a stability map (stability.h5) only");
  if (map) {
    if (::access(kStabilityPlotScript.c_str(), R_OK) != 0) throw UsageError("plot script not found: " + kStabilityPlotScript);
    std::vector<std::string> args = {dir, "--format", flags.format};
    if (!plot_dir.empty()) { args.push_back("--out"); args.push_back(plot_dir); }
    for (const auto& s : flags.slices) { args.push_back("--slice"); args.push_back(s); }
    const int rc = run_plot_script(kStabilityPlotScript, args);
    if (rc != 0 || !run) return rc;
  }
  const std::string script = plot_script("plot_study.py");
  if (::access(script.c_str(), R_OK) != 0) throw UsageError("plot script not found: " + script);
  std::vector<std::string> args = {dir, "--format", flags.format};
  if (!plot_dir.empty()) { args.push_back("--out"); args.push_back(plot_dir); }
  if (!flags.quantities.empty()) {
    args.push_back("--quantity");
    args.insert(args.end(), flags.quantities.begin(), flags.quantities.end());
  }
  return run_plot_script(script, args);
}

// --lanes of `run` and `stability`: 1, 4 or 8, and a width this build has.
void add_lanes_option(CLI::App* cmd, int& lanes, const std::string& items, const std::string& where) {
  cmd->add_option("--lanes", lanes,
                  "CPU backend: " + items + " per lockstep SIMD group, 1, 4 or 8 (default: the widest this build has, " +
                      hs::built_lane_widths() + ", where " + where + ", else 1; the results are the same bits)")
      ->check(CLI::Validator(
          [](std::string& w) {
            return w == "1" || w == "4" || w == "8" ? std::string() : "must be 1, 4 or 8, not " + elided(w, 40);
          },
          "1|4|8", "lane width"))
      ->check(CLI::Validator(
          [](std::string& w) {
            const int lanes = std::atoi(w.c_str());
            return lanes <= 1 || hs::lanes_built(lanes) ? std::string()
                                                         : w + " is not built here (this build has lanes " +
                                                               hs::built_lane_widths() +
                                                               "; CMake option HYDROSWEEP_LANE_WIDTHS)";
          },
          "BUILT", "built lane width"));
}

struct StabilityFlags {
  int threads = 0;
  int lanes = 0;  // 0: automatic
  bool quiet = false;
  std::string backend = "auto";
};

// Under mpirun/srun every rank runs this; each computes a share of the points,
// rank 0 writes the outputs and prints (host/run/stability_map.hpp).
int stability(const std::string& study_path, const std::string& out_dir, StabilityFlags flags, const hs::Ranks& ranks) {
  if (!ranks.root()) flags.quiet = true;
  const hs::Study study = hs::load_study(study_path);  // StudyError: exit 2, nothing written
  hs::require_command(study, "stability");  // StudyError: exit 2
  check_out_dir(out_dir);
  hs::Backend requested = study.backend;
  if (flags.backend != "auto") hs::parse_backend(flags.backend, requested);
  std::string note;
  hs::Backend backend;
  try {
    backend = hs::stability_backend(requested, &note, study.descriptor, study.record().friction);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!note.empty() && !flags.quiet) std::fprintf(stderr, "hydrosweep: note: %s\n", note.c_str());

  if (ranks.size() > 1) hs::use_device_of_local_rank(backend, ranks.local_rank());
  flags.threads = usable_threads(ranks.threads_per_rank(flags.threads), flags.quiet);  // the ranks on a node share its cores

  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<hs::StabilityPoint> points =
      hs::run_stability(study.record(), study.design(), backend, flags.threads, ranks, flags.lanes);
  const double wall = ranks.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  hs::RunRecord rec;
  rec.backend = hs::backend_name(backend);
  rec.device = hs::backend_device(backend);
  rec.threads = backend == hs::Backend::cpu ? hs::stability_threads(flags.threads) : 0;
  rec.ranks = ranks.size();
  rec.wall_seconds = wall;
  hs::StabilityOutputPaths paths;
  hs::on_root(ranks, [&] { paths = hs::write_stability_outputs(out_dir, study.record(), study.design(), points, rec); });
  if (!ranks.root()) return 0;
  // The map of an earlier run would sit beside the new data until the plot
  // replaces it: removed first, so a plot that fails or is interrupted
  // leaves no picture rather than the wrong one (issue 36).
  {
    std::error_code ignored;
    const auto stale = std::filesystem::path(out_dir) / "stability_map.png";
    if (std::filesystem::is_regular_file(stale, ignored)) std::filesystem::remove(stale, ignored);
  }
  const std::string png = plot_stability_map(out_dir, "", true);  // the summary below names the PNG
  if (flags.quiet) return 0;

  long failed = 0, stable = 0, unstable = 0, overdamped = 0;
  for (const auto& p : points) {
    if (p.status != 0) { ++failed; continue; }
    (p.max_real < 0 ? stable : unstable) += 1;
    overdamped += p.overdamped != 0;
  }
  const long n = static_cast<long>(points.size());
  // The CPU's lockstep lanes, as `run` prints them (the same records either way).
  const int lanes = backend == hs::Backend::cpu && study.descriptor
                        ? hs::stability_lanes_for(*study.descriptor, study.record().friction, flags.lanes)
                        : 1;
  const std::string where = (ranks.size() > 1 ? plural(ranks.size(), "MPI rank") + " x " : std::string()) +
                            (backend == hs::Backend::cpu ? plural(rec.threads, "thread") : rec.device) +
                            (lanes > 1 ? ", " + std::to_string(lanes) + "-lane lockstep" : std::string());
  std::printf("stability: %s (%s, %s) on %s (%s) in %.3f s (%.4g points/s): %ld failed, %ld stable, %ld unstable, %ld overdamped\n",
              plural(n, "point").c_str(), study.model.c_str(), study.friction.c_str(), rec.backend.c_str(), where.c_str(), wall,
              wall > 0 ? n / wall : 0.0, failed, stable, unstable, overdamped);
  std::printf("wrote %s, %s%s%s\n", paths.stability_h5.c_str(), paths.stability_csv.c_str(), png.empty() ? "" : " and ", png.c_str());
  return 0;
}

// The design `check` prints: every row of a small one, the first rows of a
// larger one (hydrosweep run writes them all, /inputs and summary.csv).
constexpr long kDesignRowsAll = 20;    // designs up to this size are printed whole
constexpr long kDesignRowsFirst = 10;  // else this many rows

// The N x P matrix of varied inputs (Study::varied_values: factors, then
// derived parameters), with names and units; values shortest-round-trip
// (std::to_chars), so the printed text reads back to the same doubles.
void print_design(const hs::Study& s) {
  const long n = s.instance_count();
  const std::vector<std::string> names = s.varied_names(), units = s.varied_units();
  if (names.empty()) {
    std::printf("design: %s, no varied input (the base parameters)\n", plural(n, "instance").c_str());
    return;
  }
  const long shown = n <= kDesignRowsAll ? n : kDesignRowsFirst;
  std::vector<std::vector<std::string>> rows = {{"index"}};
  for (size_t k = 0; k < names.size(); ++k) rows[0].push_back(names[k] + " [" + units[k] + "]");
  for (long i = 0; i < shown; ++i) {
    rows.push_back({std::to_string(i)});
    for (double v : s.varied_values(i)) rows.back().push_back(fmt(v));
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  std::printf("design: %s x %s (%s):\n", plural(n, "instance").c_str(),
              plural(static_cast<long>(names.size()), "varied input").c_str(),
              shown == n ? "every row" : ("the first " + std::to_string(shown) + " rows").c_str());
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t k = 0; k < row.size(); ++k) line += " " + row[k] + std::string(width[k] - row[k].size() + 1, ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
  if (shown < n) std::printf("  ... %ld more rows\n", n - shown);
}

int check(const std::string& study_path) {
  const hs::Study study = hs::load_study(study_path);
  // Seed 003's systems: their dense matrices must fit (StudyError, exit 2).
  hs::plan_constrained_memory(study.record(), study.design(), hs::stability_threads(usable_threads(0, true)));
  print_study(study);
  print_design(study);
  return 0;
}

int parameters(const std::string& model) {
  // A model file (docs/model-files.md) or a compiled model.
  std::shared_ptr<const hs::ModelDescriptor> from_file;
  if (hs::names_model_file(model)) from_file = hs::load_model_file(model);
  const hs::ModelDescriptor* m = from_file ? from_file.get() : hs::find_model(model);
  if (!m) {
    std::string names;
    for (const auto& n : hs::model_names()) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("--model \"" + model + "\" is not one of " + names + ", nor a model file (FILE.toml)");
  }
  std::printf("Model %s: %s (%s; %s)\n", m->name.c_str(), m->title.c_str(), m->source.c_str(), m->doc.c_str());
  std::printf("Supports: %s\n\n", hs::model_support_text(*m).c_str());
  std::printf("| Parameter | Unit | Range | Default (%s) | Description |\n", model.c_str());
  std::printf("| --- | --- | --- | --- | --- |\n");
  bool schedule = false;
  for (const auto& p : m->parameters) {
    if (p.role == hs::ParameterInfo::Role::input_schedule) { schedule = true; continue; }
    std::printf("| `%s` | %s | %s | %s | %s |\n", p.name.c_str(), p.unit.c_str(), p.range_text().c_str(),
                fmt(m->defaults[p.index]).c_str(), p.description.c_str());
  }
  if (schedule)
    std::printf("\nThe valve schedule (input.segments, input.time1..%d, input.value1..%d) is set by a study's [input] "
                "table (times, values); /inputs/all records it per instance.\n",
                hs::InputSchedule::kMaxSegments, hs::InputSchedule::kMaxSegments);
  // A model file's coordinates: which joint each q<k> column is (docs/model-files.md §3).
  if (!m->file_path.empty()) {
    std::printf("\nCoordinates of its runs (columns q1, qd1, ...):\n");
    for (const auto& c : m->summary_columns)
      if (c.name.size() > 1 && c.name[0] == 'q' && std::isdigit(static_cast<unsigned char>(c.name[1]))) {
        const std::string what = c.description.rfind("final ", 0) == 0 ? c.description.substr(6) : c.description;
        std::printf("- %s [%s]: %s\n", c.name.c_str(), c.unit.c_str(), what.c_str());
      }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Under a file-size limit (ulimit -f) a write past it raises SIGXFSZ, which
  // would kill the process and leave its temporary files; ignored, the write
  // fails with EFBIG instead and is reported like a full disk (exit 1, the
  // path named, temporaries removed).
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"hydrosweep: parameter studies of hydraulically actuated multibody systems (runs and stability maps)"};
  // The version and the hash of the kernel sources (the device findings' key,
  // host/run/device_verification.hpp).
  app.set_version_flag("--version", std::string(hs::hydrosweep_version()) + " (kernel sources " +
                                        hs::kernel_sources_hash() + ")");
  app.require_subcommand(1);

  std::string study_path, out_dir, model = "four-bar", plot_dir;
  RunFlags flags;
  CLI::App* run_cmd = app.add_subcommand("run", "Run every instance of a study and write DIR/results.h5 and DIR/summary.csv");
  run_cmd->add_option("study", study_path, "Study file (TOML)")->required();
  run_cmd->add_option("-o,--out", out_dir, "Output directory (created if missing)")->required();
  run_cmd->add_option("-j,--threads", flags.threads, "CPU threads (default: all cores)")->check(whole_number_from_1_to(std::numeric_limits<int>::max()));
  add_lanes_option(run_cmd, flags.lanes, "instances", "the model supports lanes");
  run_cmd->add_flag("--resume", flags.resume, "Continue an interrupted run in DIR (same study file)");
  run_cmd->add_option("--extend", flags.extend,
                      "Add N Monte Carlo samples to the finished run in DIR (the same as one run of the larger count)")
      ->check(CLI::Range(1L, hs::kMaxInstances));
  run_cmd->add_option("--chunk-size", flags.chunk_size, "Instances per chunk (resume granularity; default: study or automatic)")
      ->check(whole_number_from_1_to(std::numeric_limits<long>::max()));
  run_cmd->add_option("--progress", flags.progress, "Progress display: auto (bar on a terminal), bar, lines, none")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}));
  run_cmd->add_option("--backend", flags.backend, "auto (CUDA if a device is present, else CPU), cpu, cuda, kokkos")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "kokkos"}));
  run_cmd->add_flag("-q,--quiet", flags.quiet, "Print nothing on success");
  CLI::App* check_cmd = app.add_subcommand("check", "Validate a study file and print its design (the varied inputs of every instance)");
  check_cmd->add_option("study", study_path, "Study file (TOML)")->required();
  CLI::App* params_cmd = app.add_subcommand("parameters", "Print the parameter table (Markdown)");
  params_cmd->add_option("--model", model, "Model whose defaults are shown: a compiled model's name or a model file (FILE.toml)");
  CLI::App* report_cmd = app.add_subcommand("report", "Print a finished study's analysis: statistics, failure probability, Sobol' indices, with units");
  report_cmd->add_option("dir", out_dir, "Study output directory (holding results.h5)")->required();
  CLI::App* plot_cmd = app.add_subcommand("plot", "Plot a finished study (histograms, CDFs, Sobol indices, maps, time histories)");
  plot_cmd->add_option("dir", out_dir, "Study output directory (holding results.h5 or stability.h5)")->required();
  plot_cmd->add_option("-o,--out", plot_dir, "Directory for the figures (default DIR/plots; a stability map: DIR)");
  PlotFlags plot_flags;
  plot_cmd->add_option("--quantity", plot_flags.quantities, "Outputs of a run to plot (default: the [analysis] quantities)");
  plot_cmd->add_option("--slice", plot_flags.slices, "NAME=VALUE: hold a stability map's axis beyond the first two at VALUE (nearest)");
  plot_cmd->add_option("--format", plot_flags.format, "Figure format: png (default), pdf, svg")
      ->check(CLI::IsMember({"png", "pdf", "svg"}));

  StabilityFlags stab;
  CLI::App* stab_cmd = app.add_subcommand(
      "stability", "Equilibrium, reduced Jacobian and eigenvalues of every instance: DIR/stability.h5, stability.csv, stability_map.png");
  stab_cmd->add_option("study", study_path, "Study file (TOML)")->required();
  stab_cmd->add_option("-o,--out", out_dir, "Output directory (created if missing)")->required();
  stab_cmd->add_option("-j,--threads", stab.threads, "CPU threads (default: all cores)")->check(whole_number_from_1_to(std::numeric_limits<int>::max()));
  add_lanes_option(stab_cmd, stab.lanes, "points", "the model's point supports lanes");
  stab_cmd->add_option("--backend", stab.backend, "auto (CUDA if a device and the CUDA stability kernel are present, else CPU), cpu, cuda")
      ->check(CLI::IsMember({"auto", "cpu", "kokkos", "cuda"}));
  stab_cmd->add_flag("-q,--quiet", stab.quiet, "Print nothing on success");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hydrosweep: error: " << elided(e.what(), kMaxMessage) << "\n(run 'hydrosweep --help' for usage)\n";
    return kExitUsage;
  }

  // Under an MPI launcher (host/run/ranks.hpp) every rank runs this; only
  // `run` and `stability` are shared between ranks. Errors are the same on
  // every rank (host/run/rank_collectives.hpp makes them so): rank 0 reports, then every rank waits for the
  // others before it exits, since mpirun ends the whole job at the first rank
  // that exits with an error and rank 0's message could be lost.
  const hs::Launch launch = hs::detect_launch();
  std::optional<hs::RankSession> session;
  auto report = [&](const char* message) {
    if (launch.rank == 0) std::cerr << "hydrosweep: error: " << elided(message, kMaxMessage) << std::endl;
    if (session) session->ranks().barrier();
  };
  try {
    if (launch.under_mpi_launcher) session.emplace(&argc, &argv);  // MPI_Init under mpirun/srun
    const hs::Ranks& ranks = session ? session->ranks() : hs::single_process();
    if (ranks.size() > 1 && !*run_cmd && !*stab_cmd)
      throw UsageError("only `hydrosweep run` and `hydrosweep stability` are shared between MPI ranks; run `" +
                       app.get_subcommands().front()->get_name() + "` as a single process");
    if (*run_cmd) return run(study_path, out_dir, flags, ranks);
    if (*plot_cmd) return plot(out_dir, plot_dir, plot_flags);
    if (*report_cmd) {
      std::printf("%s", hs::analysis_report(out_dir).c_str());
      return 0;
    }
    if (*stab_cmd) return stability(study_path, out_dir, stab, ranks);
    if (*check_cmd) return check(study_path);
    if (*params_cmd) return parameters(model);
  } catch (const hs::MpiUnavailable& e) {
    std::cerr << "hydrosweep: error: " << elided(e.what(), kMaxMessage) << "\n";  // every rank: they cannot talk to each other
    return kExitFailure;
  } catch (const hs::StudyError& e) {
    report(e.what());
    return kExitUsage;
  } catch (const hs::ModelFileError& e) {
    report(e.what());
    return kExitUsage;
  } catch (const UsageError& e) {
    report(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    report(e.what());
    session.reset();  // MPI_Finalize before the exit below skips the destructors
    // The writers have removed their temporaries during unwinding. Leave
    // without the atexit handlers: after a failed write (full disk, file-size
    // limit) HDF5 1.10 keeps the file whose close failed, and its own atexit
    // cleanup then crashes on it (H5F__close_cb), which would turn exit 1
    // into a segmentation fault.
    std::fflush(nullptr);
    std::_Exit(kExitFailure);
  }
  return kExitUsage;
}
