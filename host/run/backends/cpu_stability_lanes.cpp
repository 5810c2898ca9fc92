// A stability map's open-loop points on the CPU in lockstep lanes: W points
// per launch item through the one host path (space_batch.hpp run_points),
// each group's equilibria and linearization terms on Lanes<W>, the
// eigenvalues point by point (kernels/linearize/lockstep_stability.hpp,
// docs/models/lanes.md §12). A translation unit of its own, with the lanes'
// inliner limits (CMakeLists.txt), built for the lane widths the build has.
#include <stdexcept>
#include <string>

#include "host/run/backends/cpu_space.hpp"
#include "host/run/backends/space_batch.hpp"
#include "host/run/stability_lanes.hpp"
#include "host/run/stability_map.hpp"
#include "kernels/linearize/lockstep_stability.hpp"

namespace hs {
namespace {

// Item g of a slice: its points [first, first + count) in one group. Points
// of different mechanism structures (a model file's tree, the planar chain's
// actuator body) cannot share lanes: such a group runs point by point.
template <class System, int W>
struct StabilityLanesKernel {
  static constexpr int width = W;
  const typename System::Params* params;
  StabilitySettings settings;
  StabilityRecord* out;
  void run_group(long first, int count) const {
    const typename System::Params* P = params + first;
    bool shared = true;
    for (int i = 1; i < count; ++i) shared = shared && same_mechanism_structure(P[0].mechanism, P[i].mechanism);
    if (!shared) {
      for (int i = 0; i < count; ++i) out[first + i] = stability_record<System>(P[i], settings);
      return;
    }
    StabilityOf<System> points[W];
    stability_points_on_lanes<System, W>(P, count, settings, points);
    for (int i = 0; i < count; ++i) out[first + i] = widen_stability<kStabilityRecordEigenvalues>(points[i]);
  }
};

template <int W, class System>
std::vector<StabilityPoint> run_on_lanes(const StabilityBatch& batch) {
  CpuSpace space(batch.threads);
  return space_batch::run_points<typename System::Params>(
      batch, space, [&](const typename System::Params* params, StabilityRecord* points) {
        return StabilityLanesKernel<System, W>{params, batch.settings, points};
      });
}

}  // namespace

int stability_lanes_for(const ModelDescriptor& model, const std::string& friction, int lanes) {
  const int W = requested_lanes(lanes);
  if (W <= 1 || model.constrained) return 1;
  bool on_lanes = false;
  with_stability_combination(
      [&](auto combination) { on_lanes = StabilityOnLanes<typename decltype(combination)::System>::value; },
      model.physics, friction);
  return on_lanes ? W : 1;
}

bool run_stability_cpu_lanes(const StabilityBatch& batch, std::vector<StabilityPoint>& out) {
  if (!batch.model) return false;
  const int W = stability_lanes_for(*batch.model, batch.friction, batch.lanes);
  if (W <= 1) return false;
  bool ran = false;
  with_batch_combination(batch, [&](auto combination) {
    using System = typename decltype(combination)::System;
    if constexpr (StabilityOnLanes<System>::value) {
#ifdef HYDROSWEEP_HAVE_LANES8
      if (W == 8) { out = run_on_lanes<8, System>(batch); ran = true; }
#endif
#ifdef HYDROSWEEP_HAVE_LANES4
      if (W == 4) { out = run_on_lanes<4, System>(batch); ran = true; }
#endif
    }
  });
  return ran;
}

}  // namespace hs
