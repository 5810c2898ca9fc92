// A finished run's results.h5 read back for `hydrosweep run --extend N`
// (host/cli/run_study.hpp, docs/study-files.md "Extending a Monte Carlo
// study"): the study text it ran, its instance count, and its statuses,
// summary rows and trajectories in the chunk store's row layout, so that the
// extended run's writers take the first instances from here, value for
// value, and the new ones from the chunks.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/run/errors.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/descriptor.hpp"

namespace hs {

class FinishedRun {
 public:
  // Opens DIR/results.h5; throws OutputError naming the file and what is
  // missing when it is not a finished `hydrosweep run` output.
  explicit FinishedRun(const std::string& results_h5);
  ~FinishedRun();
  FinishedRun(const FinishedRun&) = delete;
  FinishedRun& operator=(const FinishedRun&) = delete;

  const std::string& path() const { return path_; }
  const std::string& study_text() const { return study_text_; }
  const std::string& sample_method() const { return sample_method_; }
  const std::string& version() const { return version_; }  // /metadata hydrosweep_version: the build that wrote it
  long instance_count() const { return instance_count_; }

  // Statuses of instances [first, first + count) into out.
  void statuses(long first, long count, Status* out) const;
  // Summary rows of instances [first, first + count): row-major, the model's
  // summary columns in order (OutputInfo::name datasets of /outputs).
  void summary_rows(long first, long count, const std::vector<OutputInfo>& columns, double* out) const;
  // Trajectory rows of instances [first, first + count): per instance m
  // samples of the channels in order (/trajectories/<channel>, m columns).
  void trajectory_rows(long first, long count, const std::vector<OutputInfo>& channels, long m, double* out) const;

 private:
  std::string path_, study_text_, sample_method_, version_;
  long instance_count_ = 0;
  std::int64_t file_ = -1;  // the open file (an HDF5 hid_t)
};

}  // namespace hs
