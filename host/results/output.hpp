// Writers of a batch's results: DIR/results.h5 (HDF5) and DIR/summary.csv.
//
// results.h5 layout (N instances, P parameters, M samples per trajectory, d
// design factors). Every dataset and attribute written:
//   /inputs                   attribute "varied": the varied inputs in design order
//     <name>                  N doubles per varied input (factor, scale factor or
//                             derived parameter); attributes unit, description
//     all                     N x P doubles, every parameter of every instance;
//                             attributes columns (dotted names), units
//   /outputs/status           N int32 (Status codes); attributes status_names
//                             (status_names[code] is the code's name), description
//   /outputs/<name>           N values per scalar output (the model's summary columns: int64
//                             for the integer ones, else double); attributes unit,
//                             description
//   /trajectories             (only if trajectory_stride > 0) attributes stride,
//                             description
//     <channel>               N x M doubles (the model's trajectory channels); attribute
//                             unit; samples never recorded (after a failure) are
//                             NaN in every channel
//   /analysis                 (with [analysis] quantities) attributes quantities,
//                             confidence
//     statistics/<quantity>   attributes mean, std, mean_ci_low, mean_ci_high,
//                             std_ci_low, std_ci_high, count_ok (finite values used), count_failed (failed
//                             instances), count_undefined (ok instances whose
//                             quantity is NaN or infinite), confidence; datasets
//                             quantile_levels, quantiles, quantile_ci_low, quantile_ci_high
//     failure                 (with [analysis.limit]) attributes quantity, limit,
//                             direction, probability, ci_low, ci_high, failures,
//                             count, failed_instances, method
//     sobol/<quantity>        (saltelli designs) attributes factors, base_samples,
//                             dropped_rows, confidence, variance; datasets
//                             first_order, first_order_ci_low, first_order_ci_high, total,
//                             total_ci_low, total_ci_high; with sample.second_order the
//                             d x d second_order, second_order_ci_low, second_order_ci_high
//                             (S_jk at j < k, NaN elsewhere; attribute columns)
//   /metadata                 attributes: study_text, study_path, study_name,
//                             study_description, hydrosweep_version, model,
//                             friction, sample_method, sample_count, seed,
//                             scramble, formulation, driving_coordinate (the
//                             model's driving-coordinate channel, e.g. q1),
//                             backend, device, threads, ranks,
//                             wall_seconds, chunk_size, chunks, resumed_instances,
//                             created (UTC ISO 8601), instance_count, failed_count,
//                             dt, duration, trajectory_stride,
//                             samples_per_instance, confidence,
//                             bootstrap_resamples, bootstrap_seed, quantile_levels
//     design                  what regenerates the design without the source:
//                             attributes method, sampler (the algorithm in words),
//                             seed, scramble, second_order (saltelli: 1 when the
//                             blocks hold B_A^j rows), factors (names, design order),
//                             derived ("target = expression", file order)
//       factors/<name>        attributes index, unit, mode ("parameter" | "scale"),
//                             parameters (the one it sets or those it multiplies);
//                             grid: dataset values; sampled designs: attributes
//                             distribution, distribution_parameter_names,
//                             distribution_parameters, law
//       unit_points           (sampled designs) N x d doubles, the unit-cube point
//                             of every instance (factor k = its law's inverse CDF
//                             at column k); attributes columns, description
//       saltelli_role         (saltelli) N int32: 0 = A, 1 = B, 2 + j = A_B^j,
//                             d + 2 + j = B_A^j (second_order);
//                             attributes role_names, description
// Everything except the run record (wall_seconds, created, threads, ranks,
// resumed_instances) depends only on the study text and the build, so a
// resumed run writes the same file content as an uninterrupted one.
// summary.csv: header, then one row per instance: index, status, the varied
// inputs, the scalar outputs; doubles with 17 significant digits (%.17g).
//
// Both files are written as one transaction (host/results/commit.hpp): a
// failure never leaves partial output, and a kill leaves whole files that the
// next command on DIR completes into one run's set.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/results/analysis.hpp"
#include "host/run/batch.hpp"
#include "host/run/errors.hpp"
#include "host/version.hpp"
#include "host/study/study.hpp"
#include "kernels/linearize/stability.hpp"

namespace hs {

struct OutputPaths {
  std::string results_h5, summary_csv;
};

// Fails early (before a long run) if DIR cannot become a writable output
// directory: an existing non-directory, or no writable existing ancestor.
// Creates nothing; it does finish a final write a killed run committed there
// (finish_interrupted_write), before anything else looks at DIR.
void check_output_dir(const std::string& dir);

// Finishes the final write a killed run committed in DIR
// (host/results/commit.hpp), with a note on stderr naming the files; for the
// commands that read DIR (`plot`) as check_output_dir does for the writers.
void finish_interrupted_write(const std::string& dir);

// The names of the Status codes in code order, as /outputs/status and
// /stability/status record them (status_names[code]).
std::vector<std::string> status_names();

// What a study's analysis found (host/results/study_analysis.cpp computes it).
struct StudyAnalysis {
  double confidence = 0.95;
  std::vector<double> quantile_levels;
  std::vector<std::pair<std::string, MonteCarloSummary>> statistics;  // per quantity
  // Failed instances (status != ok) among the rows the statistics use: their
  // quantities are NaN. An ok instance's quantity may also be undefined (NaN
  // settling_time of an instance still moving at the end); the statistics'
  // failed + infinite count both, the outputs tell them apart.
  long failed_instances = 0;
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
  int ranks = 1;               // MPI ranks that shared the run (host/run/ranks.hpp)
  double wall_seconds = 0.0;
  long chunk_size = 0, chunks = 0;
  long resumed_instances = 0;  // instances read back from an interrupted run
};

// Everything written for one study, instance i in study order, as flat rows
// of the model's columns (ModelDescriptor::summary_columns, trajectory_channels).
// The rows are fetched a block at a time (from the run's chunk files), so the
// writers' memory is bounded by a block, not by N.
struct StudyResults {
  std::vector<Status> status;       // N
  long summary_width = 0;           // C
  // Fills count x C doubles, instance-major: the summary rows of instances [first, first + count).
  std::function<void(long first, long count, double* out)> summaries;
  long samples_per_instance = 0;    // M
  long sample_width = 0;            // W
  // Fills count x M x W doubles: the samples of instances [first, first + count).
  std::function<void(long first, long count, double* out)> trajectories;
  RunRecord run;
  const StudyAnalysis* analysis = nullptr;
};

// Create DIR if needed and write both files; throws OutputError. On failure
// the temporaries are removed, and DIR too if this call created it.
OutputPaths write_outputs(const std::string& dir, const StudyRecord& record,
                          const Design& design, const StudyResults& results);

// ---- stability maps (`hydrosweep stability`, host/run/stability_map.hpp) ----------------
//
// DIR/stability.h5 (N points):
//   /inputs/<name>, /inputs/all   as in results.h5
//   /stability                    attribute description (what was linearized where)
//   /stability/status             N int32, attribute status_names (0 = ok)
//   /stability/eigenvalues_real   N x E [1/s], all eigenvalues of the reduced
//   /stability/eigenvalues_imag   N x E [1/s]  Jacobian (E = 6) or ln(mu)/T of the
//                                 sampled closed loop's multipliers (lift-tilt,
//                                 E = 10), by decreasing real part
//   /stability/max_real           N [1/s], largest Re λ without the structural zeros
//   /stability/damping_ratio      N, ζ of the dominant (least damped) pair (NaN: overdamped)
//   /stability/frequency          N [rad/s], its damped frequency (NaN: overdamped)
//   /stability/overdamped         N int32, 1: no oscillatory mode
//   /stability/structural_zeros   N int32 (2 expected)
//   /stability/crank_angle        N [rad], the driving coordinate at the equilibrium
//   /stability/pressure           N x 3 [Pa], p1 p2 p3 at the equilibrium (lift-tilt:
//                                 N x 4, p_a1 p_b1 p_a2 p_b2)
//   (every dataset has attributes "unit" and "description")
//   /metadata                     attributes: kind = "stability", study_text,
//                                 study_path, study_name, study_description,
//                                 hydrosweep_version, model, friction,
//                                 sample_method, sample_count, seed, scramble,
//                                 factors (the design's axes; other varied inputs
//                                 are derived), equilibrium, zero_tolerance,
//                                 oscillatory_tolerance, backend, device, threads, ranks,
//                                 wall_seconds, points_per_second, created,
//                                 instance_count, failed_count
//   /metadata/design              as in results.h5
// DIR/stability.csv: one "# ..." line saying the units, then the header
//   index, <varied inputs>, status, max_real, damping_ratio, frequency_hz
//   (= frequency/2π), overdamped, structural_zeros, lambda1_re, lambda1_im, ...,
//   lambda<E>_im; one row per point (%.17g).
// Both written as one transaction (host/results/commit.hpp), like results.h5.
struct StabilityOutputPaths {
  std::string stability_h5, stability_csv;
};
StabilityOutputPaths write_stability_outputs(const std::string& dir, const StudyRecord& record, const Design& design,
                                             const std::vector<StabilityRecord>& points, const RunRecord& run);


// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" (run metadata, benchmark records).
std::string utc_now_iso8601();

}  // namespace hs
