// The chunk store of a study's run (docs/study-files.md, "Resuming"): the
// instances run in chunks of consecutive indices, each finished chunk written
// to DIR/.hydrosweep-partial/chunk-NNNNNNNN.bin under a temporary name and
// renamed into place, so a chunk file is either complete or absent whatever
// kills the process (SIGKILL, power loss). The partial directory's manifest
// records what the chunks depend on (manifest format, version, record layout,
// study text hash, instance and sample counts) and the chunk size; a resumed
// run reads the chunks already present back and runs the others. A manifest
// that differs from this build or study, a damaged chunk file, or nothing to
// resume is refused (ResumeError) with nothing changed, never a silent mix or
// re-run. One writer per directory (RunLock); a call that ends without a
// finished chunk removes what it created (PartialDirGuard).
#pragma once
#include <cstdint>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/run/batch.hpp"
#include "host/study/study.hpp"
#include "host/run/errors.hpp"

namespace hs {

// Name of the partial-results directory inside an output directory.
constexpr const char* kPartialDirName = ".hydrosweep-partial";

// The study's identity in the manifest and in every chunk file: its text's hash.
std::uint64_t study_hash(const StudyRecord& record);

// Which run a chunk belongs to: the manifest's study hash and chunk size.
struct ChunkIdentity {
  std::uint64_t study_hash;
  std::int64_t chunk_size;
};

struct ChunkHeader {
  std::int64_t first, count, samples, summary_width, sample_width;
  ChunkIdentity run;
};
constexpr long kChunkHeaderBytes = 8 + sizeof(ChunkHeader);

// Bytes of a chunk's parts.
struct ChunkLayout {
  long count, samples, summary_width, sample_width;
  std::uintmax_t status_bytes() const { return count * sizeof(std::int32_t); }
  std::uintmax_t summary_bytes() const { return count * summary_width * sizeof(double); }
  std::uintmax_t trajectory_bytes() const { return count * samples * sample_width * sizeof(double); }
  std::uintmax_t body() const { return kChunkHeaderBytes + status_bytes() + summary_bytes() + trajectory_bytes(); }
};

std::filesystem::path chunk_path(const std::filesystem::path& partial, long chunk);
// Writes a chunk's statuses, summary rows and trajectories (synced, renamed
// into place); throws OutputError.
void write_chunk(const std::filesystem::path& path, long first, const BatchResult& r, const ChunkIdentity& run);

// Chunk files written behind the integration of the next chunk: a chunk's
// write ends in an fsync (~0.4 ms on this project's VM, the first of a run
// ~12 ms, which commits the directory's creation too) that every thread
// would otherwise wait for (docs/performance.md §1). One write at a time;
// write() first finishes the one under way. `behind` false: each write
// finishes before write() returns (when memory has no room for the second
// chunk's results that writing behind holds).
class ChunkWriter {
 public:
  explicit ChunkWriter(bool behind) : behind_(behind) {}
  ~ChunkWriter();  // waits for the write under way; its error is dropped (an exception is already leaving)
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;
  // Writes chunk `r` (its instances first … first + count) to `path`, as
  // write_chunk; throws the OutputError of this write or of the one before.
  void write(std::filesystem::path path, long first, BatchResult r, const ChunkIdentity& run);
  // Waits for the write under way; throws its OutputError.
  void finish();
  // Instances in the chunk files written so far (not the one under way).
  long written() const { return written_; }

 private:
  bool behind_;
  std::thread worker_;
  std::exception_ptr error_;
  long pending_ = 0, written_ = 0;
};

// Reads the statuses and summary rows of a chunk file and verifies it (size,
// magic, checksum, the instances it holds): "" when it is intact, else what is wrong.
std::string read_chunk_summaries(const std::filesystem::path& path, long first, const ChunkLayout& L,
                                 const ChunkIdentity& run, Status* status_out, double* summaries_out);
// Summary rows / trajectory rows of instances [offset, offset + n) of a chunk of L.count instances.
void read_chunk_summary_rows(const std::filesystem::path& path, const ChunkLayout& L, long offset, long n, double* out);
void read_chunk_trajectories(const std::filesystem::path& path, const ChunkLayout& L, long offset, long n, double* out);

// What the chunk files of a partial run depend on, one manifest line each
// ("key value"). --resume reads chunks back only when every line matches this
// build and this study, and names the lines that differ.
enum class ManifestSource { build, study };
struct ManifestLine {
  std::string key, value;
  ManifestSource source;
  std::string meaning;
};
std::vector<ManifestLine> manifest_lines(const StudyRecord& record, const Design& design, long n, long samples);
std::string manifest_text(const std::vector<ManifestLine>& lines, long chunk);
// Compares an interrupted run's manifest with this build and study and
// returns the run's chunk size; throws ResumeError naming the manifest and
// every line that differs.
long check_manifest(const std::filesystem::path& manifest_path, const std::string& out_dir,
                    const std::vector<ManifestLine>& expected, long instances);
void write_file_atomic(const std::filesystem::path& p, const std::string& text);

// True when `partial` holds at least one finished chunk file.
bool has_chunk_files(const std::filesystem::path& partial);
// The refusal of --resume where there is no interrupted run.
ResumeError nothing_to_resume(const std::string& out_dir, const std::filesystem::path& out);
// Refuses damaged chunk files, listing every one (see read_chunk_summaries).
[[noreturn]] void refuse_damaged_chunks(const std::string& out_dir,
                                        const std::vector<std::pair<std::filesystem::path, std::string>>& damaged);

// Removes a partial directory that holds no finished chunk when a call ends
// without results (error, or Ctrl-C before the first chunk), and the
// directories the call created for it: there is nothing in it to resume, and
// a leftover one would make the next plain run refuse the directory.
class PartialDirGuard {
 public:
  explicit PartialDirGuard(const std::filesystem::path& partial);
  void arm(bool armed) { armed_ = armed; }  // armed only once the directory is this run's
  ~PartialDirGuard();
  PartialDirGuard(const PartialDirGuard&) = delete;
  PartialDirGuard& operator=(const PartialDirGuard&) = delete;

 private:
  std::filesystem::path partial_;
  std::vector<std::filesystem::path> created_;
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
  RunLock(const std::filesystem::path& partial, const std::string& out_dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace hs
