// Study files: one TOML file describes a whole batch (model, friction law,
// integrator settings, valve input, base parameters, parameter grid, output).
//
// Reference (the README copies this):
//
//   [study]                         all keys optional
//   name        = "bulk_sweep"      default: the file name without .toml
//   description = "..."             free text, stored in the outputs
//   model       = "four-bar"        a registered model (host/registry/models.cpp;
//                                   `hydrosweep parameters` lists them and what each supports)
//   formulation = "double-step"     one the model supports (default: its first):
//                                   "double-step", "penalty", "index1-baumgarte"
//   friction    = "brown-mcphee"    a friction law the model supports (default: its first)
//
//   [integrator]                    all keys optional; defaults shown
//   dt                      = 1e-3      s, > 0 and <= duration
//   duration                = 10.0      s, (0, 1e6], a whole number of steps (duration/dt within 1e-9)
//   tangent                 = "exact"   "exact" (dual numbers) | "finite-difference"
//   max_newton_iterations   = 20        integer, [1, 1000]
//   max_position_iterations = 25        integer, [1, 1000]
//   position_tolerance      = 1e-7      rad, > 0
//   pressure_tolerance      = 1e-2      Pa, > 0
//   friction_state_tolerance= 1e-7      > 0
//   constraint_tolerance    = 1e-11     m, > 0
//   pressure_min            = 0         Pa, [-1e9, 1e10], < pressure_max
//   pressure_max            = 100e6     Pa, [-1e9, 1e10]
//   penalty_factor          = 1e11      N/m, (0, 1e20]: alpha of formulation "penalty"
//
//   [input]                         piecewise-constant valve reference U_ref(t);
//                                   default: the model's schedule (seed 002 work
//                                   cycle 0/+10/0/-10/0 V switching at 0/1/2.5/5/8 s)
//   times  = [0.0, 1.0, 2.5, 5.0, 8.0]   s, segment start times, >= 0, strictly increasing
//   values = [0.0, 10.0, 0.0, -10.0, 0.0] V, U_ref on each segment, [-1000, 1000]
//   gain   = 1.0                         optional; same as parameters input.gain
//   (times and values: both required, same length, 1 to 16 entries; U_ref = 0
//    before the first time)
//
//   [parameters]                    overrides of the model defaults, by the dotted
//   "circuit.oil_bulk_modulus" = 1.5e9   names of `hydrosweep parameters`; nested
//   [parameters.friction]                tables and TOML dotted keys are the same
//   coulomb_force = 250.0                thing (friction.coulomb_force). Every value
//                                        is checked against the parameter's range.
//
//   [[grid]]                        one table per axis; the sample is the full
//   parameter = "friction.coulomb_force"   factorial product of all axes, the
//   values    = [100.0, 210.0, 400.0]      first axis varying slowest. Either
//   [[grid]]                               `values` (non-empty list) or
//   parameter = "circuit.oil_bulk_modulus" `min`, `max`, `count` (integer >= 1)
//   min = 5e8                              and optional `spacing` = "linear"
//   max = 2e9                              (default) | "log" (needs min > 0).
//   count = 10                             min <= max; count = 1 gives min.
//   spacing = "log"                        Endpoints are exact. No grid: 1 instance.
//
//   [output]
//   trajectory_stride = 0           integer, [0, 1e9]: record every n-th step (and
//                                   t = 0) of every instance; 0 = summaries only
//
//   [stability]                     `hydrosweep stability` only (ignored by run)
//   zero_tolerance        = 1e-9    (0, 1e-3]: |λ| <= this × max_k |λ_k| is a
//                                   structural zero (excluded from max Re λ)
//   oscillatory_tolerance = 1e-6    (0, 1e-2]: |Im λ| > this × |λ| is oscillatory
//
// Numbers may be written as TOML integers or floats (nan/inf are rejected);
// keys marked "integer" need a TOML integer. `hydrosweep check FILE` validates a
// study without running it.
//
// Rules checked when the file is read (each failure is a StudyError naming
// the file, the line when toml++ knows it, the key and the admissible values):
// unknown tables/keys (with a "did you mean"), wrong types, non-finite numbers,
// parameter ranges, one axis per parameter, at most 1e8 instances and 16 GiB of
// trajectories, and cross-field rules on every instance of the grid:
//   circuit.rod_diameter < circuit.piston_diameter
//   circuit.piston_chamber_length0 < circuit.cylinder_length
//   circuit.tank_pressure < circuit.supply_pressure
// Parameter overrides apply in this order: model defaults, [input],
// [parameters], grid axis values. Messages number grid axes and array entries
// from 0 (grid[0] is the first axis), like TOML paths.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/registry/backends.hpp"
#include "host/registry/models.hpp"
#include "host/design/design.hpp"
#include "host/design/expression.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/input_schedule.hpp"

namespace hs {

// Every problem with a study file (message: "FILE[:LINE]: KEY ... allowed ...").
class StudyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// [analysis]: what the study reports beyond the per-instance table.
struct AnalysisSpec {
  std::vector<std::string> quantities;       // output columns (summary_columns() names)
  double confidence = 0.95;
  long bootstrap = 1000;
  std::vector<double> quantile_levels{0.05, 0.5, 0.95};
  double settling_rate = 1e-3;               // rad/s, for settling_time
  bool reference_run = true;                 // nominal run for tracking_rms
  bool has_limit = false;                    // [analysis.limit]
  std::string limit_quantity;
  double limit = 0.0;
  bool limit_above = true;                   // failure: quantity > limit (else < limit)
  // The summary columns the analysis reads: the quantities, then the limit's
  // quantity if it is not one of them. The run keeps these N-value columns in
  // memory; every other column stays in the chunk files until it is written.
  std::vector<std::string> columns() const {
    std::vector<std::string> c = quantities;
    if (has_limit && std::find(c.begin(), c.end(), limit_quantity) == c.end()) c.push_back(limit_quantity);
    return c;
  }
};

// [stability]: the settings of `hydrosweep stability` (hs::StabilitySettings of
// kernels/linearize/stability.hpp; same defaults, host/run/stability_map.cpp converts).
struct StabilitySpec {
  double zero_tolerance = 1e-9;         // structural zero: |λ| <= zero_tolerance · max_k |λ_k|
  double oscillatory_tolerance = 1e-6;  // oscillatory: |Im λ| > oscillatory_tolerance · |λ|
  // method: one of the model's stability_methods (empty: its default);
  // penalty_*: UCS's α, ξ, ω (0: the model's default, seed 003 §3.3).
  std::string method;
  double penalty_alpha = 0.0, penalty_xi = 0.0, penalty_omega = 0.0;
};

// Stage 1 of the pipeline (host/README.md): what a study file says about
// itself and how to run it -- everything but the design. The runner and the
// writers read this record and the Design; neither reads the Study.
struct StudyRecord {
  std::string path;   // as given (used in messages and metadata)
  std::string text;   // the whole file, stored verbatim in the outputs
  std::uint64_t inputs_digest = 0;  // FNV-1a of the design file (method rows) and of the model file: a resume checks the same inputs
  std::string name, description;
  std::string model = "four-bar";
  std::string formulation;  // one the model supports
  std::string friction;     // a friction law the model supports
  IntegratorSettings settings;
  int trajectory_stride = 0;
  InputSchedule input;     // [input] (also in the design's base row, input.* columns)
  AnalysisSpec analysis;
  long chunk_size = 0;     // [execution] instances per chunk (0: automatic)
  Backend backend = Backend::automatic;  // [execution] backend (the CLI's --backend overrides it)
  StabilitySpec stability; // [stability] (hydrosweep stability)
};

// The parsed study: its record and its design (host/design/design.hpp). The
// parser fills both; the pipeline takes them apart at its entry (run_study,
// the stability command) and passes each stage's product to the next.
struct Study : StudyRecord, Design {
  const StudyRecord& record() const { return *this; }
  const Design& design() const { return *this; }
};

// Throws StudyError ("FILE: model M does not support `hydrosweep C`; model M
// supports commands ...") unless the study's model supports the command
// ("run", "stability"), and unless the study's friction law is one the
// command takes: "run" with its formulation (ModelDescriptor::supports_run),
// "stability" a linearizable law.
void require_command(const Study& study, const std::string& command);

// Read and validate a study file; throws StudyError.
Study load_study(const std::string& path);
// Same, from text already in memory (path is used for messages only).
Study parse_study(const std::string& text, const std::string& path);
// Same, against a given list of models instead of the registry (embedding
// programs with models of their own, tests); Study::descriptor points into
// `models`, which must outlive the study.
Study parse_study(const std::string& text, const std::string& path, const std::vector<ModelDescriptor>& models);

// The study text with [sample] count replaced by `count`, byte for byte
// otherwise (`hydrosweep run --extend`: the study a finished run plus its
// extension equals); throws StudyError naming the file when the text has no
// integer sample.count written as plain digits.
std::string study_text_with_sample_count(const std::string& text, const std::string& path, long count);

// Limits enforced by the parser.
constexpr long kMaxInstances = 100'000'000;
// The largest study file read (host/study/study.cpp load_study).
constexpr long kMaxStudyFileBytes = 16L << 20;
constexpr long kMaxLatinHypercube = 10'000'000;  // the design is held in memory
constexpr double kMaxTrajectoryBytes = 16.0 * 1024 * 1024 * 1024;

}  // namespace hs
