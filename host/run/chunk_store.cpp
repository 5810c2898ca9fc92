// The chunk store of a study's run (host/run/chunk_store.hpp).
#include "host/run/chunk_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <system_error>

#include "host/version.hpp"

namespace hs {
namespace fs = std::filesystem;

namespace {
// FNV-1a, 64 bit: identifies the study text and checks chunk files.
std::uint64_t fnv1a(const void* data, size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
}  // namespace

// The study's identity in the manifest and in every chunk file: its text's hash.
// The study text and, for a design read from a file, that file's digest: a
// resume with the same study text but edited rows is refused.
std::uint64_t study_hash(const StudyRecord& record) {
  const std::uint64_t text = fnv1a(record.text.data(), record.text.size());
  return record.inputs_digest == 0 ? text : fnv1a(&record.inputs_digest, sizeof record.inputs_digest, text);
}

namespace {
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
}  // namespace

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

ChunkWriter::~ChunkWriter() {
  if (worker_.joinable()) worker_.join();
}

void ChunkWriter::finish() {
  if (worker_.joinable()) worker_.join();
  if (error_) {
    pending_ = 0;
    std::rethrow_exception(std::exchange(error_, nullptr));
  }
  written_ += std::exchange(pending_, 0L);
}

void ChunkWriter::write(fs::path path, long first, BatchResult r, const ChunkIdentity& run) {
  finish();
  pending_ = r.instance_count();
  if (!behind_) {
    try {
      write_chunk(path, first, r, run);
    } catch (...) {
      pending_ = 0;
      throw;
    }
    written_ += std::exchange(pending_, 0L);
    return;
  }
  // Shared with the thread, so that the chunk is still here to be written
  // in this thread if no thread can be started.
  auto chunk = std::make_shared<const BatchResult>(std::move(r));
  try {
    worker_ = std::thread([this, path, first, chunk, run] {
      try {
        write_chunk(path, first, *chunk, run);
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    pending_ = 0;
    behind_ = false;
    write(std::move(path), first, *chunk, run);
  }
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
  if (size >= static_cast<std::uintmax_t>(kChunkHeaderBytes)) {
    std::ifstream in(path, std::ios::binary);
    char magic[8];
    ChunkHeader head;
    in.read(magic, 8);
    in.read(reinterpret_cast<char*>(&head), sizeof head);
    if (in && std::memcmp(magic, kChunkMagic, 8) == 0) {
      if (head.run.study_hash != run.study_hash)
        return "belongs to another study (study hash " + hex(head.run.study_hash) + ", this run's " +
               hex(run.study_hash) + "): a chunk file copied in from another run";
      if (head.run.chunk_size != run.chunk_size)
        return "was written in chunks of " + std::to_string(head.run.chunk_size) +
               " instances, but the manifest says " + kChunkSizeKey + " = " + std::to_string(run.chunk_size) +
               ": the manifest was changed after the run began";
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
  if (std::memcmp(magic, kChunkMagic, 8) != 0)
    return "is not a hydrosweep chunk file of this format (wrong magic bytes)";
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

namespace {
// `n` rows of `row` doubles from byte `at` of a chunk file (verified when the
// run began or resumed).
void read_chunk_rows(const fs::path& path, std::streamoff at, long n, long row, double* out, const char* what) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(at);
  in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n * row * sizeof(double)));
  if (!in) throw OutputError(std::string("reading ") + what + " back from " + path.string() + " failed");
}
}  // namespace
// Summary rows of instances [offset, offset + n) of a chunk of L.count instances.
void read_chunk_summary_rows(const fs::path& path, const ChunkLayout& L, long offset, long n, double* out) {
  const std::streamoff at = kChunkHeaderBytes + L.status_bytes() + offset * L.summary_width * sizeof(double);
  read_chunk_rows(path, at, n, L.summary_width, out, "summaries");
}
// Trajectory rows of instances [offset, offset + n) of a chunk of L.count instances.
void read_chunk_trajectories(const fs::path& path, const ChunkLayout& L, long offset, long n, double* out) {
  const long row = L.samples * L.sample_width;
  const std::streamoff at = kChunkHeaderBytes + L.status_bytes() + L.summary_bytes() + offset * row * sizeof(double);
  read_chunk_rows(path, at, n, row, out, "trajectories");
}

// ---- manifest ---------------------------------------------------------------

namespace {
std::string join_names(const std::vector<OutputInfo>& columns) {
  std::string s;
  for (const auto& c : columns) s += (s.empty() ? "" : ",") + c.name;
  return s;
}
}  // namespace

std::vector<ManifestLine> manifest_lines(const StudyRecord& record, const Design& design, long n, long samples) {
  using S = ManifestSource;
  return {{"hydrosweep", "partial run 3", S::build, "the manifest format"},
          {"version", hydrosweep_version(), S::build, "the hydrosweep version"},
          {"model", record.model, S::study, "the model"},
          {"summary_columns", join_names(design.descriptor->summary_columns), S::build,
           "the columns of the per-instance summary rows in the chunk files"},
          {"trajectory_channels", join_names(design.descriptor->trajectory_channels), S::build,
           "the channels of the trajectory-sample rows in the chunk files"},
          {"study_hash", hex(study_hash(record)), S::study, "the study text and its design file (method rows)"},
          {"instances", std::to_string(n), S::study, "the instance count"},
          {"samples_per_instance", std::to_string(samples), S::study, "the trajectory samples per instance"}};
}

std::string manifest_text(const std::vector<ManifestLine>& lines, long chunk) {
  std::ostringstream m;
  for (const auto& l : lines) m << l.key << " " << l.value << "\n";
  m << kChunkSizeKey << " " << chunk << "\n";
  return m.str();
}

namespace {
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
}  // namespace

namespace {
std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

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

namespace {
std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }
}  // namespace

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
    return ResumeError("--resume: nothing to resume: " + out_dir +
                       " does not exist; run without --resume to start the study");
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
long check_manifest(const fs::path& manifest_path, const std::string& out_dir,
                    const std::vector<ManifestLine>& expected, long instances) {
  const std::string start_over = "delete " + quoted(manifest_path.parent_path()) + " to start over";
  const auto found = parse_manifest(read_file(manifest_path));
  auto value = [&](const std::string& key) {
    const auto it = found.find(key);
    return it == found.end() ? std::string() : it->second;
  };
  if (!found.count(expected.front().key))
    throw ResumeError("--resume: " + manifest_path.string() + " is not a hydrosweep manifest (damaged?); " +
                      start_over);
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
                      manifest_path.string() + " records " + build_diff +
                      ". Resume it with the build that wrote it (hydrosweep " + value("version") + "), or " +
                      start_over);
  // An interrupted `--extend` (its manifest's "extends" line, host/cli/run_study.cpp)
  // continues only as that extension: its chunks start after the finished
  // run's instances, so a plain resume would read them as the wrong ones.
  const bool expects_extension =
      std::any_of(expected.begin(), expected.end(), [](const ManifestLine& l) { return l.key == "extends"; });
  if (found.count("extends") && !expects_extension)
    throw ResumeError("--resume: the interrupted run in " + out_dir + " extends a finished run of " + value("extends") +
                      " instances (" + manifest_path.string() +
                      " records extends = " + value("extends") + "): continue it with the same study file and "
                      "--extend N --resume, N the samples it was adding, or " + start_over);
  if (!study_diff.empty())
    throw ResumeError("--resume: the interrupted run in " + out_dir +
                      " was made from a different study text: " + manifest_path.string() + " records " + study_diff +
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
  throw ResumeError("--resume: " + std::to_string(damaged.size()) + " chunk file" +
                    (damaged.size() == 1 ? " is" : "s are") + " damaged in the interrupted run in " + out_dir + ":\n" +
                    list +
                    "Chunk files are renamed into place only when complete, so this is disk trouble or a file changed "
                    "by hand, not an interruption. Nothing was changed. Delete the damaged file" +
                    (damaged.size() == 1 ? "" : "s") + " to have " + (damaged.size() == 1 ? "its" : "their") +
                    " instances run again:\n  rm" + remove);
}

PartialDirGuard::PartialDirGuard(const fs::path& partial) : partial_(partial) {
  std::error_code ec;
  for (fs::path p = partial; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created_.push_back(p);  // innermost first
    if (p == p.parent_path()) break;
  }
}
PartialDirGuard::~PartialDirGuard() {
  std::error_code ec;
  if (!armed_ || !fs::exists(partial_, ec) || has_chunk_files(partial_)) return;
  fs::remove_all(partial_, ec);
  for (const auto& dir : created_) fs::remove(dir, ec);  // only while empty
}

RunLock::RunLock(const fs::path& partial, const std::string& out_dir) {
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
RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace hs
