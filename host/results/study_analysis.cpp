#include "host/results/study_analysis.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/results/analysis.hpp"

namespace hs {

StudyAnalysis analyse(const StudyRecord& record, const Design& design, const std::vector<Status>& status,
                      const std::vector<std::vector<double>>& columns) {
  StudyAnalysis a;
  const AnalysisSpec& spec = record.analysis;
  a.confidence = spec.confidence;
  a.quantile_levels = spec.quantile_levels;
  BootstrapOptions boot;
  boot.resamples = static_cast<size_t>(spec.bootstrap);
  boot.level = spec.confidence;
  boot.seed = study_bootstrap_seed(design.seed);
  const size_t n = status.size();
  const std::vector<std::string> names = spec.columns();
  if (columns.size() != names.size())
    throw std::invalid_argument("analyse: " + std::to_string(columns.size()) + " columns given, " +
                                std::to_string(names.size()) + " analysed");
  // A failed instance's outputs are NaN for the statistics, whatever it left
  // in its summary (they describe a truncated run).
  auto column = [&](const std::string& name) {
    const std::vector<double>& kept = columns[std::find(names.begin(), names.end(), name) - names.begin()];
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = status[i] == Status::ok ? kept[i] : std::numeric_limits<double>::quiet_NaN();
    return v;
  };
  // A Saltelli design's A_B^(i) rows are not independent draws: its
  // statistics and failure probability use the A and B rows only, its Sobol'
  // indices every row (host/results/analysis.hpp saltelli_independent_rows).
  const bool saltelli = design.method == SampleMethod::saltelli;
  auto independent_draws = [&](std::vector<double> v) {
    return saltelli ? saltelli_independent_rows(v, design.grid.size(), design.second_order) : v;
  };
  std::vector<double> failed(n);
  for (size_t i = 0; i < n; ++i) failed[i] = status[i] != Status::ok;
  for (double f : independent_draws(failed)) a.failed_instances += f != 0.0;
  for (const auto& f : design.grid) a.sobol_factors.push_back(f.name);
  for (const auto& q : spec.quantities) {
    const std::vector<double> v = column(q);
    a.statistics.emplace_back(q, summarize_monte_carlo(independent_draws(v), spec.quantile_levels, boot));
    if (saltelli) a.sobol.emplace_back(q, sobol_indices(v, design.grid.size(), boot, design.second_order));
  }
  if (spec.has_limit) {
    a.has_failure = true;
    a.failure_quantity = spec.limit_quantity;
    a.limit = spec.limit;
    a.limit_above = spec.limit_above;
    a.failure = failure_probability(independent_draws(column(spec.limit_quantity)), spec.limit,
                                    spec.limit_above ? LimitState::above : LimitState::below, spec.confidence);
  }
  return a;
}

}  // namespace hs
