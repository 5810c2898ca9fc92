#include "host/registry/model_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "host/registry/models.hpp"
#include "host/text.hpp"
#include "kernels/catalog/catalog.hpp"
#include "kernels/core/lu.hpp"
#include "kernels/core/small_matrix.hpp"
#include "kernels/linearize/actuated_system.hpp"
#include "kernels/linearize/reduced_jacobian.hpp"
#include "kernels/models/actuated_parameters.hpp"

namespace hs {

bool names_model_file(const std::string& model) {
  return model.size() > 5 && model.compare(model.size() - 5, 5, ".toml") == 0;
}

namespace {

// What one compiled capacity (kernels/models/planar_multibody_descriptor.hpp)
// makes of a file: its parameters, mechanism and DAE.
template <class CapacityT>
struct FileKernel {
  using Capacity = CapacityT;
  using Params = PlanarFileModelParamsOf<Capacity>;
  using Mechanism = PlanarMultibodyParams<Capacity>;
  using Dae = PlanarMultibodyDae<Capacity>;
  static constexpr int nq = Capacity::nq, nc = Capacity::nc, ni = nq - nc, na = Capacity::na;
};
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fmt(double v) { return round_trip_text(v); }

// ---- assembly (docs/model-files.md §5) --------------------------------------

// Gaussian elimination with full pivoting on a rows × cols matrix: the rank
// and which rows and columns hold a pivot (relative threshold).
struct Elimination {
  int rank = 0;
  std::vector<bool> row_pivoted, col_pivoted;
};
Elimination eliminate(std::vector<std::vector<double>> a, double relative_tolerance = 1e-10) {
  const int rows = static_cast<int>(a.size()), cols = rows ? static_cast<int>(a[0].size()) : 0;
  Elimination e;
  e.row_pivoted.assign(rows, false);
  e.col_pivoted.assign(cols, false);
  std::vector<int> row_id(rows);
  for (int r = 0; r < rows; ++r) row_id[r] = r;
  double scale = 0.0;
  for (const auto& row : a)
    for (double v : row) scale = std::max(scale, std::fabs(v));
  const double tol = relative_tolerance * std::max(scale, 1e-300);
  std::vector<bool> col_used(cols, false);
  for (int k = 0; k < rows; ++k) {
    int pr = -1, pc = -1;
    double best = tol;
    for (int r = k; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        if (!col_used[c] && std::fabs(a[r][c]) > best) { best = std::fabs(a[r][c]); pr = r; pc = c; }
    if (pr < 0) break;
    std::swap(a[k], a[pr]);
    std::swap(row_id[k], row_id[pr]);
    col_used[pc] = true;
    e.row_pivoted[row_id[k]] = true;
    e.col_pivoted[pc] = true;
    ++e.rank;
    for (int r = k + 1; r < rows; ++r) {
      const double f = a[r][pc] / a[k][pc];
      for (int c = 0; c < cols; ++c) a[r][c] -= f * a[k][c];
    }
  }
  return e;
}

// Newton on the dependent coordinates (slots ni … nq−1) with the driving
// ones held, from the file's guesses: what the integrators' assembly does.
// Φ and Φ_x are the kernel's own closed forms (PlanarMultibody::pose, what
// the integrators evaluate); the steps the integrators' small LU
// (kernels/core/lu.hpp).
template <class Capacity>
struct Assembly {
  static constexpr int nq = Capacity::nq, nc = Capacity::nc, ni = nq - nc;
  bool closed = false;
  bool singular = false;  // Φ_d singular on the way
  double residual = 0.0;  // |Φ|∞ at the end
  double x[nq] = {};
  double phi[nc] = {};
  double J[nc][nq] = {};
};
template <class Capacity>
Assembly<Capacity> assemble(const PlanarMultibodyParams<Capacity>& P) {
  using A = Assembly<Capacity>;
  constexpr int nq = A::nq, nc = A::nc, ni = A::ni;
  A a;
  PlanarMultibodyDae<Capacity>::initial_guess(P, a.x);
  for (int it = 0; it <= 50; ++it) {
    const auto pose = PlanarMultibody<Capacity>::pose(P, a.x);
    for (int r = 0; r < nc; ++r) {
      a.phi[r] = pose.phi[r];
      for (int k = 0; k < nq; ++k) a.J[r][k] = pose.jacobian[r][k];
    }
    a.residual = 0.0;
    for (double v : a.phi) a.residual = std::max(a.residual, std::fabs(v));
    if (!std::isfinite(a.residual)) return a;
    if (a.residual <= 1e-11) {
      a.closed = true;
      return a;
    }
    // Φ_d Δ = Φ.
    Mat<double, nc, nc> Jd;
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nc; ++c) Jd(r, c) = a.J[r][ni + c];
    int perm[nc];
    if (!lu_factor(Jd, perm)) {
      a.singular = true;
      return a;
    }
    double d[nc];
    lu_solve(Jd, perm, a.phi, d);
    for (int c = 0; c < nc; ++c) a.x[ni + c] -= d[c];
  }
  return a;
}

// ---- the file ------------------------------------------------------------------

struct NamedPoint {
  std::string owner, name;  // owner "ground" or a body's name
  double x = 0.0, y = 0.0;
  int line = 0;
};
struct BodyIn {
  std::string name;
  double mass = 0.0, inertia = 0.0, com_x = 0.0, com_y = 0.0;
  int line = 0;
};
struct JointIn {
  std::string name, type;
  bool cut = false;
  int parent_point = -1;  // tree joint: the parent's point
  int child = -1;         // tree joint: the body (file order)
  int point_a = -1, point_b = -1;  // cut joint
  double initial = 0.0, axis = 0.0, orientation = 0.0, angle = 0.0;
  bool driving = false;
  int line = 0;
};
// What [input] says of one cylinder (docs/model-files.md §6).
struct CylinderInputIn {
  InputSchedule schedule;
  int mode = 0;            // CylinderInputMode
  int joint = -1;          // joint mode: index into the joints
  double proportional_gain = 0.0, integral_gain = 0.0, voltage_limit = 10.0;
  int line = 0;
};
struct CylinderIn {
  std::string name;
  int base = -1, rod = -1;
  std::string circuit = "three-volume";  // a member of the mechanism's CircuitChoice (docs/model-files.md §4)
  std::vector<std::pair<std::string, const toml::node*>> settings;  // parameter keys after "cylinder.<name>."
  int line = 0;
};

class Reader {
 public:
  Reader(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}

  std::shared_ptr<const ModelDescriptor> read() {
    toml::table root;
    try {
      root = toml::parse(text_, path_);
    } catch (const toml::parse_error& e) {
      const auto& b = e.source().begin;
      throw ModelFileError(path_ + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                           ": TOML syntax error: " + std::string(e.description()));
    }
    return read(root, "", "a model file");
  }
  // The tables of a model under `prefix` ("" for a model file, "machine."
  // inside a study), `where` naming them in messages.
  std::shared_ptr<const ModelDescriptor> read(const toml::table& root, const std::string& prefix, const std::string& where) {
    prefix_ = prefix;
    check_keys(root, prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1),
               {"model", "ground", "body", "joint", "cylinder", "input", "output"}, where);
    read_model(root);
    read_ground(root);
    read_bodies(root);
    read_joints(root);
    read_cylinders(root);
    if (const toml::node* in = root.get("input")) read_input(*in);
    if (const toml::node* out = root.get("output")) read_output(*out);
    build();
    return std::make_shared<const ModelDescriptor>(std::move(d_));
  }

 private:
  std::string path_, text_;
  std::string prefix_;  // "machine." for a model inside a study (messages name its tables so)
  std::string name_, title_;
  double gravity_[2] = {0.0, -9.81};
  std::vector<NamedPoint> points_;
  std::vector<BodyIn> bodies_;
  std::vector<JointIn> joints_;
  std::vector<CylinderIn> cylinders_;
  std::vector<CylinderInputIn> inputs_;  // one per cylinder, after read_input
  double sample_period_ = 0.01;
  int sample_period_line_ = 0;
  bool schedule_at_top_ = false;  // a one-cylinder file's [input] times/values
  int model_line_ = 0;
  std::vector<int> output_points_;  // [output] points: indices into points_
  ModelDescriptor d_;

  // ---- messages and typed readers ------------------------------------------
  std::string at(int line) const { return line > 0 ? path_ + ":" + std::to_string(line) : path_; }
  std::string at(const toml::node& n) const { return at(static_cast<int>(n.source().begin.line)); }
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw ModelFileError(where + ": " + what);
  }
  double number(const toml::node& n, const std::string& key) const {
    double v;
    if (auto i = n.as_integer()) v = static_cast<double>(i->get());
    else if (auto f = n.as_floating_point()) v = f->get();
    else fail(at(n), key + " must be a number");
    if (!std::isfinite(v)) fail(at(n), key + " = " + fmt(v) + " must be a finite number");
    return v;
  }
  std::string string(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(at(n), key + " must be a string");
    return n.as_string()->get();
  }
  bool boolean(const toml::node& n, const std::string& key) const {
    if (!n.is_boolean()) fail(at(n), key + " must be true or false");
    return n.as_boolean()->get();
  }
  // [x, y]
  void pair(const toml::node& n, const std::string& key, double& x, double& y) const {
    const toml::array* a = n.as_array();
    if (!a || a->size() != 2) fail(at(n), key + " must be a pair of numbers [x, y]");
    x = number(*a->get(0), key + "[0]");
    y = number(*a->get(1), key + "[1]");
  }
  // A name of an element or point: letters, digits, '_' and '-' (it becomes
  // part of dotted parameter names and column descriptions).
  std::string identifier(const toml::node& n, const std::string& key) const {
    const std::string v = string(n, key);
    if (v.empty()) fail(at(n), key + " must not be empty");
    for (unsigned char c : v)
      if (!(std::isalnum(c) || c == '_' || c == '-'))
        fail(at(n), key + " = \"" + v + "\": names take letters, digits, '_' and '-' only (they become parameter names)");
    return v;
  }
  const toml::node& required(const toml::table& t, const char* key, const std::string& element, int line) const {
    const toml::node* n = t.get(key);
    if (!n) fail(at(line), element + " has no `" + key + "`");
    return *n;
  }
  void check_keys(const toml::table& t, const std::string& element, const std::vector<std::string>& allowed,
                  const std::string& where) const {
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      const std::string hint = closest(key, allowed, false);
      fail(at(v), "unknown key '" + (element.empty() ? "" : element + ".") + key + "' in " + where + "; allowed: " +
                      join(allowed, ", ") + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  const toml::array* tables(const toml::table& root, const char* key) const {
    const toml::node* n = root.get(key);
    if (!n) return nullptr;
    if (!n->is_array_of_tables()) fail(at(*n), std::string(key) + " must be an array of tables: write each one as [[" + key + "]]");
    return n->as_array();
  }
  void unique(const std::string& kind, const std::string& name, int line, const std::vector<std::string>& taken) const {
    if (std::find(taken.begin(), taken.end(), name) != taken.end())
      fail(at(line), kind + " name \"" + name + "\" is used twice");
  }

  // ---- sections --------------------------------------------------------------
  void read_model(const toml::table& root) {
    const toml::table* t = root["model"].as_table();
    if (!t) fail(at(0), "a model needs a [" + prefix_ + "model] table with its name");
    model_line_ = static_cast<int>(t->source().begin.line);
    check_keys(*t, "model", {"name", "title", "gravity"}, "[model]");
    name_ = identifier(required(*t, "name", "[model]", model_line_), "model.name");
    if (find_model(name_))
      fail(at(*t->get("name")), "model.name = \"" + name_ + "\" is the name of a compiled model; choose another");
    if (const toml::node* n = t->get("title")) title_ = string(*n, "model.title");
    if (const toml::node* n = t->get("gravity")) pair(*n, "model.gravity", gravity_[0], gravity_[1]);
  }
  void read_points(const toml::node& n, const std::string& owner, const std::string& key) {
    const toml::table* t = n.as_table();
    if (!t) fail(at(n), key + " must be a table of named points, e.g. { A = [0.0, 1.0] }");
    for (auto&& [k, v] : *t) {
      NamedPoint p;
      p.owner = owner;
      p.name = std::string(k.str());
      p.line = static_cast<int>(v.source().begin.line);
      for (unsigned char c : p.name)
        if (!(std::isalnum(c) || c == '_' || c == '-'))
          fail(at(v), key + "." + p.name + ": point names take letters, digits, '_' and '-' only");
      pair(v, key + "." + p.name, p.x, p.y);
      points_.push_back(p);
    }
  }
  void read_ground(const toml::table& root) {
    const toml::node* g = root.get("ground");
    if (!g) return;
    const toml::table* t = g->as_table();
    if (!t) fail(at(*g), "ground must be a table [ground] with `points`");
    check_keys(*t, "ground", {"points"}, "[ground]");
    if (const toml::node* n = t->get("points")) read_points(*n, "ground", "ground.points");
  }
  void read_bodies(const toml::table& root) {
    const toml::array* list = tables(root, "body");
    if (!list || list->empty()) fail(at(0), "a model needs at least one [[" + prefix_ + "body]]");
    std::vector<std::string> names;
    for (size_t i = 0; i < list->size(); ++i) {
      const toml::table& t = *list->get(i)->as_table();
      BodyIn b;
      b.line = static_cast<int>(t.source().begin.line);
      const std::string element = "body[" + std::to_string(i) + "]";
      check_keys(t, "body", {"name", "mass", "inertia", "com", "points"}, "[[body]]");
      b.name = identifier(required(t, "name", element, b.line), element + ".name");
      if (b.name == "ground") fail(at(b.line), "body name \"ground\" is reserved for the ground");
      unique("body", b.name, b.line, names);
      names.push_back(b.name);
      const std::string pre = "body." + b.name;
      b.mass = number(required(t, "mass", pre, b.line), pre + ".mass");
      b.inertia = number(required(t, "inertia", pre, b.line), pre + ".inertia");
      if (const toml::node* n = t.get("com")) pair(*n, pre + ".com", b.com_x, b.com_y);
      if (const toml::node* n = t.get("points")) read_points(*n, b.name, pre + ".points");
      bodies_.push_back(b);
    }
  }
  int body_index(const std::string& name) const {
    for (size_t i = 0; i < bodies_.size(); ++i)
      if (bodies_[i].name == name) return static_cast<int>(i);
    return -1;
  }
  std::vector<std::string> owner_names() const {
    std::vector<std::string> out = {"ground"};
    for (const auto& b : bodies_) out.push_back(b.name);
    return out;
  }
  // "body.point" → index into points_.
  int point_ref(const toml::node& n, const std::string& key) const {
    const std::string ref = string(n, key);
    const auto dot = ref.find('.');
    if (dot == std::string::npos)
      fail(at(n), key + " = \"" + ref + "\" must name a point as \"BODY.POINT\" (or \"ground.POINT\")");
    const std::string owner = ref.substr(0, dot), point = ref.substr(dot + 1);
    if (owner != "ground" && body_index(owner) < 0) {
      const std::string hint = closest(owner, owner_names(), false);
      fail(at(n), key + " = \"" + ref + "\": no body \"" + owner + "\"; the bodies are " + join(owner_names(), ", ") +
                      (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < points_.size(); ++i) {
      if (points_[i].owner != owner) continue;
      if (points_[i].name == point) return static_cast<int>(i);
      names.push_back(points_[i].name);
    }
    fail(at(n), key + " = \"" + ref + "\": " + owner + " has no point \"" + point + "\"; its points are " +
                    (names.empty() ? std::string("none (add them to its `points` table)") : join(names, ", ")));
  }
  void read_joints(const toml::table& root) {
    const toml::array* list = tables(root, "joint");
    if (!list) fail(at(0), "a model needs [[" + prefix_ + "joint]] tables: every body hangs from one joint");
    std::vector<std::string> names;
    for (size_t i = 0; i < list->size(); ++i) {
      const toml::table& t = *list->get(i)->as_table();
      JointIn j;
      j.line = static_cast<int>(t.source().begin.line);
      const std::string element = "joint[" + std::to_string(i) + "]";
      j.name = identifier(required(t, "name", element, j.line), element + ".name");
      unique("joint", j.name, j.line, names);
      names.push_back(j.name);
      const std::string pre = "joint." + j.name;
      const toml::node& type = required(t, "type", pre, j.line);
      j.type = string(type, pre + ".type");
      if (j.type != "revolute" && j.type != "prismatic")
        fail(at(type), pre + ".type = \"" + j.type + "\" is not one of \"revolute\", \"prismatic\"");
      const bool prismatic = j.type == "prismatic";
      j.cut = t.get("between") != nullptr;
      if (j.cut) {
        std::vector<std::string> allowed = {"name", "type", "between"};
        if (prismatic) allowed.insert(allowed.end(), {"axis", "angle"});
        check_keys(t, pre, allowed, "a " + j.type + " loop-closing joint (with `between`)");
        const toml::array* between = t.get("between")->as_array();
        if (!between || between->size() != 2)
          fail(at(*t.get("between")), pre + ".between must be two points [\"BODY.POINT\", \"BODY.POINT\"]");
        j.point_a = point_ref(*between->get(0), pre + ".between[0]");
        j.point_b = point_ref(*between->get(1), pre + ".between[1]");
        if (points_[j.point_a].owner == points_[j.point_b].owner)
          fail(at(*t.get("between")), pre + ".between: both points are on " + points_[j.point_a].owner +
                                          "; a joint connects two different bodies");
        if (const toml::node* n = t.get("axis")) j.axis = number(*n, pre + ".axis");
        if (const toml::node* n = t.get("angle")) j.angle = number(*n, pre + ".angle");
      } else {
        std::vector<std::string> allowed = {"name", "type", "parent", "child", "initial", "driving"};
        if (prismatic) allowed.insert(allowed.end(), {"axis", "orientation"});
        check_keys(t, pre, allowed, "a " + j.type + " joint (with `parent` and `child`; a loop closes with `between`)");
        j.parent_point = point_ref(required(t, "parent", pre, j.line), pre + ".parent");
        const toml::node& child = required(t, "child", pre, j.line);
        const std::string c = string(child, pre + ".child");
        j.child = body_index(c);
        if (j.child < 0) {
          const std::string hint = closest(c, owner_names(), false);
          fail(at(child), pre + ".child = \"" + c + "\" is not a body; the bodies are " + join(owner_names(), ", ", "") +
                              (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
        }
        if (points_[j.parent_point].owner == c)
          fail(at(child), pre + ": body " + c + " cannot hang from its own point");
        j.initial = number(required(t, "initial", pre, j.line), pre + ".initial");
        if (const toml::node* n = t.get("driving")) j.driving = boolean(*n, pre + ".driving");
        if (const toml::node* n = t.get("axis")) j.axis = number(*n, pre + ".axis");
        if (const toml::node* n = t.get("orientation")) j.orientation = number(*n, pre + ".orientation");
      }
      joints_.push_back(j);
    }
  }
  void read_cylinders(const toml::table& root) {
    const toml::array* list = tables(root, "cylinder");
    if (!list || list->empty()) fail(at(0), "a model needs one [[" + prefix_ + "cylinder]]: the hydraulic actuator");
    std::vector<std::string> names;
    for (size_t i = 0; i < list->size(); ++i) {
      const toml::table& t = *list->get(i)->as_table();
      CylinderIn c;
      c.line = static_cast<int>(t.source().begin.line);
      const std::string element = "cylinder[" + std::to_string(i) + "]";
      c.name = identifier(required(t, "name", element, c.line), element + ".name");
      unique("cylinder", c.name, c.line, names);
      names.push_back(c.name);
      const std::string pre = "cylinder." + c.name;
      c.base = point_ref(required(t, "base", pre, c.line), pre + ".base");
      c.rod = point_ref(required(t, "rod", pre, c.line), pre + ".rod");
      // On one body its length could never change: it would drive nothing.
      if (points_[c.base].owner == points_[c.rod].owner)
        fail(at(*t.get("rod")), pre + ": base and rod are both on " + points_[c.base].owner +
                                    "; a cylinder acts between two bodies (or a body and the ground)");
      if (const toml::node* n = t.get("circuit")) {
        using Circuits = PlanarMultibodyDae<PlanarFileCapacity>::Circuit;
        c.circuit = string(*n, pre + ".circuit");
        if (Circuits::code_named(c.circuit) < 0)
          fail(at(*n), pre + ".circuit = \"" + c.circuit + "\": model files take the circuits " + Circuits::names() +
                           " (docs/model-files.md §4)");
      }
      // Every other key is one of the cylinder's parameters (checked once the
      // table exists); `friction` is a table of friction parameters.
      for (auto&& [k, v] : t) {
        const std::string key(k.str());
        if (key == "name" || key == "base" || key == "rod" || key == "circuit") continue;
        if (key == "friction" && v.is_table()) {
          for (auto&& [fk, fv] : *v.as_table()) c.settings.push_back({"friction." + std::string(fk.str()), &fv});
          continue;
        }
        c.settings.push_back({key, &v});
      }
      cylinders_.push_back(c);
    }
    constexpr int most = PlanarFileTwoCylinderCapacity::na;
    if (cylinders_.size() > static_cast<size_t>(most))
      fail(at(cylinders_[most].line),
           "this build's model files take 1 or " + std::to_string(most) +
               " cylinders (the compiled capacities, docs/models/planar-multibody.md §3); this file has " +
               std::to_string(cylinders_.size()));
  }

  // [input] (docs/model-files.md §6): `sample_period`, and per cylinder a
  // table [input.<cylinder>] with `control` ("valve", "stroke", "joint"),
  // `times`, `values`, `gain`, the controller's gains and `joint`; a
  // one-cylinder file may write its cylinder's keys in [input] itself.
  void read_input(const toml::node& n) {
    const toml::table* t = n.as_table();
    if (!t) fail(at(n), "input must be a table [input] (times, values, ... or one table per cylinder)");
    inputs_.assign(cylinders_.size(), CylinderInputIn{});
    const std::vector<std::string> own = {"control", "joint", "times", "values", "gain", "proportional_gain",
                                          "integral_gain", "voltage_limit"};
    std::vector<std::string> allowed = {"sample_period"};
    for (const auto& c : cylinders_) allowed.push_back(c.name);
    if (cylinders_.size() == 1) allowed.insert(allowed.end(), own.begin(), own.end());
    for (auto&& [k, v] : *t) {
      const std::string key(k.str());
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      const bool cylinder_key = std::find(own.begin(), own.end(), key) != own.end();
      if (cylinder_key)
        fail(at(v), "input." + key + ": this model has " + std::to_string(cylinders_.size()) +
                        " cylinders; give each its own table [input." + cylinders_[0].name + "], ...");
      const std::string hint = closest(key, allowed, false);
      fail(at(v), "unknown key 'input." + key + "' in [input]; allowed: " + join(allowed, ", ") +
                      " (a table per cylinder, by its name)" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    if (const toml::node* sp = t->get("sample_period")) {
      sample_period_ = number(*sp, "input.sample_period");
      sample_period_line_ = static_cast<int>(sp->source().begin.line);
    }
    bool top = false;
    for (const auto& key : own) top |= t->get(key) != nullptr;
    if (top) {
      schedule_at_top_ = true;
      read_cylinder_input(*t, "input", 0, true);
    }
    for (size_t a = 0; a < cylinders_.size(); ++a)
      if (const toml::node* c = t->get(cylinders_[a].name)) {
        const std::string key = "input." + cylinders_[a].name;
        if (top) fail(at(*c), key + ": the cylinder's input is already given by [input]'s own keys; write one of the two");
        if (!c->is_table()) fail(at(*c), key + " must be a table [" + prefix_ + key + "]");
        read_cylinder_input(*c->as_table(), key, a, false);
      }
  }
  void read_cylinder_input(const toml::table& t, const std::string& key, size_t a, bool top) {
    CylinderInputIn& in = inputs_[a];
    in.line = static_cast<int>(t.source().begin.line);
    if (!top)
      check_keys(t, key, {"control", "joint", "times", "values", "gain", "proportional_gain", "integral_gain", "voltage_limit"},
                 "[" + key + "]");
    std::string control = "valve";
    if (const toml::node* c = t.get("control")) {
      control = string(*c, key + ".control");
      const std::vector<std::string> modes = {"valve", "stroke", "joint"};
      if (std::find(modes.begin(), modes.end(), control) == modes.end())
        fail(at(*c), key + ".control = \"" + control + "\" is not one of \"valve\" (open-loop valve schedule), "
                         "\"stroke\" (PI on the cylinder's extension), \"joint\" (PI on a joint coordinate)");
    }
    in.mode = control == "valve" ? int(CylinderInputMode::valve)
              : control == "stroke" ? int(CylinderInputMode::stroke) : int(CylinderInputMode::joint);
    const bool controlled = in.mode != int(CylinderInputMode::valve);
    for (const char* k : {"proportional_gain", "integral_gain", "voltage_limit"})
      if (!controlled && t.get(k))
        fail(at(*t.get(k)), key + "." + k + " belongs to a controller; set " + key +
                                ".control = \"stroke\" or \"joint\" (an open-loop valve schedule takes times, values, gain)");
    if (const toml::node* j = t.get("joint")) {
      if (in.mode != int(CylinderInputMode::joint))
        fail(at(*j), key + ".joint names the joint a \"joint\" controller moves; set " + key + ".control = \"joint\"");
      const std::string name = string(*j, key + ".joint");
      std::vector<std::string> tree;
      for (size_t i = 0; i < joints_.size(); ++i) {
        if (joints_[i].cut) continue;
        if (joints_[i].name == name) in.joint = static_cast<int>(i);
        tree.push_back(joints_[i].name);
      }
      if (in.joint < 0) {
        const std::string hint = closest(name, tree, false);
        fail(at(*j), key + ".joint = \"" + name + "\" is not a joint with a coordinate (parent/child); they are " +
                         join(tree, ", ") + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
      }
    } else if (in.mode == int(CylinderInputMode::joint)) {
      fail(at(in.line), key + ".control = \"joint\" needs `joint`, the name of the joint it moves");
    }
    if (controlled) {
      if (!t.get("proportional_gain"))
        fail(at(in.line), key + " needs `proportional_gain` (V per m of stroke, or per rad or m of the joint)");
      in.proportional_gain = number(*t.get("proportional_gain"), key + ".proportional_gain");
      if (const toml::node* k = t.get("integral_gain")) in.integral_gain = number(*k, key + ".integral_gain");
      if (const toml::node* k = t.get("voltage_limit")) in.voltage_limit = number(*k, key + ".voltage_limit");
    }
    const toml::node* tn = t.get("times");
    const toml::node* vn = t.get("values");
    if (!tn && !vn) {
      if (controlled) fail(at(in.line), key + " needs `times` and `values`: the reference it follows");
      return;  // the valve stays closed
    }
    const toml::array* times = tn ? tn->as_array() : nullptr;
    const toml::array* values = vn ? vn->as_array() : nullptr;
    if (!times || !values || times->size() != values->size() || times->empty() ||
        times->size() > static_cast<size_t>(InputSchedule::kMaxSegments))
      fail(at(tn ? *tn : *vn), key + " needs `times` and `values`, arrays of the same length, 1 to " +
                                   std::to_string(InputSchedule::kMaxSegments) + " entries");
    InputSchedule& S = in.schedule;
    S.count = static_cast<int>(times->size());
    for (size_t k = 0; k < times->size(); ++k) {
      S.start[k] = number(*times->get(k), key + ".times[" + std::to_string(k) + "]");
      S.value[k] = number(*values->get(k), key + ".values[" + std::to_string(k) + "]");
      if (k > 0 && !(S.start[k] > S.start[k - 1])) fail(at(*times->get(k)), key + ".times must increase");
    }
    if (const toml::node* g = t.get("gain")) S.gain = number(*g, key + ".gain");
  }

  // [output] points = ["BODY.POINT", ...]: named points whose world
  // coordinates the trajectories carry (docs/model-files.md §11).
  void read_output(const toml::node& n) {
    const toml::table* t = n.as_table();
    if (!t) fail(at(n), "output must be a table [output] with `points`");
    check_keys(*t, "output", {"points"}, "[output]");
    const toml::node* pts = t->get("points");
    if (!pts) return;
    const toml::array* list = pts->as_array();
    if (!list) fail(at(*pts), "output.points must be an array of points [\"BODY.POINT\", ...]");
    constexpr size_t most = 8;
    if (list->size() > most)
      fail(at(*pts), "output.points names " + std::to_string(list->size()) + " points; at most " + std::to_string(most));
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string key = "output.points[" + std::to_string(i) + "]";
      const int p = point_ref(*list->get(i), key);
      if (points_[p].owner == "ground")
        fail(at(*list->get(i)), key + " = \"ground." + points_[p].name + "\": a ground point does not move; name a body's point");
      if (std::find(output_points_.begin(), output_points_.end(), p) != output_points_.end())
        fail(at(*list->get(i)), key + ": " + points_[p].owner + "." + points_[p].name + " is named twice");
      output_points_.push_back(p);
    }
  }

  // ---- the mechanism -----------------------------------------------------------
  void build() {
    inputs_.resize(cylinders_.size());
    if (cylinders_.size() == 1) build_for<PlanarMultibodyPhysics, PlanarFileCapacity>();
    else build_for<PlanarMultibodyTwoCylinderPhysics, PlanarFileTwoCylinderCapacity>();
  }
  template <class Physics, class Capacity>
  void build_for() {
    using K = FileKernel<Capacity>;
    typename K::Params P;
    // Each cylinder's circuit: its member of the choice (every member keeps
    // its defaults; the table names the chosen one's).
    using Circuits = typename decltype(P.actuator[0].circuit)::Choice;
    for (size_t c = 0; c < cylinders_.size(); ++c)
      P.actuator[c].circuit.circuit_code = Circuits::code_named(cylinders_[c].circuit);
    typename K::Mechanism& M = P.mechanism;
    const int nb = static_cast<int>(bodies_.size());
    int ncut = 0;
    for (const auto& j : joints_) ncut += j.cut;
    const std::string which = " (the compiled capacity of " + std::to_string(K::na) + "-cylinder model files, "
                              "docs/models/planar-multibody.md §3)";
    if (nb > Capacity::bodies)
      fail(at(bodies_[Capacity::bodies].line),
           "this build's model files with " + std::to_string(K::na) + " cylinder(s) take at most " +
               std::to_string(Capacity::bodies) + " bodies" + which + "; this file has " + std::to_string(nb));
    if (ncut > Capacity::cuts)
      fail(at(model_line_), "this build's model files with " + std::to_string(K::na) + " cylinder(s) take at most " +
                                std::to_string(Capacity::cuts) + " loop-closing joints (`between`)" + which +
                                "; this file has " + std::to_string(ncut));
    if (points_.size() > static_cast<size_t>(Capacity::points))
      fail(at(points_[Capacity::points].line),
           "this build's model files take at most " + std::to_string(Capacity::points) + " named points");
    // Every body hangs from exactly one tree joint.
    std::vector<int> tree_joint(nb, -1);
    for (size_t i = 0; i < joints_.size(); ++i) {
      const auto& j = joints_[i];
      if (j.cut) continue;
      if (tree_joint[j.child] >= 0)
        fail(at(j.line), "joint." + j.name + ": body " + bodies_[j.child].name + " already hangs from joint " +
                             joints_[tree_joint[j.child]].name +
                             "; a body hangs from one joint, and a loop closes with `between = [\"A.P\", \"B.Q\"]`");
      tree_joint[j.child] = static_cast<int>(i);
    }
    for (int b = 0; b < nb; ++b)
      if (tree_joint[b] < 0)
        fail(at(bodies_[b].line), "body " + bodies_[b].name +
                                      " is connected to nothing: no joint has `child = \"" + bodies_[b].name + "\"`");
    // Parents before children, starting from the ground.
    std::vector<int> order, placed(nb, -1);
    bool grounded = false;
    for (int b = 0; b < nb; ++b) grounded |= points_[joints_[tree_joint[b]].parent_point].owner == "ground";
    if (!grounded) fail(at(model_line_), "no body hangs from the ground: give one joint `parent = \"ground.POINT\"`");
    for (bool progress = true; progress;) {
      progress = false;
      for (int b = 0; b < nb; ++b) {
        if (placed[b] >= 0) continue;
        const std::string& owner = points_[joints_[tree_joint[b]].parent_point].owner;
        if (owner == "ground" || placed[body_index(owner)] >= 0) {
          placed[b] = static_cast<int>(order.size());
          order.push_back(b);
          progress = true;
        }
      }
    }
    for (int b = 0; b < nb; ++b)
      if (placed[b] < 0)
        fail(at(bodies_[b].line), "body " + bodies_[b].name +
                                      " does not reach the ground through its joints' parents (their tree joints form "
                                      "a loop: close loops with `between` instead of `parent`/`child`)");
    // Degrees of freedom and the driving coordinates: one per cylinder.
    const int dof = nb - 2 * ncut;
    if (dof < 1)
      fail(at(model_line_), "the mechanism has no degree of freedom: " + std::to_string(nb) + " joint coordinates, " +
                                std::to_string(2 * ncut) + " closure equations (redundant loop-closing joints?)");
    if (dof != K::ni)
      fail(at(model_line_), "the mechanism has " + std::to_string(dof) + (dof == 1 ? " degree" : " degrees") +
                                " of freedom (" + std::to_string(nb) + " bodies, " + std::to_string(ncut) +
                                " loop-closing joints × 2) and " + std::to_string(K::na) +
                                (K::na == 1 ? " cylinder" : " cylinders") + "; this build's model files take 1 degree of "
                                "freedom per cylinder (docs/models/planar-multibody.md §3)");
    std::vector<int> driving;
    for (int b = 0; b < nb; ++b)
      if (joints_[tree_joint[order[b]]].driving) driving.push_back(order[b]);
    if (driving.empty())  // the first bodies' joints
      for (int b = 0; b < K::ni; ++b) driving.push_back(order[b]);
    if (static_cast<int>(driving.size()) != dof)
      fail(at(joints_[tree_joint[driving.back()]].line),
           std::to_string(driving.size()) + " joints are marked `driving`, and the mechanism has " + std::to_string(dof) +
               " degree(s) of freedom: mark as many");
    // Points: the file's, owners as body indices in tree order.
    for (size_t i = 0; i < points_.size(); ++i) {
      const auto& p = points_[i];
      M.point[i].x = p.x;
      M.point[i].y = p.y;
      M.point[i].body = p.owner == "ground" ? -1 : placed[body_index(p.owner)];
    }
    for (size_t i = points_.size(); i < static_cast<size_t>(Capacity::points); ++i) M.point[i] = {0.0, 0.0, -1};
    // Slots: driving first, then the other joints in tree order, then padding.
    std::vector<int> slot_of(nb, -1);
    int next = 0;
    for (int b : driving) slot_of[b] = next++;
    for (int b : order)
      if (slot_of[b] < 0) slot_of[b] = next++;
    M.bodies = nb;
    for (int k = 0; k < nb; ++k) {
      const int b = order[k];
      const JointIn& j = joints_[tree_joint[b]];
      auto& B = M.body[k];
      B.mass = bodies_[b].mass;
      B.inertia = bodies_[b].inertia;
      B.com_x = bodies_[b].com_x;
      B.com_y = bodies_[b].com_y;
      B.initial = j.initial;
      B.slide_angle = j.axis;
      B.orientation = j.orientation;
      B.joint_point = j.parent_point;
      B.prismatic = j.type == "prismatic";
      B.slot = slot_of[b];
    }
    for (int k = nb; k < Capacity::bodies; ++k) M.body[k] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < K::nq; ++k) M.slot_used[k] = k < nb;
    M.cuts = 0;
    for (const auto& j : joints_)
      if (j.cut) {
        auto& C = M.cut[M.cuts++];
        C.point_a = j.point_a;
        C.point_b = j.point_b;
        C.prismatic = j.type == "prismatic";
        C.axis_angle = j.axis;
        C.relative_angle = j.angle;
      }
    for (int k = M.cuts; k < Capacity::cuts; ++k) M.cut[k] = {0, 0, 0, 0, 0};
    for (int r = 0; r < K::nc; ++r) M.pad_slot[r] = 0;
    for (int r = 2 * M.cuts, k = nb; r < K::nc; ++r, ++k) M.pad_slot[r] = k;
    M.gravity_x = gravity_[0];
    M.gravity_y = gravity_[1];
    for (int a = 0; a < K::na; ++a) {
      M.cylinder[a].base_point = cylinders_[a].base;
      M.cylinder[a].rod_point = cylinders_[a].rod;
      CylinderInputSetting& in = P.input.cylinder[a];
      in.schedule = inputs_[a].schedule;
      in.mode = inputs_[a].mode;
      in.coordinate = inputs_[a].joint >= 0 ? slot_of[joints_[inputs_[a].joint].child] : 0;
      in.proportional_gain = inputs_[a].proportional_gain;
      in.integral_gain = inputs_[a].integral_gain;
      in.voltage_limit = inputs_[a].voltage_limit;
    }
    P.input.sample_period = sample_period_;

    check_assembly<K>(M, tree_joint, driving);
    describe<Physics, K>(P, order, tree_joint, slot_of);
  }

  // The joints a constraint row belongs to, for messages.
  std::string row_owner(int row) const {
    int k = 0;
    for (const auto& j : joints_)
      if (j.cut && k++ == row / 2) return "joint " + j.name;
    return "padding";
  }
  template <class K>
  void check_assembly(const typename K::Mechanism& M, const std::vector<int>& tree_joint, const std::vector<int>& driving) const {
    const Assembly<typename K::Capacity> a = assemble(M);
    // Rank of Φ_x (the file's rows; the padding rows are independent by construction).
    std::vector<std::vector<double>> J;
    for (int r = 0; r < 2 * M.cuts; ++r) J.emplace_back(a.J[r], a.J[r] + K::nq);
    if (!J.empty()) {
      const Elimination e = eliminate(J);
      if (e.rank < 2 * M.cuts) {
        std::set<std::string> joints;
        for (int r = 0; r < 2 * M.cuts; ++r)
          if (!e.row_pivoted[r]) joints.insert(row_owner(r));
        fail(at(model_line_), "redundant constraints: Φ_q has rank " + std::to_string(e.rank) + " of " +
                                  std::to_string(2 * M.cuts) + " rows at the initial configuration; the rows of " +
                                  join(std::vector<std::string>(joints.begin(), joints.end()), ", ") +
                                  " depend on the others (a loop closed twice, or a joint that cannot act in this pose)");
      }
    }
    std::vector<std::string> held_names;
    for (int b : driving) held_names.push_back("joint." + joints_[tree_joint[b]].name);
    const JointIn& held = joints_[tree_joint[driving[0]]];
    if (a.singular)
      fail(at(held.line), join(held_names, ", ") + " cannot be the driving joint(s) at their initial values: with them "
                          "held, the loop-closing joints do not fix the other coordinates (Φ_d singular); mark another "
                          "joint `driving`");
    if (!a.closed) {
      std::string worst;
      double w = -1.0;
      for (int r = 0; r < 2 * M.cuts; ++r)
        if (std::fabs(a.phi[r]) > w) { w = std::fabs(a.phi[r]); worst = row_owner(r); }
      fail(at(held.line), "the mechanism does not assemble with joint." + held.name + ".initial = " + fmt(held.initial) +
                              " held: Newton from the other joints' `initial` guesses leaves |Φ| = " + fmt(a.residual) +
                              " at " + worst + " (can the loop close at this driving value? are the guesses near an assembly?)");
    }
    for (int c = 0; c < K::na; ++c) {
      const double s = K::Dae::actuator_length(M, a.x, c);
      if (!(s > 1e-9))
        fail(at(cylinders_[c].line), "cylinder." + cylinders_[c].name + " has length " + fmt(s) +
                                         " m at the initial configuration: its base and rod points coincide");
    }
  }

  // The input's parameters: one cylinder's under "input." (the names of the
  // compiled models' schedule, which a study's [input] table sets), each of
  // two cylinders' under "input.<cylinder>.".
  template <class K>
  void input_parameters(ParameterTableBuilder<typename K::Params>& t, const std::vector<int>& slot_of,
                        const StateNames& names) const {
    using Params = typename K::Params;
    using Role = ParameterInfo::Role;
    bool any_controlled = false;
    for (int a = 0; a < K::na; ++a) {
      const CylinderInputIn& in = inputs_[a];
      const bool one = K::na == 1;
      const std::string pre = one ? "input." : "input." + cylinders_[a].name + ".";
      const std::string who = one ? std::string() : " (cylinder " + cylinders_[a].name + ")";
      const bool controlled = in.mode != int(CylinderInputMode::valve);
      any_controlled |= controlled;
      const std::string unit = reference_unit(a, slot_of, names);
      const std::string what = controlled ? "reference" : "valve schedule";
      // One cylinder: the study's [input] sets the segments together; two: each knot is a parameter.
      const Role role = one ? Role::input_schedule : Role::parameter;
      t.add(pre + "gain", "-", -1e3, 1e3, false, "multiplies every value of the " + what + who,
            [a](Params& p) -> double& { return p.input.cylinder[a].schedule.gain; });
      t.add(pre + "segments", "-", 0, InputSchedule::kMaxSegments, false, "knots of the " + what + " in use" + who,
            [a](Params& p) -> int& { return p.input.cylinder[a].schedule.count; }, role);
      for (int k = 0; k < InputSchedule::kMaxSegments; ++k) {
        const std::string n = std::to_string(k + 1);
        t.add(pre + "time" + n, "s", 0, 1e6, false, (controlled ? "time of reference knot " : "start of valve schedule segment ") + n + who,
              [a, k](Params& p) -> double& { return p.input.cylinder[a].schedule.start[k]; }, role);
        t.add(pre + "value" + n, unit, -1e3, 1e3, false,
              (controlled ? "reference at knot " + n + " (change since t = 0)" : "U_ref on valve schedule segment " + n) + who,
              [a, k](Params& p) -> double& { return p.input.cylinder[a].schedule.value[k]; }, role);
      }
      if (!controlled) continue;
      const std::string per = unit == "m" ? "V/m" : "V/" + unit;
      t.add(pre + "proportional_gain", per, -1e9, 1e9, false, "K_p of the " + std::string(in.mode == 1 ? "stroke" : "joint") + " controller" + who,
            [a](Params& p) -> double& { return p.input.cylinder[a].proportional_gain; });
      t.add(pre + "integral_gain", "V/(" + unit + " s)", -1e9, 1e9, false, "K_i of the controller" + who,
            [a](Params& p) -> double& { return p.input.cylinder[a].integral_gain; });
      t.add(pre + "voltage_limit", "V", 0, 1e3, true, "limit |U_ref| <= of the controller's valve command" + who,
            [a](Params& p) -> double& { return p.input.cylinder[a].voltage_limit; });
    }
    if (any_controlled)
      t.add("input.sample_period", "s", 0, 10, true, "the controllers' sampling period T (a whole number of steps)",
            [](Params& p) -> double& { return p.input.sample_period; });
  }

  bool all_three_volume() const {
    for (const auto& c : cylinders_)
      if (c.circuit != ThreeVolumeCircuit::name) return false;
    return true;
  }
  // What each pressure column holds: the circuits' volumes on their slots
  // (kernels/hydraulics/circuit_choice.hpp: a two-volume or servo-valve
  // cylinder's volumes are the last two, its first slot unused). The
  // descriptions are shared by the cylinders; with different circuits each
  // slot says what it is in each.
  StateNames circuit_pressures(StateNames n) const {
    auto unused = [](const std::string& circuit) {
      return "unused: a " + circuit + " cylinder's first slot holds its piston side's initial pressure";
    };
    const std::vector<std::pair<std::string, std::vector<std::string>>> of = {
        {ThreeVolumeCircuit::name, three_volume_pressures(n).pressure_descriptions},
        {TwoVolumeCircuit::name, {unused(TwoVolumeCircuit::name), "volume A (DCV to piston side)", "volume B (rod side to DCV)"}},
        {ServoValveCircuit::name, {unused(ServoValveCircuit::name), "chamber a (bore side)", "chamber b (rod side)"}}};
    std::vector<const std::pair<std::string, std::vector<std::string>>*> present;
    for (const auto& circuit : of)
      for (const auto& c : cylinders_)
        if (c.circuit == circuit.first) {
          present.push_back(&circuit);
          break;
        }
    n.pressure_descriptions.assign(present.front()->second.size(), std::string());
    for (size_t k = 0; k < n.pressure_descriptions.size(); ++k)
      for (const auto* circuit : present)
        n.pressure_descriptions[k] += present.size() == 1 ? circuit->second[k]
                                      : (n.pressure_descriptions[k].empty() ? "" : "; ") + circuit->first + ": " + circuit->second[k];
    return n;
  }

  template <class Physics, class K>
  void describe(const typename K::Params& P, const std::vector<int>& order, const std::vector<int>& tree_joint,
                const std::vector<int>& slot_of) {
    using Params = typename K::Params;
    constexpr int kNq = K::nq, kNi = K::ni, kNa = K::na;
    ModelDescriptor& d = d_;
    d.name = name_;
    d.source = prefix_.empty() ? "model file " + path_ : "[machine] of study " + path_;
    d.title = title_.empty() ? "planar mechanism of " + d.source : title_;
    d.doc = "docs/model-files.md";
    d.physics = Physics::key;
    d.file_path = prefix_.empty() ? path_ : path_ + " [machine]";
    d.file_text = text_;
    // Outputs: the run columns of the padded coordinates, named after the joints.
    StateNames n;
    n.coordinate_units.assign(kNq, "-");
    n.coordinate_descriptions.assign(kNq, "padding coordinate (always 0: the mechanism has fewer coordinates than the kernel)");
    for (size_t k = 0; k < order.size(); ++k) {
      const int b = order[k];
      const JointIn& j = joints_[tree_joint[b]];
      const int slot = slot_of[b];
      n.coordinate_units[slot] = j.type == "prismatic" ? "m" : "rad";
      n.coordinate_descriptions[slot] = std::string(j.type == "prismatic" ? "slide" : "angle") + " of joint " + j.name +
                                        " (body " + bodies_[b].name + " relative to " + points_[j.parent_point].owner + ")" +
                                        (slot < kNi ? ", driving" : "");
    }
    n.driving_coordinate = K::Dae::driving_coordinate();
    n = circuit_pressures(n);

    ParameterTableBuilder<Params> t(P);
    t.add("gravity_x", "m/s^2", -1e3, 1e3, false, "gravity, x component", [](Params& p) -> double& { return p.mechanism.gravity_x; });
    t.add("gravity_y", "m/s^2", -1e3, 1e3, false, "gravity, y component", [](Params& p) -> double& { return p.mechanism.gravity_y; });
    for (size_t i = 0; i < points_.size(); ++i) {
      const auto& pt = points_[i];
      const std::string stem = (pt.owner == "ground" ? std::string("ground.") : "body." + pt.owner + ".") + pt.name;
      const std::string frame = pt.owner == "ground" ? "in the ground frame" : "in the frame of body " + pt.owner;
      t.add(stem + "_x", "m", -kInf, kInf, false, "point " + pt.name + " " + frame + ", x",
            [i](Params& p) -> double& { return p.mechanism.point[i].x; });
      t.add(stem + "_y", "m", -kInf, kInf, false, "point " + pt.name + " " + frame + ", y",
            [i](Params& p) -> double& { return p.mechanism.point[i].y; });
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const BodyIn& b = bodies_[order[k]];
      const std::string pre = "body." + b.name + ".";
      t.add(pre + "mass", "kg", 0, 1e9, true, "mass of body " + b.name, [k](Params& p) -> double& { return p.mechanism.body[k].mass; });
      t.add(pre + "inertia", "kg m^2", 0, 1e12, true, "moment of inertia of body " + b.name + " about its centre of mass",
            [k](Params& p) -> double& { return p.mechanism.body[k].inertia; });
      t.add(pre + "com_x", "m", -kInf, kInf, false, "centre of mass of body " + b.name + " in its frame, x",
            [k](Params& p) -> double& { return p.mechanism.body[k].com_x; });
      t.add(pre + "com_y", "m", -kInf, kInf, false, "centre of mass of body " + b.name + " in its frame, y",
            [k](Params& p) -> double& { return p.mechanism.body[k].com_y; });
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const JointIn& j = joints_[tree_joint[order[k]]];
      const std::string pre = "joint." + j.name + ".";
      const bool prismatic = j.type == "prismatic";
      const bool held = slot_of[order[k]] < kNi;
      const std::string what = std::string(prismatic ? "initial slide" : "initial angle") + " of joint " + j.name +
                               (held ? " (driving: held at assembly)" : " (a guess: selects the assembly mode)");
      if (prismatic)
        t.add(pre + "initial", "m", -kInf, kInf, false, what, [k](Params& p) -> double& { return p.mechanism.body[k].initial; });
      else
        t.add(pre + "initial", "rad", -10, 10, false, what, [k](Params& p) -> double& { return p.mechanism.body[k].initial; });
      if (prismatic) {
        t.add(pre + "axis", "rad", -10, 10, false, "slide direction of joint " + j.name + " in the parent's frame",
              [k](Params& p) -> double& { return p.mechanism.body[k].slide_angle; });
        t.add(pre + "orientation", "rad", -10, 10, false, "angle of body " + bodies_[order[k]].name + " relative to its parent",
              [k](Params& p) -> double& { return p.mechanism.body[k].orientation; });
      }
    }
    int cut = 0;
    for (const auto& j : joints_) {
      if (!j.cut) continue;
      const int c = cut++;
      if (j.type != "prismatic") continue;
      const std::string pre = "joint." + j.name + ".";
      t.add(pre + "axis", "rad", -10, 10, false, "slot direction of joint " + j.name + " in the frame of its second body",
            [c](Params& p) -> double& { return p.mechanism.cut[c].axis_angle; });
      t.add(pre + "angle", "rad", -10, 10, false, "angle of the first body relative to the second at joint " + j.name,
            [c](Params& p) -> double& { return p.mechanism.cut[c].relative_angle; });
    }
    for (int c = 0; c < kNa; ++c) {
      const std::string cpre = "cylinder." + cylinders_[c].name + ".";
      actuator_parameters(t, c, cpre, cpre + "friction.", " (cylinder " + cylinders_[c].name + ")",
                          static_cast<int>(P.actuator[c].circuit.circuit_code));
    }
    input_parameters<K>(t, slot_of, n);
    t.fill(d);
    for (int c = 0; c < kNa; ++c) {
      const CylinderIn& cyl = cylinders_[c];
      const std::string cpre = "cylinder." + cyl.name + ".";
      // The cylinder's settings in the file override the component defaults.
      for (const auto& [key, node] : cyl.settings) {
        const std::string name = cpre + key;
        const ParameterInfo* p = d.find_parameter(name);
        if (!p) {
          std::vector<std::string> keys;
          for (const auto& q : d.parameters)
            if (q.name.compare(0, cpre.size(), cpre) == 0) keys.push_back(q.name.substr(cpre.size()));
          const std::string hint = closest(key, keys, false);
          fail(at(*node), "unknown key '" + name + "'; a cylinder takes name, base, rod, circuit and its parameters " +
                              join(keys, ", ") + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
        }
        const double v = number(*node, name);
        if (!p->admits(v)) fail(at(*node), name + " = " + fmt(v) + " is out of range " + p->range_text() + " " + p->unit);
        d.defaults[p->index] = v;
      }
      // The circuit's orderings (a < b); the servo valve's piston start is
      // checked per instance at its assembly (instance_check below).
      const bool servo = cyl.circuit == ServoValveCircuit::name;
      d.rules.push_back({cpre + "rod_diameter", cpre + "piston_diameter", "the rod must be thinner than the piston"});
      if (servo) {
        d.rules.push_back({cpre + "return_pressure", cpre + "supply_pressure", "the pump must deliver more than return-line pressure"});
      } else {
        d.rules.push_back({cpre + "piston_chamber_length0", cpre + "cylinder_length", "the piston must start inside the cylinder"});
        d.rules.push_back({cpre + "tank_pressure", cpre + "supply_pressure", "the pump must deliver more than tank pressure"});
      }
    }
    // Ranges of the file's own values (mass, inertia, joint angles, gains).
    for (const auto& p : d.parameters)
      if (!p.admits(d.defaults[p.index]))
        fail(at(line_of(p.name)), p.name + " = " + fmt(d.defaults[p.index]) + " is out of range " + p.range_text() + " " + p.unit);
    for (const auto& rule : d.rules) {
      const double a = d.defaults[d.find_parameter(rule.a)->index], b = d.defaults[d.find_parameter(rule.b)->index];
      if (!(a < b)) fail(at(line_of(rule.a)), rule.a + " = " + fmt(a) + " must be < " + rule.b + " = " + fmt(b) + ": " + rule.why);
    }
    using Input = CylinderInputs<kNa>;
    d.summary_columns = run_columns::summary_columns<kNq, 3 * kNa, kNa, InputReport<Input>>(n);
    d.trajectory_channels = run_columns::trajectory_channels<kNq, 3 * kNa, kNa, InputProbe<Input>>(n);
    // The controllers' columns in their references' units.
    for (int c = 0; c < kNa; ++c) {
      const std::string unit = reference_unit(c, slot_of, n);
      for (auto* list : {&d.summary_columns, &d.trajectory_channels})
        for (auto& col : *list)
          for (const char* stem : {"control_error_rms", "control_error_peak", "control_reference", "control_error"})
            if (col.name == run_columns::column_name(stem, -1, kNa > 1 ? c : -1)) col.unit = unit;
    }
    d.driving_coordinate = run_columns::column_name("q", n.driving_coordinate);
    describe_outputs<K>(d);
    d.commands = {"run", "stability"};
    if (!complete_from_catalog(d)) fail(at(model_line_), "this build has no kernel for model files");
    // The index-1 form integrates the first-order spool of the three-volume
    // circuit (seed 000 eq 4): a file with another circuit runs with the
    // double step and the penalty formulation. Its stability map leaves the
    // states its cylinders do not use out (an ideal spool, a circuit's unused
    // first slot: kernels/linearize/reduced_jacobian.hpp live_states), so its
    // points have that many eigenvalues fewer.
    if (!all_three_volume()) {
      d.drop_formulation("index1-baumgarte");
      int live[ReducedSize<ActuatedSystem<typename K::Dae, NoFriction>>::value];
      d.stability_eigenvalues = live_states<ActuatedSystem<typename K::Dae, NoFriction>>(P, live);
    }
    // Each instance must assemble as the file's values do (a sampled or swept
    // geometry may not close), and a controller must sample on the step grid:
    // checked per row by the study and the runner.
    std::vector<std::string> schedule_keys;
    for (int c = 0; c < kNa; ++c) schedule_keys.push_back(kNa == 1 ? "input.time" : "input." + cylinders_[c].name + ".time");
    std::vector<std::string> cylinder_names;
    for (const auto& c : cylinders_) cylinder_names.push_back(c.name);
    // What a row's values allow whatever the integrator's grid: it assembles,
    // every cylinder has a length and a servo-valve piston starts inside, the
    // schedules' times increase.
    auto row_params = [](const ModelDescriptor& model, const double* row) {
      Params base;
      std::memcpy(&base, model.params_bytes.data(), sizeof base);
      return unpack_row(model.parameters, row, base);
    };
    auto row_problem = [held = "joint." + joints_[tree_joint[order[0]]].name + ".initial", schedule_keys, cylinder_names](
                           const Params& p) -> ModelDescriptor::Problem {
      const Assembly<typename K::Capacity> a = assemble(p.mechanism);
      if (!a.closed)
        return {held, "the mechanism does not assemble at this instance (|Φ| = " + fmt(a.residual) +
                          " after Newton from the joints' initial guesses)"};
      for (int c = 0; c < kNa; ++c) {
        const double s = K::Dae::actuator_length(p.mechanism, a.x, c);
        if (!(s > 1e-9)) return {held, "cylinder " + std::to_string(c + 1) + " has length " + fmt(s) + " m at this instance's assembly"};
        const ModelDescriptor::Problem piston = servo_piston_problem<K>(p, s, c, cylinder_names[c]);
        if (!piston.key.empty()) return piston;
        const InputSchedule& S = p.input.cylinder[c].schedule;
        for (int k = 1; k < S.count; ++k)
          if (!(S.start[k] > S.start[k - 1]))
            return {schedule_keys[c] + std::to_string(k + 1), "the input's times must increase (" + fmt(S.start[k - 1]) +
                                                                  " then " + fmt(S.start[k]) + ")"};
      }
      return {};
    };
    // And what the grid allows: a controller samples on it, more than once.
    d.instance_check = [row_params, row_problem](const ModelDescriptor& model, const double* row, double dt,
                                                 double duration) -> ModelDescriptor::Problem {
      const Params p = row_params(model, row);
      const ModelDescriptor::Problem problem = row_problem(p);
      if (!problem.key.empty()) return problem;
      if (Input::any_controlled(p.input)) {
        const double T = p.input.sample_period, m = T / dt;
        if (!(std::fabs(m - std::round(m)) <= 1e-9 * m && m >= 1.0 - 1e-9))
          return {"input.sample_period", "= " + fmt(T) + " s is not a whole number of integrator steps (dt = " + fmt(dt) +
                                             " s): the controller samples on the step grid"};
        if (!(T < duration))
          return {"input.sample_period", "= " + fmt(T) + " s is not shorter than the run (" + fmt(duration) +
                                             " s): the controller would sample once and hold"};
      }
      return {};
    };
    // The file's own values pass the same row check (its assembly, lengths and
    // times were refused above with their own messages: what is left to find
    // here is a servo-valve piston outside its cylinder).
    const ModelDescriptor::Problem own = row_problem(row_params(d, d.defaults.data()));
    if (!own.key.empty()) fail(at(line_of(own.key)), own.key + " " + own.why);
  }
  // A servo-valve cylinder's stroke follows from the assembly: its piston
  // must start strictly inside, 0 < s − closed_length < stroke, the kernel's
  // own admissibility test (kernels/hydraulics/servo_valve_circuit.hpp) at
  // length s of cylinder c. No problem (an empty key) for the other circuits,
  // whose piston start is a parameter of its own (a rule).
  template <class K>
  static ModelDescriptor::Problem servo_piston_problem(const typename K::Params& p, double s, int c, const std::string& name) {
    using Choice = typename K::Dae::Circuit;
    constexpr int servo_code = Choice::template code_of<ServoValveCircuit>;
    const auto& circuit = p.actuator[c].circuit;
    if (static_cast<int>(circuit.circuit_code) != servo_code) return {};
    if (Choice::stroke_admissible(circuit, Choice::constants(circuit, s), 0.0)) return {};
    const auto& servo = circuit_choice_detail::member<servo_code>(circuit.member);
    return {"cylinder." + name + ".closed_length",
            "= " + fmt(servo.closed_length) + " m puts the piston of cylinder " + name +
                " outside its cylinder at the assembly: stroke = length " + fmt(s) + " m - closed_length = " +
                fmt(s - servo.closed_length) + " m, not inside (0, " + fmt(servo.stroke) + ") m"};
  }

  // The named points: x and y in the world of each, derived on the host with
  // the kernel's own kinematics (PlanarMultibodyDae::place and world_point)
  // from each trajectory sample's joint coordinates (channels) and from the
  // summary's final ones (the position at the run's end, summary columns).
  template <class K>
  void describe_outputs(ModelDescriptor& d) const {
    using Params = typename K::Params;
    if (output_points_.empty()) return;
    for (int p : output_points_) {
      const std::string stem = points_[p].owner + "_" + points_[p].name;
      for (const char* axis : {"x", "y"}) {
        const std::string what = std::string("world ") + axis + " of point " + points_[p].name + " of body " +
                                 points_[p].owner;
        OutputInfo c;
        c.name = stem + "_" + axis;
        c.unit = "m";
        c.description = what + " (derived on the host from the sample's joint coordinates)";
        d.derived_channels.push_back(c);
        c.description = what + " at the run's end t_end (derived on the host from the final joint coordinates)";
        d.summary_columns.push_back(c);
      }
    }
    d.derived_summary_count = 2 * static_cast<int>(output_points_.size());
    auto first_coordinate = [&](const std::vector<OutputInfo>& columns) {
      for (size_t c = 0; c < columns.size(); ++c)
        if (columns[c].name == "q1") return static_cast<long>(c);
      fail(at(model_line_), "internal: no q1 column");
    };
    // The points at coordinates q (NaN if any is: a sample or a run that never recorded them).
    auto place_points = [points = output_points_](const Params& P, const double* q, double* o) {
      bool finite = true;
      for (int j = 0; j < K::nq; ++j) finite = finite && std::isfinite(q[j]);
      if (!finite) {
        for (size_t j = 0; j < 2 * points.size(); ++j) o[j] = std::numeric_limits<double>::quiet_NaN();
        return;
      }
      const auto placements = K::Dae::place(P.mechanism, q);
      for (size_t c = 0; c < points.size(); ++c) {
        const V2<double> w = K::Dae::world_point(P.mechanism, placements, points[c]);
        o[2 * c] = w.x;
        o[2 * c + 1] = w.y;
      }
    };
    auto params_of = [](const ModelDescriptor& model, const double* row) {
      Params base;
      std::memcpy(&base, model.params_bytes.data(), sizeof base);
      return unpack_row(model.parameters, row, base);
    };
    const long q_sample = first_coordinate(d.trajectory_channels);
    d.derive_samples = [q_sample, place_points, params_of, D = d.derived_summary_count](
                           const ModelDescriptor& model, const double* row, const double* samples, long m, long width,
                           double* out) {
      const Params P = params_of(model, row);
      for (long k = 0; k < m; ++k) place_points(P, samples + k * width + q_sample, out + k * D);
    };
    const long q_final = first_coordinate(d.summary_columns);
    d.derive_summary = [q_final, place_points, params_of](const ModelDescriptor& model, const double* row,
                                                          const double* summary, double* out) {
      place_points(params_of(model, row), summary + q_final, out);
    };
  }
  // The unit of cylinder c's reference: V for a valve schedule, m for a
  // stroke, the joint's for a joint controller.
  std::string reference_unit(int c, const std::vector<int>& slot_of, const StateNames& n) const {
    const CylinderInputIn& in = inputs_[c];
    if (in.mode == int(CylinderInputMode::valve)) return "V";
    if (in.mode == int(CylinderInputMode::stroke)) return "m";
    return n.coordinate_units[slot_of[joints_[in.joint].child]];
  }
  // The line of the element a parameter comes from (for range messages).
  int line_of(const std::string& name) const {
    const auto dot = name.find('.');
    const auto dot2 = name.find('.', dot + 1);
    const std::string kind = name.substr(0, dot), element = dot2 == std::string::npos ? "" : name.substr(dot + 1, dot2 - dot - 1);
    if (kind == "body")
      for (const auto& b : bodies_)
        if (b.name == element) return b.line;
    if (kind == "joint")
      for (const auto& j : joints_)
        if (j.name == element) return j.line;
    if (kind == "cylinder")
      for (const auto& c : cylinders_)
        if (c.name == element) return c.line;
    if (name == "input.sample_period" && sample_period_line_) return sample_period_line_;
    if (kind == "input")
      for (size_t c = 0; c < cylinders_.size() && c < inputs_.size(); ++c)
        if ((cylinders_.size() == 1 || cylinders_[c].name == element) && inputs_[c].line) return inputs_[c].line;
    return model_line_;
  }
};

}  // namespace

std::shared_ptr<const ModelDescriptor> parse_model_file(const std::string& text, const std::string& path) {
  return Reader(path, text).read();
}

std::shared_ptr<const ModelDescriptor> parse_embedded_model(const std::string& study_text, const std::string& study_path) {
  toml::table root;
  try {
    root = toml::parse(study_text, study_path);
  } catch (const toml::parse_error& e) {
    throw ModelFileError(study_path + ": TOML syntax error: " + std::string(e.description()));  // the study parser said where
  }
  const toml::table* machine = root["machine"].as_table();
  if (!machine) throw ModelFileError(study_path + ": the study has no [machine] table");
  std::ostringstream text;
  text << *machine;
  Reader reader(study_path, text.str());
  return reader.read(*machine, "machine.", "[machine]");
}

std::shared_ptr<const ModelDescriptor> load_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelFileError(path + ": cannot read the model file (" + std::string(std::strerror(errno)) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_file(text.str(), path);
}

}  // namespace hs
