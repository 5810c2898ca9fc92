// Stage 2 of the pipeline (host/README.md): the design of a study -- what
// generates its N x P matrix of parameter rows, one row per instance, any
// chunk of rows on demand (chunked and resumed runs never hold the whole
// matrix). Built by the study parser (host/study/study.cpp); read by the
// runner (rows per chunk, admissibility), the memory planner, the analyses
// (factor names, Saltelli structure) and the writers (factors, laws, unit
// points, varied inputs, per-instance parameters).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/design/design_rows.hpp"
#include "host/design/sampling.hpp"
#include "host/registry/models.hpp"
#include "host/design/expression.hpp"
#include "host/text.hpp"

namespace hs {

enum class SampleMethod { grid, lhs, sobol, monte_carlo, saltelli, rows };
const char* sample_method_name(SampleMethod m);

// One varied input of the design: a [[grid]] axis, a sampled [[factor]] or a
// column of the user's rows (method rows: it sets its parameter).
// It either sets one parameter (`parameter`), or is a free-named multiplier
// applied to the base values of several parameters (`scales`), e.g. one
// friction scale for F_C, F_S and σ2 together.
struct Factor {
  std::string name;                          // the dotted parameter, or the factor's own name
  const ParameterInfo* info = nullptr;       // set mode: the parameter (null in scale mode)
  std::vector<const ParameterInfo*> scaled;  // scale mode: the parameters it multiplies
  std::string unit;                          // the parameter's unit, "-" for a scale
  std::vector<double> values;                // grid: the axis values, in sweep order
  Distribution distribution;                 // sampled designs: the marginal law
  int line = 0;                              // line of its [[grid]]/[[factor]] header (0: unknown)
};
using GridAxis = Factor;

// [derived] target = "expression over dotted parameter names".
struct DerivedParameter {
  const ParameterInfo* target = nullptr;
  std::shared_ptr<const Expression> expression;
  std::vector<const ParameterInfo*> inputs;  // in expression.names() order
  int line = 0;
};

struct Design {
  const ModelDescriptor* descriptor = nullptr;  // the model's description (host/registry/models.hpp)
  // A model read from a model file ([study] model_file, host/registry/
  // model_file.hpp): owned here, `descriptor` points into it.
  std::shared_ptr<const ModelDescriptor> file_model;
  std::vector<double> base;  // parameter row: model defaults + [input] + [parameters]
  double dt = 0.0;           // the integrator's step and duration (the model's instance_check reads them)
  double duration = 0.0;
  SampleMethod method = SampleMethod::grid;
  long sample_count = 0;   // lhs/sobol/monte-carlo: instances; saltelli: base samples N
  std::uint64_t seed = 0;
  bool scramble = true;    // sobol/saltelli
  bool second_order = false;  // saltelli: blocks of 2d + 2 rows for second-order indices (sample.second_order)
  std::vector<Factor> grid;  // the design's factors ([[grid]] axes or [[factor]]s), in file order
  std::vector<DerivedParameter> derived;
  // The point sets of the sampled methods (built by the parser).
  std::shared_ptr<const LatinHypercube> latin_hypercube;
  std::shared_ptr<const SobolSequence> sobol;
  // rows: the user's design (sample.file), factor k = column k.
  std::shared_ptr<const DesignRows> user_rows;
  // [[correlation]] (monte-carlo, lhs): the factors' Spearman rank
  // correlations (d x d, row-major; empty: independent) and the lower Cholesky
  // factor L of the Gaussian copula's correlation 2 sin(pi r / 6): a unit point
  // u becomes Phi(L Phi^-1(u)) before the factors' laws map it.
  std::vector<double> rank_correlation, copula_cholesky;

  // Grid: product of the axis sizes (1 without a grid); lhs/sobol/monte-carlo:
  // sample_count; saltelli: sample_count x (factors + 2), x (2 factors + 2) with
  // second_order; rows: the file's rows.
  long instance_count() const;
  long parameter_count() const { return descriptor->parameter_count(); }
  // Names of the varied inputs: the factors, then the derived parameters.
  std::vector<std::string> varied_names() const;
  std::vector<std::string> varied_units() const;
  // The varied inputs of instance i, in varied_names() order. Any instance
  // can be generated alone, deterministically from the seed.
  std::vector<double> varied_values(long i) const;
  // Base parameter row with instance i's factors and derived parameters applied.
  std::vector<double> instance(long i) const;
  // Rows of instances [first, first + count), instance-major (count x parameter_count()).
  std::vector<double> rows(long first, long count) const;
  // Rows of every instance.
  std::vector<double> instances() const { return rows(0, instance_count()); }
  // Empty if instance i's parameters are admissible, else why not (a
  // derived value out of range, a rod thicker than the piston, ...).
  std::string instance_problem(long i) const;
  // Same, for a parameter row already generated by instance(i).
  std::string instance_problem(const double* row) const;
  std::string instance_problem(const std::vector<double>& row) const { return instance_problem(row.data()); }
  // instance_problem of `count` consecutive rows (row k at rows + k·P) on
  // `threads` threads (<= 0: every core): a model's own instance check may
  // assemble the mechanism (model files) or walk its path (the manipulator)
  // for every instance of a study.
  std::vector<std::string> instance_problems(const double* rows, long count, int threads) const;
  // Unit-cube point of instance i (sampled methods, not rows), factor order.
  void unit_point(long i, double* u) const;
  // One line on how the points are drawn (the outputs' design metadata).
  const char* sampler_description() const;
};

}  // namespace hs
