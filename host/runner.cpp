// Chunked, resumable study runs (see runner.hpp).
#include "host/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "kernels/integrators/double_step_trapezoidal.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hs {
namespace {
namespace fs = std::filesystem;

// FNV-1a, 64 bit: identifies the study text and checks chunk files.
std::uint64_t fnv1a(const void* data, size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) { h ^= p[i]; h *= 0x100000001b3ULL; }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// ---- chunk files ------------------------------------------------------------
// Layout: magic "HSCHUNK1", int64 first, count, samples_per_instance, then
// count FourBarSummary, count x M FourBarSample (raw, this build's layout,
// guarded by the manifest's version and struct sizes), then the FNV-1a of
// everything before it.
constexpr char kChunkMagic[8] = {'H', 'S', 'C', 'H', 'U', 'N', 'K', '1'};
constexpr long kHeaderBytes = 8 + 3 * 8;

struct ChunkHeader {
  std::int64_t first, count, samples;
};

fs::path chunk_path(const fs::path& partial, long chunk) {
  char name[32];
  std::snprintf(name, sizeof name, "chunk-%08ld.bin", chunk);
  return partial / name;
}

void write_chunk(const fs::path& path, long first, const BatchResult& r) {
  const fs::path tmp = path.string() + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw OutputError("cannot create " + tmp.string() + ": " + std::strerror(errno));
  std::uint64_t h = 0xcbf29ce484222325ULL;
  bool ok = true;
  auto put = [&](const void* p, size_t n) {
    if (n == 0) return;
    ok = ok && std::fwrite(p, 1, n, f) == n;
    h = fnv1a(p, n, h);
  };
  const ChunkHeader head{first, static_cast<std::int64_t>(r.summaries.size()), r.samples_per_instance};
  put(kChunkMagic, 8);
  put(&head, sizeof head);
  put(r.summaries.data(), r.summaries.size() * sizeof(FourBarSummary));
  put(r.trajectories.data(), r.trajectories.size() * sizeof(FourBarSample));
  ok = ok && std::fwrite(&h, 1, sizeof h, f) == sizeof h;
  ok = ok && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  const int saved = errno;
  if (std::fclose(f) != 0 || !ok) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw OutputError("writing " + tmp.string() + " failed: " + std::strerror(saved));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);  // atomic: the chunk is complete or absent
  if (ec) throw OutputError("cannot rename " + tmp.string() + ": " + ec.message());
}

// Reads the summaries of a chunk file and verifies it; false if the file is
// damaged (then the chunk is simply run again).
bool read_chunk_summaries(const fs::path& path, long first, long count, long samples, FourBarSummary* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t body = kHeaderBytes + count * sizeof(FourBarSummary) + count * samples * sizeof(FourBarSample);
  if (bytes.size() != body + 8) return false;
  if (std::memcmp(bytes.data(), kChunkMagic, 8) != 0) return false;
  ChunkHeader head;
  std::memcpy(&head, bytes.data() + 8, sizeof head);
  if (head.first != first || head.count != count || head.samples != samples) return false;
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, 8);
  if (stored != fnv1a(bytes.data(), body)) return false;
  std::memcpy(out, bytes.data() + kHeaderBytes, count * sizeof(FourBarSummary));
  return true;
}

void read_chunk_trajectories(const fs::path& path, long count, long samples, long offset, long n, FourBarSample* out) {
  std::ifstream in(path, std::ios::binary);
  const std::streamoff at = kHeaderBytes + count * sizeof(FourBarSummary) + offset * samples * sizeof(FourBarSample);
  in.seekg(at);
  in.read(reinterpret_cast<char*>(out), n * samples * sizeof(FourBarSample));
  if (!in) throw OutputError("reading trajectories back from " + path.string() + " failed");
}

// ---- manifest ---------------------------------------------------------------

std::string manifest_text(const Study& study, long n, long chunk, long samples) {
  std::ostringstream m;
  m << "hydrosweep partial run 1\n"
    << "version " << hydrosweep_version() << "\n"
    << "study_hash " << hex(fnv1a(study.text.data(), study.text.size())) << "\n"
    << "instances " << n << "\n"
    << "chunk_size " << chunk << "\n"
    << "samples_per_instance " << samples << "\n"
    << "record_bytes " << sizeof(FourBarSummary) << " " << sizeof(FourBarSample) << "\n";
  return m.str();
}

std::map<std::string, std::string> parse_manifest(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    if (sp != std::string::npos) kv[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return kv;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file_atomic(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw OutputError("cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) throw OutputError("cannot rename " + tmp.string() + ": " + ec.message());
}

// ---- progress -----------------------------------------------------------------

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// Prints progress from its own thread: a redrawn bar on a terminal, a line
// every 10 s otherwise. Counts are instances; the rate is this call's.
class Progress {
 public:
  Progress(ProgressStyle style, long total, long already_done)
      : total_(total), base_(already_done), start_(std::chrono::steady_clock::now()) {
    if (style == ProgressStyle::automatic) style = ::isatty(fileno(stderr)) ? ProgressStyle::bar : ProgressStyle::lines;
    style_ = style;
    if (style_ == ProgressStyle::none) return;
    thread_ = std::thread([this] { loop(); });
  }
  ~Progress() { stop(); }
  std::atomic<long>& counter() { return done_; }
  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    print(true);
  }

 private:
  void loop() {
    const auto period = style_ == ProgressStyle::bar ? std::chrono::milliseconds(250) : std::chrono::milliseconds(10000);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stopping_; })) print(false);
  }
  void print(bool final) {
    const long done = base_ + done_.load();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = elapsed > 0 ? done_.load() / elapsed : 0.0;
    const double eta = rate > 0 ? (total_ - done) / rate : std::numeric_limits<double>::quiet_NaN();
    const double frac = total_ > 0 ? static_cast<double>(done) / total_ : 1.0;
    char tail[160];
    std::snprintf(tail, sizeof tail, "%5.1f%%  %ld/%ld instances  %.3g inst/s  elapsed %s  ETA %s", 100 * frac, done, total_,
                  rate, clock_text(elapsed).c_str(), final ? "0:00" : clock_text(eta).c_str());
    if (style_ == ProgressStyle::bar) {
      constexpr int width = 30;
      const int fill = static_cast<int>(frac * width);
      std::string bar(width, ' ');
      for (int i = 0; i < fill && i < width; ++i) bar[i] = '=';
      if (fill < width) bar[fill] = '>';
      std::fprintf(stderr, "\r[%s] %s\033[K%s", bar.c_str(), tail, final ? "\n" : "");
    } else {
      std::fprintf(stderr, "progress: %s\n", tail);
    }
    std::fflush(stderr);
  }

  ProgressStyle style_;
  long total_, base_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<long> done_{0};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

// z_1 of the nominal instance (the study's base parameters) at every step,
// the reference of tracking_rms. Empty if that run fails.
std::vector<double> reference_trajectory(const Study& study) {
  BatchSpec one;
  one.instances = {study.base};
  one.settings = study.settings;
  one.friction = study.friction;
  one.trajectory_stride = 1;
  one.threads = 1;
  const BatchResult r = run_batch_cpu(one);
  if (r.summaries[0].status != Status::ok) return {};
  std::vector<double> ref(r.trajectories.size());
  for (size_t k = 0; k < ref.size(); ++k) ref[k] = r.trajectories[k].q[0];
  return ref;
}

}  // namespace

StudyAnalysis analyse(const Study& study, const std::vector<FourBarSummary>& summaries) {
  StudyAnalysis a;
  const AnalysisSpec& spec = study.analysis;
  a.confidence = spec.confidence;
  a.quantile_levels = spec.quantile_levels;
  BootstrapOptions boot;
  boot.resamples = static_cast<size_t>(spec.bootstrap);
  boot.level = spec.confidence;
  boot.seed = study.seed ^ 0x5EEDB007ULL;
  // A failed instance's outputs are NaN for the statistics, whatever it left
  // in its summary (they describe a truncated run).
  auto column = [&](const std::string& name) {
    const OutputColumn* col = nullptr;
    for (const auto& c : summary_columns())
      if (c.name == name) col = &c;
    std::vector<double> v(summaries.size());
    for (size_t i = 0; i < summaries.size(); ++i)
      v[i] = summaries[i].status == Status::ok ? col->value(summaries[i]) : std::numeric_limits<double>::quiet_NaN();
    return v;
  };
  for (const auto& f : study.grid) a.sobol_factors.push_back(f.name);
  for (const auto& q : spec.quantities) {
    const std::vector<double> v = column(q);
    a.statistics.emplace_back(q, summarize_monte_carlo(v, spec.quantile_levels, boot));
    if (study.method == SampleMethod::saltelli) a.sobol.emplace_back(q, sobol_indices(v, study.grid.size(), boot));
  }
  if (spec.has_limit) {
    a.has_failure = true;
    a.failure_quantity = spec.limit_quantity;
    a.limit = spec.limit;
    a.limit_above = spec.limit_above;
    a.failure = failure_probability(column(spec.limit_quantity), spec.limit,
                                    spec.limit_above ? LimitState::above : LimitState::below, spec.confidence);
  }
  return a;
}

StudyRunReport run_study(const Study& study, const std::string& out_dir, const StudyRunOptions& opt) {
  // The 3D model has no time integrator (the CLI says so first; this guards
  // library callers): running it would silently integrate the planar model.
  if (model_is_linearization_only(study.model))
    throw std::invalid_argument(study.path + ": model \"" + study.model +
                                "\" is for linearization only (hydrosweep stability); time integration uses \"four-bar\"");
  StudyRunReport rep;
  const Backend backend = resolve_backend(opt.backend != Backend::automatic ? opt.backend : study.backend);
  std::string why;
  if (!backend_available(backend, &why)) throw ResumeError("backend " + backend_name(backend) + ": " + why);
  rep.backend = backend_name(backend);
  const long n = study.instance_count();
  const long samples = sample_count(study.settings, study.trajectory_stride);
  rep.instances = n;
#ifdef _OPENMP
  rep.threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
#endif
  check_output_dir(out_dir);
  const fs::path out = fs::absolute(out_dir);
  const fs::path partial = out / kPartialDirName;
  const fs::path manifest_path = partial / "manifest";

  long chunk = opt.chunk_size > 0 ? opt.chunk_size : study.chunk_size;
  if (chunk <= 0) chunk = std::clamp<long>(n / 20, 8L * rep.threads, 65536);  // ≥ 20 chunks: progress and resume granularity
  chunk = std::max<long>(1, std::min(chunk, std::max<long>(n, 1)));

  std::error_code ec;
  const bool have_partial = fs::exists(manifest_path, ec);
  if (have_partial) {
    const auto old = parse_manifest(read_file(manifest_path));
    auto get = [&](const char* k) { auto it = old.find(k); return it == old.end() ? std::string("?") : it->second; };
    if (!opt.resume)
      throw ResumeError(out_dir + " holds an interrupted run (" + (partial).string() + "); continue it with --resume, "
                        "or delete that directory to start over");
    const std::string hash = hex(fnv1a(study.text.data(), study.text.size()));
    if (get("study_hash") != hash)
      throw ResumeError("--resume: the interrupted run in " + out_dir + " was made from a different study text (hash " +
                        get("study_hash") + ", this study " + hash + "); delete " + partial.string() + " to start over");
    if (get("version") != hydrosweep_version() ||
        get("record_bytes") != std::to_string(sizeof(FourBarSummary)) + " " + std::to_string(sizeof(FourBarSample)))
      throw ResumeError("--resume: the interrupted run in " + out_dir + " was made by hydrosweep " + get("version") +
                        ", this is " + hydrosweep_version() + "; delete " + partial.string() + " to start over");
    chunk = std::stol(get("chunk_size"));  // the chunking of the run being continued
  } else {
    fs::create_directories(partial, ec);
    if (ec) throw OutputError("cannot create " + partial.string() + ": " + ec.message());
    write_file_atomic(manifest_path, manifest_text(study, n, chunk, samples));
  }
  rep.chunk_size = chunk;
  const long chunks = (n + chunk - 1) / chunk;
  rep.chunks = chunks;

  // Which chunks are done (and valid)?
  std::vector<FourBarSummary> summaries(static_cast<size_t>(n));
  std::vector<char> done(static_cast<size_t>(chunks), 0);
  for (long c = 0; c < chunks; ++c) {
    const long first = c * chunk, count = std::min(chunk, n - first);
    const fs::path p = chunk_path(partial, c);
    if (fs::exists(p, ec) && read_chunk_summaries(p, first, count, samples, summaries.data() + first)) {
      done[c] = 1;
      rep.resumed += count;
    }
  }

  BatchSpec base = study.batch_spec(opt.threads, 0, 0);
  if (study.analysis.reference_run) base.reference = reference_trajectory(study);
  base.cancel = opt.cancel;

  Progress progress(opt.progress, n, rep.resumed);
  base.progress = &progress.counter();
  for (long c = 0; c < chunks; ++c) {
    if (done[c]) continue;
    if (opt.cancel && opt.cancel->load()) { rep.interrupted = true; break; }
    const long first = c * chunk, count = std::min(chunk, n - first);
    BatchSpec spec = base;
    spec.instances.clear();
    spec.instances.reserve(count);
    std::vector<long> inadmissible;
    for (long i = first; i < first + count; ++i) {
      spec.instances.push_back(study.instance(i));
      if (!study.instance_problem(spec.instances.back()).empty()) inadmissible.push_back(i - first);
    }
    BatchResult r = run_batch(spec, backend);
    if (r.cancelled) { rep.interrupted = true; break; }  // discard the unfinished chunk
    // Parameters the model may not see (derived out of range, rod thicker
    // than the piston): flagged, whatever the kernel made of them.
    for (long k : inadmissible) {
      FourBarSummary blank{};
      blank.status = Status::invalid_parameters;
      r.summaries[k] = blank;
      for (long s = 0; s < samples; ++s) r.trajectories[k * samples + s].t = std::numeric_limits<double>::quiet_NaN();
    }
    write_chunk(chunk_path(partial, c), first, r);
    std::copy(r.summaries.begin(), r.summaries.end(), summaries.begin() + first);
    rep.ran += count;
    rep.wall_seconds += r.wall_seconds;
    for (const auto& s : r.summaries) rep.steps += s.steps;
  }
  progress.stop();
  for (const auto& s : summaries)
    if (s.status != Status::ok) { ++rep.failed; ++rep.failures[status_name(s.status)]; }
  if (rep.interrupted) return rep;

  const StudyAnalysis analysis = analyse(study, summaries);
  StudyResults res;
  res.summaries = std::move(summaries);
  res.samples_per_instance = samples;
  res.trajectories = [&](long first, long count, FourBarSample* dst) {
    // Rows may span chunk files.
    while (count > 0) {
      const long c = first / chunk, in_chunk = first - c * chunk;
      const long chunk_count = std::min(chunk, n - c * chunk);
      const long take = std::min(count, chunk_count - in_chunk);
      read_chunk_trajectories(chunk_path(partial, c), chunk_count, samples, in_chunk, take, dst);
      dst += take * samples;
      first += take;
      count -= take;
    }
  };
  res.run.backend = rep.backend;
  res.run.device = backend_device(backend);
  res.run.threads = backend == Backend::cpu ? rep.threads : 0;
  res.run.wall_seconds = rep.wall_seconds;
  res.run.chunk_size = chunk;
  res.run.chunks = chunks;
  res.run.resumed_instances = rep.resumed;
  res.analysis = &analysis;
  rep.paths = write_outputs(out_dir, study, res);
  fs::remove_all(partial, ec);  // the outputs are complete; the chunks are no longer needed
  return rep;
}

}  // namespace hs
