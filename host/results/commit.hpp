// The final write of a command's output files as one transaction
// (docs/study-files.md "The output directory", issue 36 class 3): results.h5 + summary.csv of `run`,
// stability.h5 + stability.csv of `stability`.
//
// Every file is written complete under a temporary name first. Then a
// journal (DIR/.hydrosweep-commit) names the renames to come; from that
// moment the new set is committed. The temporaries are renamed over the
// final names, one at a time, and the journal is removed. A kill at any
// point leaves every final name holding a complete file (rename replaces
// atomically, and the earlier file is never moved away first), and:
//   - before the journal: the complete previous set, plus temporaries that
//     the next command on DIR removes;
//   - after it: the journal, which the next hydrosweep command on DIR
//     (run, --resume, stability, plot, check_output_dir) carries out first,
//     so that it finds the complete new set.
// A rename that fails (not a kill) puts the previous files back: each was
// hard-linked (or copied) to a ".previous" name before the first rename.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace hs {

struct OutputFile {
  std::string name;                                     // in DIR, e.g. "results.h5"
  std::function<void(const std::string& tmp)> write;    // writes the whole file at tmp, throws on failure
};

// Writes the files into DIR (created if missing) as one transaction; returns
// their final paths. Throws OutputError, leaving the previous files (or
// none) in place, the temporaries removed and directories it created gone.
//
// `retire`: what the previous set's pictures are, removed in the same
// transaction once the new files are in place (a picture of the earlier run
// beside the new data would be a mixture of two runs): a plain name in DIR
// ("stability_map.png") is that file; a name ending in '/' ("plots/") is the
// plot set that directory's kPlotSetName lists (studies/plot_study.py writes
// it), those files and the list only: a user's own files there stay.
std::vector<std::string> commit_outputs(const std::string& dir, const std::vector<OutputFile>& files,
                                        const std::vector<std::string>& retire = {});

// Completes the final write that a killed process committed in DIR (its
// journal) and removes the temporaries of killed processes. Returns the names
// of the files it put in place (empty when there was nothing to finish).
// A journal whose writer is still running is left to it.
std::vector<std::string> finish_interrupted_commit(const std::string& dir);

// The journal's name in DIR.
inline constexpr const char* kCommitJournalName = ".hydrosweep-commit";
// The list of the PNGs a `hydrosweep plot` wrote into its directory, one name
// a line, each added before its file is written.
inline constexpr const char* kPlotSetName = ".hydrosweep-plots";

}  // namespace hs
