// Input policies: what sets each actuator's valve reference U_ref
// (docs/models/integrators.md §11.3). A policy is a struct with
//
//   Params                      its parameters, the model Params' `input` member
//   Memory                      per-instance state of a controller, carried in the
//                               integrator's State (empty for an open-loop schedule)
//   observes                    constexpr bool: whether reference() reads the
//                               observation (the integrators build it only then)
//   sample_period(P)            [s]; 0: U_ref is evaluated at every step's
//                               midpoint t_k + dt/2 and held over the step (A9);
//                               T > 0: evaluated at the sampling instants
//                               t_k = t0 + j·m·dt, m = max(1, round(T/dt)), and
//                               held (zero-order hold) until the next one
//   initialize(P, memory)       memory at t0
//   reference(P, t, obs, memory, U_ref)  U_ref[a] for every actuator a, from the
//                               time, the sampled observation and the memory
//   last_switch(P, duration)    when the reference last changes by itself
//                               within the run (the settling clock's start)
//
// The observation is the state at t_k, the start of the step (a sampled
// controller sees the past, never the implicit end of the step):
// Observation<nq, na, npa> (q, q̇, actuator lengths and rates, pressures).
#pragma once
#include "../core/hd.hpp"
#include "../integrators/settings.hpp"
#include "input_schedule.hpp"

namespace hs {

// The sampled state a policy sees. Pointers into the integrator's state,
// valid during the call to reference().
template <int nq, int na, int npa>
struct Observation {
  double t;           // sampling time t_k [s]
  const double* q;    // nq coordinates
  const double* qd;   // nq rates
  const double* s;    // na actuator lengths
  const double* sdot; // na actuator rates
  const double* p;    // na·npa pressures, actuator a at a·npa
};

// Today's open-loop valve schedule U_ref(t) (input_schedule.hpp) driving
// actuator 0; any further actuator's valve stays closed (U_ref = 0).
struct OpenLoopSchedule {
  using Params = InputSchedule;
  struct Memory {};
  static constexpr bool observes = false;
  HS_HD static double sample_period(const Params&) { return 0.0; }
  HS_HD static void initialize(const Params&, Memory&) {}
  template <class Obs, int na>
  HS_HD static void reference(const Params& P, double t, const Obs&, Memory&, double (&U_ref)[na]) {
    U_ref[0] = P(t);
    for (int a = 1; a < na; ++a) U_ref[a] = 0.0;
  }
  HS_HD static double last_switch(const Params& P, double duration) {
    double t_switch = 0.0;
    for (int k = 0; k < P.count; ++k)
      if (P.start[k] <= duration) t_switch = P.start[k];
    return t_switch;
  }
};

// What an integrator keeps of its policy: the controller memory and the
// references held since the last sample.
template <class Input, int na>
struct InputState {
  typename Input::Memory memory;
  double U_ref[na];
};

template <class Input, int na>
HS_HD void input_initialize(const typename Input::Params& P, InputState<Input, na>& s) {
  Input::initialize(P, s.memory);
  for (int a = 0; a < na; ++a) s.U_ref[a] = 0.0;
}

// U_ref over step k (from t_k = t0 + k·dt): the policy's contract above.
// `observe()` returns the observation at t_k; it is called only when the
// policy reads it and a value is due.
template <class Input, int na, class Observe>
HS_HD void input_for_step(const typename Input::Params& P, InputState<Input, na>& s, double t0, long k, double dt,
                          Observe&& observe, double (&U_ref)[na]) {
  const double period = Input::sample_period(P);
  if (period > 0.0) {
    long m = static_cast<long>(period / dt + 0.5);
    if (m < 1) m = 1;
    if (k % m == 0) {
      const double t = grid_time(t0, static_cast<double>(k), dt);
      if constexpr (Input::observes) Input::reference(P, t, observe(), s.memory, s.U_ref);
      else Input::reference(P, t, 0, s.memory, s.U_ref);
    }
  } else {
    const double t = grid_time(t0, k + 0.5, dt);
    if constexpr (Input::observes) Input::reference(P, t, observe(), s.memory, s.U_ref);
    else Input::reference(P, t, 0, s.memory, s.U_ref);
  }
  for (int a = 0; a < na; ++a) U_ref[a] = s.U_ref[a];
}

}  // namespace hs
