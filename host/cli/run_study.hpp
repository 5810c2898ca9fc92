// `hydrosweep run` as one call (the CLI's and the Python package's): the
// orchestration of the stages, and nothing else. It resolves the backend,
// plans memory (host/run/memory_budget.hpp), prepares or checks the chunk
// store (host/run/chunk_store.hpp: chunks, manifest, resume), runs this
// process's chunks on the backend (host/run/batch.hpp) with progress
// (host/run/progress.hpp), then, when every chunk is present, analyses
// (host/results/study_analysis.hpp) and writes DIR/results.h5 and
// DIR/summary.csv as one transaction (host/results/output.hpp), and removes
// the partial directory. A call that ends without results and without a
// finished chunk removes the partial directory (and the directories it
// created for it).
//
// Every instance is a pure function of the study text (sampling is
// index-addressable, host/design/sampling.hpp), so resumed and uninterrupted runs
// give the same results; only the run record (wall time, date) differs.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/results/finished_run.hpp"
#include "host/results/output.hpp"
#include "host/run/chunk_store.hpp"
#include "host/run/errors.hpp"
#include "host/run/progress.hpp"
#include "host/run/ranks.hpp"
#include "host/study/study.hpp"

namespace hs {

struct StudyRunOptions {
  int threads = 0;                       // 0: all cores (CPU backend)
  int lanes = 0;                         // CPU backend: lockstep SIMD lanes, BatchSpec::lanes (0: automatic)
  Backend backend = Backend::automatic;  // auto: the study's [execution] backend, then CUDA if a device is present
  long chunk_size = 0;                   // 0: the study's [execution] chunk_size, else automatic
  bool resume = false;                   // continue an interrupted run in the output directory
  ProgressStyle progress = ProgressStyle::automatic;  // automatic: bar on a terminal, lines otherwise
  ProgressCallback progress_callback;                 // ProgressStyle::callback: called instead of printing
  const std::atomic<bool>* cancel = nullptr;          // stop cleanly when it becomes true (Ctrl-C)
  // The processes sharing this study (host/run/ranks.hpp); null: this one
  // alone. Every rank calls run_study with the same arguments; each runs its
  // share of the chunks, rank 0 prepares the partial directory and writes the
  // outputs; an error anywhere ends every rank with the same exception.
  const Ranks* ranks = nullptr;
  // `--extend`: the finished run in the output directory whose instances
  // [0, extend->instance_count()) this run keeps (read back, value for
  // value) while it runs the rest of the study's, then writes the whole.
  // Null: an ordinary run. One process only.
  const FinishedRun* extend = nullptr;
};

constexpr size_t kInvalidReasonsKept = 10;

struct StudyRunReport {
  long instances = 0;
  long ran = 0;      // instances integrated by this call
  long resumed = 0;  // instances read back from an earlier, interrupted call
  long extended_from = 0;  // --extend: the finished run's instances, kept
  long failed = 0;
  long steps = 0;                        // successful steps of the instances this call ran
  std::map<std::string, long> failures;  // status name -> count
  double wall_seconds = 0.0;             // this call's integration time
  int threads = 1;                       // per rank
  // CPU backend: the lockstep lanes the chunks ran with (1: one instance at a
  // time), and the lanes still iterating over the lanes × Newton iterations
  // run, summed over the chunks and ranks (utilization = their ratio).
  int lanes = 1;
  long active_lane_iterations = 0, lane_iterations = 0;
  int ranks = 1;        // MPI ranks that shared the study
  std::string backend;  // the backend that ran
  std::string note;     // why `auto` did not take the GPU, or a warning about it (device_verification.hpp)
  long chunk_size = 0, chunks = 0;
  bool interrupted = false;  // cancelled: nothing but the finished chunks was kept
  // Why instances were not run as invalid_parameters (the parameter and its
  // range, or the model's reason), "instance I: why", for the first
  // kInvalidReasonsKept of this call; invalid_count counts them all.
  std::vector<std::string> invalid_reasons;
  long invalid_count = 0;
  OutputPaths paths;  // empty when interrupted
};

// `--extend N`: the study of the finished run in out_dir with N more Monte
// Carlo samples (sample.count = the run's instances + N, the text otherwise
// the study's, host/study/study.hpp study_text_with_sample_count) and that
// run, to pass as StudyRunOptions::extend. Instance i of a Monte Carlo design
// is a pure function of (seed, i) (host/design/sampling.hpp), so the result
// equals one run of the larger count. Throws ResumeError unless out_dir holds
// a finished run of this study (its text with the count set to the run's),
// the design is Monte Carlo and N >= 1 (docs/study-files.md, "Extending a
// Monte Carlo study"). The outputs are replaced together at the end
// (host/results/output.hpp): an interrupted extension leaves the finished run.
struct ExtendedStudy {
  Study study;
  std::unique_ptr<FinishedRun> finished;
};
ExtendedStudy extend_study(const Study& study, const std::string& out_dir, long more);

// Throws StudyError-free errors only: ResumeError, OutputError, std::exception.
StudyRunReport run_study(const StudyRecord& record, const Design& design, const std::string& out_dir,
                         const StudyRunOptions& options);

}  // namespace hs
