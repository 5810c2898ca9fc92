// Named, range-checked access to every field of an instance's parameters.
//
// Study files address parameters by dotted name ("circuit.oil_bulk_modulus",
// "friction.coulomb_force", "mechanism.body2.mass"); this table is the one
// place that maps a name to a field, its unit, its admissible range and its
// meaning. Everything user-facing (study parsing, output columns, README
// reference) is generated from it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kernels/models/four_bar.hpp"

namespace hs {

struct ParameterInfo {
  std::string name;         // dotted name
  std::string unit;         // SI unit
  double min, max;          // admissible range
  bool min_exclusive;       // true: value must be > min (e.g. a modulus)
  std::string description;
  std::function<double&(FourBarParams&)> field;

  bool admits(double v) const { return (min_exclusive ? v > min : v >= min) && v <= max; }
  // "(0, 1e+12]" style text for error messages.
  std::string range_text() const;
};

// All parameters of the planar four-bar models, in a stable order.
const std::vector<ParameterInfo>& four_bar_parameters();
// nullptr if unknown.
const ParameterInfo* find_parameter(const std::string& name);

// Models known by name: "four-bar" (seed 002, default), "four-bar-seed001"
// and "four-bar-3d" (seed 000's 3D formulation of the seed 002 mechanism,
// same parameters; `hydrosweep stability` only).
bool model_defaults(const std::string& model, FourBarParams& out);
std::vector<std::string> model_names();
// True for models that only the linearization (`hydrosweep stability`)
// handles: "four-bar-3d". Time integration needs a planar model.
bool model_is_linearization_only(const std::string& model);

}  // namespace hs
