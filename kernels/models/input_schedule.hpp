// Piecewise-constant valve reference U_ref(t), e.g. seed 002 eq (46):
//   0 on [0,1), +10 V on [1,2.5), 0 on [2.5,5), −10 V on [5,8), 0 on [8,10].
#pragma once
#include "../core/decision_log.hpp"
#include "../core/hd.hpp"

namespace hs {

// On lanes (R = Lanes<W>) the segments are the batch's, one schedule for
// every lane, and the gain is each lane's own (docs/models/lanes.md §4).
template <class R = double>
struct InputScheduleT {
  using Real = R;
  static constexpr int kMaxSegments = 16;
  int count = 0;                       // number of segments in use
  double start[kMaxSegments] = {};     // segment start times [s], increasing
  double value[kMaxSegments] = {};     // U_ref on the segment [V]
  R gain = 1.0;                        // multiplies every value (sweepable)

  // U_ref at time t: value of the last segment that has started (0 before the first).
  HS_HD R operator()(double t) const {
    double u = 0.0;
    for (int i = 0; i < count; ++i)
      if (HS_DECISION(schedule_segment, t >= start[i], t, start[i])) u = value[i];
    return gain * u;
  }
};
using InputSchedule = InputScheduleT<double>;

// Seed 002 eq (46) / seed 001 eq (46) work cycle (A9: last zero segment 8–10 s).
inline InputSchedule seed002_work_cycle() {
  InputSchedule s;
  const double t[] = {0.0, 1.0, 2.5, 5.0, 8.0}, u[] = {0.0, 10.0, 0.0, -10.0, 0.0};
  s.count = 5;
  for (int i = 0; i < 5; ++i) { s.start[i] = t[i]; s.value[i] = u[i]; }
  return s;
}

}  // namespace hs
