// Chunked, resumable study runs (see runner.hpp).
#include "host/run/runner.hpp"
#include "host/run/device_verification.hpp"

#include "host/run/memory_budget.hpp"
#include "host/run/rank_collectives.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "host/models/registry.hpp"

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

// The study's identity in the manifest and in every chunk file: its text's hash.
std::uint64_t study_hash(const StudyRecord& record) { return fnv1a(record.text.data(), record.text.size()); }

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// ---- chunk files ------------------------------------------------------------
// Layout: magic "HSCHUNK3", int64 first, count, samples_per_instance,
// summary_width C, sample_width W, uint64 study hash, int64 chunk size, then
// count int32 statuses, count x C doubles (summary rows), count x M x W
// doubles (trajectory rows), then the FNV-1a of everything before it. The
// manifest records the column names the rows hold, so a layout change is
// refused by content on --resume; the study hash and the chunk size make a
// chunk file say which run it belongs to, so that one copied in from another
// study of the same shape (another seed) is refused, and an edited manifest
// is named as such rather than its good chunks as damaged (issue 36).
constexpr char kChunkMagic[8] = {'H', 'S', 'C', 'H', 'U', 'N', 'K', '3'};

// The manifest's chunking line: chosen by the first call, kept by every resume.
constexpr const char* kChunkSizeKey = "chunk_size";

// Which run a chunk belongs to: the manifest's study hash and chunk size.
struct ChunkIdentity {
  std::uint64_t study_hash;
  std::int64_t chunk_size;
};

struct ChunkHeader {
  std::int64_t first, count, samples, summary_width, sample_width;
  ChunkIdentity run;
};
constexpr long kHeaderBytes = 8 + sizeof(ChunkHeader);

// Bytes of a chunk's parts.
struct ChunkLayout {
  long count, samples, summary_width, sample_width;
  std::uintmax_t status_bytes() const { return count * sizeof(std::int32_t); }
  std::uintmax_t summary_bytes() const { return count * summary_width * sizeof(double); }
  std::uintmax_t trajectory_bytes() const { return count * samples * sample_width * sizeof(double); }
  std::uintmax_t body() const { return kHeaderBytes + status_bytes() + summary_bytes() + trajectory_bytes(); }
};

fs::path chunk_path(const fs::path& partial, long chunk) {
  char name[32];
  std::snprintf(name, sizeof name, "chunk-%08ld.bin", chunk);
  return partial / name;
}

void write_chunk(const fs::path& path, long first, const BatchResult& r, const ChunkIdentity& run) {
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
  const ChunkHeader head{first, r.instance_count(), r.samples_per_instance, r.summary_width, r.sample_width, run};
  std::vector<std::int32_t> status(r.status.size());
  for (size_t i = 0; i < status.size(); ++i) status[i] = static_cast<std::int32_t>(r.status[i]);
  put(kChunkMagic, 8);
  put(&head, sizeof head);
  put(status.data(), status.size() * sizeof(std::int32_t));
  put(r.summaries.data(), r.summaries.size() * sizeof(double));
  put(r.trajectories.data(), r.trajectories.size() * sizeof(double));
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

// Reads the statuses and summary rows of a chunk file and verifies it (size,
// magic, checksum, the instances it holds). Returns "" when it is intact,
// else what is wrong. write_chunk renames a chunk into place only when it is
// complete, so a damaged one means disk trouble or a file changed by hand,
// never an interrupted run: the caller refuses to resume instead of silently
// running it again (docs/study-files.md, "Resuming"). The trajectories are streamed
// through the checksum, not held.
std::string read_chunk_summaries(const fs::path& path, long first, const ChunkLayout& L, const ChunkIdentity& run,
                                 Status* status_out, double* summaries_out) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return "cannot be read: " + ec.message();
  // Whose chunk is it? Asked before its size, which another chunking changes.
  if (size >= static_cast<std::uintmax_t>(kHeaderBytes)) {
    std::ifstream in(path, std::ios::binary);
    char magic[8];
    ChunkHeader head;
    in.read(magic, 8);
    in.read(reinterpret_cast<char*>(&head), sizeof head);
    if (in && std::memcmp(magic, kChunkMagic, 8) == 0) {
      if (head.run.study_hash != run.study_hash)
        return "belongs to another study (study hash " + hex(head.run.study_hash) + ", this run's " + hex(run.study_hash) +
               "): a chunk file copied in from another run";
      if (head.run.chunk_size != run.chunk_size)
        return "was written in chunks of " + std::to_string(head.run.chunk_size) + " instances, but the manifest says " +
               kChunkSizeKey + " = " + std::to_string(run.chunk_size) + ": the manifest was changed after the run began";
    }
  }
  if (size != L.body() + 8)
    return "has " + std::to_string(size) + " bytes where " + std::to_string(L.body() + 8) +
           " are expected (truncated or extended)";
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  ChunkHeader head;
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto get = [&](void* p, std::uintmax_t n) {
    in.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    h = fnv1a(p, n, h);
    return static_cast<bool>(in);
  };
  const std::string unreadable = "cannot be read back (I/O error)";
  std::vector<std::int32_t> status(static_cast<size_t>(L.count));
  if (!get(magic, 8) || !get(&head, sizeof head) || !get(status.data(), L.status_bytes()) ||
      !get(summaries_out, L.summary_bytes()))
    return unreadable;
  if (std::memcmp(magic, kChunkMagic, 8) != 0) return "is not a hydrosweep chunk file of this format (wrong magic bytes)";
  std::uintmax_t left = L.trajectory_bytes();
  std::vector<char> block(std::min<std::uintmax_t>(left, 1 << 20));
  while (left > 0) {
    const std::uintmax_t n = std::min<std::uintmax_t>(left, block.size());
    if (!get(block.data(), n)) return unreadable;
    left -= n;
  }
  std::uint64_t stored = 0;
  in.read(reinterpret_cast<char*>(&stored), sizeof stored);
  if (!in || stored != h) return "fails its checksum (its bytes changed after it was written)";
  if (head.first != first || head.count != L.count || head.samples != L.samples)
    return "holds instances " + std::to_string(head.first) + ".." + std::to_string(head.first + head.count - 1) +
           ", not " + std::to_string(first) + ".." + std::to_string(first + L.count - 1) + " (a chunk of another run)";
  if (head.summary_width != L.summary_width || head.sample_width != L.sample_width)
    return "holds rows of " + std::to_string(head.summary_width) + " summary and " + std::to_string(head.sample_width) +
           " trajectory columns, not " + std::to_string(L.summary_width) + " and " + std::to_string(L.sample_width);
  for (long i = 0; i < L.count; ++i) {
    if (status[i] < 0 || status[i] > static_cast<std::int32_t>(Status::not_run)) return "holds an unknown status code";
    status_out[i] = static_cast<Status>(status[i]);
  }
  return "";
}

// `n` rows of `row` doubles from byte `at` of a chunk file (verified when the
// run began or resumed).
void read_chunk_rows(const fs::path& path, std::streamoff at, long n, long row, double* out, const char* what) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(at);
  in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n * row * sizeof(double)));
  if (!in) throw OutputError(std::string("reading ") + what + " back from " + path.string() + " failed");
}
// Summary rows of instances [offset, offset + n) of a chunk of L.count instances.
void read_chunk_summary_rows(const fs::path& path, const ChunkLayout& L, long offset, long n, double* out) {
  const std::streamoff at = kHeaderBytes + L.status_bytes() + offset * L.summary_width * sizeof(double);
  read_chunk_rows(path, at, n, L.summary_width, out, "summaries");
}
// Trajectory rows of instances [offset, offset + n) of a chunk of L.count instances.
void read_chunk_trajectories(const fs::path& path, const ChunkLayout& L, long offset, long n, double* out) {
  const long row = L.samples * L.sample_width;
  const std::streamoff at = kHeaderBytes + L.status_bytes() + L.summary_bytes() + offset * row * sizeof(double);
  read_chunk_rows(path, at, n, row, out, "trajectories");
}

// ---- manifest ---------------------------------------------------------------

// What the chunk files of a partial run depend on, one manifest line each
// ("key value"). --resume reads chunks back only when every line matches this
// build and this study, and names the lines that differ. A redesign that
// changes what a chunk holds adds (or changes) a line here, e.g. the list of
// record columns, and older partial runs are then refused by name instead of
// being misread.
enum class ManifestSource { build, study };
struct ManifestLine {
  std::string key, value;
  ManifestSource source;
  std::string meaning;
};

std::string join_names(const std::vector<OutputInfo>& columns) {
  std::string s;
  for (const auto& c : columns) s += (s.empty() ? "" : ",") + c.name;
  return s;
}

std::vector<ManifestLine> manifest_lines(const StudyRecord& record, const Design& design, long n, long samples) {
  using S = ManifestSource;
  return {{"hydrosweep", "partial run 3", S::build, "the manifest format"},
          {"version", hydrosweep_version(), S::build, "the hydrosweep version"},
          {"model", record.model, S::study, "the model"},
          {"summary_columns", join_names(design.descriptor->summary_columns), S::build,
           "the columns of the per-instance summary rows in the chunk files"},
          {"trajectory_channels", join_names(design.descriptor->trajectory_channels), S::build,
           "the channels of the trajectory-sample rows in the chunk files"},
          {"study_hash", hex(study_hash(record)), S::study, "the study text"},
          {"instances", std::to_string(n), S::study, "the instance count"},
          {"samples_per_instance", std::to_string(samples), S::study, "the trajectory samples per instance"}};
}


std::string manifest_text(const std::vector<ManifestLine>& lines, long chunk) {
  std::ostringstream m;
  for (const auto& l : lines) m << l.key << " " << l.value << "\n";
  m << kChunkSizeKey << " " << chunk << "\n";
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
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw OutputError("cannot write " + tmp.string());
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) throw OutputError("cannot rename " + tmp.string() + ": " + ec.message());
}

// ---- resuming -------------------------------------------------------------------
// The rules are documented in docs/study-files.md, "Resuming". Every refusal
// is a ResumeError (exit 2) that names the directory or file and what to do,
// and changes nothing on disk.

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// True when `partial` holds at least one finished chunk file.
bool has_chunk_files(const fs::path& partial) {
  std::error_code ec;
  for (fs::directory_iterator it(partial, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.filename().string().rfind("chunk-", 0) == 0 && p.extension() == ".bin") return true;
  }
  return false;
}

// --resume where there is no interrupted run is refused rather than taken as
// a fresh start: a mistyped directory must not start a long run, and a
// finished study must not be run again by accident.
ResumeError nothing_to_resume(const std::string& out_dir, const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec))
    return ResumeError("--resume: nothing to resume: " + out_dir + " does not exist; run without --resume to start the study");
  if (fs::exists(out / "results.h5", ec))
    return ResumeError("--resume: nothing to resume: " + out_dir +
                       " holds finished results (results.h5) and no interrupted run; run without --resume to run the "
                       "study again (that replaces results.h5 and summary.csv)");
  return ResumeError("--resume: nothing to resume: " + out_dir + " holds no interrupted run (no " +
                     (out / kPartialDirName / "manifest").string() + "); run without --resume to start the study");
}

// Compares an interrupted run's manifest with this build and study and
// returns the run's chunk size; throws ResumeError naming the manifest and
// every line that differs.
long check_manifest(const fs::path& manifest_path, const std::string& out_dir, const std::vector<ManifestLine>& expected,
                    long instances) {
  const std::string start_over = "delete " + quoted(manifest_path.parent_path()) + " to start over";
  const auto found = parse_manifest(read_file(manifest_path));
  auto value = [&](const std::string& key) {
    const auto it = found.find(key);
    return it == found.end() ? std::string() : it->second;
  };
  if (!found.count(expected.front().key))
    throw ResumeError("--resume: " + manifest_path.string() + " is not a hydrosweep manifest (damaged?); " + start_over);
  std::string build_diff, study_diff;
  for (const auto& line : expected) {
    if (found.count(line.key) && value(line.key) == line.value) continue;
    const bool build = line.source == ManifestSource::build;
    std::string& diff = build ? build_diff : study_diff;
    diff += std::string(diff.empty() ? "" : "; ") + line.key + " = \"" + value(line.key) + "\" (" + line.meaning +
            "), where " + (build ? "this build writes" : "this study gives") + " \"" + line.value + "\"";
  }
  if (!build_diff.empty())
    throw ResumeError("--resume: the interrupted run in " + out_dir +
                      " was written by another build of hydrosweep, whose chunk files this build cannot read: " +
                      manifest_path.string() + " records " + build_diff + ". Resume it with the build that wrote it (hydrosweep " +
                      value("version") + "), or " + start_over);
  if (!study_diff.empty())
    throw ResumeError("--resume: the interrupted run in " + out_dir + " was made from a different study text: " +
                      manifest_path.string() + " records " + study_diff +
                      ". Resume it with the study file it was made from, or " + start_over);
  const std::string text = value(kChunkSizeKey);
  long chunk = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), chunk);
  if (text.empty() || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size() || chunk < 1 ||
      chunk > std::max<long>(instances, 1))
    throw ResumeError("--resume: " + manifest_path.string() + " is damaged: " + kChunkSizeKey + " = \"" + text +
                      "\", allowed 1.." + std::to_string(std::max<long>(instances, 1)) + "; " + start_over);
  return chunk;
}

// Refuses damaged chunk files, listing every one (see read_chunk_summaries).
void refuse_damaged_chunks(const std::string& out_dir, const std::vector<std::pair<fs::path, std::string>>& damaged) {
  std::string list, remove;
  for (const auto& [path, problem] : damaged) {
    list += "  " + path.string() + " " + problem + "\n";
    remove += " " + quoted(path);
  }
  throw ResumeError("--resume: " + std::to_string(damaged.size()) + " chunk file" + (damaged.size() == 1 ? " is" : "s are") +
                    " damaged in the interrupted run in " + out_dir + ":\n" + list +
                    "Chunk files are renamed into place only when complete, so this is disk trouble or a file changed "
                    "by hand, not an interruption. Nothing was changed. Delete the damaged file" +
                    (damaged.size() == 1 ? "" : "s") + " to have " + (damaged.size() == 1 ? "its" : "their") +
                    " instances run again:\n  rm" + remove);
}

// Removes a partial directory that holds no finished chunk when a call ends
// without results (error, or Ctrl-C before the first chunk), and the
// directories the call created for it: there is nothing in it to resume, and
// a leftover one would make the next plain run refuse the directory.
class PartialDirGuard {
 public:
  PartialDirGuard(const fs::path& partial) : partial_(partial) {
    std::error_code ec;
    for (fs::path p = partial; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      created_.push_back(p);  // innermost first
      if (p == p.parent_path()) break;
    }
  }
  void arm(bool armed) { armed_ = armed; }  // armed only once the directory is this run's
  ~PartialDirGuard() {
    std::error_code ec;
    if (!armed_ || !fs::exists(partial_, ec) || has_chunk_files(partial_)) return;
    fs::remove_all(partial_, ec);
    for (const auto& dir : created_) fs::remove(dir, ec);  // only while empty
  }

 private:
  fs::path partial_;
  std::vector<fs::path> created_;
  bool armed_ = false;
};

// One writer per output directory (issue 36): a run holds a POSIX record
// lock (fcntl F_SETLK) on PARTIAL/lock from before it arms the partial
// directory's guard until it ends. A second run into the same --out, with
// --resume or without, is refused, naming the holder's PID (F_GETLK reports
// it: the file stays empty, and a refused run changes nothing), instead of
// mixing its chunks with the first's. The kernel drops the lock of a killed
// run, so --resume after a kill takes it. Nothing else in the process opens
// this file (closing any descriptor of it would drop a POSIX lock).
class RunLock {
 public:
  RunLock(const fs::path& partial, const std::string& out_dir) {
    const fs::path path = partial / "lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw OutputError("cannot create " + path.string() + ": " + std::strerror(errno));
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file
    if (::fcntl(fd_, F_SETLK, &whole) == 0) return;
    const int why = errno;
    struct flock holder = whole;
    const bool known = ::fcntl(fd_, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK;
    ::close(fd_);
    fd_ = -1;
    if (why == EACCES || why == EAGAIN)
      throw ResumeError(out_dir + " is being written by another hydrosweep run (PID " +
                        (known ? std::to_string(holder.l_pid) : std::string("unknown")) + ", " + path.string() +
                        "); wait for it to end or choose another --out");
    throw OutputError("cannot lock " + path.string() + ": " + std::strerror(why));
  }
  ~RunLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

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

}  // namespace

std::vector<double> reference_trajectory(const StudyRecord& record, const Design& design,
                                        const std::atomic<bool>* cancel) {
  BatchSpec one = batch_spec(record, design, 1, 0, 0);
  one.parameters = design.base;
  one.trajectory_stride = 1;
  one.cancel = cancel;  // Ctrl-C stops the reference run too (the caller then stops before the first chunk)
  const BatchResult r = run_batch_cpu(one);
  if (r.cancelled || r.status[0] != Status::ok) return {};
  // The driving coordinate's channel (docs/models/README.md §5.4).
  long channel = -1;
  for (size_t c = 0; c < design.descriptor->trajectory_channels.size(); ++c)
    if (design.descriptor->trajectory_channels[c].name == design.descriptor->driving_coordinate) channel = static_cast<long>(c);
  if (channel < 0) return {};
  std::vector<double> ref(static_cast<size_t>(r.samples_per_instance));
  for (long k = 0; k < r.samples_per_instance; ++k) ref[k] = r.sample(0, k)[channel];
  return ref;
}

StudyAnalysis analyse(const StudyRecord& record, const Design& design, const std::vector<Status>& status,
                      const std::vector<std::vector<double>>& columns) {
  StudyAnalysis a;
  const AnalysisSpec& spec = record.analysis;
  a.confidence = spec.confidence;
  a.quantile_levels = spec.quantile_levels;
  BootstrapOptions boot;
  boot.resamples = static_cast<size_t>(spec.bootstrap);
  boot.level = spec.confidence;
  boot.seed = study_bootstrap_seed(design.seed);
  const size_t n = status.size();
  const std::vector<std::string> names = spec.columns();
  if (columns.size() != names.size())
    throw std::invalid_argument("analyse: " + std::to_string(columns.size()) + " columns given, " +
                                std::to_string(names.size()) + " analysed");
  // A failed instance's outputs are NaN for the statistics, whatever it left
  // in its summary (they describe a truncated run).
  auto column = [&](const std::string& name) {
    const std::vector<double>& kept = columns[std::find(names.begin(), names.end(), name) - names.begin()];
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = status[i] == Status::ok ? kept[i] : std::numeric_limits<double>::quiet_NaN();
    return v;
  };
  // A Saltelli design's A_B^(i) rows are not independent draws: its
  // statistics and failure probability use the A and B rows only, its Sobol'
  // indices every row (host/results/analysis.hpp saltelli_independent_rows).
  const bool saltelli = design.method == SampleMethod::saltelli;
  auto independent_draws = [&](std::vector<double> v) {
    return saltelli ? saltelli_independent_rows(v, design.grid.size()) : v;
  };
  std::vector<double> failed(n);
  for (size_t i = 0; i < n; ++i) failed[i] = status[i] != Status::ok;
  for (double f : independent_draws(failed)) a.failed_instances += f != 0.0;
  for (const auto& f : design.grid) a.sobol_factors.push_back(f.name);
  for (const auto& q : spec.quantities) {
    const std::vector<double> v = column(q);
    a.statistics.emplace_back(q, summarize_monte_carlo(independent_draws(v), spec.quantile_levels, boot));
    if (saltelli) a.sobol.emplace_back(q, sobol_indices(v, design.grid.size(), boot));
  }
  if (spec.has_limit) {
    a.has_failure = true;
    a.failure_quantity = spec.limit_quantity;
    a.limit = spec.limit;
    a.limit_above = spec.limit_above;
    a.failure = failure_probability(independent_draws(column(spec.limit_quantity)), spec.limit,
                                    spec.limit_above ? LimitState::above : LimitState::below, spec.confidence);
  }
  return a;
}

// An error crossing ranks (host/run/rank_collectives.hpp): its kind (the
// exception type, so every rank exits with the status one process would)
// and its message.
std::string verdict_of(const std::exception& e) {
  if (dynamic_cast<const ResumeError*>(&e)) return std::string("R") + e.what();
  if (dynamic_cast<const OutputError*>(&e)) return std::string("O") + e.what();
  if (dynamic_cast<const StudyError*>(&e)) return std::string("S") + e.what();
  return std::string("E") + e.what();
}
void throw_verdict(const std::string& verdict) {
  const std::string message = verdict.substr(1);
  switch (verdict[0]) {
    case 'R': throw ResumeError(message);
    case 'O': throw OutputError(message);
    case 'S': throw StudyError(message);
    default: throw std::runtime_error(message);
  }
}

StudyRunReport run_study(const StudyRecord& record,
                         const Design& design, const std::string& out_dir, const StudyRunOptions& opt) {
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
  if (backend == Backend::cuda && !ModelDescriptor::contains(design.descriptor->device_formulations, record.formulation)) {
    if (requested != Backend::automatic)
      throw ResumeError("backend cuda: formulation " + record.formulation + " of model " + record.model +
                        " is not built for the CUDA backend (" +
                        design.descriptor->off_device_reason(record.formulation) + "); use --backend cpu or kokkos");
    backend = Backend::cpu;
  }
  // What a device measured of this combination (host/run/device_verification.hpp).
  if (backend == Backend::cuda) {
    const DeviceDecision d =
        decide_device("run", record.model, record.formulation, record.friction, requested != Backend::automatic);
    if (!d.refusal.empty()) throw ResumeError(d.refusal);
    if (!d.use_device) backend = Backend::cpu;
    rep.note = d.note;
  }
  rep.backend = backend_name(backend);
  const Ranks& ranks = opt.ranks ? *opt.ranks : single_process();
  if (ranks.size() > 1) use_device_of_local_rank(backend, ranks.local_rank());
  const long n = design.instance_count();
  const long samples = sample_count(record.settings, record.trajectory_stride);
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
  const std::vector<ManifestLine> manifest = manifest_lines(record, design, n, samples);
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
      throw ResumeError(out_dir + " holds an interrupted run (" + (partial).string() + "); continue it with --resume, "
                        "or delete that directory to start over");
    chunk = check_manifest(manifest_path, out_dir, manifest, n);  // the chunking of the run being continued
    require_memory(record, run_chunk_bytes(record, design, chunk), "the interrupted run's chunk size " + std::to_string(chunk),
                   "one chunk's parameters, summaries and trajectories", "run it on a machine with more memory, or start over");
  } else {
    if (opt.resume) throw nothing_to_resume(out_dir, out);
    // A manifest is written before any chunk, so chunks without one are not
    // this program's leftovers: whose study they hold cannot be told.
    if (has_chunk_files(partial))
      throw ResumeError(partial.string() + " holds chunk files but no manifest, so which study and build they belong to "
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
  const long chunks = (n + chunk - 1) / chunk;
  const ChunkIdentity identity{study_hash(record), chunk};
  rep.chunks = chunks;
  auto chunk_instances = [&](long c) { return std::min(chunk, n - c * chunk); };

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
  std::vector<double> chunk_rows;  // one chunk's summary rows, read back on resume
  // A chunk file's statuses and analysed columns into the run's; "" or what is wrong with it.
  auto load_chunk = [&](long c) {
    const long first = c * chunk, count = chunk_instances(c);
    chunk_rows.resize(static_cast<size_t>(count * C));
    const std::string problem =
        read_chunk_summaries(chunk_path(partial, c), first, layout(count), identity, status.data() + first, chunk_rows.data());
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
  auto keeping_finished_chunks = [&](const OutputError& e) {
    const long saved = rep.resumed + rep.ran;
    if (saved == 0) return e;
    return OutputError(std::string(e.what()) + "\n" + std::to_string(saved) + " finished instances are kept in " +
                       partial.string() + ": once the problem is fixed, run again with --resume to go on without "
                       "running them again");
  };
  // Several ranks: rank 0 shows the progress of its own share.
  Progress progress(ranks.root() ? opt.progress : ProgressStyle::none, ranks.size() > 1 ? own_instances : n,
                    ranks.size() > 1 ? 0 : rep.resumed);
  base.progress = &progress.counter();
  on_every_rank(ranks, [&] {
  for (long c = 0; c < chunks; ++c) {
    if (!mine[c]) continue;
    if (opt.cancel && opt.cancel->load()) { rep.interrupted = true; break; }
    const long first = c * chunk, count = chunk_instances(c);
    BatchSpec spec = batch_spec(record, design, threads, first, count);
    spec.lanes = opt.lanes;
    spec.reference = base.reference;
    spec.cancel = base.cancel;
    spec.progress = base.progress;
    std::vector<long> inadmissible;
    for (long k = 0; k < count; ++k) {
      const std::string why = design.instance_problem(spec.row(k));
      if (why.empty()) continue;
      inadmissible.push_back(k);
      if (rep.invalid_reasons.size() < kInvalidReasonsKept)
        rep.invalid_reasons.push_back("instance " + std::to_string(first + k) + ": " + why);
      ++rep.invalid_count;
    }
    BatchResult r = run_batch(spec, backend);
    if (r.cancelled) { rep.interrupted = true; break; }  // discard the unfinished chunk
    // Parameters the model may not see (derived out of range, rod thicker
    // than the piston): flagged, whatever the kernel made of them; they have
    // no state to report (unstarted_summary: NaN values, blank samples).
    for (long k : inadmissible) r.mark_unstarted(k, Status::invalid_parameters);
    try {
      write_chunk(chunk_path(partial, c), first, r, identity);
    } catch (const OutputError& e) {
      throw keeping_finished_chunks(e);
    }
    std::copy(r.status.begin(), r.status.end(), status.begin() + first);
    keep_analysed(first, count, r.summaries.data());
    rep.ran += count;
    rep.wall_seconds += r.wall_seconds;
    rep.lanes = std::max(rep.lanes, r.lanes_used);
    rep.active_lane_iterations += r.active_lane_iterations;
    rep.lane_iterations += r.lane_iterations;
    const long steps_column = design.descriptor->summary_column("steps");
    for (long k = 0; k < count; ++k) rep.steps += static_cast<long>(r.summary(k, steps_column));
  }
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
    if (s != Status::ok) { ++rep.failed; ++rep.failures[status_name(s)]; }
  if (rep.interrupted) return rep;

  on_root(ranks, [&] {
  const StudyAnalysis analysis = analyse(record, design, status, analysed);
  analysed = {};  // released before the writers run
  // Rows [first, first + count) from the chunk files they are in (rows may span chunks).
  auto from_chunks = [&](long first, long count, long row_doubles, double* dst,
                                   void (*read)(const fs::path&, const ChunkLayout&, long, long, double*)) {
    while (count > 0) {
      const long c = first / chunk, in_chunk = first - c * chunk;
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
  res.summaries = [&](long first, long count, double* dst) { from_chunks(first, count, C, dst, read_chunk_summary_rows); };
  res.samples_per_instance = samples;
  res.sample_width = W;
  res.trajectories = [&](long first, long count, double* dst) {
    from_chunks(first, count, samples * W, dst, read_chunk_trajectories);
  };
  res.run.backend = rep.backend;
  res.run.device = backend_device(backend);
  res.run.threads = backend == Backend::cpu ? rep.threads : 0;
  res.run.ranks = ranks.size();
  res.run.wall_seconds = rep.wall_seconds;
  res.run.chunk_size = chunk;
  res.run.chunks = chunks;
  res.run.resumed_instances = rep.resumed;
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
