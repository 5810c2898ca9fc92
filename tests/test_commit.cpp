// The final write as one transaction (host/results/commit.hpp, issue 36
// class 3; docs/physics-checks.md §2 lists what each test asserts): a kill
// injected before every step of the write (HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP,
// in a forked child) leaves every output name holding a complete file, and
// after the next command's finish_interrupted_commit the directory holds the
// complete previous set or the complete new one and nothing else; failures
// that are not kills put the previous set back.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "host/results/commit.hpp"
#include "host/results/output.hpp"

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}
void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}
std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

struct Scratch {
  fs::path path;
  Scratch() {
    char pattern[] = "/tmp/hydrosweep_commit_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~Scratch() { fs::remove_all(path); }
};

// Large enough that a torn copy could not pass for a whole one.
std::string content(const std::string& tag) { return tag + std::string(100000, tag.back()) + tag; }

const std::vector<std::string> kNames = {"results.h5", "summary.csv"};

std::vector<hs::OutputFile> new_set() {
  std::vector<hs::OutputFile> files;
  for (const auto& name : kNames) files.push_back({name, [name](const std::string& tmp) { write(tmp, content("new " + name)); }});
  return files;
}

// The commit in a child that kills itself before step k (0: no hook). Returns
// the child's wait status.
int commit_in_child(const fs::path& dir, long k) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (k > 0) ::setenv("HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP", std::to_string(k).c_str(), 1);
    try {
      hs::commit_outputs(dir.string(), new_set());
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// "old", "new" or "mixed"/"torn" for the set of kNames in dir.
std::string set_state(const fs::path& dir, bool with_previous) {
  int old_count = 0, new_count = 0;
  for (const auto& name : kNames) {
    if (!fs::exists(dir / name)) continue;
    const std::string text = read(dir / name);
    if (with_previous && text == content("old " + name)) ++old_count;
    else if (text == content("new " + name)) ++new_count;
    else return "torn";
  }
  const int n = static_cast<int>(kNames.size());
  if (new_count == n) return "new";
  if (with_previous ? old_count == n : new_count == 0) return "old";
  return "mixed";
}

void kill_at_every_step(bool with_previous) {
  Scratch scratch;
  std::set<std::string> outcomes;
  long steps = 0;
  for (long k = 1; k < 50; ++k) {
    const fs::path dir = scratch.path / ("k" + std::to_string(k));
    fs::create_directories(dir);
    if (with_previous)
      for (const auto& name : kNames) write(dir / name, content("old " + name));
    const int status = commit_in_child(dir, k);
    if (WIFEXITED(status)) {  // k is past the last step: the write completed
      ASSERT_EQ(WEXITSTATUS(status), 0);
      EXPECT_EQ(set_state(dir, with_previous), "new");
      EXPECT_EQ(names_in(dir), std::set<std::string>(kNames.begin(), kNames.end()));
      steps = k - 1;
      break;
    }
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "step " << k;
    // Right after the kill: every name that holds a file holds a whole one,
    // and with a previous set no name is ever empty.
    const std::string now = set_state(dir, with_previous);
    EXPECT_NE(now, "torn") << "step " << k;
    if (with_previous) {
      for (const auto& name : kNames) EXPECT_TRUE(fs::exists(dir / name)) << name << " missing after a kill at step " << k;
    }
    // A mixture only while the journal says how to finish it.
    if (now == "mixed") {
      EXPECT_TRUE(fs::exists(dir / hs::kCommitJournalName)) << "step " << k;
    }
    // The next command finishes (or forgets) the write: one whole set, nothing else.
    hs::finish_interrupted_commit(dir.string());
    const std::string after = set_state(dir, with_previous);
    EXPECT_TRUE(after == "old" || after == "new") << "step " << k << ": " << after;
    std::set<std::string> expected;
    if (after == "new" || with_previous) expected.insert(kNames.begin(), kNames.end());
    EXPECT_EQ(names_in(dir), expected) << "step " << k << " left files behind";
    outcomes.insert(after);
    std::printf("[ measured ] kill before step %ld (%s previous set): %s right after, %s after the next command\n", k,
                with_previous ? "with a" : "without a", now.c_str(), after.c_str());
  }
  // With a previous set: 2 keeps, the journal, 2 renames, 2 removals, the
  // journal's removal; without: the journal, 2 renames, its removal.
  EXPECT_EQ(steps, with_previous ? 8 : 4);
  EXPECT_EQ(outcomes, (std::set<std::string>{"old", "new"})) << "kills before and after the commit point";
}

}  // namespace

TEST(Commit, AKillBeforeEveryStepLeavesWholeFilesAndTheNextCommandOneWholeSet) { kill_at_every_step(true); }

TEST(Commit, AKillBeforeEveryStepOfAFirstWriteLeavesNothingOrTheWholeSet) { kill_at_every_step(false); }

// A writer that fails (a full disk, say) leaves the previous set and no
// temporaries, and removes the directories the write created.
TEST(Commit, AFailedWriterLeavesThePreviousSet) {
  Scratch scratch;
  for (const auto& name : kNames) write(scratch.path / name, content("old " + name));
  std::vector<hs::OutputFile> files = new_set();
  files[1].write = [](const std::string& tmp) {
    write(tmp, "half");
    throw hs::OutputError("writing " + tmp + " failed: No space left on device");
  };
  EXPECT_THROW(hs::commit_outputs(scratch.path.string(), files), hs::OutputError);
  EXPECT_EQ(set_state(scratch.path, true), "old");
  EXPECT_EQ(names_in(scratch.path), std::set<std::string>(kNames.begin(), kNames.end()));

  const fs::path fresh = scratch.path / "a" / "b";
  EXPECT_THROW(hs::commit_outputs(fresh.string(), files), hs::OutputError);
  EXPECT_FALSE(fs::exists(scratch.path / "a")) << "the directories the failed write created are left";
}

// A rename into place that fails after the commit point (here the second
// file's temporary is a directory, which cannot replace a file) puts the
// first file's previous version back.
TEST(Commit, ARenameThatFailsPutsThePreviousFilesBack) {
  Scratch scratch;
  for (const auto& name : kNames) write(scratch.path / name, content("old " + name));
  std::vector<hs::OutputFile> files = new_set();
  files[1].write = [](const std::string& tmp) { fs::create_directory(tmp); };
  try {
    hs::commit_outputs(scratch.path.string(), files);
    ADD_FAILURE() << "the rename of a directory over a file succeeded";
  } catch (const hs::OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("the earlier files are back in place"), std::string::npos) << e.what();
  }
  EXPECT_EQ(set_state(scratch.path, true), "old");
  EXPECT_EQ(names_in(scratch.path), std::set<std::string>(kNames.begin(), kNames.end()));
}

// A journal whose writer still runs is that writer's to finish; leftovers of
// processes that ended are removed, a running one's are not.
TEST(Commit, AnotherLiveWritersJournalAndTemporariesAreLeftAlone) {
  Scratch scratch;
  const long live = ::getppid();
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const long dead = child;
  write(scratch.path / "results.h5", "old");
  const std::string live_tmp = ".results.h5.hydrosweep-tmp." + std::to_string(live);
  const std::string dead_tmp = ".summary.csv.hydrosweep-tmp." + std::to_string(dead);
  const std::string dead_previous = ".summary.csv.hydrosweep-previous." + std::to_string(dead);
  write(scratch.path / live_tmp, "new");
  write(scratch.path / dead_tmp, "torn");
  write(scratch.path / dead_previous, "old");
  write(scratch.path / "notes.hydrosweep-tmp.x", "a user's file that only looks like one");
  write(scratch.path / hs::kCommitJournalName,
        "hydrosweep-commit 1\npid " + std::to_string(live) + "\nresults.h5\t" + live_tmp + "\t-\n");
  EXPECT_TRUE(hs::finish_interrupted_commit(scratch.path.string()).empty());
  EXPECT_EQ(read(scratch.path / "results.h5"), "old");
  EXPECT_EQ(names_in(scratch.path), (std::set<std::string>{"results.h5", live_tmp, hs::kCommitJournalName,
                                                            "notes.hydrosweep-tmp.x"}));

  // Once its writer is gone, the same journal is carried out.
  write(scratch.path / hs::kCommitJournalName,
        "hydrosweep-commit 1\npid " + std::to_string(dead) + "\nresults.h5\t" + live_tmp + "\t-\n");
  EXPECT_EQ(hs::finish_interrupted_commit(scratch.path.string()), std::vector<std::string>{"results.h5"});
  EXPECT_EQ(read(scratch.path / "results.h5"), "new");
  EXPECT_EQ(names_in(scratch.path), (std::set<std::string>{"results.h5", "notes.hydrosweep-tmp.x"}));
}

// A journal that is not one (edited, truncated, or naming paths outside the
// directory) is not acted on.
TEST(Commit, AJournalThatIsNotOneIsNotFollowed) {
  Scratch scratch;
  write(scratch.path / "results.h5", "old");
  write(scratch.path / "elsewhere", "x");
  for (const std::string& text : {std::string("hydrosweep-commit 1\npid 1\n"),
                                  std::string("hydrosweep-commit 1\npid 999999999\nresults.h5\t../elsewhere\t-\n"),
                                  std::string("something else\n")}) {
    write(scratch.path / hs::kCommitJournalName, text);
    EXPECT_TRUE(hs::finish_interrupted_commit(scratch.path.string()).empty()) << text;
    EXPECT_EQ(read(scratch.path / "results.h5"), "old");
  }
}

// The earlier set's pictures go in the same transaction: a plain name is
// that file, "plots/" the files the plot set's list names (and the list); a
// user's own file in plots/ stays. A kill before the retiring step leaves
// the journal, whose roll-forward retires them too.
TEST(Commit, TheEarlierSetsPicturesAreRetiredWithIt) {
  Scratch scratch;
  const fs::path plots = scratch.path / "plots";
  auto earlier_set = [&](const fs::path& dir) {
    fs::create_directories(dir / "plots");
    for (const auto& name : kNames) write(dir / name, content("old " + name));
    write(dir / "stability_map.png", "old map");
    write(dir / "plots" / "hist_q.png", "old");
    write(dir / "plots" / "cdf_q.png", "old");
    write(dir / "plots" / "mine.png", "the user's");
    write(dir / "plots" / hs::kPlotSetName, "hist_q.png\ncdf_q.png\n../escape\n");
  };
  earlier_set(scratch.path);
  write(scratch.path / "escape", "outside the set");
  hs::commit_outputs(scratch.path.string(), new_set(), {"stability_map.png", "plots/"});
  EXPECT_EQ(set_state(scratch.path, true), "new");
  EXPECT_FALSE(fs::exists(scratch.path / "stability_map.png"));
  EXPECT_EQ(names_in(plots), std::set<std::string>{"mine.png"});
  EXPECT_EQ(read(scratch.path / "escape"), "outside the set");

  // Without the user's file the emptied plots/ goes too.
  const fs::path again = scratch.path / "again";
  earlier_set(again);
  fs::remove(again / "plots" / "mine.png");
  hs::commit_outputs(again.string(), new_set(), {"plots/"});
  EXPECT_FALSE(fs::exists(again / "plots"));

  // Killed before the retiring step (2 keeps, the journal, 2 renames: step 6).
  const fs::path killed = scratch.path / "killed";
  earlier_set(killed);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("HYDROSWEEP_TEST_KILL_AT_COMMIT_STEP", "6", 1);
    try {
      hs::commit_outputs(killed.string(), new_set(), {"plots/"});
    } catch (...) {
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(set_state(killed, true), "new");
  EXPECT_TRUE(fs::exists(killed / "plots" / "hist_q.png")) << "step 6 is the retiring step";
  hs::finish_interrupted_commit(killed.string());
  EXPECT_EQ(names_in(killed / "plots"), std::set<std::string>{"mine.png"});
  EXPECT_FALSE(fs::exists(killed / hs::kCommitJournalName));
}
