// The host's side of seed 003's constrained mechanical systems
// (docs/models/nloop-and-flexible.md): for every catalog entry that declares
// `Constrained` (kernels/catalog/catalog.hpp), a function table that sizes,
// assembles and linearizes one point of its stability map by the study's
// [stability] method (mcs, rcs or ucs; host/constrained/linearization.hpp).
// Their size (N loops, n_p elements) is a parameter of the study, not of the
// build, so they run on the host path (dense LAPACK), one point per CPU
// thread, except where the size switch sends a small system to the
// per-thread MCS code (kernels/linearize/constrained_per_thread.hpp;
// docs/models/nloop-and-flexible.md §6 item 10). The host's catalog
// (host/registry/models.cpp) attaches each table to its model's descriptor
// (ModelDescriptor::constrained), which is what the stages dispatch on.
//
// Adding one: its kernels/models/ system and descriptor, and one catalog line.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/constrained/linearization.hpp"
#include "kernels/linearize/constrained_per_thread.hpp"
#include "kernels/linearize/stability.hpp"
#include "kernels/models/descriptor.hpp"

namespace hs {

struct ConstrainedModel {
  std::string name;                 // the model's name (messages)
  std::string key;                  // its catalog entry's key (ModelDescriptor::physics)
  PenaltySettings default_penalty;  // seed 003 §3.3: α = 1e6 (linkage), 1e7 (pendulum)
  std::string size_key;             // the parameter that sets n (messages); empty: a fixed size
  // " (size_key)" after a size in a message, or nothing for a fixed size.
  std::string size_note() const { return size_key.empty() ? std::string() : " (" + size_key + ")"; }
  // n and m of the system a parameter row describes (before building it).
  std::function<void(const double* row, long& n, long& m)> size;
  // The system, its equilibrium guess and the coordinate a map reports.
  std::function<void(const double* row, ConstrainedSystem*& sys, Eigen::VectorXd& q0, int& reported)> build;
  // The per-thread MCS point (kernels/linearize/constrained_per_thread.hpp) of
  // a model that declares a per-thread capacity; false (nothing computed)
  // where the row's system does not fit. Empty for the others.
  int per_thread_coordinates = 0;  // n up to which a point fits (0: never)
  std::function<bool(const double* row, const ConstrainedSettings&, const StabilitySettings&, StabilityRecord&)>
      per_thread_mcs;
};

// The table of model `d` where its catalog entry is a constrained system
// (d.physics is the entry's key), built from d's own parameter table and
// default instance; nullptr for the other entries. Called by the host's
// model list (host/registry/models.cpp), which keeps one per such model.
std::unique_ptr<ConstrainedModel> constrained_table_of(const ModelDescriptor& d);

// Peak bytes of one point's dense matrices (n coordinates, m constraints):
// the largest pencil (RCS: 2n + m, UCS: 2n with eigenvectors) and the
// equilibrium's (n + m)² Newton matrix, with their working copies.
double constrained_point_bytes(long n, long m);

// One point of a stability map: equilibrium, the method's eigenvalues and
// the map's figures. The record keeps the 10 lowest-frequency true
// eigenvalues (by |Im s|); max_real, the dominant pair and the structural
// zeros are over all of them. crank_angle holds the reported coordinate
// (the linkage's φ, the pendulum's θ_1). Never throws: a failure is the
// point's status.
// The size switch: MCS on a system that fits the model's per-thread
// capacity runs the per-thread code (the same function the CUDA backend
// launches), everything else the host path below.
StabilityRecord constrained_stability_point(const ConstrainedModel& model, const double* row, ConstrainedMethod method,
                                            const ConstrainedSettings& settings, const StabilitySettings& figures);
// The host path at every size (dense matrices, LAPACK).
StabilityRecord constrained_stability_point_host(const ConstrainedModel& model, const double* row,
                                                 ConstrainedMethod method, const ConstrainedSettings& settings,
                                                 const StabilitySettings& figures);
// The settings of the per-thread code from the host's.
PerThreadConstrainedSettings per_thread_settings(const ConstrainedSettings& settings);

}  // namespace hs
