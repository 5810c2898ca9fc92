// Study-file parser. The format is documented at the top of study.hpp.
//
// Design: every value is read through one of a few typed readers (number,
// integer, string, choice) that know the key's full dotted name and the
// node's source line, so every error message has the same shape:
//   FILE:LINE: KEY = VALUE <what is wrong>; <what is allowed>
// toml++ stays an implementation detail of this file.
#include "host/study.hpp"

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

namespace hs {
namespace {

// Shortest text that reads back to the same double ("0.001", "1e+12").
std::string fmt(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string join(const std::vector<std::string>& items, const std::string& sep, const std::string& quote = "") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + quote + items[i] + quote;
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// Closest candidate. A name without a dot is also compared with the last
// component of dotted candidates, so "oil_bulk_modulus" finds
// "circuit.oil_bulk_modulus". Empty if nothing is reasonably close and
// `always` is false.
std::string closest(const std::string& name, const std::vector<std::string>& candidates, bool always) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    const auto dot = c.rfind('.');
    if (name.find('.') == std::string::npos && dot != std::string::npos)
      d = std::min(d, edit_distance(name, c.substr(dot + 1)));
    if (d < best_d) { best_d = d; best = c; }
  }
  if (!always && best_d > std::max<size_t>(2, name.size() / 3)) return "";
  return best;
}

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

const std::vector<std::string> kFrictionNames = {"brown-mcphee", "bengisu-akay", "none"};
const std::vector<std::string> kFormulationNames = {"double-step"};
const std::vector<std::string> kTangentNames = {"exact", "finite-difference"};
const std::vector<std::string> kSpacingNames = {"linear", "log"};
constexpr double kMaxVolts = 1000.0;
// A run longer than this many steps is certainly a unit mistake (dt in ms?).
constexpr double kMaxSteps = 1e12;

// Cross-field rules every instance must satisfy: a OP b.
struct PairRule {
  const char* a;
  const char* b;
  const char* why;
};
const PairRule kPairRules[] = {
    {"circuit.rod_diameter", "circuit.piston_diameter", "the rod must be thinner than the piston"},
    {"circuit.piston_chamber_length0", "circuit.cylinder_length", "the piston must start inside the cylinder"},
    {"circuit.tank_pressure", "circuit.supply_pressure", "the pump must deliver more than tank pressure"},
};

class Parser {
 public:
  Parser(std::string path, std::string text) {
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
    read_study(table_of(root, "study"));
    model_defaults(s_.model, s_.base);  // the name was validated by read_study
    s_.input = s_.base.input;
    read_integrator(table_of(root, "integrator"));
    read_input(table_of(root, "input"));
    read_parameters(table_of(root, "parameters"));
    read_grid(root);
    read_output(table_of(root, "output"));
    check_sizes();
    check_pair_rules();
    return std::move(s_);
  }

 private:
  Study s_;
  toml::source_region gain_source_;                 // [input] gain, if given
  std::map<std::string, int> parameter_lines_;      // [parameters] name -> line
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
  // The ParameterInfo of a dotted name, or an error suggesting the closest one.
  const ParameterInfo& parameter(const std::string& name, const toml::source_region& where, const std::string& key) const {
    if (const ParameterInfo* p = find_parameter(name)) return *p;
    std::vector<std::string> names;
    for (const auto& p : four_bar_parameters()) names.push_back(p.name);
    fail(at(where), "unknown parameter '" + name + "' (" + key + "); did you mean '" + closest(name, names, true) +
                        "'? ('hydrosweep parameters' lists them all)");
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
    const std::vector<std::string> tables = {"study", "integrator", "input", "parameters", "grid", "output"};
    for (const auto& e : in_file_order(root)) {
      const toml::node& v = *e.node;
      const auto where = at(e.source);
      if (std::find(tables.begin(), tables.end(), e.key) == tables.end()) {
        const std::string hint = closest(e.key, tables, false);
        fail(where, std::string(v.is_table() ? "unknown table [" + e.key + "]" : "unknown top-level key '" + e.key + "'") +
                        "; a study has the tables " + join(tables, ", ", "") + " ([[grid]] is an array of tables)" +
                        (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
      if (e.key == "grid") {
        if (!v.is_array() || (!v.as_array()->empty() && !v.is_array_of_tables()))
          fail(where, "grid must be an array of tables: write each axis as [[grid]], got " + type_name(v));
      } else if (!v.is_table()) {
        fail(where, e.key + " must be a table [" + e.key + "], got " + type_name(v) + " " + show(v));
      }
    }
  }
  static const toml::table* table_of(const toml::table& root, const char* name) { return root[name].as_table(); }

  // ---- sections ---------------------------------------------------------
  void read_study(const toml::table* t) {
    if (!t) return;
    check_keys(*t, "study", {"name", "description", "model", "formulation", "friction"});
    if (auto n = t->get("name")) s_.name = string(*n, "study.name");
    if (auto n = t->get("description")) s_.description = string(*n, "study.description");
    if (auto n = t->get("model")) s_.model = choice(*n, "study.model", model_names());
    if (auto n = t->get("formulation")) parse_formulation(choice(*n, "study.formulation", kFormulationNames), s_.formulation);
    if (auto n = t->get("friction")) parse_friction_model(choice(*n, "study.friction", kFrictionNames), s_.friction);
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
    };
    check_keys(*t, "integrator",
               {"dt", "duration", "tangent", "max_newton_iterations", "max_position_iterations", "position_tolerance",
                "pressure_tolerance", "friction_state_tolerance", "constraint_tolerance", "pressure_min", "pressure_max"});

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
    check_keys(*t, "input", {"times", "values", "gain"});
    if (auto n = t->get("gain")) {
      s_.base.input.gain = parameter_value(*n, "input.gain", *find_parameter("input.gain"));
      gain_source_ = n->source();
    }
    const toml::node* times = t->get("times");
    const toml::node* values = t->get("values");
    if (!times && !values) { s_.input = s_.base.input; return; }
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
    in.gain = s_.base.input.gain;
    in.count = static_cast<int>(ta.size());
    for (size_t i = 0; i < ta.size(); ++i) {
      const std::string ti = "input.times[" + std::to_string(i) + "]", vi = "input.values[" + std::to_string(i) + "]";
      in.start[i] = number_in(ta[i], ti, {0, kInf, false, true}, "s");
      in.value[i] = number_in(va[i], vi, {-kMaxVolts, kMaxVolts, false, false}, "V");
      if (i > 0 && !(in.start[i] > in.start[i - 1]))
        fail(at(ta[i]), ti + " = " + fmt(in.start[i]) + " must be > input.times[" + std::to_string(i - 1) + "] = " +
                            fmt(in.start[i - 1]) + " (segment start times must increase strictly)");
    }
    s_.base.input = in;
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
    std::vector<std::pair<std::string, const toml::node*>> leaves;
    flatten(*t, "", leaves);
    std::stable_sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) {
      const auto &x = a.second->source().begin, &y = b.second->source().begin;
      return x.line != y.line ? x.line < y.line : x.column < y.column;
    });
    for (const auto& [name, node] : leaves) {
      const toml::node& v = *node;
      const std::string key = "parameters." + name;
      const ParameterInfo& p = parameter(name, v.source(), key);
      if (auto it = parameter_lines_.find(name); it != parameter_lines_.end())
        fail(at(v), key + " is given twice (also on line " + std::to_string(it->second) + ")");
      if (name == "input.gain" && gain_source_.begin.line)
        fail(at(v), key + " is given twice (also as input.gain on line " + std::to_string(gain_source_.begin.line) + ")");
      parameter_lines_[name] = static_cast<int>(v.source().begin.line);
      p.field(s_.base) = parameter_value(v, key, p);
    }
    s_.input = s_.base.input;
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
      check_keys(t, g, {"parameter", "values", "min", "max", "count", "spacing"}, "[[grid]]");
      GridAxis axis;
      axis.line = static_cast<int>(t.source().begin.line);
      const toml::node* pn = t.get("parameter");
      if (!pn) fail(at(axis.line), g + " needs parameter = \"dotted.name\"");
      axis.parameter = string(*pn, g + ".parameter");
      const ParameterInfo& p = parameter(axis.parameter, pn->source(), g + ".parameter");
      axis.info = &p;
      for (size_t j = 0; j < s_.grid.size(); ++j)
        if (s_.grid[j].parameter == axis.parameter)
          fail(at(*pn), g + ".parameter = \"" + axis.parameter + "\" is already swept by grid[" + std::to_string(j) +
                            "] (line " + std::to_string(s_.grid[j].line) + "); one axis per parameter");

      if (const toml::node* vn = t.get("values")) {
        for (const char* k : {"min", "max", "count", "spacing"})
          if (t.get(k)) fail(at(*t.get(k)), g + "." + k + ": give either " + g + ".values or min/max/count, not both");
        const toml::array& va = array(*vn, g + ".values");
        if (va.empty()) fail(at(*vn), g + ".values is empty; give at least one value for " + axis.parameter);
        if (va.size() > static_cast<size_t>(kMaxInstances))
          fail(at(*vn), g + ".values has more than " + std::to_string(kMaxInstances) + " entries");
        for (size_t j = 0; j < va.size(); ++j)
          axis.values.push_back(parameter_value(va[j], g + ".values[" + std::to_string(j) + "]", p));
      } else {
        const toml::node* mn = t.get("min");
        const toml::node* xn = t.get("max");
        const toml::node* cn = t.get("count");
        if (!mn || !xn || !cn)
          fail(at(axis.line), g + " (" + axis.parameter + ") needs values = [...] or min, max and count; missing " +
                                  (!mn ? "min" : !xn ? "max" : "count"));
        const double lo = parameter_value(*mn, g + ".min", p);
        const double hi = parameter_value(*xn, g + ".max", p);
        const long count = integer(*cn, g + ".count", 1, kMaxInstances);
        const std::string spacing = t.get("spacing") ? choice(*t.get("spacing"), g + ".spacing", kSpacingNames) : "linear";
        if (lo > hi) fail(at(*mn), g + ".min = " + fmt(lo) + " must be <= " + g + ".max = " + fmt(hi));
        if (spacing == "log" && !(lo > 0))
          fail(at(*mn), g + ".min = " + fmt(lo) + " must be > 0 for spacing = \"log\"");
        axis.values = spaced(lo, hi, count, spacing == "log");
      }
      s_.grid.push_back(std::move(axis));
    }
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
    for (size_t i = 0; i < s_.grid.size(); ++i) {
      const long n = static_cast<long>(s_.grid[i].values.size());
      if (total > kMaxInstances / n) {
        std::string sizes;
        for (size_t j = 0; j <= i; ++j) sizes += (j ? " x " : "") + std::to_string(s_.grid[j].values.size());
        fail(at(s_.grid[i].line), "grid: " + sizes + (i + 1 < s_.grid.size() ? " x ..." : "") +
                                      " instances is more than the limit of " + std::to_string(kMaxInstances) + " per study");
      }
      total *= n;
    }
    const double bytes = static_cast<double>(total) * sample_count(s_.settings, s_.trajectory_stride) * sizeof(FourBarSample);
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
        if (s_.grid[i].parameter == name) {
          sd.values = s_.grid[i].values;
          sd.stride = strides[i];
          sd.line = s_.grid[i].line;
          sd.origin = "grid[" + std::to_string(i) + "]";
          return sd;
        }
      FourBarParams b = s_.base;
      sd.values = {find_parameter(name)->field(b)};
      auto it = parameter_lines_.find(name);
      sd.line = it == parameter_lines_.end() ? 0 : it->second;
      sd.origin = it == parameter_lines_.end() ? "model " + s_.model + " default" : "parameters";
      return sd;
    };
    const long n = s_.instance_count();
    for (const auto& rule : kPairRules) {
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

}  // namespace

long Study::instance_count() const {
  long n = 1;
  for (const auto& a : grid) n *= static_cast<long>(a.values.size());
  return n;
}

std::vector<std::string> Study::varied_names() const {
  std::vector<std::string> names;
  for (const auto& a : grid) names.push_back(a.parameter);
  return names;
}

std::vector<double> Study::varied_values(long i) const {
  std::vector<double> v(grid.size());
  for (size_t k = grid.size(); k-- > 0;) {  // last axis varies fastest
    const long n = static_cast<long>(grid[k].values.size());
    v[k] = grid[k].values[i % n];
    i /= n;
  }
  return v;
}

FourBarParams Study::instance(long i) const {
  FourBarParams p = base;
  const std::vector<double> v = varied_values(i);
  for (size_t k = 0; k < grid.size(); ++k) grid[k].info->field(p) = v[k];
  return p;
}

std::vector<FourBarParams> Study::instances() const {
  const long n = instance_count();
  std::vector<FourBarParams> out;
  out.reserve(n);
  for (long i = 0; i < n; ++i) out.push_back(instance(i));
  return out;
}

BatchSpec Study::batch_spec(int threads) const {
  BatchSpec spec;
  spec.instances = instances();
  spec.settings = settings;
  spec.friction = friction;
  spec.formulation = formulation;
  spec.trajectory_stride = trajectory_stride;
  spec.threads = threads;
  return spec;
}

Study parse_study(const std::string& text, const std::string& path) { return Parser(path, text).run(); }

Study load_study(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw StudyError(path + ": no such study file");
  if (fs::is_directory(st)) throw StudyError(path + ": is a directory, not a study file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StudyError(path + ": cannot open study file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw StudyError(path + ": cannot read study file: " + std::strerror(errno));
  return parse_study(text.str(), path);
}

}  // namespace hs
