// Whether `hydrosweep stability` runs a model's points in lockstep lanes on
// the CPU (host/run/backends/cpu_stability_lanes.cpp, docs/models/lanes.md §12),
// for the summary line it prints. Apart from host/run/stability_map.hpp,
// which the kernel units include, so that asking does not recompile them.
#pragma once
#include <string>

namespace hs {

struct ModelDescriptor;

// The lane width the CPU runs the points of `model` with friction law
// `friction` at `lanes` (StabilityBatch::lanes: 0 the widest this build has,
// 1 none), or 1 where they run one at a time (no lanes for its point: the
// lift-tilt's closed loop, seed 003's constrained systems).
int stability_lanes_for(const ModelDescriptor& model, const std::string& friction, int lanes);

}  // namespace hs
