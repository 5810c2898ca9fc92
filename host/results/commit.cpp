// The final write as one transaction: host/results/commit.hpp says what a
// kill at each point leaves; docs/study-files.md ("The output directory") says it for users.
#include "host/results/commit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/results/output.hpp"

namespace hs {

namespace {
namespace fs = std::filesystem;

// Tags of this module's files; a file carrying one and the PID of a process
// that no longer runs is a killed write's leftover.
constexpr const char* kTempTag = ".hydrosweep-tmp.";
constexpr const char* kPreviousTag = ".hydrosweep-previous.";

bool process_alive(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Flushes a file's or a directory's data to the disk (best effort: a kill
// needs none of this, a power cut does).
void sync_path(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// Test hook (tests/test_commit.cpp, tests/runner_edges): with
// HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP=k the process kills itself with
// SIGKILL just before the k-th step of the final write (each keep of a
// previous file, the journal's rename, each rename into place, each removal,
// the journal's removal), which is how a kill at every rename is shown to
// leave a complete set.
class KillHook {
 public:
  KillHook() {
    if (const char* s = std::getenv("HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP")) target_ = std::atol(s);
  }
  void step() {
    if (target_ > 0 && ++count_ == target_) ::raise(SIGKILL);
  }

 private:
  long target_ = 0, count_ = 0;
};

struct JournalEntry {
  std::string name, temp, previous;  // file names in DIR; previous "" when there was none
};

bool plain_name(const std::string& n) { return !n.empty() && n.find('/') == std::string::npos && n != "." && n != ".."; }

// A retire entry: a plain name, or a plain name and '/' (a plot set).
bool retire_name(const std::string& n) {
  return plain_name(n) || (n.size() > 1 && n.back() == '/' && plain_name(n.substr(0, n.size() - 1)));
}

std::string journal_text(const std::vector<JournalEntry>& entries, const std::vector<std::string>& retire) {
  std::ostringstream s;
  s << "hydrosweep-commit 1\npid " << ::getpid() << "\n";
  for (const auto& e : entries) s << e.name << '\t' << e.temp << '\t' << (e.previous.empty() ? "-" : e.previous) << '\n';
  for (const auto& r : retire) s << "retire\t" << r << '\n';
  return s.str();
}

// Removes what a retire entry names (commit_outputs' `retire`). Idempotent: a
// roll-forward after a kill may do it twice.
void retire_one(const fs::path& out, const std::string& name) {
  std::error_code ec;
  if (name.back() != '/') {
    if (fs::is_regular_file(out / name, ec)) fs::remove(out / name, ec);
    return;
  }
  const fs::path set_dir = out / name.substr(0, name.size() - 1);
  const fs::path list = set_dir / kPlotSetName;
  std::ifstream in(list);
  if (!in) return;
  for (std::string file; std::getline(in, file);)
    if (plain_name(file) && file != kPlotSetName && fs::is_regular_file(set_dir / file, ec)) fs::remove(set_dir / file, ec);
  in.close();
  fs::remove(list, ec);
  fs::remove(set_dir, ec);  // only if nothing else is in it
}

// Reads a journal; false if it is not one (then it is left alone).
bool read_journal(const fs::path& path, long& pid, std::vector<JournalEntry>& entries, std::vector<std::string>& retire) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != "hydrosweep-commit 1") return false;
  if (!std::getline(in, line) || line.rfind("pid ", 0) != 0) return false;
  pid = std::atol(line.c_str() + 4);
  while (std::getline(in, line)) {
    if (line.rfind("retire\t", 0) == 0) {
      const std::string name = line.substr(7);
      if (!retire_name(name)) return false;
      retire.push_back(name);
      continue;
    }
    std::istringstream fields(line);
    JournalEntry e;
    if (!std::getline(fields, e.name, '\t') || !std::getline(fields, e.temp, '\t') || !std::getline(fields, e.previous))
      return false;
    // Only plain names in DIR: a journal never sends a rename elsewhere.
    for (const std::string* n : {&e.name, &e.temp, &e.previous})
      if (!plain_name(*n)) return false;
    if (e.previous == "-") e.previous.clear();
    entries.push_back(e);
  }
  return !entries.empty();
}

// Writes TEXT, complete and flushed, at TMP (renamed into place by the caller).
void write_small_file(const fs::path& tmp, const std::string& text) {
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    f.flush();
    if (!f) throw OutputError("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  sync_path(tmp);
}

// Removes PATH's files that carry a tag and the PID of a dead process.
void remove_dead_leftovers(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.empty() || file[0] != '.') continue;
    for (const char* tag : {kTempTag, kPreviousTag}) {
      const size_t at = file.rfind(tag);
      if (at == std::string::npos) continue;
      const std::string digits = file.substr(at + std::strlen(tag));
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      if (process_alive(std::atol(digits.c_str()))) continue;
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

// Puts the previous files back after a failed rename: the first `renamed`
// entries are in place and are replaced by (or, without one, removed for)
// their previous file.
void roll_back(const fs::path& out, const std::vector<JournalEntry>& entries, size_t renamed) {
  std::error_code ignored;
  for (size_t j = 0; j < renamed; ++j) {
    if (entries[j].previous.empty()) fs::remove(out / entries[j].name, ignored);
    else fs::rename(out / entries[j].previous, out / entries[j].name, ignored);
  }
  for (const auto& e : entries) {
    fs::remove(out / e.temp, ignored);
    if (!e.previous.empty()) fs::remove(out / e.previous, ignored);
  }
}

}  // namespace

std::vector<std::string> commit_outputs(const std::string& dir, const std::vector<OutputFile>& files,
                                        const std::vector<std::string>& retire) {
  for (const auto& r : retire)
    if (!retire_name(r)) throw OutputError("internal: retire entry \"" + r + "\" is not a name in the output directory");
  KillHook hook;
  const fs::path out = fs::absolute(dir);
  std::vector<fs::path> created_dirs;  // outermost first
  for (fs::path p = out; !fs::exists(p); p = p.parent_path()) created_dirs.insert(created_dirs.begin(), p);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw OutputError("cannot create output directory " + dir + ": " + ec.message());

  const std::string pid = std::to_string(::getpid());
  std::vector<JournalEntry> entries;
  for (const auto& f : files) entries.push_back({f.name, "." + f.name + kTempTag + pid, ""});
  bool committed = false;
  // Until the journal is in place a failure leaves the previous set as it was.
  struct Cleanup {
    const fs::path& out;
    const std::vector<JournalEntry>& entries;
    const std::vector<fs::path>& created_dirs;
    const bool& committed;
    ~Cleanup() {
      if (committed) return;
      std::error_code ignored;
      for (const auto& e : entries) {
        fs::remove(out / e.temp, ignored);
        if (!e.previous.empty()) fs::remove(out / e.previous, ignored);
      }
      for (auto it = created_dirs.rbegin(); it != created_dirs.rend(); ++it) fs::remove(*it, ignored);  // only if empty
    }
  } cleanup{out, entries, created_dirs, committed};

  for (size_t k = 0; k < files.size(); ++k) {
    files[k].write((out / entries[k].temp).string());
    sync_path(out / entries[k].temp);
  }
  // Each earlier file is kept under a second name (a hard link: the final
  // name never goes empty), for putting back if a rename fails.
  for (auto& e : entries) {
    if (!fs::exists(out / e.name, ec)) continue;
    hook.step();
    const std::string previous = "." + e.name + kPreviousTag + pid;
    fs::create_hard_link(out / e.name, out / previous, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(out / e.name, out / previous, fs::copy_options::overwrite_existing, ec);
    }
    if (ec) throw OutputError("cannot keep the earlier " + (out / e.name).string() + " while writing the new one: " + ec.message());
    e.previous = previous;
  }
  // The commit point: from here the new set is what DIR holds, completed by
  // the next command if this process is killed.
  const fs::path journal = out / kCommitJournalName;
  const fs::path journal_tmp = out / (std::string(kCommitJournalName) + kTempTag + pid);
  write_small_file(journal_tmp, journal_text(entries, retire));
  hook.step();
  fs::rename(journal_tmp, journal, ec);
  if (ec) {
    fs::remove(journal_tmp, ec);
    throw OutputError("cannot write " + journal.string() + ": " + ec.message());
  }
  sync_path(out);
  committed = true;

  for (size_t k = 0; k < entries.size(); ++k) {
    hook.step();
    fs::rename(out / entries[k].temp, out / entries[k].name, ec);
    if (ec) {
      const std::string why = ec.message();
      roll_back(out, entries, k);  // never leave one new file without the others
      fs::remove(journal, ec);
      throw OutputError("cannot rename " + (out / entries[k].temp).string() + " to " + (out / entries[k].name).string() +
                        ": " + why + "; the earlier files are back in place");
    }
  }
  for (const auto& r : retire) {
    hook.step();
    retire_one(out, r);
  }
  for (const auto& e : entries) {
    if (e.previous.empty()) continue;
    hook.step();
    fs::remove(out / e.previous, ec);
  }
  hook.step();
  fs::remove(journal, ec);
  sync_path(out);
  std::vector<std::string> paths;
  for (const auto& e : entries) paths.push_back((out / e.name).string());
  return paths;
}

std::vector<std::string> finish_interrupted_commit(const std::string& dir) {
  std::vector<std::string> finished;
  std::error_code ec;
  const fs::path out = fs::absolute(dir, ec);
  if (ec || !fs::is_directory(out, ec)) return finished;
  const fs::path journal = out / kCommitJournalName;
  long pid = 0;
  std::vector<JournalEntry> entries;
  std::vector<std::string> retire;
  // A journal whose writer still runs is that writer's to finish.
  if (fs::exists(journal, ec) && read_journal(journal, pid, entries, retire) && !(process_alive(pid) && pid != ::getpid())) {
    // Roll forward: every temporary still there goes to its name (the
    // journal exists only once all of them were complete).
    for (const auto& e : entries) {
      if (!fs::exists(out / e.temp, ec)) continue;
      fs::rename(out / e.temp, out / e.name, ec);
      if (ec) throw OutputError("cannot finish the final write a killed run began in " + out.string() + ": renaming " +
                                e.temp + " to " + e.name + ": " + ec.message());
      finished.push_back(e.name);
    }
    for (const auto& r : retire) retire_one(out, r);
    for (const auto& e : entries)
      if (!e.previous.empty()) fs::remove(out / e.previous, ec);
    fs::remove(journal, ec);
    sync_path(out);
  }
  remove_dead_leftovers(out);
  return finished;
}

}  // namespace hs
