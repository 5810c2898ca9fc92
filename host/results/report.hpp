// One screen of a finished run's analysis, read back from its results.h5:
// per analysed quantity the mean with its interval, the standard deviation and
// the quantiles, with units; the failure probability with its Wilson
// interval; the Sobol' indices of a Saltelli design. `hydrosweep run` prints
// it after a run and `hydrosweep report DIR` for any finished run
// (docs/usage.md §3).
#pragma once
#include <string>

namespace hs {

// The text, from DIR/results.h5 (or a results.h5 path). Throws OutputError
// naming the file when it is missing or is not a hydrosweep results file.
std::string analysis_report(const std::string& dir_or_file);

}  // namespace hs
