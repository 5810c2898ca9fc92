// Writers of a batch's results: DIR/results.h5 (HDF5) and DIR/summary.csv.
//
// results.h5 layout (N instances, P parameters, M samples per trajectory):
//   /inputs/<dotted name>     N doubles per varied (grid) parameter; the group's
//                             attribute "varied" lists them in grid-axis order
//   /inputs/all               N x P doubles, every parameter of every instance;
//                             attributes "columns" (dotted names) and "units"
//   /outputs/status           N int32 (Status codes); attribute "status_names":
//                             status_names[code] is the code's name
//   /outputs/<name>           N values per scalar output (see summary_columns();
//                             each has attributes "unit" and "description")
//   /trajectories/<channel>   N x M doubles (only if trajectory_stride > 0);
//                             samples after a failure have t = NaN
//   /metadata                 attributes: study_text, study_path, study_name,
//                             hydrosweep_version, model, friction, formulation,
//                             backend, threads, wall_seconds, created (UTC ISO
//                             8601), instance_count, failed_count, dt, duration,
//                             trajectory_stride, samples_per_instance
// summary.csv: header, then one row per instance: index, status, the varied
// inputs, the scalar outputs; doubles with 17 significant digits (%.17g).
//
// Both files are written under temporary names in DIR and renamed into place
// only when both are complete, so a failure never leaves partial output.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/batch.hpp"
#include "host/study.hpp"

namespace hs {

// File-system or HDF5 failure while writing outputs.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One scalar output per instance (an /outputs dataset and a CSV column).
struct OutputColumn {
  std::string name, unit, description;
  bool integer;  // written as int64 (value() is exact for these)
  std::function<double(const FourBarSummary&)> value;
};
const std::vector<OutputColumn>& summary_columns();

// One trajectory channel (a /trajectories dataset).
struct TrajectoryChannel {
  std::string name, unit;
  std::function<double(const FourBarSample&)> value;
};
const std::vector<TrajectoryChannel>& trajectory_channels();

struct OutputPaths {
  std::string results_h5, summary_csv;
};

// Fails early (before a long run) if DIR cannot become a writable output
// directory: an existing non-directory, or no writable existing ancestor.
// Creates nothing.
void check_output_dir(const std::string& dir);

// Create DIR if needed and write both files; throws OutputError. On failure
// the temporaries are removed, and DIR too if this call created it.
OutputPaths write_outputs(const std::string& dir, const Study& study, const BatchSpec& spec, const BatchResult& result,
                          const std::string& backend = "cpu");

// PROJECT_VERSION of the build.
const char* hydrosweep_version();

// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" (run metadata, benchmark records).
std::string utc_now_iso8601();

}  // namespace hs
