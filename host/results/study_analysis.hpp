// The analysis of a study's finished results (Monte Carlo statistics,
// failure probability, Sobol' indices) as its [analysis] table asks, the
// product results.h5 and summary.csv carry (host/results/output.hpp).
#pragma once
#include <vector>

#include "host/results/output.hpp"

namespace hs {

// status: one per instance; columns[k]: the N values of the summary column
// record.analysis.columns()[k].
StudyAnalysis analyse(const StudyRecord& record, const Design& design, const std::vector<Status>& status,
                      const std::vector<std::vector<double>>& columns);

}  // namespace hs
