// Text for messages, shared by every stage (the lowest layer of host/,
// host/README.md): numbers that read back to the same double, lists of
// names, and the closest name to a misspelt one (study files,
// host/study/study.cpp; model files, host/registry/model_file.cpp).
#pragma once
#include <string>
#include <vector>

namespace hs {

// Shortest text that reads back to the same double ("0.001", "1e+12", "nan").
std::string round_trip_text(double v);

// items joined by sep, each between quote marks ("a, b" or "\"a\", \"b\"").
std::string join(const std::vector<std::string>& items, const std::string& sep, const std::string& quote = "");

// Closest candidate by edit distance. A name without a dot is also compared
// with the last component of dotted candidates, so "oil_bulk_modulus" finds
// "circuit.oil_bulk_modulus". Empty if nothing is reasonably close and
// `always` is false.
std::string closest(const std::string& name, const std::vector<std::string>& candidates, bool always);

}  // namespace hs
