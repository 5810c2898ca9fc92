// A stability map's open-loop points in lockstep SIMD lanes (CPU only:
// kernels/core/lanes.hpp; docs/models/lanes.md §12): W points' equilibria
// (seed 000 §4.3, kernels/linearize/equilibrium.hpp) and linearization terms
// (eqs 53–64, reduced_jacobian.hpp) on Lanes<W>, the same source as one
// point's; then, point by point, J's assembly, its eigenvalues and the
// figures (stability.hpp: finish_stability_point), from each lane's terms.
//
// Why the eigenvalues stay per point: the Francis QR deflates matrix by
// matrix, so a lockstep QR would run every lane to the slowest lane's last
// deflation; the equilibrium's Newton and the jets are where lanes pay.
//
// Exactness: each lane performs its point's scalar operations in the same
// order (docs/models/lanes.md §3), so a point's record is bit for bit the one
// stability_point gives, whatever the other lanes hold — including a lane
// that fails (its status is its first failure; the lanes that go on compute
// what they would alone).
#pragma once
#include <cstring>
#include <type_traits>

#include "../core/lanes.hpp"
#include "../integrators/lockstep.hpp"
#include "stability.hpp"

namespace hs {

// Which stability systems have points on lanes: seed 000's open-loop point
// (not a system with its own point, the sampled closed loop) of a mechanism
// whose parameters the lanes transpose (MechanismOnLanes: the planar chains,
// the 3D four-bar, the quick-return, the model files).
template <class System, class = void>
struct StabilityOnLanes : std::false_type {};
template <class System>
struct StabilityOnLanes<System, std::enable_if_t<!HasOwnStabilityPoint<System>::value>>
    : MechanismOnLanes<typename System::Mechanism> {};

// Points P[0 … count) (1 ≤ count ≤ W, one mechanism structure:
// same_mechanism_structure) into out[0 … count), each what stability_point
// gives it. A ragged group repeats its last point in the spare lanes.
template <class System, int W>
void stability_points_on_lanes(const typename System::Params* P, int count, const StabilitySettings& S,
                               StabilityOf<System>* out) {
  using L = Lanes<W>;
  using St = StatusOnT<L>;
  constexpr int n = System::n;
  const auto point = [&](int lane) -> const typename System::Params& { return P[lane < count ? lane : count - 1]; };
  typename System::template ParamsOn<L> PW;
  gather_params<W>(point, PW);
  // Each point's assembly guess, from its own parameters (the guesses are
  // double-only code: the mechanisms' closed-form assembly modes).
  L x_guess[n];
  for (int lane = 0; lane < W; ++lane) {
    double x[n];
    System::Mechanism::initial_guess(point(lane).mechanism, x);
    for (int k = 0; k < n; ++k) x_guess[k].set(lane, x[k]);
  }
  Equilibrium<System, L> eq;
  const StatusOn<L> status = solve_equilibrium_from<System>(PW, x_guess, eq, S.equilibrium);
  const auto equilibrated = status == St::of(Status::ok);
  LinearizationTerms<System, L> terms;
  const bool linearized = any_lane(equilibrated) && linearization_terms<System>(PW, eq, terms);
  for (int i = 0; i < count; ++i) {
    StabilityOf<System>& o = out[i];
    blank_stability(o);
    o.status = static_cast<int>(St::lane(status, i));
    if (!equilibrated[i]) continue;
    record_equilibrium<System>(eq, [i](const L& v) { return v[i]; }, o);
    if (!linearized) {
      o.status = static_cast<int>(Status::constraint_failure);
      continue;
    }
    LinearizationTerms<System> Li;
    lane_of_reals<W>(terms, i, Li);
    finish_stability_point<System>(P[i], Li, S, o);
  }
}

}  // namespace hs
