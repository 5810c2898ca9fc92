// The runnable 3D four-bar of seed 000 §4 (docs/models/four-bar-3d.md):
// SpatialFourBarDae (n = 10 mixed coordinates, m = 9 constraints, driving
// coordinate φ2) seen through DaeMechanism and driven by the three-volume
// circuit, as the planar HydraulicFourBar (four_bar.hpp) is for
// PlanarLoopChain<3>. Same parameters as the planar model (the planar data
// read in the Y1Z1 plane, docs/models/four-bar-3d.md §5), so
// seed002_four_bar() gives seed 000's mechanism, and φ2 is the planar crank
// angle z_1 (both the absolute angle of the crank from the Y1 = planar x axis).
#pragma once
#include <type_traits>

#include "dae_mechanism.hpp"
#include "four_bar.hpp"
#include "hydraulically_actuated.hpp"
#include "spatial_four_bar.hpp"

namespace hs {

using SpatialFourBarMechanism = DaeMechanism<SpatialFourBarDae>;
template <class Friction>
using HydraulicFourBar3d = HydraulicallyActuated<SpatialFourBarMechanism, Friction>;
static_assert(std::is_same<HydraulicFourBar3d<NoFriction>::Params, FourBarParams>::value,
              "the 3D four-bar takes the planar four-bar's parameters");

}  // namespace hs
