// What seed 004's Lift + Tilt manipulator under virtual decomposition
// control says about itself (kernels/models/descriptor.hpp): name, parameter
// table, outputs, what it supports, and its entry in the physics catalog.
// Host-only; the physics is kernels/models/lift_tilt.hpp, the circuit
// kernels/hydraulics/servo_valve_circuit.hpp, the controller
// kernels/control/vdc.hpp (docs/models/manipulator.md).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "../control/vdc.hpp"
#include "../friction/friction_laws.hpp"
#include "../hydraulics/servo_valve_circuit.hpp"
#include "../integrators/formulations.hpp"
#include "../integrators/run_columns.hpp"
#include "../linearize/sampled_loop.hpp"
#include "actuated_parameters.hpp"
#include "dae_mechanism.hpp"
#include "descriptor.hpp"
#include "hydraulically_actuated.hpp"
#include "lift_tilt.hpp"

namespace hs {

// The model the integrators run: the DAE mechanism, two seed-004 cylinders,
// the VDC controller.
template <class Friction>
using LiftTiltModel = ActuatedModel<DaeMechanism<LiftTiltDae>, HydraulicCylinder<ServoValveCircuit, Friction>, 2,
                                    VdcController>;
using LiftTiltModelParams = typename LiftTiltModel<NoFriction>::Params;

// The default instance (docs/models/manipulator.md §11.2): the [R] crane, the
// lift valve NG6 (40 L/min), the tilt valve NG10 (100 L/min) at 35 bar per
// notch [S], dead volumes 3 and 4 L [R], friction 4000 tanh(v/5 mm/s) +
// 15000 v per cylinder [A] (Brown–McPhee with F_s = F_c: monotone, as the
// controller's stability proof requires), the [R] gains, the [R] waypoints
// A-B-C-D, 2 s quintic segments, two loops [S].
inline LiftTiltModelParams seed004_lift_tilt() {
  LiftTiltModelParams P;
  P.mechanism = seed004_lift_tilt_mechanism();
  for (int a = 0; a < 2; ++a) {
    ServoValveCircuitParams& c = P.actuator[a].circuit;
    c = ServoValveCircuitParams{};
    FrictionParams& f = P.actuator[a].friction;
    f = FrictionParams{};
    f.coulomb_force = f.static_force = 4000.0;
    f.stribeck_velocity = 0.02;  // tanh(4v/v_s) = tanh(v/5 mm/s)
    f.viscous_coefficient = 15000.0;
  }
  ServoValveCircuitParams& tilt = P.actuator[1].circuit;
  tilt.dead_volume_a = tilt.dead_volume_b = 4e-3;
  tilt.valve_coefficient_pa = tilt.valve_coefficient_at = tilt.valve_coefficient_pb = tilt.valve_coefficient_bt = 8.9087e-8;
  tilt.rod_side_initial_pressure = 35e5;
  P.input = VdcParams{};
  return P;
}

inline void lift_tilt_parameter_table(ParameterTableBuilder<LiftTiltModelParams>& t) {
  using Params = LiftTiltModelParams;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  actuator_and_input_parameters(t);
  auto body = [&](const std::string& pre, const std::string& what, auto get) {
    t.add(pre + "mass", "kg", 0, 1e9, false, "mass of the " + what, [get](Params& p) -> double& { return get(p).mass; });
    t.add(pre + "com_x", "m", -kInf, kInf, false, "centre of mass of the " + what + " in its frame, x",
          [get](Params& p) -> double& { return get(p).com_x; });
    t.add(pre + "com_y", "m", -kInf, kInf, false, "centre of mass of the " + what + " in its frame, y",
          [get](Params& p) -> double& { return get(p).com_y; });
    t.add(pre + "inertia", "kg m^2", 0, 1e12, false, "moment of inertia of the " + what + " about its centre of mass",
          [get](Params& p) -> double& { return get(p).inertia; });
  };
  const char* seg_name[2] = {"lift", "tilt"};
  for (int j = 0; j < 2; ++j) {
    const std::string pre = std::string("mechanism.") + seg_name[j] + ".";
    const std::string w = std::string(" of the ") + seg_name[j] + " segment";
    t.add(pre + "base_link", "m", 0, 100, true, "L_j: cylinder pivot to main joint" + w,
          [j](Params& p) -> double& { return p.mechanism.segment[j].base_link; });
    t.add(pre + "rod_link", "m", 0, 100, true, "L_j1: main joint to rod pivot" + w,
          [j](Params& p) -> double& { return p.mechanism.segment[j].rod_link; });
    t.add(pre + "zero_length", "m", 0, 100, true, "x_j0: pin-to-pin length at zero stroke" + w,
          [j](Params& p) -> double& { return p.mechanism.segment[j].zero_length; });
    t.add(pre + "rod_length", "m", 0, 100, true, "l_cj: piston end to rod pivot" + w,
          [j](Params& p) -> double& { return p.mechanism.segment[j].rod_length; });
    body(pre + "link.", std::string(j == 0 ? "lift boom (to the lift rod pivot)" : "tilt boom"),
         [j](Params& p) -> PlanarBody& { return p.mechanism.segment[j].link; });
    body(pre + "cylinder.", std::string(seg_name[j]) + " cylinder case",
         [j](Params& p) -> PlanarBody& { return p.mechanism.segment[j].cylinder; });
    body(pre + "piston.", std::string(seg_name[j]) + " piston and rod",
         [j](Params& p) -> PlanarBody& { return p.mechanism.segment[j].piston; });
    t.add("mechanism.initial_angle" + std::to_string(j + 1), "rad", -kPi, kPi, false,
          std::string("initial main joint angle q") + std::to_string(j + 1) + " (held at assembly)",
          [j](Params& p) -> double& { return p.mechanism.initial_angle[j]; });
  }
  body("mechanism.lift_boom_tip.", "lift boom from the lift rod pivot to the tilt joint (frame Bc2)",
       [](Params& p) -> PlanarBody& { return p.mechanism.lift_boom_tip; });
  auto scalar = [&](const std::string& name, const char* unit, double lo, double hi, bool open, const std::string& what,
                    double LiftTiltParams::*m) {
    t.add(name, unit, lo, hi, open, what, [m](Params& p) -> double& { return p.mechanism.*m; });
  };
  scalar("mechanism.base_x", "m", -kInf, kInf, false, "lift cylinder pivot (frame Bc1) in the world, x", &LiftTiltParams::base_x);
  scalar("mechanism.base_y", "m", -kInf, kInf, false, "lift cylinder pivot in the world, y", &LiftTiltParams::base_y);
  scalar("mechanism.base_angle", "rad", -10, 10, false, "orientation alpha1 of frame Bc1", &LiftTiltParams::base_angle);
  scalar("mechanism.joint2_offset_x", "m", -kInf, kInf, false, "frame Bc2 in frame Tc1 (the lift rod pivot), x",
         &LiftTiltParams::joint2_offset_x);
  scalar("mechanism.joint2_offset_y", "m", -kInf, kInf, false, "frame Bc2 in frame Tc1, y", &LiftTiltParams::joint2_offset_y);
  scalar("mechanism.joint2_angle", "rad", -10, 10, false, "orientation alpha2 of Bc2 in Tc1", &LiftTiltParams::joint2_angle);
  scalar("mechanism.tcp_x", "m", -kInf, kInf, false, "tool centre point in the tilt boom's frame B12, x", &LiftTiltParams::tcp_x);
  scalar("mechanism.tcp_y", "m", -kInf, kInf, false, "tool centre point in B12, y", &LiftTiltParams::tcp_y);
  scalar("payload.mass", "kg", 0, 1e6, false, "payload (point mass at payload.x, payload.y in B12)", &LiftTiltParams::payload_mass);
  scalar("payload.x", "m", -kInf, kInf, false, "payload position in B12, x", &LiftTiltParams::payload_x);
  scalar("payload.y", "m", -kInf, kInf, false, "payload position in B12, y", &LiftTiltParams::payload_y);
  scalar("payload.inertia", "kg m^2", 0, 1e9, false, "payload moment of inertia about its centre", &LiftTiltParams::payload_inertia);
  scalar("mechanism.gravity_x", "m/s^2", -1e3, 1e3, false, "gravity, x component", &LiftTiltParams::gravity_x);
  scalar("mechanism.gravity_y", "m/s^2", -1e3, 1e3, false, "gravity, y component (world y up)", &LiftTiltParams::gravity_y);

  // The controller (docs/models/manipulator.md §5, §11.4).
  auto ctl = [&](const std::string& name, const char* unit, double lo, double hi, bool open, const std::string& what,
                 auto field) { t.add("controller." + name, unit, lo, hi, open, what, field); };
  ctl("sample_period", "s", 1e-6, 1.0, false, "controller period T (a whole number of integrator steps)",
      [](Params& p) -> double& { return p.input.sample_period; });
  ctl("voltage_limit", "V", 0, 1e3, true, "valve voltage limit u_max", [](Params& p) -> double& { return p.input.voltage_limit; });
  ctl("joint_gain", "1/s", 0, 1e4, true, "lambda of the required joint rates, eq (36)",
      [](Params& p) -> double& { return p.input.joint_gain; });
  ctl("velocity_gain", "N s/m", 0, 1e9, false, "K_A translational entries, eq (8)",
      [](Params& p) -> double& { return p.input.velocity_gain; });
  ctl("angular_gain", "N m s", 0, 1e9, false, "K_A rotational entry, eq (8)", [](Params& p) -> double& { return p.input.angular_gain; });
  ctl("model_payload_mass", "kg", 0, 1e6, false, "payload mass the controller assumes",
      [](Params& p) -> double& { return p.input.model_payload_mass; });
  for (int j = 0; j < 2; ++j) {
    const std::string n = std::to_string(j + 1);
    const std::string w = std::string(" (") + seg_name[j] + " cylinder)";
    ctl("velocity_feedback_" + n, "m", 0, 1e3, true, "k_x, eq (90)" + w,
        [j](Params& p) -> double& { return p.input.velocity_feedback[j]; });
    ctl("force_feedback_" + n, "m^2/(N s)", 0, 1.0, true, "k_f, eq (90)" + w,
        [j](Params& p) -> double& { return p.input.force_feedback[j]; });
    ctl("model_bulk_modulus_" + n, "Pa", 0, 1e12, true, "bulk modulus the controller assumes" + w,
        [j](Params& p) -> double& { return p.input.model_bulk_modulus[j]; });
    ctl("model_valve_coefficient_" + n, "m^3/(s V Pa^0.5)", 0, 1, true, "valve edge coefficient the controller assumes" + w,
        [j](Params& p) -> double& { return p.input.model_valve_coefficient[j]; });
    ctl("model_coulomb_force_" + n, "N", 0, 1e8, false, "friction model F_c tanh(4v/v_s) + b v: F_c" + w,
        [j](Params& p) -> double& { return p.input.model_coulomb_force[j]; });
    ctl("model_stribeck_velocity_" + n, "m/s", 0, 100, true, "friction model v_s" + w,
        [j](Params& p) -> double& { return p.input.model_stribeck_velocity[j]; });
    ctl("model_viscous_coefficient_" + n, "N s/m", 0, 1e9, false, "friction model b" + w,
        [j](Params& p) -> double& { return p.input.model_viscous_coefficient[j]; });
  }
  ctl("path.waypoints", "-", 1, WaypointPath::kMaxWaypoints, false, "waypoints in use (the loop A, B, C, D, ...)",
      [](Params& p) -> int& { return p.input.path.count; });
  ctl("path.loops", "-", 0, 1000, false, "loops over the waypoints after reaching the first",
      [](Params& p) -> int& { return p.input.path.loops; });
  ctl("path.segment_time", "s", 0, 1e5, true, "duration of each quintic rest-to-rest segment",
      [](Params& p) -> double& { return p.input.path.segment_time; });
  for (int k = 0; k < WaypointPath::kMaxWaypoints; ++k) {
    const std::string n = std::to_string(k + 1);
    ctl("path.x" + n, "m", -kInf, kInf, false, "waypoint " + n + ", world x", [k](Params& p) -> double& { return p.input.path.x[k]; });
    ctl("path.y" + n, "m", -kInf, kInf, false, "waypoint " + n + ", world y", [k](Params& p) -> double& { return p.input.path.y[k]; });
  }
}

// The mechanism's geometry alone: every body's mass, centre of mass and
// inertia, the payload and gravity zeroed. The path's reach is walked on
// this copy, so its answer is a function of the geometry by construction.
inline LiftTiltParams lift_tilt_geometry(LiftTiltParams m) {
  const PlanarBody none{0.0, 0.0, 0.0, 0.0};
  for (RevoluteSegment& s : m.segment) s.link = s.cylinder = s.piston = none;
  m.lift_boom_tip = none;
  m.payload_mass = m.payload_x = m.payload_y = m.payload_inertia = 0.0;
  m.gravity_x = m.gravity_y = 0.0;
  return m;
}

namespace lift_tilt_detail {
// A number in the study checks' messages: six significant digits.
inline std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return std::string(b);
}
}  // namespace lift_tilt_detail

// The path's reach (the last of lift_tilt_instance_check's tests): every
// point of every segment, 64 per segment, through the closed-form inverse
// kinematics of `mechanism` and both cylinders' strokes (0, stroke[j]).
inline ModelDescriptor::Problem lift_tilt_reach_problem(const LiftTiltParams& mechanism, const WaypointPath& w,
                                                        const double* stroke_limit) {
  using lift_tilt_detail::num;
  const V2<double> start = LiftTilt::tcp(mechanism, mechanism.initial_angle);
  const int nseg = path_segments(w);
  const char* name[2] = {"lift", "tilt"};
  for (int k = 0; k < nseg; ++k) {
    double ax, ay, bx, by;
    path_waypoint(w, start.x, start.y, k, ax, ay);
    path_waypoint(w, start.x, start.y, k + 1, bx, by);
    const int target = (k % w.count) + 1;  // waypoint number of the segment's end (1-based)
    const int from = k == 0 ? 0 : ((k - 1) % w.count) + 1;
    for (int i = 1; i <= 64; ++i) {
      const double f = i / 64.0;
      const double x = ax + (bx - ax) * f, y = ay + (by - ay) * f;
      double q[2];
      // The message's words only for a point that fails: formatted for every
      // point (64 per segment, every instance of a study) they were half of a
      // manipulator stability map's time (perf, docs/performance.md §3).
      auto key = [&] { return "controller.path.x" + std::to_string(target); };
      auto where = [&] {
        return i == 64 ? "waypoint " + std::to_string(target) + " (" + num(x) + ", " + num(y) + ") m"
                       : "the segment from " + (from == 0 ? std::string("the start") : "waypoint " + std::to_string(from)) +
                             " to waypoint " + std::to_string(target) + " at (" + num(x) + ", " + num(y) + ") m";
      };
      if (!LiftTilt::inverse_kinematics(mechanism, x, y, q))
        return {key(), where() + " is out of the manipulator's reach: the inverse kinematics has no solution"};
      for (int j = 0; j < 2; ++j) {
        const double stroke = segment_pose(mechanism.segment[j], q[j]).stroke;
        const double S = stroke_limit[j];
        if (!(stroke > 0.0 && stroke < S))
          return {key(), where() + " needs a " + name[j] + " cylinder stroke of " + num(stroke) + " m, outside (0, " + num(S) + ")"};
      }
    }
  }
  return {};
}

// What a study must not ask of the manipulator (docs/models/manipulator.md
// §11.5): a controller period that is not a whole number of integrator steps
// (the zero-order hold samples on the step grid), a period not shorter than
// the run (the controller samples at t = 0 only and holds that output, the
// valves' 0 V at rest, for the whole run: a run that looks `ok` with no
// tracking error, issue 36), and a path the closed-form inverse kinematics
// cannot follow: every point of every segment (64 per segment) must be
// reachable with both strokes inside (0, S).
inline ModelDescriptor::Problem lift_tilt_instance_check(const LiftTiltModelParams& P, double dt, double duration) {
  using lift_tilt_detail::num;
  if (dt > 0.0) {
    const double m = P.input.sample_period / dt;
    if (std::fabs(m - std::round(m)) > 1e-9 * std::max(1.0, m) || std::round(m) < 1.0)
      return {"controller.sample_period", "= " + num(P.input.sample_period) +
                                              " s must be a whole number of integrator steps (integrator.dt = " + num(dt) +
                                              " s, period/dt = " + num(m) + ")"};
  }
  if (duration > 0.0 && !(P.input.sample_period < duration))
    return {"controller.sample_period", "= " + num(P.input.sample_period) + " s must be shorter than the run (integrator.duration = " +
                                            num(duration) + " s): the controller would sample only at t = 0 and hold that output"};
  // The path's reach, walked once per thread for as long as the instances
  // share its inputs (the geometry, the path, the strokes): a study over
  // gains, payloads or friction (a stability map, a Monte Carlo study) walks
  // it once per thread, where the walk per instance was as long as the
  // map's points themselves (perf, docs/performance.md §3). Compared byte
  // for byte: a difference in the path's padding only walks it again.
  struct ReachInputs {  // bytes only: no padding of its own
    unsigned char geometry[sizeof(LiftTiltParams)], path[sizeof(WaypointPath)], stroke[2 * sizeof(double)];
  };
  const LiftTiltParams geometry = lift_tilt_geometry(P.mechanism);
  const double stroke[2] = {P.actuator[0].circuit.stroke, P.actuator[1].circuit.stroke};
  ReachInputs inputs;
  std::memcpy(inputs.geometry, &geometry, sizeof geometry);
  std::memcpy(inputs.path, &P.input.path, sizeof(WaypointPath));
  std::memcpy(inputs.stroke, stroke, sizeof stroke);
  thread_local bool walked = false;
  thread_local ReachInputs last;
  thread_local ModelDescriptor::Problem reach;
  if (!walked || std::memcmp(&inputs, &last, sizeof inputs) != 0) {
    reach = lift_tilt_reach_problem(geometry, P.input.path, stroke);
    std::memcpy(&last, &inputs, sizeof inputs);
    walked = true;
  }
  return reach;
}

inline ModelDescriptor describe_lift_tilt() {
  ModelDescriptor d;
  d.name = "lift-tilt";
  d.title = "parallel-serial hydraulic Lift + Tilt manipulator under virtual decomposition control";
  d.source = "seed 004 §3, §7";
  d.doc = "docs/models/manipulator.md";
  d.physics = "lift-tilt";  // LiftTiltPhysics::key
  ParameterTableBuilder<LiftTiltModelParams> t(seed004_lift_tilt());
  lift_tilt_parameter_table(t);
  t.fill(d);
  for (int a = 0; a < 2; ++a) {
    const std::string c = actuator_prefix(a, 2) + "circuit.";
    d.rules.push_back({c + "rod_diameter", c + "piston_diameter", "the rod must be thinner than the piston"});
    d.rules.push_back({c + "return_pressure", c + "supply_pressure", "the supply must deliver more than return pressure"});
  }
  StateNames n;
  n.coordinate_units = {"rad", "rad", "m", "m"};
  n.coordinate_descriptions = {"lift joint angle q1", "tilt joint angle q2", "lift cylinder stroke x1",
                               "tilt cylinder stroke x2"};
  n.pressure_descriptions = {"chamber a (bore side)", "chamber b (rod side)"};
  n.driving_coordinate = LiftTiltDae::driving_coordinate();  // the lift joint, q1
  d.summary_columns = run_columns::summary_columns<4, 4, 2, VdcController::Report>(n);
  d.trajectory_channels = run_columns::trajectory_channels<4, 4, 2, VdcController::Probe>(n);
  d.driving_coordinate = run_columns::column_name("q", n.driving_coordinate);
  d.commands = {"run", "stability"};
  d.stability_equilibrium =
      "closed loop (plant + VDC) about the held initial pose mechanism.initial_angle1/2: q_d fixed, the equilibrium with "
      "zero valve flow (each rod-side pressure at actuatorN.circuit.rod_side_initial_pressure, the piston sides and the "
      "joint angles from the loop's statics); the plant's exact zero-order-hold discretization over "
      "controller.sample_period with the law's memory: eigenvalues ln(mu)/T of the one-period monodromy, the worst of "
      "the valves' four sign patterns (docs/models/manipulator.md 11.7)";
  d.instance_check = [](const ModelDescriptor& m, const double* row, double dt, double duration) {
    LiftTiltModelParams base;  // the default instance: fields the table does not name
    std::memcpy(&base, m.params_bytes.data(), sizeof base);
    return lift_tilt_instance_check(unpack_row(m.parameters, row, base), dt, duration);
  };
  return d;
}

// The catalog entry. Friction laws: the static monotone ones the VDC's
// stability argument covers (Brown–McPhee, by default with F_s = F_c) and
// none; the double step (the DAE form through DaeMechanism). Its stability
// map is the sampled closed loop about a held pose (sampled_loop.hpp).
struct LiftTiltPhysics {
  static constexpr const char* key = "lift-tilt";
  static constexpr bool runs = true, linearizes = true;
  using FrictionLaws = TypeList<BrownMcPhee, NoFriction>;
  using Formulations = TypeList<DoubleStepFormulation>;
  template <class Friction>
  using Model = LiftTiltModel<Friction>;
  template <class Friction>
  using Linearized = SampledClosedLoop<LiftTiltModel<Friction>>;
  static std::vector<ModelDescriptor> describe() { return {describe_lift_tilt()}; }
};

}  // namespace hs
