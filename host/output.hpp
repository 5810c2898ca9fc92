// Writers of a batch's results: DIR/results.h5 (HDF5) and DIR/summary.csv.
//
// results.h5 layout (N instances, P parameters, M samples per trajectory):
//   /inputs/<name>            N doubles per varied input (factor or derived
//                             parameter); the group's attribute "varied" lists
//                             them in design order
//   /inputs/all               N x P doubles, every parameter of every instance;
//                             attributes "columns" (dotted names) and "units"
//   /outputs/status           N int32 (Status codes); attribute "status_names":
//                             status_names[code] is the code's name
//   /outputs/<name>           N values per scalar output (see summary_columns();
//                             each has attributes "unit" and "description")
//   /trajectories/<channel>   N x M doubles (only if trajectory_stride > 0);
//                             samples after a failure have t = NaN
//   /analysis                 (with [analysis] quantities) attribute "quantities";
//     statistics/<quantity>   attributes mean, std, mean_ci_low/high, std_ci_low/high,
//                             count_ok, count_failed, confidence; datasets
//                             quantile_levels, quantiles, quantile_ci_low/high
//     failure                 (with [analysis.limit]) attributes quantity, limit,
//                             direction, probability, ci_low, ci_high, failures,
//                             count, method
//     sobol/<quantity>        (saltelli designs) attributes factors, base_samples,
//                             dropped_rows, confidence; datasets first_order,
//                             first_order_ci_low/high, total, total_ci_low/high
//   /metadata                 attributes: study_text, study_path, study_name,
//                             hydrosweep_version, model, friction, formulation,
//                             sample_method, sample_count, seed, backend, device,
//                             threads, wall_seconds, chunk_size, chunks,
//                             resumed_instances, created (UTC ISO 8601),
//                             instance_count, failed_count, dt, duration,
//                             trajectory_stride, samples_per_instance
// Everything except the run record (wall_seconds, created, threads,
// resumed_instances) depends only on the study text and the build, so a
// resumed run writes the same file content as an uninterrupted one.
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

#include "host/analysis.hpp"
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

// What a study's analysis found (host/runner.cpp computes it).
struct StudyAnalysis {
  double confidence = 0.95;
  std::vector<double> quantile_levels;
  std::vector<std::pair<std::string, MonteCarloSummary>> statistics;  // per quantity
  bool has_failure = false;
  std::string failure_quantity;
  double limit = 0.0;
  bool limit_above = true;
  FailureProbability failure;
  std::vector<std::pair<std::string, SobolIndices>> sobol;  // per quantity (saltelli)
  std::vector<std::string> sobol_factors;                   // the indices' order
};

// How the results were obtained (the non-reproducible part of the metadata).
struct RunRecord {
  std::string backend = "cpu", device;
  int threads = 1;
  double wall_seconds = 0.0;
  long chunk_size = 0, chunks = 0;
  long resumed_instances = 0;  // instances read back from an interrupted run
};

// Everything written for one study, instance i in study order.
struct StudyResults {
  std::vector<FourBarSummary> summaries;
  long samples_per_instance = 0;
  // Fills count x samples_per_instance samples of instances [first, first + count).
  std::function<void(long first, long count, FourBarSample* out)> trajectories;
  RunRecord run;
  const StudyAnalysis* analysis = nullptr;
};

// Create DIR if needed and write both files; throws OutputError. On failure
// the temporaries are removed, and DIR too if this call created it.
OutputPaths write_outputs(const std::string& dir, const Study& study, const StudyResults& results);

// ---- stability maps (`hydrosweep stability`, host/stability.hpp) ----------------
//
// DIR/stability.h5 (N points):
//   /inputs/<name>, /inputs/all   as in results.h5
//   /stability/status             N int32, attribute status_names (0 = ok)
//   /stability/eigenvalues_real   N x 6 [1/s], all eigenvalues of the reduced
//   /stability/eigenvalues_imag   N x 6 [1/s]  Jacobian, by decreasing real part
//   /stability/max_real           N [1/s], largest Re λ without the structural zeros
//   /stability/damping_ratio      N, ζ of the dominant (least damped) pair (NaN: overdamped)
//   /stability/frequency          N [rad/s], its damped frequency (NaN: overdamped)
//   /stability/overdamped         N int32, 1: no oscillatory mode
//   /stability/structural_zeros   N int32 (2 expected)
//   /stability/crank_angle        N [rad], the driving coordinate at the equilibrium
//   /stability/pressure           N x 3 [Pa], p1 p2 p3 at the equilibrium
//   (every dataset has attributes "unit" and "description")
//   /metadata                     attributes: kind = "stability", study_text,
//                                 study_path, study_name, study_description,
//                                 hydrosweep_version, model, friction,
//                                 sample_method, sample_count, seed, factors (the
//                                 design's axes; other varied inputs are derived), equilibrium,
//                                 zero_tolerance, oscillatory_tolerance, backend,
//                                 device, threads, wall_seconds, points_per_second,
//                                 created, instance_count, failed_count
// DIR/stability.csv: one "# ..." line saying the units, then the header
//   index, <varied inputs>, status, max_real, damping_ratio, frequency_hz
//   (= frequency/2π), overdamped, structural_zeros, lambda1_re, lambda1_im, ...,
//   lambda6_im; one row per point (%.17g).
// Both written under temporary names and renamed into place, like results.h5.
template <int N>
struct StabilityResult;
struct StabilityOutputPaths {
  std::string stability_h5, stability_csv;
};
StabilityOutputPaths write_stability_outputs(const std::string& dir, const Study& study,
                                             const std::vector<StabilityResult<6>>& points, const RunRecord& run);

// PROJECT_VERSION of the build.
const char* hydrosweep_version();

// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" (run metadata, benchmark records).
std::string utc_now_iso8601();

}  // namespace hs
