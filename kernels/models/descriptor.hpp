// What a model says about itself, once, beside its physics: its name, its
// parameter table, its outputs and what it supports. The host (study files,
// `hydrosweep parameters`, sampling, outputs, chunk files, the CLI, the plot
// scripts) works only from this description and from flat rows of doubles;
// it never names a model's parameter struct (docs/models/README.md §5.4).
//
// Host-only: strings and vectors. The physics (kernels/models/*.hpp) stays
// device code; a row becomes the model's Params through byte offsets
// recorded here (unpack_row), in templated backend code.
#pragma once
#include <cstddef>
#include <cstring>
#include <cmath>
#include <limits>
#include <sstream>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/type_list.hpp"

namespace hs {
// The `name`s of a list of tags (friction laws, formulations).
template <class... T>
std::vector<std::string> names_of(TypeList<T...>) {
  return {std::string(T::name)...};
}

// One parameter of a model: a column of the parameter row.
struct ParameterInfo {
  enum class Role {
    parameter,       // set by defaults, [parameters], grid axes, factors, derived
    input_schedule,  // the valve schedule's segments: set by the [input] table only
  };
  std::string name;          // dotted name, e.g. "circuit.oil_bulk_modulus"
  std::string unit;          // SI unit
  double min, max;           // admissible range
  bool min_exclusive;        // true: value must be > min (e.g. a modulus)
  std::string description;
  Role role = Role::parameter;
  bool integer = false;      // an int field (e.g. a segment count); the row holds it as a double
  int index = 0;             // column in the model's parameter row
  std::size_t offset = 0;    // byte offset of the double inside the model's Params

  // In range and, for an integer field, a whole number: unpack_row stores
  // the row's double into the int field, so 2.5 loops would run as 2 while
  // the inputs recorded 2.5 (issue 36). Every place a value comes from
  // ([parameters], grid axes, factors, scale factors, derived expressions)
  // asks this.
  bool admits(double v) const {
    return (min_exclusive ? v > min : v >= min) && v <= max && (!integer || v == std::floor(v));
  }
  // "(0, 1e+12]" style text for error messages; "[1, 8] (whole numbers)"
  // for an integer field.
  std::string range_text() const {
    std::ostringstream s;
    s << (min_exclusive ? "(" : "[") << min << ", " << max << "]" << (integer ? " (whole numbers)" : "");
    return s.str();
  }
};

// One scalar output per instance, or one trajectory channel.
struct OutputInfo {
  std::string name, unit, description;
  bool integer = false;  // written as int64 (the value is exact)
};

// a < b must hold for every instance (e.g. rod thinner than the piston).
struct OrderRule {
  std::string a, b, why;
};

// The host's function table for a constrained system of run-time size
// (host/constrained/points.hpp); defined on the host.
struct ConstrainedModel;

struct ModelDescriptor {
  std::string name;          // as written in study files: [study] model
  std::string title;         // one line: what it is
  std::string source;        // seed and section, e.g. "seed 002 §4"
  std::string doc;           // docs/models/<file>.md
  std::string physics;       // key of its kernel in the instantiation list
  // A model read from a model file (host/registry/model_file.hpp): the file
  // as given and its text, recorded in the outputs; empty for compiled models.
  std::string file_path, file_text;
  std::vector<ParameterInfo> parameters;  // row order
  std::vector<double> defaults;           // the default row
  // The model's default instance of its Params, as bytes: fields the table
  // does not name keep these values (host/run/backends/instance_kernel.hpp).
  std::vector<unsigned char> params_bytes;
  std::vector<OrderRule> rules;
  std::vector<OutputInfo> summary_columns;      // one row of doubles per instance
  std::vector<OutputInfo> trajectory_channels;  // one row of doubles per sample
  std::string driving_coordinate;  // name of the summary column of the driving coordinate
  // What it supports; the first entry of each list is the default.
  std::vector<std::string> commands;       // "run", "stability"
  std::vector<std::string> friction_laws;  // "brown-mcphee", ...
  std::vector<std::string> formulations;   // "double-step", ...
  std::vector<std::string> device_formulations;  // those built for the CUDA backend
  // Why each of the others is not (catalog.hpp, on_device_for): the
  // formulation is the CPU reference integrator, or this physics' kernel of
  // it does not fit a GPU thread.
  struct OffDevice {
    std::string formulation, why;
  };
  std::vector<OffDevice> off_device;
  // Which laws each formulation integrates (a formulation on a static DAE
  // form cannot carry friction states), and which laws the stability map
  // linearizes. Filled by the catalog from its compile-time lists.
  struct FormulationLaws {
    std::string formulation;
    std::vector<std::string> friction_laws;
  };
  std::vector<FormulationLaws> formulation_friction_laws;
  std::vector<std::string> stability_friction_laws;
  // What a point of its stability map holds: eigenvalues (the open-loop
  // reduced Jacobian's, or the sampled closed loop's) and pressures.
  int stability_eigenvalues = 0, stability_pressures = 0;
  std::string stability_equilibrium;  // what is linearized where (output metadata)
  // The linearizations `hydrosweep stability` offers ([stability] method;
  // first = default): "reduced" (seed 000's reduced Jacobian, the
  // hydraulically actuated models) or seed 003's "mcs", "rcs", "ucs" (the
  // constrained systems of host/constrained/points.hpp).
  std::vector<std::string> stability_methods = {"reduced"};
  // The capability of seed 003's constrained systems (a catalog entry with
  // `Constrained`, kernels/catalog/catalog.hpp): the host's function table
  // for their stability points (size, assembly, the host and per-thread
  // paths), attached by host/registry/models.cpp. Null for the hydraulically
  // actuated models, whose maps are compiled kernels. The host branches on
  // this capability, never on a model's name.
  const ConstrainedModel* constrained = nullptr;
  // What a model checks of an instance beyond parameter ranges and order
  // rules (e.g. that a controller's path stays inside the workspace, that its
  // period is a whole number of integrator steps dt and shorter than the run):
  // the parameter at fault and why, or an empty problem. Optional; host-side.
  // It gets the model's own description (its table turns the row into the
  // kernel's Params) and the integrator's step and duration.
  struct Problem {
    std::string key, why;
  };
  std::function<Problem(const ModelDescriptor& model, const double* row, double dt, double duration)> instance_check;
  // Trajectory channels the host derives from the kernel's samples when it
  // writes them (a model file's named points, docs/model-files.md §11): their
  // names, and the function that fills them for one instance from its
  // parameter row and its m samples of the kernel's channels (sample k at
  // samples + k·width), out[k·derived_channels.size() + j]. Empty: none.
  std::vector<OutputInfo> derived_channels;
  std::function<void(const ModelDescriptor& model, const double* row, const double* samples, long m, long width,
                     double* out)>
      derive_samples;
  // Summary columns the host derives from an instance's summary row (a model
  // file's named points at the run's end, docs/model-files.md §11): the last
  // `derived_summary_count` of summary_columns, filled by derive_summary from
  // the instance's parameter row and the kernel's columns (summary[0, C_k),
  // C_k = summary_columns.size() − derived_summary_count) into
  // out[0, derived_summary_count). Every backend's rows carry them
  // (host/run/backends/space_batch.hpp). None by default.
  int derived_summary_count = 0;
  std::function<void(const ModelDescriptor& model, const double* row, const double* summary, double* out)>
      derive_summary;
  long kernel_summary_width() const {
    return static_cast<long>(summary_columns.size()) - derived_summary_count;
  }

  long parameter_count() const { return static_cast<long>(parameters.size()); }
  const ParameterInfo* find_parameter(const std::string& dotted) const {
    for (const auto& p : parameters)
      if (p.name == dotted) return &p;
    return nullptr;
  }
  int summary_column(const std::string& column) const {
    for (size_t k = 0; k < summary_columns.size(); ++k)
      if (summary_columns[k].name == column) return static_cast<int>(k);
    return -1;
  }
  bool supports_command(const std::string& c) const { return contains(commands, c); }
  // Why a model supports fewer commands or formulations than its catalog
  // entry (a model file's circuits, host/registry/model_file.cpp); "" if not.
  std::string unsupported_why;
  // Takes a formulation off the model's lists (it stays compiled for others).
  void drop_formulation(const std::string& f) {
    auto drop = [&](std::vector<std::string>& v) {
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == f) v.erase(v.begin() + static_cast<long>(i--));
    };
    drop(formulations);
    drop(device_formulations);
    for (size_t i = 0; i < formulation_friction_laws.size(); ++i)
      if (formulation_friction_laws[i].formulation == f) formulation_friction_laws.erase(formulation_friction_laws.begin() + static_cast<long>(i--));
    for (size_t i = 0; i < off_device.size(); ++i)
      if (off_device[i].formulation == f) off_device.erase(off_device.begin() + static_cast<long>(i--));
  }
  // Why the CUDA backend is not built for a formulation of this model (empty
  // when it is).
  std::string off_device_reason(const std::string& formulation) const {
    for (const auto& o : off_device)
      if (o.formulation == formulation) return o.why;
    return {};
  }
  bool supports_friction(const std::string& f) const { return contains(friction_laws, f); }
  bool supports_formulation(const std::string& f) const { return contains(formulations, f); }
  // The friction laws formulation f integrates (empty if f is not one of its formulations).
  std::vector<std::string> friction_laws_of(const std::string& f) const {
    for (const auto& e : formulation_friction_laws)
      if (e.formulation == f) return e.friction_laws;
    return {};
  }
  bool supports_run(const std::string& friction, const std::string& formulation) const {
    return contains(friction_laws_of(formulation), friction);
  }
  static bool contains(const std::vector<std::string>& list, const std::string& x) {
    for (const auto& e : list)
      if (e == x) return true;
    return false;
  }
};

// Builds a parameter table for a Params struct: each entry names a double
// field through an accessor, whose byte offset is measured once on a probe
// instance. Params must be trivially copyable (it is copied to GPUs).
template <class Params>
class ParameterTableBuilder {
  static_assert(std::is_trivially_copyable<Params>::value, "model parameters must be plain data");

 public:
  explicit ParameterTableBuilder(const Params& defaults) : probe_(defaults) {}

  // field: double&(Params&) for a real parameter, int&(Params&) for an integer one.
  template <class Field>
  void add(std::string name, std::string unit, double lo, double hi, bool lo_open, std::string what, Field field,
           ParameterInfo::Role role = ParameterInfo::Role::parameter) {
    ParameterInfo p;
    p.name = std::move(name);
    p.unit = std::move(unit);
    p.min = lo;
    p.max = hi;
    p.min_exclusive = lo_open;
    p.description = std::move(what);
    p.role = role;
    p.index = static_cast<int>(table_.size());
    auto& f = field(probe_);
    using FieldType = std::remove_reference_t<decltype(f)>;
    static_assert(std::is_same<FieldType, double>::value || std::is_same<FieldType, int>::value,
                  "a parameter is a double or an int field");
    p.integer = std::is_same<FieldType, int>::value;
    p.offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&f) - reinterpret_cast<const char*>(&probe_));
    defaults_.push_back(static_cast<double>(f));
    table_.push_back(std::move(p));
  }
  std::vector<ParameterInfo>& table() { return table_; }
  std::vector<double>& defaults() { return defaults_; }
  std::vector<unsigned char> bytes() const {
    const auto* b = reinterpret_cast<const unsigned char*>(&probe_);
    return std::vector<unsigned char>(b, b + sizeof(Params));
  }
  // Everything a descriptor takes from the table.
  template <class Descriptor>
  void fill(Descriptor& d) {
    d.parameters = table_;
    d.defaults = defaults_;
    d.params_bytes = bytes();
  }

 private:
  Params probe_;
  std::vector<ParameterInfo> table_;
  std::vector<double> defaults_;
};

// A parameter row into the model's Params: every field the table names is
// set from the row; fields it does not name keep the value of `base`.
template <class Params>
Params unpack_row(const std::vector<ParameterInfo>& table, const double* row, const Params& base) {
  static_assert(std::is_trivially_copyable<Params>::value, "model parameters must be plain data");
  Params p = base;
  char* bytes = reinterpret_cast<char*>(&p);
  for (const auto& info : table) {
    if (info.integer) {
      const int v = static_cast<int>(row[info.index]);  // the study checked it is a whole number in range
      std::memcpy(bytes + info.offset, &v, sizeof v);
    } else {
      std::memcpy(bytes + info.offset, &row[info.index], sizeof(double));
    }
  }
  return p;
}

// The inverse: the row of a Params (every field the table names).
template <class Params>
std::vector<double> pack_row(const std::vector<ParameterInfo>& table, const Params& p) {
  static_assert(std::is_trivially_copyable<Params>::value, "model parameters must be plain data");
  std::vector<double> row(table.size());
  const char* bytes = reinterpret_cast<const char*>(&p);
  for (const auto& info : table) {
    if (info.integer) {
      int v;
      std::memcpy(&v, bytes + info.offset, sizeof v);
      row[info.index] = v;
    } else {
      std::memcpy(&row[info.index], bytes + info.offset, sizeof(double));
    }
  }
  return row;
}

}  // namespace hs
