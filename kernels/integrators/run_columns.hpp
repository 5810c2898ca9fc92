// The flat rows of doubles a run leaves per instance (summary columns) and
// per recorded sample (trajectory channels), for every model: the host
// writes columns by name from these rows and never sees RunSummary or
// Sample (docs/models/README.md §5.4).
//
// Names, units and values come from one visitor per row (visit_summary,
// visit_sample), so the list of columns and the values in a row cannot
// drift apart. Host-only (strings); the kernels fill RunSummary/Sample.
//
// Per-actuator columns (U, s, sdot, piston_force, friction_force and the
// pressures with their extrema) carry the names of the one-actuator models
// ("s", "p1", "p1_min") when the model has one actuator; with na > 1 the
// actuator's number follows as a suffix "_<a+1>": "s_1", "s_2", "p1_2",
// "p1_min_2" (pressure k of actuator a is "p<k+1>_<a+1>", its extrema
// "p<k+1>_min_<a+1>", "p<k+1>_max_<a+1>"; docs/models/integrators.md §11.4).
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "../models/descriptor.hpp"
#include "run.hpp"

namespace hs {

// How a model names its generalized coordinates and hydraulic states:
// coordinate k is column "q<k+1>" (and "qd<k+1>"), state k is "p<k+1>".
// pressure_descriptions describes one actuator's pressures (np/na entries;
// with na > 1 every actuator's columns share them).
struct StateNames {
  std::vector<std::string> coordinate_units;         // nq entries: "rad", "m"
  std::vector<std::string> coordinate_descriptions;  // nq entries: "relative joint angle 1", ...
  std::vector<std::string> pressure_descriptions;    // np entries: "volume 1 (DCV -> throttle)"
  int driving_coordinate = 0;                        // the integrator's driving_coordinate(): settling, tracking
};

namespace run_columns {

// What an indexed column is of: run_columns::Of, kernels/models/input_policy.hpp.

// v(stem, index (-1: none), actuator (-1: none), of, unit, description,
// integer, value). A pressure column's index counts the actuator's own
// pressures (0 .. np/na − 1); its actuator is given when na > 1. The unit
// and description of an indexed column are completed from StateNames by the
// naming visitor only: flattening a row allocates nothing. With s == nullptr
// only the names matter (value 0).
template <int nq, int np, int na = 1, class Report = NoInputReport, class Visit>
void visit_summary(const RunSummary<nq, np, na, Report>* s, Visit&& v) {
  constexpr int npa = np / na;
  auto act = [](int a) { return na > 1 ? a : -1; };
  auto at = [&](auto f) { return s ? double(f(*s)) : 0.0; };
  v("t_end", -1, -1, Of::none, "s", "time reached (the failure time if status != ok)", false, at([](auto& x) { return x.t_end; }));
  v("steps", -1, -1, Of::none, "-", "steps completed", true, at([](auto& x) { return x.steps; }));
  for (int k = 0; k < nq; ++k) v("q", k, -1, Of::coordinate, "", "final ", false, at([k](auto& x) { return x.q[k]; }));
  for (int k = 0; k < nq; ++k) v("qd", k, -1, Of::coordinate_rate, "", "final rate of ", false, at([k](auto& x) { return x.qd[k]; }));
  for (int k = 0; k < np; ++k) v("p", k % npa, act(k / npa), Of::pressure, "Pa", "final pressure of ", false, at([k](auto& x) { return x.p[k]; }));
  for (int k = 0; k < np; ++k) {
    v("p_min", k % npa, act(k / npa), Of::pressure, "Pa", "minimum pressure of ", false, at([k](auto& x) { return x.p_min[k]; }));
    v("p_max", k % npa, act(k / npa), Of::pressure, "Pa", "maximum pressure of ", false, at([k](auto& x) { return x.p_max[k]; }));
  }
  for (int a = 0; a < na; ++a)
    v("U", -1, act(a), Of::none, "V", "final spool opening", false, at([a](auto& x) { return x.U[a]; }));
  for (int a = 0; a < na; ++a)
    v("s", -1, act(a), Of::none, "m", "final actuator length", false, at([a](auto& x) { return x.s[a]; }));
  v("cylinder_work", -1, -1, Of::none, "J", "work of the cylinder pressures on the mechanism", false,
    at([](auto& x) { return x.cylinder_work; }));
  v("friction_work", -1, -1, Of::none, "J", "work of the seal friction (negative: dissipated)", false,
    at([](auto& x) { return x.friction_work; }));
  v("max_cylinder_work", -1, -1, Of::none, "J", "max_t |cylinder work|", false, at([](auto& x) { return x.max_cylinder_work; }));
  v("peak_energy_drift", -1, -1, Of::none, "J", "max_t |T + V - E0 - W_cyl - W_fr|", false,
    at([](auto& x) { return x.peak_energy_drift; }));
  v("final_energy_drift", -1, -1, Of::none, "J", "T + V - E0 - W_cyl - W_fr at t_end", false,
    at([](auto& x) { return x.final_energy_drift; }));
  v("newton_iterations", -1, -1, Of::none, "-", "Newton iterations over all steps", true,
    at([](auto& x) { return x.newton_iterations; }));
  v("max_newton_iterations", -1, -1, Of::none, "-", "most Newton iterations in one step", true,
    at([](auto& x) { return x.max_newton_iterations; }));
  v("mean_newton_iterations", -1, -1, Of::none, "-", "newton_iterations / steps (NaN without steps)", false, at([](auto& x) {
      return x.steps > 0 ? double(x.newton_iterations) / double(x.steps) : std::numeric_limits<double>::quiet_NaN();
    }));
  v("max_constraint_violation", -1, -1, Of::none, "m", "max_t |constraint residual|", false,
    at([](auto& x) { return x.max_constraint_violation; }));
  v("settling_time", -1, -1, Of::none, "s",
    "from the last U_ref switch until the driving coordinate's rate stays below the settling rate (NaN: still moving "
    "at the end)",
    false, at([](auto& x) { return x.settling_time; }));
  v("tracking_rms", -1, -1, Of::driving_coordinate, "",
    "RMS of the driving coordinate minus the nominal instance's over the steps (NaN without a reference run)", false,
    at([](auto& x) { return x.tracking_rms; }));
  // The input policy's report (a controller's tracking errors, ...), if any.
  Report::visit(s ? s->input_record() : nullptr, v);
}

template <int nq, int np, int na = 1, class Probe = NoInputReport, class Visit>
void visit_sample(const Sample<nq, np, na, Probe>* s, Visit&& v) {
  constexpr int npa = np / na;
  auto act = [](int a) { return na > 1 ? a : -1; };
  auto at = [&](auto f) { return s ? double(f(*s)) : 0.0; };
  v("t", -1, -1, Of::none, "s", "time", false, at([](auto& x) { return x.t; }));
  for (int k = 0; k < nq; ++k) v("q", k, -1, Of::coordinate, "", "", false, at([k](auto& x) { return x.q[k]; }));
  for (int k = 0; k < np; ++k) v("p", k % npa, act(k / npa), Of::pressure, "Pa", "pressure of ", false, at([k](auto& x) { return x.p[k]; }));
  for (int a = 0; a < na; ++a) {
    v("U", -1, act(a), Of::none, "V", "spool opening", false, at([a](auto& x) { return x.U[a]; }));
    v("s", -1, act(a), Of::none, "m", "actuator length", false, at([a](auto& x) { return x.s[a]; }));
    v("sdot", -1, act(a), Of::none, "m/s", "actuator rate", false, at([a](auto& x) { return x.sdot[a]; }));
    v("piston_force", -1, act(a), Of::none, "N", "A2 p2 - A3 p3", false, at([a](auto& x) { return x.piston_force[a]; }));
    v("friction_force", -1, act(a), Of::none, "N", "seal friction force", false, at([a](auto& x) { return x.friction_force[a]; }));
  }
  v("energy_drift", -1, -1, Of::none, "J", "T + V - E0 - W_cyl - W_fr", false, at([](auto& x) { return x.energy_drift; }));
  v("newton_iterations", -1, -1, Of::none, "", "Newton iterations of the step that reached the sample (0 at t = 0)", false,
    at([](auto& x) { return x.newton_iterations; }));
  v("constraint_violation", -1, -1, Of::none, "m", "constraint violation |Phi| after that step (0 at t = 0)", false,
    at([](auto& x) { return x.constraint_violation; }));
  Probe::visit(s ? s->input_record() : nullptr, v);
}

// index: the number after the stem (−1: none); actuator: the "_<a+1>" suffix (−1: none).
inline std::string column_name(const char* stem, int index, int actuator = -1) {
  const std::string s(stem);
  const std::string suffix = actuator < 0 ? std::string() : "_" + std::to_string(actuator + 1);
  if (index < 0) return s + suffix;
  // "p_min", 0 → "p1_min": the index goes before a suffix, as the outputs always named them.
  const auto u = s.find('_');
  if (u != std::string::npos) return s.substr(0, u) + std::to_string(index + 1) + s.substr(u) + suffix;
  return s + std::to_string(index + 1) + suffix;
}

// The naming visitor: a column's name, unit and description.
struct Namer {
  const StateNames& n;
  std::vector<OutputInfo>& out;
  void operator()(const char* stem, int k, int actuator, Of of, const char* unit, const char* what, bool integer,
                  double) const {
    OutputInfo c;
    c.name = column_name(stem, k, actuator);
    c.integer = integer;
    c.unit = unit;
    c.description = what;
    switch (of) {
      case Of::none: break;
      case Of::coordinate: c.unit = n.coordinate_units[k]; c.description += n.coordinate_descriptions[k]; break;
      case Of::coordinate_rate:
        c.unit = n.coordinate_units[k] == "-" ? "1/s" : n.coordinate_units[k] + "/s";
        c.description += n.coordinate_descriptions[k];
        break;
      case Of::pressure: c.description += n.pressure_descriptions[k]; break;
      case Of::driving_coordinate: c.unit = n.coordinate_units[n.driving_coordinate]; break;
    }
    if (actuator >= 0) c.description += " (actuator " + std::to_string(actuator + 1) + ")";
    out.push_back(std::move(c));
  }
};

// StateNames::pressure_descriptions has np/na entries (one actuator's).
// Report, Probe: the input policy's (InputReport<Input>, InputProbe<Input>).
template <int nq, int np, int na = 1, class Report = NoInputReport>
std::vector<OutputInfo> summary_columns(const StateNames& n) {
  std::vector<OutputInfo> out;
  visit_summary<nq, np, na, Report>(nullptr, Namer{n, out});
  return out;
}
template <int nq, int np, int na = 1, class Probe = NoInputReport>
std::vector<OutputInfo> trajectory_channels(const StateNames& n) {
  std::vector<OutputInfo> out;
  visit_sample<nq, np, na, Probe>(nullptr, Namer{n, out});
  return out;
}

// The summary and a sample as rows of doubles, in the order of the lists above.
template <int nq, int np, int na, class Report>
void flatten(const RunSummary<nq, np, na, Report>& s, double* row) {
  int c = 0;
  visit_summary<nq, np, na, Report>(&s, [&](const char*, int, int, Of, const char*, const char*, bool, double value) { row[c++] = value; });
}
template <int nq, int np, int na, class Probe>
void flatten(const Sample<nq, np, na, Probe>& s, double* row) {
  int c = 0;
  visit_sample<nq, np, na, Probe>(&s, [&](const char*, int, int, Of, const char*, const char*, bool, double value) { row[c++] = value; });
}
template <int nq, int np, int na = 1, class Report = NoInputReport>
constexpr int summary_width() { return 2 + 2 * nq + 3 * np + 2 * na + 11 + Report::width; }
template <int nq, int np, int na = 1, class Probe = NoInputReport>
constexpr int sample_width() { return 1 + nq + np + 5 * na + 3 + Probe::width; }

}  // namespace run_columns
}  // namespace hs
