// Study-file parser. The format is documented at the top of study.hpp.
//
// Design: every value is read through one of a few typed readers (number,
// integer, string, choice) that know the key's full dotted name and the
// node's source line, so every error message has the same shape:
//   FILE:LINE: KEY = VALUE <what is wrong>; <what is allowed>
// toml++ stays an implementation detail of this file.
#include "host/study/study.hpp"


#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <toml++/toml.h>

#include "host/registry/model_file.hpp"
#include "host/text.hpp"

namespace hs {
namespace {

// Shortest text that reads back to the same double ("0.001", "1e+12").
std::string fmt(double v) { return round_trip_text(v); }

// An admissible interval with its text, "(0, inf)" or "[1, 1000]".
struct Range {
  double lo, hi;
  bool lo_open, hi_open;
  bool admits(double v) const { return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi); }
  std::string text() const {
    return std::string(lo_open ? "(" : "[") + fmt(lo) + ", " + fmt(hi) + (hi_open ? ")" : "]");
  }
};
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Range kPositive{0, kInf, true, true};

const std::vector<std::string> kTangentNames = {"exact", "finite-difference"};
const std::vector<std::string> kSpacingNames = {"linear", "log"};
constexpr double kMaxVolts = 1000.0;
// A run longer than this many steps is certainly a unit mistake (dt in ms?).
constexpr double kMaxSteps = 1e12;

class Parser {
 public:
  Parser(std::string path, std::string text, const std::vector<ModelDescriptor>& models) : models_(models) {
    s_.path = std::move(path);
    s_.text = std::move(text);
  }

  Study run() {
    toml::table root;
    try {
      root = toml::parse(s_.text, s_.path);
    } catch (const toml::parse_error& e) {
      const auto& b = e.source().begin;
      throw StudyError(s_.path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                       ": TOML syntax error: " + std::string(e.description()));
    }
    check_top_level(root);
    s_.name = std::filesystem::path(s_.path).stem().string();
    machine_ = root.get("machine");
    read_study(table_of(root, "study"));
    if (!s_.descriptor) use_model();  // no [study] model: the default model
    s_.input = schedule_of(s_.base);
    read_integrator(table_of(root, "integrator"));
    read_input(table_of(root, "input"));
    read_parameters(table_of(root, "parameters"));
    read_sample(table_of(root, "sample"), root);
    read_grid(root);
    read_factors(root);
    if (s_.second_order && s_.grid.size() < 2)
      fail(second_order_where_, "sample.second_order = true needs at least two [[factor]] tables (indices of pairs); this "
                                "study has " + std::to_string(s_.grid.size()));
    read_correlations(root);
    read_derived(table_of(root, "derived"));
    read_output(table_of(root, "output"));
    read_analysis(table_of(root, "analysis"));
    read_execution(table_of(root, "execution"));
    read_stability(table_of(root, "stability"));
    build_design();
    check_sizes();
    if (s_.method == SampleMethod::grid && s_.derived.empty() && set_mode_only()) {
      check_pair_rules();
      check_model_instance();
    } else {
      check_first_instance();
    }
    return std::move(s_);
  }

 private:
  const std::vector<ModelDescriptor>& models_;  // where [study] model is looked up
  Study s_;
  toml::source_region gain_source_;                 // [input] gain, if given
  const toml::node* machine_ = nullptr;             // [machine]: a model in the study (docs/model-files.md §6)
  std::map<std::string, int> parameter_lines_;      // [parameters] name -> line
  std::string second_order_where_;                  // "FILE:LINE" of sample.second_order
  std::string stride_where_;                        // "FILE:LINE" of output.trajectory_stride

  // ---- messages -------------------------------------------------------
  std::string at(int line) const { return line > 0 ? s_.path + ":" + std::to_string(line) : s_.path; }
  std::string at(const toml::source_region& r) const { return at(static_cast<int>(r.begin.line)); }
  std::string at(const toml::node& n) const { return at(n.source()); }
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw StudyError(where + ": " + what);
  }

  static std::string type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::integer: return "integer";
      case toml::node_type::floating_point: return "float";
      case toml::node_type::string: return "string";
      case toml::node_type::boolean: return "boolean";
      case toml::node_type::array: return "array";
      case toml::node_type::table: return "table";
      default: return "date/time";
    }
  }
  static std::string show(const toml::node& n) {
    if (auto v = n.as_integer()) return std::to_string(v->get());
    if (auto v = n.as_floating_point()) return fmt(v->get());
    if (auto v = n.as_string()) return "\"" + v->get() + "\"";
    if (auto v = n.as_boolean()) return v->get() ? "true" : "false";
    return type_name(n);
  }

  // ---- typed readers --------------------------------------------------
  double number(const toml::node& n, const std::string& key) const {
    double v;
    if (auto i = n.as_integer()) v = static_cast<double>(i->get());
    else if (auto f = n.as_floating_point()) v = f->get();
    else fail(at(n), key + " must be a number, got " + type_name(n) + " " + show(n));
    if (!std::isfinite(v)) fail(at(n), key + " = " + fmt(v) + " must be a finite number");
    return v;
  }
  double number_in(const toml::node& n, const std::string& key, const Range& r, const std::string& unit) const {
    const double v = number(n, key);
    if (!r.admits(v)) fail(at(n), key + " = " + fmt(v) + " is out of range " + r.text() + (unit.empty() ? "" : " " + unit));
    return v;
  }
  long integer(const toml::node& n, const std::string& key, long lo, long hi) const {
    if (!n.is_integer())
      fail(at(n), key + " must be an integer, got " + type_name(n) + " " + show(n));
    const int64_t v = n.as_integer()->get();
    if (v < lo || v > hi)
      fail(at(n), key + " = " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<long>(v);
  }
  std::string string(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(at(n), key + " must be a string, got " + type_name(n) + " " + show(n));
    return n.as_string()->get();
  }
  std::string choice(const toml::node& n, const std::string& key, const std::vector<std::string>& allowed) const {
    const std::string v = string(n, key);
    if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
    const std::string hint = closest(v, allowed, false);
    fail(at(n), key + " = \"" + v + "\" is not one of " + join(allowed, ", ", "\"") +
                    (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
  }
  // The ParameterInfo of a dotted name, or an error naming the model and
  // suggesting its closest parameter. Parameters set by the [input] table
  // are refused elsewhere (settable = false).
  const ParameterInfo& parameter(const std::string& name, const toml::source_region& where, const std::string& key,
                                 bool settable = true) const {
    const ModelDescriptor& m = *s_.descriptor;
    if (const ParameterInfo* p = m.find_parameter(name)) {
      if (settable && p->role == ParameterInfo::Role::input_schedule)
        fail(at(where), key + ": " + name + " is part of the valve schedule; set it in the [input] table (times, values)");
      return *p;
    }
    std::vector<std::string> names;
    for (const auto& p : m.parameters)
      if (p.role == ParameterInfo::Role::parameter) names.push_back(p.name);
    std::string other;  // a parameter of another model?
    for (const auto& o : models_)
      if (o.name != m.name && o.find_parameter(name)) other = " (it is a parameter of model " + o.name + ")";
    fail(at(where), "unknown parameter '" + name + "' (" + key + ") of model " + m.name + other + "; did you mean '" +
                        closest(name, names, true) + "'? ('hydrosweep parameters --model " + m.name + "' lists them all)");
  }
  // The valve schedule held in a row's input.* columns (the model's [input] policy).
  InputSchedule schedule_of(const std::vector<double>& row) const {
    InputSchedule in;
    const ModelDescriptor& m = *s_.descriptor;
    const ParameterInfo* count = m.find_parameter("input.segments");
    if (!count) return in;
    in.count = static_cast<int>(row[count->index]);
    in.gain = row[m.find_parameter("input.gain")->index];
    for (int k = 0; k < InputSchedule::kMaxSegments; ++k) {
      in.start[k] = row[m.find_parameter("input.time" + std::to_string(k + 1))->index];
      in.value[k] = row[m.find_parameter("input.value" + std::to_string(k + 1))->index];
    }
    return in;
  }
  void set_schedule(const InputSchedule& in, std::vector<double>& row) const {
    const ModelDescriptor& m = *s_.descriptor;
    row[m.find_parameter("input.segments")->index] = in.count;
    row[m.find_parameter("input.gain")->index] = in.gain;
    for (int k = 0; k < InputSchedule::kMaxSegments; ++k) {
      row[m.find_parameter("input.time" + std::to_string(k + 1))->index] = in.start[k];
      row[m.find_parameter("input.value" + std::to_string(k + 1))->index] = in.value[k];
    }
  }
  double parameter_value(const toml::node& n, const std::string& key, const ParameterInfo& p) const {
    const double v = number(n, key);
    if (!p.admits(v))
      fail(at(n), key + " = " + fmt(v) + " is out of range " + p.range_text() + (p.unit == "-" ? "" : " " + p.unit) +
                      (key.find(p.name) == std::string::npos ? " for " + p.name : ""));
    return v;
  }

  // ---- structure --------------------------------------------------------
  // toml++ iterates tables in key order; report problems in file order.
  struct Entry {
    std::string key;
    const toml::node* node;
    toml::source_region source;  // the key's, else the value's
  };
  static std::vector<Entry> in_file_order(const toml::table& t) {
    std::vector<Entry> out;
    for (auto&& [k, v] : t) out.push_back({std::string(k.str()), &v, k.source().begin.line ? k.source() : v.source()});
    std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
      return a.source.begin.line != b.source.begin.line ? a.source.begin.line < b.source.begin.line
                                                        : a.source.begin.column < b.source.begin.column;
    });
    return out;
  }

  // table: the key prefix ("integrator", "grid[2]"); header: how the table is written.
  void check_keys(const toml::table& t, const std::string& table, const std::vector<std::string>& allowed,
                  const std::string& header = "") const {
    for (const auto& e : in_file_order(t)) {
      if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
      const std::string hint = closest(e.key, allowed, false);
      fail(at(e.source), "unknown key '" + table + "." + e.key + "'; allowed in " + (header.empty() ? "[" + table + "]" : header) +
                             ": " + join(allowed, ", ") +
                             (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  void check_top_level(const toml::table& root) const {
    const std::vector<std::string> tables = {"study",     "integrator", "input",    "parameters", "sample",
                                             "grid",      "factor",     "derived",  "analysis",   "output",
                                             "execution", "stability",  "correlation", "machine"};
    for (const auto& e : in_file_order(root)) {
      const toml::node& v = *e.node;
      const auto where = at(e.source);
      if (std::find(tables.begin(), tables.end(), e.key) == tables.end()) {
        const std::string hint = closest(e.key, tables, false);
        fail(where, std::string(v.is_table() ? "unknown table [" + e.key + "]" : "unknown top-level key '" + e.key + "'") +
                        "; a study has the tables " + join(tables, ", ", "") + " ([[grid]], [[factor]] and [[correlation]] are arrays of tables)" +
                        (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
      if (e.key == "grid" || e.key == "factor" || e.key == "correlation") {
        if (!v.is_array() || (!v.as_array()->empty() && !v.is_array_of_tables()))
          fail(where, e.key + " must be an array of tables: write each one as [[" + e.key + "]], got " + type_name(v));
      } else if (!v.is_table()) {
        fail(where, e.key + " must be a table [" + e.key + "], got " + type_name(v) + " " + show(v));
      }
    }
  }
  static const toml::table* table_of(const toml::table& root, const char* name) { return root[name].as_table(); }

  // ---- sections ---------------------------------------------------------
  void read_study(const toml::table* t) {
    if (!t) return;
    check_keys(*t, "study", {"name", "description", "model", "model_file", "formulation", "friction"});
    if (auto n = t->get("name")) {
      s_.name = string(*n, "study.name");
      // The name heads the CSV outputs (a "# ..." line) and the plots' titles:
      // a line break would start rows that look like data (issue 36).
      for (unsigned char c : s_.name)
        if (c < 0x20 || c == 0x7f)
          fail(at(*n), "study.name must be one line of text without control characters (found character code " +
                           std::to_string(static_cast<int>(c)) + ")");
    }
    if (auto n = t->get("description")) s_.description = string(*n, "study.description");
    if (machine_ && (t->get("model") || t->get("model_file")))
      fail(at(*machine_), "[machine] describes this study's model; remove study.model and study.model_file, or [machine]");
    if (auto f = t->get("model_file")) {
      if (t->get("model")) fail(at(*f), "give study.model (a compiled model) or study.model_file, not both");
      read_model_file(*f);
    } else if (auto n = t->get("model")) {
      std::vector<std::string> names;
      for (const auto& m : models_) names.push_back(m.name);
      s_.model = choice(*n, "study.model", names);
    }
    use_model();
    const ModelDescriptor& m = *s_.descriptor;
    if (auto n = t->get("formulation")) {
      s_.formulation = string(*n, "study.formulation");
      if (!m.supports_formulation(s_.formulation))
        fail(at(*n), "study.formulation = \"" + s_.formulation + "\": " + unsupported(m, "formulation", all_formulations(),
                                                                                       m.formulations, s_.formulation));
    }
    if (auto n = t->get("friction")) {
      s_.friction = string(*n, "study.friction");
      if (!m.supports_friction(s_.friction))
        fail(at(*n), "study.friction = \"" + s_.friction + "\": " + unsupported(m, "friction law", all_friction_laws(),
                                                                                 m.friction_laws, s_.friction));
    }
  }
  // [study] model_file: a path relative to the study file's folder
  // (docs/model-files.md); its problems are the study's (exit 2).
  void read_model_file(const toml::node& n) {
    const std::string given = string(n, "study.model_file");
    std::filesystem::path file(given);
    if (file.is_relative()) file = std::filesystem::path(s_.path).parent_path() / file;
    try {
      s_.file_model = load_model_file(file.string());
    } catch (const ModelFileError& e) {
      fail(at(n), "study.model_file = \"" + given + "\": " + e.what());
    }
    s_.model = s_.file_model->name;
    s_.inputs_digest = content_digest(s_.file_model->file_text);  // a resume refuses an edited model file
  }
  // [machine]: the tables of a model file inside the study (a Python dict
  // study carries its model this way); its messages cite the study's lines.
  void read_machine() {
    if (!machine_->is_table()) fail(at(*machine_), "machine must be a table [machine] holding a model file's tables");
    try {
      s_.file_model = parse_embedded_model(s_.text, s_.path);
    } catch (const ModelFileError& e) {
      throw StudyError(e.what());
    }
    s_.model = s_.file_model->name;
    s_.inputs_digest = 0;  // the model is part of the study text, whose hash the resume checks
  }
  // The model's description, defaults, default friction law and formulation.
  void use_model() {
    if (machine_ && !s_.file_model) read_machine();
    s_.descriptor = s_.file_model.get();
    for (const auto& m : models_)
      if (!s_.descriptor && m.name == s_.model) s_.descriptor = &m;
    if (!s_.descriptor) fail(at(0), "model \"" + s_.model + "\" is not registered");
    s_.base = s_.descriptor->defaults;
    s_.friction = s_.descriptor->friction_laws.empty() ? "" : s_.descriptor->friction_laws.front();
    s_.formulation = s_.descriptor->formulations.empty() ? "" : s_.descriptor->formulations.front();
  }
  std::vector<std::string> all_friction_laws() const {
    std::vector<std::string> all;
    for (const auto& m : models_)
      for (const auto& f : m.friction_laws)
        if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
    return all;
  }
  std::vector<std::string> all_formulations() const {
    std::vector<std::string> all;
    for (const auto& m : models_)
      for (const auto& f : m.formulations)
        if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
    return all;
  }
  // "model M does not support the friction law X; it supports: a, b" (or
  // "X is not a friction law of any model" with a hint).
  static std::string unsupported(const ModelDescriptor& m, const std::string& what, const std::vector<std::string>& known,
                                 const std::vector<std::string>& supported, const std::string& value) {
    const std::string list = supported.empty() ? "none" : join(supported, ", ", "\"");
    if (std::find(known.begin(), known.end(), value) == known.end()) {
      const std::string hint = closest(value, supported.empty() ? known : supported, false);
      return "no model has the " + what + " \"" + value + "\"; model " + m.name + " supports " + list +
             (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)");
    }
    return "model " + m.name + " does not support the " + what + " \"" + value + "\"; it supports " + list;
  }

  void read_integrator(const toml::table* t) {
    if (!t) return;
    struct RealKey {
      const char* key;
      double IntegratorSettings::*field;
      Range range;
      const char* unit;
    };
    const RealKey reals[] = {
        {"dt", &IntegratorSettings::dt, kPositive, "s"},
        {"duration", &IntegratorSettings::duration, {0, 1e6, true, false}, "s"},
        {"position_tolerance", &IntegratorSettings::position_tolerance, kPositive, "rad"},
        {"pressure_tolerance", &IntegratorSettings::pressure_tolerance, kPositive, "Pa"},
        {"friction_state_tolerance", &IntegratorSettings::friction_state_tolerance, kPositive, ""},
        {"constraint_tolerance", &IntegratorSettings::constraint_tolerance, kPositive, "m"},
        {"pressure_min", &IntegratorSettings::pressure_min, {-1e9, 1e10, false, false}, "Pa"},
        {"pressure_max", &IntegratorSettings::pressure_max, {-1e9, 1e10, false, false}, "Pa"},
        {"penalty_factor", &IntegratorSettings::penalty_factor, {0, 1e20, true, false}, "N/m"},
    };
    check_keys(*t, "integrator",
               {"dt", "duration", "tangent", "max_newton_iterations", "max_position_iterations", "position_tolerance",
                "pressure_tolerance", "friction_state_tolerance", "constraint_tolerance", "pressure_min", "pressure_max",
                "penalty_factor"});

    IntegratorSettings& S = s_.settings;
    for (const auto& r : reals)
      if (auto n = t->get(r.key)) S.*r.field = number_in(*n, std::string("integrator.") + r.key, r.range, r.unit);
    if (auto n = t->get("tangent"))
      S.tangent = choice(*n, "integrator.tangent", kTangentNames) == "exact" ? Tangent::exact : Tangent::finite_difference;
    if (auto n = t->get("max_newton_iterations")) S.max_newton_iterations = integer(*n, "integrator.max_newton_iterations", 1, 1000);
    if (auto n = t->get("max_position_iterations")) S.max_position_iterations = integer(*n, "integrator.max_position_iterations", 1, 1000);

    auto line_of = [&](const char* a, const char* b) {
      const toml::node* n = t->get(a);
      if (!n) n = t->get(b);
      return n ? at(*n) : at(0);
    };
    if (S.dt > S.duration)
      fail(line_of("dt", "duration"), "integrator.dt = " + fmt(S.dt) + " must be <= integrator.duration = " + fmt(S.duration));
    const double steps = S.duration / S.dt;
    if (steps > kMaxSteps)
      fail(line_of("dt", "duration"), "integrator.duration / integrator.dt = " + fmt(steps) + " steps is more than the limit " + fmt(kMaxSteps));
    if (std::fabs(steps - std::round(steps)) > 1e-9 * std::max(1.0, steps))
      fail(line_of("duration", "dt"), "integrator.duration = " + fmt(S.duration) + " must be a whole number of steps of integrator.dt = " +
                                          fmt(S.dt) + " (duration/dt = " + fmt(steps) + ")");
    if (!(S.pressure_min < S.pressure_max))
      fail(line_of("pressure_min", "pressure_max"), "integrator.pressure_min = " + fmt(S.pressure_min) +
                                                        " must be < integrator.pressure_max = " + fmt(S.pressure_max));
  }

  void read_input(const toml::table* t) {
    if (!t) return;
    if (!s_.descriptor->find_parameter("input.segments"))
      fail(at(*t), "[input]: model " + s_.descriptor->name + " has no single valve schedule to set (" +
                       (s_.descriptor->file_path.empty()
                            ? std::string("its input is a controller: set its controller.* parameters")
                            : std::string("a model file with several cylinders takes each one's input from its [input.<cylinder>] "
                                          "tables, docs/model-files.md §6")) +
                       "); remove the study's [input] table");
    check_keys(*t, "input", {"times", "values", "gain"});
    if (auto n = t->get("gain")) {
      const ParameterInfo& g = parameter("input.gain", n->source(), "input.gain");
      s_.base[g.index] = parameter_value(*n, "input.gain", g);
      gain_source_ = n->source();
    }
    const toml::node* times = t->get("times");
    const toml::node* values = t->get("values");
    if (!times && !values) { s_.input = schedule_of(s_.base); return; }
    if (!times || !values)
      fail(at(times ? *times : *values), std::string("[input] needs both times and values; input.") + (times ? "values" : "times") + " is missing");
    const toml::array& ta = array(*times, "input.times");
    const toml::array& va = array(*values, "input.values");
    if (ta.size() != va.size())
      fail(at(*values), "input.times has " + std::to_string(ta.size()) + " entries but input.values has " + std::to_string(va.size()) +
                            "; they must have the same length");
    if (ta.empty() || ta.size() > static_cast<size_t>(InputSchedule::kMaxSegments))
      fail(at(*times), "input.times has " + std::to_string(ta.size()) + " entries; allowed: 1 to " +
                           std::to_string(InputSchedule::kMaxSegments) + " segments");
    InputSchedule in;
    in.gain = schedule_of(s_.base).gain;
    in.count = static_cast<int>(ta.size());
    for (size_t i = 0; i < ta.size(); ++i) {
      const std::string ti = "input.times[" + std::to_string(i) + "]", vi = "input.values[" + std::to_string(i) + "]";
      in.start[i] = number_in(ta[i], ti, {0, kInf, false, true}, "s");
      in.value[i] = number_in(va[i], vi, {-kMaxVolts, kMaxVolts, false, false}, "V");
      if (i > 0 && !(in.start[i] > in.start[i - 1]))
        fail(at(ta[i]), ti + " = " + fmt(in.start[i]) + " must be > input.times[" + std::to_string(i - 1) + "] = " +
                            fmt(in.start[i - 1]) + " (segment start times must increase strictly)");
    }
    set_schedule(in, s_.base);
    s_.input = in;
  }

  const toml::array& array(const toml::node& n, const std::string& key) const {
    if (!n.is_array()) fail(at(n), key + " must be an array [...], got " + type_name(n) + " " + show(n));
    return *n.as_array();
  }

  // [parameters]: nested tables and dotted/quoted keys flatten to dotted
  // names; processed in file order so a duplicate is reported where it repeats.
  void read_parameters(const toml::table* t) {
    if (!t) return;
    for (const auto& [name, node] : leaves_in_file_order(*t)) {
      const toml::node& v = *node;
      const std::string key = "parameters." + name;
      const ParameterInfo& p = parameter(name, v.source(), key);
      if (auto it = parameter_lines_.find(name); it != parameter_lines_.end())
        fail(at(v), key + " is given twice (also on line " + std::to_string(it->second) + ")");
      if (name == "input.gain" && gain_source_.begin.line)
        fail(at(v), key + " is given twice (also as input.gain on line " + std::to_string(gain_source_.begin.line) + ")");
      parameter_lines_[name] = static_cast<int>(v.source().begin.line);
      s_.base[p.index] = parameter_value(v, key, p);
    }
    s_.input = schedule_of(s_.base);
  }
  // Dotted names and values of a table's leaves (nested tables flattened),
  // in file order so that problems are reported where they occur.
  static std::vector<std::pair<std::string, const toml::node*>> leaves_in_file_order(const toml::table& t) {
    std::vector<std::pair<std::string, const toml::node*>> leaves;
    flatten(t, "", leaves);
    std::stable_sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) {
      const auto &x = a.second->source().begin, &y = b.second->source().begin;
      return x.line != y.line ? x.line < y.line : x.column < y.column;
    });
    return leaves;
  }
  static void flatten(const toml::table& t, const std::string& prefix,
                      std::vector<std::pair<std::string, const toml::node*>>& out) {
    for (auto&& [k, v] : t) {
      const std::string name = prefix + std::string(k.str());
      if (auto sub = v.as_table()) flatten(*sub, name + ".", out);
      else out.emplace_back(name, &v);
    }
  }

  void read_grid(const toml::table& root) {
    const toml::array* axes = root["grid"].as_array();
    if (!axes) return;
    for (size_t i = 0; i < axes->size(); ++i) {
      const toml::table& t = *(*axes)[i].as_table();
      const std::string g = "grid[" + std::to_string(i) + "]";
      check_keys(t, g, {"parameter", "name", "scales", "values", "min", "max", "count", "spacing"}, "[[grid]]");
      if (s_.method != SampleMethod::grid)
        fail(at(t.source()), "[[grid]] axes need sample.method = \"grid\" (the default); with sample.method = \"" +
                                 std::string(sample_method_name(s_.method)) + "\" describe the inputs as [[factor]] tables");
      Factor axis = factor_target(t, g);
      const ParameterInfo& p = axis.info ? *axis.info : scale_info();

      if (const toml::node* vn = t.get("values")) {
        for (const char* k : {"min", "max", "count", "spacing"})
          if (t.get(k)) fail(at(*t.get(k)), g + "." + k + ": give either " + g + ".values or min/max/count, not both");
        const toml::array& va = array(*vn, g + ".values");
        if (va.empty()) fail(at(*vn), g + ".values is empty; give at least one value for " + axis.name);
        if (va.size() > static_cast<size_t>(kMaxInstances))
          fail(at(*vn), g + ".values has more than " + std::to_string(kMaxInstances) + " entries");
        for (size_t j = 0; j < va.size(); ++j)
          axis.values.push_back(parameter_value(va[j], g + ".values[" + std::to_string(j) + "]", p));
      } else {
        const toml::node* mn = t.get("min");
        const toml::node* xn = t.get("max");
        const toml::node* cn = t.get("count");
        if (!mn || !xn || !cn)
          fail(at(axis.line), g + " (" + axis.name + ") needs values = [...] or min, max and count; missing " +
                                  (!mn ? "min" : !xn ? "max" : "count"));
        const double lo = parameter_value(*mn, g + ".min", p);
        const double hi = parameter_value(*xn, g + ".max", p);
        // The axis is allocated here, before check_sizes sees the product:
        // bound it by what the earlier axes leave of the instance limit.
        long earlier = 1;
        for (const Factor& a : s_.grid) earlier *= static_cast<long>(a.values.size());
        const long count = integer(*cn, g + ".count", 1, kMaxInstances);
        if (count > kMaxInstances / earlier)
          fail(at(*cn), g + ".count = " + std::to_string(count) + " with the " + std::to_string(earlier) +
                            " instances of the axes before it is more than the limit of " + std::to_string(kMaxInstances) +
                            " instances per study");
        const std::string spacing = t.get("spacing") ? choice(*t.get("spacing"), g + ".spacing", kSpacingNames) : "linear";
        if (lo > hi) fail(at(*mn), g + ".min = " + fmt(lo) + " must be <= " + g + ".max = " + fmt(hi));
        if (spacing == "log" && !(lo > 0))
          fail(at(*mn), g + ".min = " + fmt(lo) + " must be > 0 for spacing = \"log\"");
        axis.values = spaced(lo, hi, count, spacing == "log");
        if (axis.info && axis.info->integer)
          for (double v : axis.values)
            if (!axis.info->admits(v))
              fail(at(*cn), g + " (" + axis.name + ") is a whole number, but min = " + fmt(lo) + ", max = " + fmt(hi) +
                                " and count = " + std::to_string(count) + " give " + fmt(v) +
                                "; choose them so that every value is whole, or give values = [...]");
      }
      if (!axis.scaled.empty())
        for (size_t j = 0; j < axis.values.size(); ++j)
          check_scaled_value(axis, axis.values[j], at(axis.line), g + ".values[" + std::to_string(j) + "]");
      s_.grid.push_back(std::move(axis));
    }
  }

  // ---- design: [sample], [[factor]], [derived] ---------------------------

  // The pseudo-parameter of a scale factor: any positive multiplier.
  static const ParameterInfo& scale_info() {
    static const ParameterInfo info{"a scale factor", "-", 0.0, 1e12, true, "multiplier of the base values"};
    return info;
  }

  // `parameter = "x.y"` or `name = "..."` with `scales = [...]`; checks that
  // no parameter is varied twice.
  Factor factor_target(const toml::table& t, const std::string& g) const {
    Factor f;
    f.line = static_cast<int>(t.source().begin.line);
    const toml::node* pn = t.get("parameter");
    const toml::node* nn = t.get("name");
    const toml::node* sn = t.get("scales");
    if (pn && (nn || sn))
      fail(at(nn ? *nn : *sn), g + ": give either parameter = \"dotted.name\" or name = \"...\" with scales = [...], not both");
    if (!pn && !sn)
      fail(at(f.line), g + " needs parameter = \"dotted.name\" (sets it) or name = \"...\" and scales = [\"dotted.name\", ...] "
                           "(multiplies their base values)");
    std::vector<std::pair<const ParameterInfo*, const toml::node*>> targets;
    if (pn) {
      f.name = string(*pn, g + ".parameter");
      f.info = &parameter(f.name, pn->source(), g + ".parameter");
      f.unit = f.info->unit;
      targets.push_back({f.info, pn});
    } else {
      if (!nn) fail(at(*sn), g + ".scales needs name = \"...\" for the scale factor (its column in the outputs)");
      f.name = string(*nn, g + ".name");
      if (f.name.empty() || s_.descriptor->find_parameter(f.name))
        fail(at(*nn), g + ".name = \"" + f.name + "\" must be a new, non-empty name, not a parameter's");
      const toml::array& sa = array(*sn, g + ".scales");
      if (sa.empty()) fail(at(*sn), g + ".scales is empty; list the dotted names of the parameters it multiplies");
      for (size_t k = 0; k < sa.size(); ++k) {
        const std::string key = g + ".scales[" + std::to_string(k) + "]";
        const ParameterInfo* p = &parameter(string(sa[k], key), sa[k].source(), key);
        f.scaled.push_back(p);
        targets.push_back({p, &sa[k]});
      }
      f.unit = "-";
    }
    for (const auto& [p, node] : targets)
      for (size_t j = 0; j < s_.grid.size(); ++j) {
        const Factor& o = s_.grid[j];
        const bool clash = o.info == p || std::find(o.scaled.begin(), o.scaled.end(), p) != o.scaled.end();
        if (clash || o.name == f.name)
          fail(at(*node), g + ": " + (clash ? p->name : f.name) + " is already varied by " + design_table() + "[" +
                              std::to_string(j) + "] (line " + std::to_string(o.line) + "); one factor per parameter");
      }
    return f;
  }
  std::string design_table() const {
    return s_.method == SampleMethod::grid ? "grid" : s_.method == SampleMethod::rows ? "sample.file column" : "factor";
  }

  // A scale factor value must keep every parameter it multiplies in range.
  void check_scaled_value(const Factor& f, double v, const std::string& where, const std::string& key) const {
    for (const ParameterInfo* p : f.scaled) {
      const double x = s_.base[p->index] * v;
      if (!p->admits(x))
        fail(where, key + " (" + f.name + ") = " + fmt(v) + " scales " + p->name + " to " + fmt(x) + ", out of its range " +
                        p->range_text() + (p->unit == "-" ? "" : " " + p->unit));
    }
  }

  void read_sample(const toml::table* t, const toml::table& root) {
    const bool has_factors = root.get("factor") != nullptr;
    if (!t) {
      if (has_factors)
        fail(at(root.get("factor")->source()), "[[factor]] tables need a [sample] table with method = \"lhs\", \"sobol\", "
                                                "\"monte-carlo\" or \"saltelli\" and count");
      return;
    }
    check_keys(*t, "sample", {"method", "count", "seed", "scramble", "second_order", "file", "columns", "dataset"});
    const std::vector<std::string> methods = {"grid", "lhs", "sobol", "monte-carlo", "saltelli", "rows"};
    if (auto n = t->get("method")) {
      const std::string m = choice(*n, "sample.method", methods);
      s_.method = m == "grid" ? SampleMethod::grid : m == "lhs" ? SampleMethod::lhs : m == "sobol" ? SampleMethod::sobol
                : m == "monte-carlo" ? SampleMethod::monte_carlo : m == "saltelli" ? SampleMethod::saltelli
                : SampleMethod::rows;
    } else {
      fail(at(*t), "[sample] needs method = one of " + join(methods, ", ", "\""));
    }
    for (const char* key : {"file", "columns", "dataset"})
      if (s_.method != SampleMethod::rows && t->get(key))
        fail(at(*t->get(key)), std::string("sample.") + key + " is for method = \"rows\" (a design read from a file)");
    if (s_.method == SampleMethod::rows) {
      for (const char* key : {"count", "seed", "scramble", "second_order"})
        if (t->get(key))
          fail(at(*t->get(key)), std::string("sample.") + key + " does not apply to method = \"rows\": the file's rows are the design");
      if (has_factors || root.get("grid"))
        fail(at((has_factors ? root.get("factor") : root.get("grid"))->source()),
             std::string(has_factors ? "[[factor]]" : "[[grid]]") +
                 " tables do not apply to method = \"rows\": the file's columns name the parameters it sets");
      read_rows(*t);
      return;
    }
    const bool sampled = s_.method != SampleMethod::grid;
    if (auto n = t->get("count")) {
      if (!sampled) fail(at(*n), "sample.count is for sampled designs; a grid's size is the product of its axes");
      s_.sample_count = integer(*n, "sample.count", 1, s_.method == SampleMethod::lhs ? kMaxLatinHypercube : kMaxInstances);
    } else if (sampled) {
      fail(at(*t), std::string("sample.count is missing: the number of ") +
                       (s_.method == SampleMethod::saltelli ? "base samples N (the study runs N x (factors + 2) instances, N x (2 factors + 2) "
                                                                                   "with second_order = true)"
                                                           : "instances") + ", an integer >= 1");
    }
    if (auto n = t->get("seed")) s_.seed = static_cast<std::uint64_t>(integer(*n, "sample.seed", 0, std::numeric_limits<long>::max()));
    if (auto n = t->get("scramble")) {
      if (s_.method != SampleMethod::sobol && s_.method != SampleMethod::saltelli)
        fail(at(*n), "sample.scramble applies to method = \"sobol\" and \"saltelli\" only");
      if (!n->is_boolean()) fail(at(*n), "sample.scramble must be true or false, got " + type_name(*n) + " " + show(*n));
      s_.scramble = n->as_boolean()->get();
    }
    if (auto n = t->get("second_order")) {
      if (s_.method != SampleMethod::saltelli)
        fail(at(*n), "sample.second_order applies to method = \"saltelli\" only (the second-order Sobol' indices)");
      if (!n->is_boolean()) fail(at(*n), "sample.second_order must be true or false, got " + type_name(*n) + " " + show(*n));
      s_.second_order = n->as_boolean()->get();
      second_order_where_ = at(*n);
    }
    if (sampled && !has_factors)
      fail(at(*t), "sample.method = \"" + std::string(sample_method_name(s_.method)) +
                       "\" needs at least one [[factor]] table (parameter, distribution and its bounds)");
  }

  // method = "rows": the design file, its columns matched to the model's
  // parameters, every value range-checked (host/design/design_rows.hpp).
  void read_rows(const toml::table& t) {
    const toml::node* fn = t.get("file");
    if (!fn) fail(at(t), "sample.method = \"rows\" needs file = \"PATH\" (.csv, .npy, .h5 or .hdf5, relative to the study file)");
    const std::string file = string(*fn, "sample.file");
    std::filesystem::path path(file);
    if (path.is_relative()) path = std::filesystem::path(s_.path).parent_path() / path;
    std::vector<std::string> columns;
    if (const toml::node* cn = t.get("columns")) {
      const toml::array& ca = array(*cn, "sample.columns");
      for (size_t k = 0; k < ca.size(); ++k) columns.push_back(string(ca[k], "sample.columns[" + std::to_string(k) + "]"));
      if (columns.empty()) fail(at(*cn), "sample.columns is empty; list the names of the columns");
    }
    std::string dataset;
    if (const toml::node* dn = t.get("dataset")) dataset = string(*dn, "sample.dataset");
    const std::string ext = path.extension().string();
    if (!dataset.empty() && ext != ".h5" && ext != ".hdf5")
      fail(at(*t.get("dataset")), "sample.dataset is for an HDF5 file (.h5, .hdf5); " + file + " is not one");
    std::shared_ptr<const DesignRows> rows;
    try {
      rows = std::make_shared<const DesignRows>(read_design_rows(path.string(), columns, dataset, kMaxInstances));
    } catch (const DesignRowsError& e) {
      fail(at(*fn), std::string("sample.file: ") + e.what());
    }
    // Column j sets the parameter of its name: one factor per column.
    const toml::source_region& where = t.get("columns") ? t.get("columns")->source() : fn->source();
    for (size_t j = 0; j < rows->columns.size(); ++j) {
      const std::string key = "sample.file column " + std::to_string(j + 1);
      Factor f;
      f.line = static_cast<int>(where.begin.line);
      f.name = rows->columns[j];
      f.info = &parameter(f.name, where, key);
      f.unit = f.info->unit;
      s_.grid.push_back(std::move(f));
    }
    // Every value in its parameter's range (whole numbers where the parameter
    // takes only those), named by row and column.
    for (long i = 0; i < rows->row_count(); ++i)
      for (size_t j = 0; j < rows->columns.size(); ++j) {
        const ParameterInfo& p = *s_.grid[j].info;
        const double v = rows->values(static_cast<size_t>(i), j);
        const bool whole = !p.integer || v == std::floor(v);
        if (p.admits(v) && whole) continue;
        const std::string cell = "sample.file: " + rows->where(i) + ", column " + p.name + ": " + fmt(v);
        if (!p.admits(v)) fail(at(*fn), cell + " is out of range " + p.range_text() + (p.unit == "-" ? "" : " " + p.unit));
        fail(at(*fn), cell + " is not a whole number, which " + p.name + " takes");
      }
    s_.user_rows = rows;
    s_.sample_count = rows->row_count();
    s_.inputs_digest = s_.inputs_digest ? (s_.inputs_digest ^ rows->digest) * 0x100000001b3ULL : rows->digest;
  }

  void read_factors(const toml::table& root) {
    const toml::array* list = root["factor"].as_array();
    if (!list) return;
    if (s_.method == SampleMethod::grid) fail(at(list->source()), "[[factor]] tables need a sampled design: [sample] method = \"lhs\", "
                                                                  "\"sobol\", \"monte-carlo\" or \"saltelli\"");
    const std::vector<std::string> laws = {"uniform", "normal", "truncated-normal", "lognormal"};
    for (size_t i = 0; i < list->size(); ++i) {
      const toml::table& t = *(*list)[i].as_table();
      const std::string g = "factor[" + std::to_string(i) + "]";
      check_keys(t, g, {"parameter", "name", "scales", "distribution", "min", "max", "mean", "std", "median", "sigma_log",
                        "relative"}, "[[factor]]");
      Factor f = factor_target(t, g);
      // A distribution gives fractions; the kernels would truncate them.
      for (const ParameterInfo* p : f.info ? std::vector<const ParameterInfo*>{f.info} : f.scaled)
        if (p->integer)
          fail(at(f.line), g + " (" + f.name + "): " + p->name + " takes whole numbers only, which a sampled distribution "
                               "cannot give; vary it on a [[grid]] axis instead");
      const double base_value = f.info ? s_.base[f.info->index] : 1.0;
      const std::string law = t.get("distribution") ? choice(*t.get("distribution"), g + ".distribution", laws) : "uniform";
      auto need = [&](const char* key) -> double {
        const toml::node* n = t.get(key);
        if (!n) fail(at(f.line), g + " (" + f.name + ", " + law + ") needs " + key);
        return number(*n, g + "." + key);
      };
      auto forbid = [&](std::initializer_list<const char*> keys) {
        for (const char* k : keys)
          if (t.get(k)) fail(at(*t.get(k)), g + "." + k + " does not apply to distribution = \"" + law + "\"");
      };
      if (const toml::node* rn = t.get("relative")) {
        // relative = r: uniform on base·[1 − r, 1 + r] (or normal with std = r·base).
        const double r = number_in(*rn, g + ".relative", {0, 1, true, true}, "");
        forbid({"min", "max", "mean", "std", "median", "sigma_log"});
        if (law == "uniform") f.distribution = Distribution::uniform(base_value * (1 - r), base_value * (1 + r));
        else if (law == "normal") f.distribution = Distribution::normal(base_value, r * std::fabs(base_value));
        else if (law == "lognormal") f.distribution = Distribution::lognormal(base_value, r);
        else fail(at(*rn), g + ".relative applies to uniform, normal and lognormal laws; truncated-normal needs mean, std, min, max");
        if (base_value == 0.0) fail(at(*rn), g + ".relative needs a non-zero base value of " + f.name);
        if (base_value < 0.0 && law == "uniform") f.distribution = Distribution::uniform(base_value * (1 + r), base_value * (1 - r));
      } else if (law == "uniform") {
        forbid({"mean", "std", "median", "sigma_log"});
        f.distribution = Distribution::uniform(need("min"), need("max"));
      } else if (law == "normal") {
        forbid({"min", "max", "median", "sigma_log"});
        f.distribution = Distribution::normal(need("mean"), need("std"));
      } else if (law == "truncated-normal") {
        forbid({"median", "sigma_log"});
        f.distribution = Distribution::truncated_normal(need("mean"), need("std"), need("min"), need("max"));
      } else {
        forbid({"min", "max", "mean", "std"});
        f.distribution = Distribution::lognormal(need("median"), need("sigma_log"));
      }
      const std::string problem = f.distribution.validate();
      if (!problem.empty()) fail(at(f.line), g + " (" + f.name + "): " + law + ": " + problem);
      // Every value the sampler can produce must be admissible: the extreme
      // quantiles reachable with 53-bit uniforms.
      const double u_min = 0x1p-53, u_max = 1.0 - 0x1p-53;
      for (double u : {u_min, u_max}) {
        const double v = f.distribution.quantile(u);
        if (f.info && !(std::isfinite(v) && f.info->admits(v)))
          fail(at(f.line), g + " (" + f.name + "): " + f.distribution.describe() + " reaches " + fmt(v) + " (quantile " + fmt(u) +
                               "), outside the parameter's range " + f.info->range_text() +
                               (f.info->unit == "-" ? "" : " " + f.info->unit) + "; narrow it or use truncated-normal");
        if (!f.info) check_scaled_value(f, v, at(f.line), g);
      }
      s_.grid.push_back(std::move(f));
    }
    if (s_.grid.size() > 64) fail(at(list->source()), "at most 64 [[factor]] tables");
  }

  // [[correlation]] factors = ["a", "b"], rank = r: Spearman's rank
  // correlation of two sampled factors, drawn through a Gaussian copula
  // (docs/study-files.md "Correlated inputs"; Design::copula_cholesky).
  void read_correlations(const toml::table& root) {
    const toml::array* list = root["correlation"].as_array();
    if (!list || list->empty()) return;
    if (s_.method != SampleMethod::monte_carlo && s_.method != SampleMethod::lhs)
      fail(at(list->source()), "[[correlation]] needs sample.method = \"monte-carlo\" or \"lhs\" (a grid or a file's rows "
                               "carry their own dependence; Sobol' designs and indices assume independent inputs)");
    const size_t d = s_.grid.size();
    std::vector<double> rank(d * d, 0.0);
    std::vector<int> line_of(d * d, 0);
    for (size_t k = 0; k < d; ++k) rank[k * d + k] = 1.0;
    for (size_t i = 0; i < list->size(); ++i) {
      const toml::table& t = *(*list)[i].as_table();
      const std::string g = "correlation[" + std::to_string(i) + "]";
      check_keys(t, g, {"factors", "rank"}, "[[correlation]]");
      const int line = static_cast<int>(t.source().begin.line);
      const toml::node* fn = t.get("factors");
      const toml::node* rn = t.get("rank");
      if (!fn || !rn) fail(at(line), g + " needs factors = [\"a\", \"b\"] (two [[factor]] names) and rank = r in (-1, 1)");
      const toml::array& fa = array(*fn, g + ".factors");
      if (fa.size() != 2) fail(at(*fn), g + ".factors names " + std::to_string(fa.size()) + " factors; a correlation is between two");
      size_t idx[2];
      for (size_t k = 0; k < 2; ++k) {
        const std::string name = string(fa[k], g + ".factors[" + std::to_string(k) + "]");
        std::vector<std::string> names;
        size_t found = d;
        for (size_t j = 0; j < d; ++j) {
          names.push_back(s_.grid[j].name);
          if (s_.grid[j].name == name) found = j;
        }
        if (found == d)
          fail(at(fa[k]), g + ".factors: '" + name + "' is not a [[factor]] of this study; did you mean '" + closest(name, names, true) +
                              "'? (a factor's name is its parameter, or its name = with scales)");
        idx[k] = found;
      }
      if (idx[0] == idx[1]) fail(at(*fn), g + ".factors names " + s_.grid[idx[0]].name + " twice");
      const double r = number_in(*rn, g + ".rank", {-1, 1, true, true}, "");
      const size_t a = idx[0] * d + idx[1], b = idx[1] * d + idx[0];
      if (line_of[a])
        fail(at(line), g + ": the pair " + s_.grid[idx[0]].name + ", " + s_.grid[idx[1]].name + " is already correlated on line " +
                           std::to_string(line_of[a]));
      rank[a] = rank[b] = r;
      line_of[a] = line_of[b] = line;
    }
    // The normal copula's correlation that gives these rank correlations
    // (Pearson of the normal scores: 2 sin(pi r / 6)); its Cholesky factor
    // must exist, else the rank correlations are not jointly possible.
    std::vector<double> R(d * d), L(d * d, 0.0);
    for (size_t k = 0; k < d * d; ++k) R[k] = k % (d + 1) == 0 ? 1.0 : 2.0 * std::sin(M_PI * rank[k] / 6.0);
    for (size_t j = 0; j < d; ++j) {
      double diag = R[j * d + j];
      for (size_t k = 0; k < j; ++k) diag -= L[j * d + k] * L[j * d + k];
      if (!(diag > 1e-12))
        fail(at(list->source()), "[[correlation]]: the rank correlations are not jointly possible (the copula's correlation "
                                 "matrix is not positive definite at factor " + s_.grid[j].name + "); weaken them");
      L[j * d + j] = std::sqrt(diag);
      for (size_t i = j + 1; i < d; ++i) {
        double v = R[i * d + j];
        for (size_t k = 0; k < j; ++k) v -= L[i * d + k] * L[j * d + k];
        L[i * d + j] = v / L[j * d + j];
      }
    }
    s_.rank_correlation = rank;
    s_.copula_cholesky = L;
  }

  void read_derived(const toml::table* t) {
    if (!t) return;
    for (const auto& [name, node] : leaves_in_file_order(*t)) {
      const std::string key = "derived." + name;
      DerivedParameter d;
      d.line = static_cast<int>(node->source().begin.line);
      d.target = &parameter(name, node->source(), key);
      for (const auto& f : s_.grid)
        if (f.info == d.target || std::find(f.scaled.begin(), f.scaled.end(), d.target) != f.scaled.end())
          fail(at(*node), key + ": " + name + " is already varied by " + design_table() + " (line " + std::to_string(f.line) +
                              "); a parameter is either a factor or derived");
      for (const auto& o : s_.derived)
        if (o.target == d.target) fail(at(*node), key + " is given twice (also on line " + std::to_string(o.line) + ")");
      const std::string text = string(*node, key);
      try {
        d.expression = std::make_shared<const Expression>(
            Expression::parse(text, [this](const std::string& n) { return s_.descriptor->find_parameter(n) != nullptr; }));
      } catch (const ExpressionError& e) {
        fail(at(*node), key + " = \"" + text + "\": " + e.what() + " (names are the dotted parameter names of 'hydrosweep parameters')");
      }
      for (const auto& n : d.expression->names()) {
        const ParameterInfo* p = s_.descriptor->find_parameter(n);
        if (p == d.target) fail(at(*node), key + " = \"" + text + "\" refers to itself");
        d.inputs.push_back(p);
      }
      s_.derived.push_back(std::move(d));
    }
  }

  void read_analysis(const toml::table* t) {
    AnalysisSpec& a = s_.analysis;
    if (!t) {
      if (s_.method == SampleMethod::saltelli)
        fail(at(0), "sample.method = \"saltelli\" needs [analysis] quantities = [...] (the outputs whose Sobol indices are wanted)");
      return;
    }
    check_keys(*t, "analysis", {"quantities", "confidence", "bootstrap", "quantile_levels", "settling_rate", "reference_run", "limit"});
    std::vector<std::string> columns;
    for (const auto& c : summary_columns_names()) columns.push_back(c);
    if (auto n = t->get("quantities")) {
      const toml::array& qa = array(*n, "analysis.quantities");
      for (size_t k = 0; k < qa.size(); ++k) {
        const std::string key = "analysis.quantities[" + std::to_string(k) + "]";
        a.quantities.push_back(choice(qa[k], key, columns));
      }
    }
    if (s_.method == SampleMethod::saltelli && a.quantities.empty())
      fail(at(*t), "sample.method = \"saltelli\" needs analysis.quantities = [...] (the outputs whose Sobol indices are wanted)");
    if (auto n = t->get("confidence")) a.confidence = number_in(*n, "analysis.confidence", {0, 1, true, true}, "");
    if (auto n = t->get("bootstrap")) a.bootstrap = integer(*n, "analysis.bootstrap", 10, 100000);
    if (auto n = t->get("quantile_levels")) {
      const toml::array& la = array(*n, "analysis.quantile_levels");
      if (la.empty()) fail(at(*n), "analysis.quantile_levels is empty");
      a.quantile_levels.clear();
      for (size_t k = 0; k < la.size(); ++k)
        a.quantile_levels.push_back(number_in(la[k], "analysis.quantile_levels[" + std::to_string(k) + "]", {0, 1, false, false}, ""));
    }
    if (auto n = t->get("settling_rate")) a.settling_rate = number_in(*n, "analysis.settling_rate", kPositive, "rad/s");
    if (auto n = t->get("reference_run")) {
      if (!n->is_boolean()) fail(at(*n), "analysis.reference_run must be true or false, got " + type_name(*n) + " " + show(*n));
      a.reference_run = n->as_boolean()->get();
    }
    if (auto n = t->get("limit")) {
      if (!n->is_table()) fail(at(*n), "analysis.limit must be a table [analysis.limit] with quantity and above or below");
      const toml::table& lt = *n->as_table();
      check_keys(lt, "analysis.limit", {"quantity", "above", "below"});
      const toml::node* qn = lt.get("quantity");
      if (!qn) fail(at(*n), "analysis.limit needs quantity = \"<output column>\"");
      a.limit_quantity = choice(*qn, "analysis.limit.quantity", columns);
      const toml::node* above = lt.get("above");
      const toml::node* below = lt.get("below");
      if (!!above == !!below) fail(at(*n), "analysis.limit needs exactly one of above = X (failure: quantity > X) or below = X");
      a.limit_above = above != nullptr;
      a.limit = number(above ? *above : *below, std::string("analysis.limit.") + (above ? "above" : "below"));
      a.has_limit = true;
    }
  }
  std::vector<std::string> summary_columns_names() const;

  void read_stability(const toml::table* t) {
    if (!t) return;
    check_keys(*t, "stability",
               {"zero_tolerance", "oscillatory_tolerance", "method", "penalty_alpha", "penalty_xi", "penalty_omega"});
    const std::vector<std::string>& methods = s_.descriptor->stability_methods;
    if (auto n = t->get("method")) s_.stability.method = choice(*n, "stability.method", methods);
    if (auto n = t->get("penalty_alpha")) s_.stability.penalty_alpha = number_in(*n, "stability.penalty_alpha", {0, 1e16, true, false}, "");
    if (auto n = t->get("penalty_xi")) s_.stability.penalty_xi = number_in(*n, "stability.penalty_xi", {0, 1e3, true, false}, "");
    if (auto n = t->get("penalty_omega")) s_.stability.penalty_omega = number_in(*n, "stability.penalty_omega", {0, 1e6, true, false}, "rad/s");
    if (auto n = t->get("zero_tolerance"))
      s_.stability.zero_tolerance = number_in(*n, "stability.zero_tolerance", {0, 1e-3, true, false}, "");
    if (auto n = t->get("oscillatory_tolerance"))
      s_.stability.oscillatory_tolerance = number_in(*n, "stability.oscillatory_tolerance", {0, 1e-2, true, false}, "");
  }

  void read_execution(const toml::table* t) {
    if (!t) return;
    check_keys(*t, "execution", {"chunk_size", "backend"});
    if (auto n = t->get("chunk_size")) s_.chunk_size = integer(*n, "execution.chunk_size", 1, kMaxInstances);
    if (auto n = t->get("backend")) parse_backend(choice(*n, "execution.backend", {"auto", "cpu", "cuda", "kokkos"}), s_.backend);
  }

  void build_design() {
    s_.dt = s_.settings.dt;
    s_.duration = s_.settings.duration;
    const size_t d = s_.grid.size();
    switch (s_.method) {
      case SampleMethod::lhs:
        s_.latin_hypercube = std::make_shared<const LatinHypercube>(s_.sample_count, d, s_.seed);
        break;
      case SampleMethod::sobol:
        s_.sobol = std::make_shared<const SobolSequence>(d, s_.scramble, s_.seed);
        break;
      case SampleMethod::saltelli:
        s_.sobol = std::make_shared<const SobolSequence>(2 * d, s_.scramble, s_.seed);
        break;
      default: break;
    }
  }

  bool set_mode_only() const {
    for (const auto& f : s_.grid)
      if (!f.scaled.empty()) return false;
    return true;
  }

  // Designs checked per instance at run time (sampled, scaled, derived):
  // the first instance must at least be admissible, so a derived parameter
  // that is always out of range is an error here, not N flagged instances.
  void check_first_instance() const {
    const std::string problem = s_.instance_problem(0L);
    if (problem.empty()) return;
    int line = s_.derived.empty() ? (s_.grid.empty() ? 0 : s_.grid[0].line) : s_.derived[0].line;
    fail(at(line), "instance 0 of the design is not admissible: " + problem);
  }

  // The model's own check of an instance (descriptor instance_check: a
  // controller's path inside the workspace, its period a whole number of
  // steps), on instance 0 of a plain grid; sampled, scaled and derived
  // designs check every instance (check_first_instance here, the runner later).
  void check_model_instance() const {
    if (!s_.descriptor->instance_check) return;
    const std::vector<double> row = s_.instance(0L);
    const auto problem = s_.descriptor->instance_check(*s_.descriptor, row.data(), s_.settings.dt, s_.settings.duration);
    if (problem.why.empty()) return;
    auto it = parameter_lines_.find(problem.key);
    const int line = it == parameter_lines_.end() ? 0 : it->second;
    fail(at(line), problem.key + ": " + problem.why + not_set_note(problem.key, row));
  }

  // When a model's check names a parameter this study neither sets nor
  // varies (the fifth waypoint once controller.path.waypoints = 5), the
  // message says so and which value it holds: the user never wrote that key
  // (issue 36 class 7).
  std::string not_set_note(const std::string& key, const std::vector<double>& row) const {
    if (parameter_lines_.count(key)) return "";
    for (const auto& f : s_.grid) {
      if (f.info && f.info->name == key) return "";
      for (const ParameterInfo* p : f.scaled)
        if (p->name == key) return "";
    }
    for (const auto& d : s_.derived)
      if (d.target && d.target->name == key) return "";
    const ParameterInfo* info = s_.descriptor->find_parameter(key);
    if (!info) return "";
    return " (this study does not set " + key + ": it holds the model's default, " + hs::round_trip_text(row[info->index]) +
           (info->unit.empty() || info->unit == "-" ? "" : " " + info->unit) + ")";
  }

  // count points from lo to hi; the endpoints are exact (no rounding drift).
  static std::vector<double> spaced(double lo, double hi, long count, bool log) {
    std::vector<double> v(count);
    for (long k = 0; k < count; ++k) {
      const double f = count > 1 ? static_cast<double>(k) / (count - 1) : 0.0;
      v[k] = log ? std::exp(std::log(lo) + f * (std::log(hi) - std::log(lo))) : lo + f * (hi - lo);
    }
    v[0] = lo;
    if (count > 1) v[count - 1] = hi;
    return v;
  }

  void read_output(const toml::table* t) {
    if (!t) return;
    check_keys(*t, "output", {"trajectory_stride"});
    if (auto n = t->get("trajectory_stride"))
      s_.trajectory_stride = static_cast<int>(integer(*n, "output.trajectory_stride", 0, 1'000'000'000));
    stride_where_ = t->get("trajectory_stride") ? at(*t->get("trajectory_stride")) : at(t->source());
  }

  void check_sizes() const {
    long total = 1;
    for (size_t i = 0; s_.method == SampleMethod::grid && i < s_.grid.size(); ++i) {
      const long n = static_cast<long>(s_.grid[i].values.size());
      if (total > kMaxInstances / n) {
        std::string sizes;
        for (size_t j = 0; j <= i; ++j) sizes += (j ? " x " : "") + std::to_string(s_.grid[j].values.size());
        fail(at(s_.grid[i].line), "grid: " + sizes + (i + 1 < s_.grid.size() ? " x ..." : "") +
                                      " instances is more than the limit of " + std::to_string(kMaxInstances) + " per study");
      }
      total *= n;
    }
    if (s_.method != SampleMethod::grid) {
      total = s_.method == SampleMethod::saltelli ? s_.sample_count * static_cast<long>(saltelli_block_size(s_.grid.size(), s_.second_order))
                                                  : s_.sample_count;
      if (total > kMaxInstances)
        fail(at(0), "sample.count = " + std::to_string(s_.sample_count) + " gives " + std::to_string(total) +
                        " instances, more than the limit of " + std::to_string(kMaxInstances) + " per study");
    }
    const double bytes = static_cast<double>(total) * sample_count(s_.settings, s_.trajectory_stride) * (s_.descriptor->trajectory_channels.size() * sizeof(double));
    if (bytes > kMaxTrajectoryBytes)
      fail(stride_where_.empty() ? at(0) : stride_where_,
           "output.trajectory_stride = " + std::to_string(s_.trajectory_stride) + " records " + std::to_string(total) + " x " +
               std::to_string(sample_count(s_.settings, s_.trajectory_stride)) + " samples (" + fmt(std::round(bytes / (1 << 30))) +
               " GiB), more than the limit of " + fmt(kMaxTrajectoryBytes / (1 << 30)) +
               " GiB; raise the stride, shorten the run or split the grid");
  }

  // For each rule a < b: the values each side takes over the grid, then the
  // lowest instance index of a violating pair. Pairs, not instances: a
  // 1e8-instance grid is checked in microseconds.
  void check_pair_rules() const {
    struct Side {
      std::vector<double> values;
      long stride = 0;       // instance-index stride of its axis (0: not swept)
      int line = 0;          // where the value comes from (0: model default)
      std::string origin;    // "grid[i]", "parameters" or "model default"
    };
    std::vector<long> strides(s_.grid.size(), 1);
    for (size_t i = s_.grid.size(); i-- > 1;) strides[i - 1] = strides[i] * static_cast<long>(s_.grid[i].values.size());
    auto side = [&](const std::string& name) {
      Side sd;
      for (size_t i = 0; i < s_.grid.size(); ++i)
        if (s_.grid[i].name == name) {
          sd.values = s_.grid[i].values;
          sd.stride = strides[i];
          sd.line = s_.grid[i].line;
          sd.origin = "grid[" + std::to_string(i) + "]";
          return sd;
        }
      sd.values = {s_.base[s_.descriptor->find_parameter(name)->index]};
      auto it = parameter_lines_.find(name);
      sd.line = it == parameter_lines_.end() ? 0 : it->second;
      sd.origin = it == parameter_lines_.end() ? "model " + s_.model + " default" : "parameters";
      return sd;
    };
    const long n = s_.instance_count();
    for (const auto& rule : s_.descriptor->rules) {
      const Side a = side(rule.a), b = side(rule.b);
      long first = -1;
      size_t fa = 0, fb = 0;
      for (size_t i = 0; i < a.values.size(); ++i)
        for (size_t j = 0; j < b.values.size(); ++j)
          if (!(a.values[i] < b.values[j])) {
            const long idx = static_cast<long>(i) * a.stride + static_cast<long>(j) * b.stride;
            if (first < 0 || idx < first) { first = idx; fa = i; fb = j; }
          }
      if (first < 0) continue;
      std::string msg = std::string(rule.a) + " = " + fmt(a.values[fa]) + " (" + a.origin + ") must be < " + rule.b + " = " +
                        fmt(b.values[fb]) + " (" + b.origin + "): " + rule.why;
      if (a.stride || b.stride) msg += "; first violated by instance " + std::to_string(first) + " of " + std::to_string(n);
      fail(at(a.line ? a.line : b.line), msg);
    }
  }
};

std::vector<std::string> Parser::summary_columns_names() const {
  std::vector<std::string> names;
  for (const auto& c : s_.descriptor->summary_columns) names.push_back(c.name);
  return names;
}

}  // namespace

Study parse_study(const std::string& text, const std::string& path) { return parse_study(text, path, models()); }

Study parse_study(const std::string& text, const std::string& path, const std::vector<ModelDescriptor>& registry) {
  return Parser(path, text, registry).run();
}

void require_command(const Study& study, const std::string& command) {
  const ModelDescriptor& m = *study.descriptor;
  if (!m.supports_command(command))
    throw StudyError(study.path + ": model " + study.model + " does not support `hydrosweep " + command + "`; " +
                     model_support_text(m));
  auto quoted = [](const std::vector<std::string>& v) { return v.empty() ? std::string("none") : join(v, ", ", "\""); };
  // Each law is on the model's list, but not every formulation integrates
  // every law, and the stability map linearizes static laws only
  // (docs/models/friction.md §8).
  if (command == "run" && !m.supports_run(study.friction, study.formulation)) {
    std::vector<std::string> formulations_for_law;
    for (const auto& e : m.formulation_friction_laws)
      if (ModelDescriptor::contains(e.friction_laws, study.friction)) formulations_for_law.push_back(e.formulation);
    throw StudyError(study.path + ": study.friction = \"" + study.friction + "\" with study.formulation = \"" +
                     study.formulation + "\": formulation " + study.formulation + " integrates the friction laws " +
                     quoted(m.friction_laws_of(study.formulation)) + "; \"" + study.friction +
                     "\" runs with the formulations " + quoted(formulations_for_law));
  }
  if (command == "stability" && !ModelDescriptor::contains(m.stability_friction_laws, study.friction))
    throw StudyError(study.path + ": study.friction = \"" + study.friction +
                     "\": `hydrosweep stability` linearizes the static friction laws " +
                     quoted(m.stability_friction_laws) +
                     " only (a law with states has no tangent at the equilibrium's zero velocity)");
}

Study load_study(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw StudyError(path + ": no such study file");
  if (fs::is_directory(st)) throw StudyError(path + ": is a directory, not a study file");
  // A study file is a few kilobytes of TOML: /dev/zero, a FIFO or a
  // mistaken multi-gigabyte file must not be read until the machine runs out
  // of memory (issue 36). Read at most kMaxStudyFileBytes + 1 bytes.
  if (!fs::is_regular_file(st) && !fs::is_fifo(st) && !fs::is_character_file(st))
    throw StudyError(path + ": is not a regular file, not a study file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StudyError(path + ": cannot open study file: " + std::strerror(errno));
  // In pieces, not into a buffer of the limit's size: zeroing 16 MiB took
  // 13 ms of every command (a 200-instance run: 0.6 s; docs/performance.md §1).
  std::string text;
  char piece[1 << 16];
  while (in.read(piece, sizeof piece), in.gcount() > 0) {
    text.append(piece, static_cast<size_t>(in.gcount()));
    if (static_cast<long>(text.size()) > kMaxStudyFileBytes)
      throw StudyError(path + ": is larger than " + std::to_string(kMaxStudyFileBytes >> 20) +
                       " MiB, the limit for a study file (a study is a few kilobytes of TOML)");
  }
  if (in.bad()) throw StudyError(path + ": cannot read study file: " + std::strerror(errno));
  return parse_study(text, path);
}

}  // namespace hs

namespace hs {

std::string study_text_with_sample_count(const std::string& text, const std::string& path, long count) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw StudyError(path + ": " + std::string(e.description()));
  }
  const toml::node* node = root.at_path("sample.count").node();
  if (!node || !node->is_integer())
    throw StudyError(path + ": --extend needs [sample] count = N (an integer) to change");
  const toml::source_region& at = node->source();
  // Lines and columns are 1-based; the value is ASCII digits, so its columns
  // are bytes when the line holds ASCII before it (checked below).
  size_t line_start = 0;
  for (size_t line = 1; line < at.begin.line; ++line) {
    line_start = text.find('\n', line_start);
    if (line_start == std::string::npos) break;
    ++line_start;
  }
  const size_t begin = line_start + at.begin.column - 1, end = line_start + at.end.column - 1;
  const std::string digits = std::to_string(node->as_integer()->get());
  if (line_start == std::string::npos || at.end.line != at.begin.line || end > text.size() ||
      text.compare(begin, end - begin, digits) != 0)
    throw StudyError(path + ":" + std::to_string(at.begin.line) + ": sample.count is not written as plain digits (" + digits +
                     "); write it so to use --extend");
  return text.substr(0, begin) + std::to_string(count) + text.substr(end);
}

}  // namespace hs
