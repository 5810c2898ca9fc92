// `hydrosweep run` as one call (host/cli/run_study.hpp).
#include "host/cli/run_study.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "host/registry/models.hpp"
#include "host/results/finished_run.hpp"
#include "host/results/study_analysis.hpp"
#include "host/run/device_verification.hpp"
#include "host/run/memory_budget.hpp"
#include "host/run/rank_collectives.hpp"
#include "host/run/reference_run.hpp"
#include "host/version.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hs {
namespace fs = std::filesystem;

// --extend: rows of the finished run read back per block (bounded memory).
constexpr long kExtendReadBlock = 1L << 16;

// `--extend N` (run_study.hpp): the refusals are ResumeErrors (the CLI's
// exit 2, Python's StudyError).
ExtendedStudy extend_study(const Study& study, const std::string& out_dir, long more) {
  const std::string& study_path = study.record().path;
  if (more < 1) throw ResumeError("--extend " + std::to_string(more) + ": the samples to add must be >= 1");
  if (study.design().method != SampleMethod::monte_carlo)
    throw ResumeError("--extend adds samples to a Monte Carlo study; " + study_path + " uses sample.method = \"" +
                      sample_method_name(study.design().method) +
                      "\" (a Latin hypercube, Sobol' or Saltelli design of another count is another design)");
  finish_interrupted_write(out_dir);
  const fs::path results = fs::path(out_dir) / "results.h5";
  if (!fs::exists(results))
    throw ResumeError("--extend adds to a finished run; " + out_dir + " has no results.h5 (run the study first)");
  ExtendedStudy out;
  try {
    out.finished = std::make_unique<FinishedRun>(results.string());
  } catch (const OutputError& e) {
    throw ResumeError(e.what());
  }
  // Rows of another build (other kernels, other column layout) are not those
  // this build would compute: one run of the larger count is what is promised.
  if (out.finished->version() != hydrosweep_version())
    throw ResumeError("--extend: " + results.string() + " was written by hydrosweep " + out.finished->version() +
                      ", this is " + hydrosweep_version() +
                      "; its instances are not this build's. Run the study again with the larger count");
  const long have = out.finished->instance_count();
  try {
    if (study_text_with_sample_count(study.record().text, study_path, have) != out.finished->study_text())
      throw ResumeError(results.string() + " holds the results of another study (its study_text differs from " +
                        study_path + " with sample.count = " + std::to_string(have) +
                        "); --extend adds samples to the same study");
    if (more > kMaxInstances - have)
      throw ResumeError("--extend " + std::to_string(more) + ": " + std::to_string(have) + " + " + std::to_string(more) +
                        " instances is more than the limit of " + std::to_string(kMaxInstances) + " per study");
    out.study = parse_study(study_text_with_sample_count(study.record().text, study_path, have + more), study_path);
    require_command(out.study, "run");
  } catch (const StudyError& e) {
    throw ResumeError(e.what());
  }
  return out;
}

StudyRunReport run_study(const StudyRecord& record, const Design& design, const std::string& out_dir,
                         const StudyRunOptions& opt) {
  // The CLI refuses first (exit 2); this guards library callers.
  if (!design.descriptor->supports_command("run"))
    throw std::invalid_argument(record.path + ": model " + record.model + " cannot be run (" +
                                model_support_text(*design.descriptor) + ")");
  StudyRunReport rep;
  const Backend requested = opt.backend != Backend::automatic ? opt.backend : record.backend;
  Backend backend = resolve_backend(requested);
  std::string why;
  if (!backend_available(backend, &why)) throw ResumeError("backend " + backend_name(backend) + ": " + why);
  // A formulation the CUDA backend is not built for (the CPU reference
  // integrator, or a kernel too large for a GPU thread): `auto` runs it on
  // the CPU, an explicit `cuda` is refused with the reason.
  if (backend == Backend::cuda &&
      !ModelDescriptor::contains(design.descriptor->device_formulations, record.formulation)) {
    if (requested != Backend::automatic)
      throw ResumeError("backend cuda: formulation " + record.formulation + " of model " + record.model +
                        " is not built for the CUDA backend (" +
                        design.descriptor->off_device_reason(record.formulation) + "); use --backend cpu or kokkos");
    backend = Backend::cpu;
  }
  // What a device measured of this combination (host/run/device_verification.hpp).
  if (backend == Backend::cuda) {
    const DeviceDecision d =
        decide_device("run", *design.descriptor, record.formulation, record.friction, requested != Backend::automatic);
    if (!d.refusal.empty()) throw ResumeError(d.refusal);
    if (!d.use_device) backend = Backend::cpu;
    rep.note = d.note;
  }
  rep.backend = backend_name(backend);
  const Ranks& ranks = opt.ranks ? *opt.ranks : single_process();
  if (opt.extend && ranks.size() > 1)
    throw ResumeError("--extend runs in one process (the finished run is read by one); run it without mpirun");
  if (ranks.size() > 1) use_device_of_local_rank(backend, ranks.local_rank());
  const long n = design.instance_count();
  const long samples = sample_count(record.settings, record.trajectory_stride);
  // --extend: instances [0, kept) come from the finished run; the chunks
  // cover [kept, n) (chunk c: kept + c * chunk ...).
  const long kept = opt.extend ? opt.extend->instance_count() : 0;
  if (opt.extend && (kept < 0 || kept > n))
    throw ResumeError("--extend: the finished run has " + std::to_string(kept) + " instances, more than the extended study's " +
                      std::to_string(n));
  rep.extended_from = kept;
  rep.instances = n;
  rep.ranks = ranks.size();
  const int threads = ranks.threads_per_rank(opt.threads);  // the ranks on a node share its cores
#ifdef _OPENMP
  rep.threads = threads > 0 ? threads : omp_get_max_threads();
#endif
  check_output_dir(out_dir);
  const fs::path out = fs::absolute(out_dir);
  const fs::path partial = out / kPartialDirName;
  const fs::path manifest_path = partial / "manifest";

  // Every study-sized buffer is checked against the memory budget before
  // anything is allocated; the automatic chunk size fits it (host/run/memory_budget.hpp).
  long chunk = plan_run_memory(record, design, opt.chunk_size > 0 ? opt.chunk_size : record.chunk_size, rep.threads,
                               backend == Backend::cuda);

  std::error_code ec;
  std::vector<ManifestLine> manifest = manifest_lines(record, design, n, samples);
  if (opt.extend)  // an interrupted extension resumes only as the same extension
    manifest.push_back({"extends", std::to_string(kept), ManifestSource::study,
                        "the instances of the finished run this run extends (--extend)"});
  PartialDirGuard partial_guard(partial);  // armed on rank 0 only: the directory is its to remove
  std::unique_ptr<RunLock> lock;           // rank 0's, for the whole run (declared after the guard: released first)
  // Rank 0 creates the partial directory and its manifest, or checks the
  // interrupted run's; the others take its chunk size.
  on_root(ranks, [&] {
    // Another run writing here is refused before anything is looked at.
    if (fs::is_directory(partial, ec)) lock = std::make_unique<RunLock>(partial, out_dir);
    const bool have_partial = fs::exists(manifest_path, ec);
    if (have_partial) {
      if (!opt.resume)
        throw ResumeError(out_dir + " holds an interrupted run (" + (partial).string() +
                          "); continue it with --resume, "
                          "or delete that directory to start over");
      chunk = check_manifest(manifest_path, out_dir, manifest, n);  // the chunking of the run being continued
      require_memory(
          record, run_chunk_bytes(record, design, chunk), "the interrupted run's chunk size " + std::to_string(chunk),
          "one chunk's parameters, summaries and trajectories", "run it on a machine with more memory, or start over");
    } else {
      if (opt.resume) throw nothing_to_resume(out_dir, out);
      // A manifest is written before any chunk, so chunks without one are not
      // this program's leftovers: whose study they hold cannot be told.
      if (has_chunk_files(partial))
        throw ResumeError(partial.string() +
                          " holds chunk files but no manifest, so which study and build they belong to "
                          "cannot be told; delete that directory to start over");
      fs::create_directories(partial, ec);
      if (ec) throw OutputError("cannot create " + partial.string() + ": " + ec.message());
      // Locked before the guard is armed: a run that loses the race to a
      // second one starting at the same moment must not remove its directory.
      if (!lock) lock = std::make_unique<RunLock>(partial, out_dir);
      partial_guard.arm(true);
      write_file_atomic(manifest_path, manifest_text(manifest, chunk));
    }
    partial_guard.arm(true);
  });
  if (ranks.size() > 1) chunk = ranks.broadcast(chunk);
  rep.chunk_size = chunk;
  const long chunks = (n - kept + chunk - 1) / chunk;
  const ChunkIdentity identity{study_hash(record), chunk};
  rep.chunks = chunks;
  auto chunk_first = [&](long c) { return kept + c * chunk; };
  auto chunk_instances = [&](long c) { return std::min(chunk, n - chunk_first(c)); };

  // Which chunks are done? A damaged one stops the resume before anything
  // runs; leftover *.tmp files of a killed run are not chunks and are ignored
  // (rewritten when their chunk runs, removed with the directory at the end).
  const long C = static_cast<long>(design.descriptor->summary_columns.size());
  const long W = static_cast<long>(design.descriptor->trajectory_channels.size());
  auto layout = [&](long count) { return ChunkLayout{count, samples, C, W}; };
  std::vector<Status> status(static_cast<size_t>(n), Status::not_run);
  // Of the summary rows only the analysed columns are held (N values each);
  // the rows stay in the chunk files until the writers stream them.
  const std::vector<std::string> analysed_names = record.analysis.columns();
  std::vector<long> analysed_index;
  for (const auto& name : analysed_names) analysed_index.push_back(design.descriptor->summary_column(name));
  std::vector<std::vector<double>> analysed(analysed_names.size(), std::vector<double>(static_cast<size_t>(n)));
  auto keep_analysed = [&](long first, long count, const double* rows) {
    for (size_t k = 0; k < analysed.size(); ++k)
      for (long i = 0; i < count; ++i) analysed[k][first + i] = rows[i * C + analysed_index[k]];
  };
  if (opt.extend) {
    // The finished run's statuses and analysed columns, a block of rows at a
    // time into the run's own (its summary rows stay in its file until the
    // writers stream them): nothing study-sized beyond what plan_run_memory counted.
    std::vector<double> rows;
    for (long first = 0; first < kept; first += kExtendReadBlock) {
      const long count = std::min(kExtendReadBlock, kept - first);
      opt.extend->statuses(first, count, status.data() + first);
      rows.resize(static_cast<size_t>(count * C));
      opt.extend->summary_rows(first, count, design.descriptor->summary_columns, rows.data());
      keep_analysed(first, count, rows.data());
    }
  }
  std::vector<double> chunk_rows;  // one chunk's summary rows, read back on resume
  // A chunk file's statuses and analysed columns into the run's; "" or what is wrong with it.
  auto load_chunk = [&](long c) {
    const long first = chunk_first(c), count = chunk_instances(c);
    chunk_rows.resize(static_cast<size_t>(count * C));
    const std::string problem = read_chunk_summaries(chunk_path(partial, c), first, layout(count), identity,
                                                     status.data() + first, chunk_rows.data());
    if (problem.empty()) keep_analysed(first, count, chunk_rows.data());
    return problem;
  };
  std::vector<char> done(static_cast<size_t>(chunks), 0);
  on_root(ranks, [&] {
    std::vector<std::pair<fs::path, std::string>> damaged;
    for (long c = 0; c < chunks; ++c) {
      const fs::path p = chunk_path(partial, c);
      if (!fs::exists(p, ec)) continue;
      const std::string problem = load_chunk(c);
      if (!problem.empty()) {
        damaged.emplace_back(p, problem);
        continue;
      }
      done[c] = 1;
      rep.resumed += chunk_instances(c);
    }
    if (!damaged.empty()) refuse_damaged_chunks(out_dir, damaged);
  });
  // This rank's chunks: every size-th of those left to run.
  std::vector<char> mine(static_cast<size_t>(chunks), 0);
  long own_instances = 0;
  if (ranks.size() > 1) {
    ranks.broadcast(done);
    rep.resumed = ranks.broadcast(rep.resumed);
  }
  for (long c = 0, k = 0; c < chunks; ++c) {
    if (done[c]) continue;
    mine[c] = k++ % ranks.size() == ranks.rank();
    if (mine[c]) own_instances += chunk_instances(c);
  }

  BatchSpec base = batch_spec(record, design, threads, 0, 0);
  if (record.analysis.reference_run) base.reference = reference_trajectory(record, design, opt.cancel);
  base.cancel = opt.cancel;

  // An output failure (disk full, file-size limit) keeps the finished chunks
  // for --resume, and says so.
  // Each chunk file is written behind the next chunk's integration where
  // memory holds a second chunk's results (run_chunk_bytes counts two copies).
  ChunkWriter chunk_writer(1.5 * run_chunk_bytes(record, design, chunk) <= memory_budget().bytes);
  auto keeping_finished_chunks = [&](const OutputError& e) {
    const long saved = rep.resumed + chunk_writer.written();
    if (saved == 0) return e;
    return OutputError(std::string(e.what()) + "\n" + std::to_string(saved) + " finished instances are kept in " +
                       partial.string() +
                       ": once the problem is fixed, run again with --resume to go on without "
                       "running them again");
  };
  // Several ranks: rank 0 shows the progress of its own share.
  Progress progress(ranks.root() ? opt.progress : ProgressStyle::none, ranks.size() > 1 ? own_instances : n,
                    ranks.size() > 1 ? 0 : rep.resumed + kept, opt.progress_callback);
  base.progress = &progress.counter();
  on_every_rank(ranks, [&] {
    for (long c = 0; c < chunks; ++c) {
      if (!mine[c]) continue;
      if (opt.cancel && opt.cancel->load()) {
        rep.interrupted = true;
        break;
      }
      const long first = chunk_first(c), count = chunk_instances(c);
      BatchSpec spec = batch_spec(record, design, threads, first, count);
      spec.lanes = opt.lanes;
      spec.reference = base.reference;
      spec.cancel = base.cancel;
      spec.progress = base.progress;
      std::vector<long> inadmissible;
      const std::vector<std::string> problems = design.instance_problems(spec.row(0), count, threads);
      for (long k = 0; k < count; ++k) {
        const std::string& why = problems[static_cast<size_t>(k)];
        if (why.empty()) continue;
        inadmissible.push_back(k);
        if (rep.invalid_reasons.size() < kInvalidReasonsKept)
          rep.invalid_reasons.push_back("instance " + std::to_string(first + k) + ": " + why);
        ++rep.invalid_count;
      }
      BatchResult r = run_batch(spec, backend);
      if (r.cancelled) {
        rep.interrupted = true;
        break;
      }  // discard the unfinished chunk
      // Parameters the model may not see (derived out of range, rod thicker
      // than the piston): flagged, whatever the kernel made of them; they have
      // no state to report (unstarted_summary: NaN values, blank samples).
      for (long k : inadmissible) r.mark_unstarted(k, Status::invalid_parameters);
      std::copy(r.status.begin(), r.status.end(), status.begin() + first);
      keep_analysed(first, count, r.summaries.data());
      rep.ran += count;
      rep.wall_seconds += r.wall_seconds;
      rep.lanes = std::max(rep.lanes, r.lanes_used);
      rep.active_lane_iterations += r.active_lane_iterations;
      rep.lane_iterations += r.lane_iterations;
      const long steps_column = design.descriptor->summary_column("steps");
      for (long k = 0; k < count; ++k) rep.steps += static_cast<long>(r.summary(k, steps_column));
      try {
        chunk_writer.write(chunk_path(partial, c), first, std::move(r), identity);
      } catch (const OutputError& e) { throw keeping_finished_chunks(e); }
    }
    // Every chunk file on disk before the ranks compare and rank 0 reads them back.
    try {
      chunk_writer.finish();
    } catch (const OutputError& e) { throw keeping_finished_chunks(e); }
  });
  progress.stop();
  if (ranks.size() > 1) {
    rep.interrupted = ranks.sum(rep.interrupted ? 1L : 0L) > 0;
    rep.ran = ranks.sum(rep.ran);
    rep.steps = ranks.sum(rep.steps);
    rep.active_lane_iterations = ranks.sum(rep.active_lane_iterations);
    rep.lane_iterations = ranks.sum(rep.lane_iterations);
    rep.lanes = static_cast<int>(ranks.max(static_cast<double>(rep.lanes)));
    rep.wall_seconds = ranks.max(rep.wall_seconds);  // the slowest rank's integration time
    // Rank 0 reads the other ranks' chunks back (they wrote them before the sums above).
    if (!rep.interrupted)
      on_root(ranks, [&] {
        for (long c = 0; c < chunks; ++c) {
          if (done[c] || mine[c]) continue;
          const std::string problem = load_chunk(c);
          if (!problem.empty())
            throw OutputError("chunk file " + chunk_path(partial, c).string() + " of another rank " + problem);
        }
      });
  }
  for (Status s : status)
    if (s != Status::ok) {
      ++rep.failed;
      ++rep.failures[status_name(s)];
    }
  if (rep.interrupted) return rep;

  on_root(ranks, [&] {
    const StudyAnalysis analysis = analyse(record, design, status, analysed);
    analysed = {};  // released before the writers run
    // Rows [first, first + count) from the chunk files they are in (rows may span chunks).
    auto from_chunks = [&](long first, long count, long row_doubles, double* dst,
                           void (*read)(const fs::path&, const ChunkLayout&, long, long, double*)) {
      while (count > 0) {
        const long c = (first - kept) / chunk, in_chunk = first - chunk_first(c);
        const long chunk_count = chunk_instances(c);
        const long take = std::min(count, chunk_count - in_chunk);
        read(chunk_path(partial, c), layout(chunk_count), in_chunk, take, dst);
        dst += take * row_doubles;
        first += take;
        count -= take;
      }
    };
    StudyResults res;
    res.status = std::move(status);
    res.summary_width = C;
    res.summaries = [&](long first, long count, double* dst) {
      const long old = std::clamp(kept - first, 0L, count);  // the finished run's rows first
      if (old > 0) opt.extend->summary_rows(first, old, design.descriptor->summary_columns, dst);
      if (count > old) from_chunks(first + old, count - old, C, dst + old * C, read_chunk_summary_rows);
    };
    res.samples_per_instance = samples;
    res.sample_width = W;
    res.trajectories = [&](long first, long count, double* dst) {
      const long old = std::clamp(kept - first, 0L, count);
      if (old > 0) opt.extend->trajectory_rows(first, old, design.descriptor->trajectory_channels, samples, dst);
      if (count > old) from_chunks(first + old, count - old, samples * W, dst + old * samples * W, read_chunk_trajectories);
    };
    res.run.backend = rep.backend;
    res.run.device = backend_device(backend);
    res.run.threads = backend == Backend::cpu ? rep.threads : 0;
    res.run.ranks = ranks.size();
    res.run.wall_seconds = rep.wall_seconds;
    res.run.chunk_size = chunk;
    res.run.chunks = chunks;
    res.run.resumed_instances = rep.resumed + kept;  // instances this call did not run
    res.analysis = &analysis;
    try {
      rep.paths = write_outputs(out_dir, record, design, res);
    } catch (const OutputError& e) {
      throw keeping_finished_chunks(e);  // write_outputs leaves nothing behind; the chunks stay
    }
    fs::remove_all(partial, ec);  // the outputs are complete; the chunks are no longer needed
  });
  return rep;
}

}  // namespace hs
