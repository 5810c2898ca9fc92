// A planar tool-centre-point path through waypoints, quintic rest-to-rest
// segments of one duration each (seed 004 §7: "two seconds from one
// trajectory point to the other along the quintic rest-to-rest path";
// docs/models/manipulator.md §6, §11.2):
//   X(t) = P_k + (P_{k+1} − P_k) σ(τ),  σ = 10τ³ − 15τ⁴ + 6τ⁵,  τ = (t − t_k)/T
// (zero velocity and acceleration at every waypoint). The sequence is
//   start → W_1 → [W_2 → … → W_n → W_1] × loops,
// start being the TCP of the initial pose, so the paper's scenario (reach A,
// then two A-B-C-D loops) is W = (A, B, C, D), loops = 2: nine segments.
// After the last segment the path holds its end point.
#pragma once
#include "../core/hd.hpp"

namespace hs {

struct WaypointPath {
  static constexpr int kMaxWaypoints = 8;
  int count = 4;                // n waypoints in use (1 … kMaxWaypoints)
  int loops = 2;                // passes over W_2 … W_n, W_1 after reaching W_1
  double segment_time = 2.0;    // T [s]
  double x[kMaxWaypoints] = {2.5, 3.0, 3.5, 3.0};  // [m], world
  double y[kMaxWaypoints] = {1.0, 1.5, 1.0, 0.5};  // [m], world
};

// Position, velocity and acceleration of the path at t, from start (x0, y0).
// On lanes (R = Lanes<W>) the start is each lane's (its TCP at t0), the
// path and the time the batch's.
template <class R = double>
struct PathPointT {
  R x, y, vx, vy, ax, ay;
};
using PathPoint = PathPointT<double>;

// Number of segments of the whole path.
HS_HD inline int path_segments(const WaypointPath& w) { return 1 + (w.count > 1 ? w.loops * w.count : 0); }
// When the path comes to its end point.
HS_HD inline double path_end_time(const WaypointPath& w) { return path_segments(w) * w.segment_time; }

// Waypoint k of the sequence (k = 0: the start).
template <class R>
HS_HD void path_waypoint(const WaypointPath& w, const R& x0, const R& y0, int k, R& x, R& y) {
  if (k <= 0) {
    x = x0;
    y = y0;
    return;
  }
  // k = 1 → W_1; then W_2 … W_n, W_1 repeated.
  const int i = (k - 1) % w.count;
  x = w.x[i];
  y = w.y[i];
}

template <class R>
HS_HD PathPointT<R> path_at(const WaypointPath& w, const R& x0, const R& y0, double t) {
  const int nseg = path_segments(w);
  const double T = w.segment_time;
  int k = t <= 0.0 ? 0 : static_cast<int>(t / T);
  double tau = t <= 0.0 ? 0.0 : (t - k * T) / T;
  if (k >= nseg) {
    k = nseg - 1;
    tau = 1.0;
  }
  R ax, ay, bx, by;
  path_waypoint(w, x0, y0, k, ax, ay);
  path_waypoint(w, x0, y0, k + 1, bx, by);
  const double t2 = tau * tau, t3 = t2 * tau;
  const double s = t3 * (10.0 - 15.0 * tau + 6.0 * t2);
  const double ds = 30.0 * t2 * (1.0 - 2.0 * tau + t2) / T;              // σ'(τ)/T
  const double dds = 60.0 * tau * (1.0 - 3.0 * tau + 2.0 * t2) / (T * T);  // σ''(τ)/T²
  PathPointT<R> p;
  p.x = ax + (bx - ax) * s;
  p.y = ay + (by - ay) * s;
  p.vx = (bx - ax) * ds;
  p.vy = (by - ay) * ds;
  p.ax = (bx - ax) * dds;
  p.ay = (by - ay) * dds;
  return p;
}

}  // namespace hs
