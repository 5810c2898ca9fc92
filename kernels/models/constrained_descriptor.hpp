// Seed 003's constrained mechanical systems as models of the catalog
// (docs/models/nloop-and-flexible.md): their parameter tables for study files
// and `hydrosweep parameters`, and their entries in kernels/catalog/catalog.hpp.
// Their size (N loops, n_p elements) is a study parameter, not a build
// constant, so an entry declares the capability `Constrained` (the system the
// stability map assembles and linearizes by the study's [stability] method,
// mcs, rcs or ucs, on the host: host/constrained/) instead of a compiled
// hydraulically actuated Model; a system with a per-thread capacity
// (per_thread_coordinates) also runs per thread, on every backend
// (kernels/linearize/constrained_per_thread.hpp).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "../linearize/stability.hpp"
#include "descriptor.hpp"
#include "flexible_pendulum.hpp"
#include "nloop_linkage.hpp"

namespace hs {

namespace constrained_detail {

// A descriptor for a model that only the stability map runs.
template <class Params>
ModelDescriptor stability_only(std::string name, const char* title, const char* source,
                               ParameterTableBuilder<Params>& t) {
  ModelDescriptor d;
  d.name = std::move(name);
  d.title = title;
  d.source = source;
  d.doc = "docs/models/nloop-and-flexible.md";
  d.physics = "constrained:" + d.name;
  d.parameters = t.table();
  d.defaults = t.defaults();
  d.params_bytes = t.bytes();
  d.commands = {"stability"};
  d.friction_laws = {"none"};
  d.stability_friction_laws = {"none"};
  d.stability_methods = {"mcs", "rcs", "ucs"};
  d.stability_eigenvalues = kConstrainedReportedEigenvalues;
  d.stability_pressures = 0;
  d.stability_equilibrium =
      "static equilibrium of M q'' = f - Phi_q^T lambda, Phi = 0 (Newton from the model's guess, minimum-norm "
      "multipliers), linearized by the study's [stability] method: seed 003's mcs, rcs or ucs "
      "(docs/models/nloop-and-flexible.md)";
  return d;
}

inline ModelDescriptor describe_nloop() {
  NLoopLinkageParams d;
  ParameterTableBuilder<NLoopLinkageParams> t(d);
  using P = NLoopLinkageParams;
  t.add("linkage.loops", "-", 1, 200, false, "N, the number of loops (n = 2N + 3 coordinates)",
        [](P& p) -> int& { return p.loops; });
  t.add("linkage.rod_length", "m", 0, 1e3, true, "l_f, every rod", [](P& p) -> double& { return p.rod_length; });
  t.add("linkage.rod_mass", "kg", 0, 1e6, true, "m_f, every rod (uniform)", [](P& p) -> double& { return p.rod_mass; });
  t.add("linkage.spring_stiffness", "N/m", 0, 1e9, false, "k_f, each loop's diagonal spring",
        [](P& p) -> double& { return p.spring_stiffness; });
  t.add("linkage.spring_length", "m", 0, 1e3, true, "l_f0, the springs' natural length",
        [](P& p) -> double& { return p.spring_length; });
  t.add("linkage.damping", "N s/m", 0, 1e9, false, "c_f, a dashpot beside each spring (Table 2: 1)",
        [](P& p) -> double& { return p.damping; });
  t.add("linkage.gravity_x", "m/s2", -1e3, 1e3, false, "gravity along x (the singular case: 9.81)",
        [](P& p) -> double& { return p.gravity_x; });
  t.add("linkage.gravity_y", "m/s2", -1e3, 1e3, false, "gravity along y", [](P& p) -> double& { return p.gravity_y; });
  t.add("linkage.angle_guess", "rad", -7, 7, false, "phi where the equilibrium search starts (the singular case: 0)",
        [](P& p) -> double& { return p.angle_guess; });
  return stability_only(NLoopLinkage::name, "N-loop four-bar linkage with springs and dampers, natural coordinates",
                        "seed 003 §4.1", t);
}

inline ModelDescriptor describe_pendulum() {
  FlexiblePendulumParams d;
  ParameterTableBuilder<FlexiblePendulumParams> t(d);
  using P = FlexiblePendulumParams;
  t.add("pendulum.elements", "-", 1, 400, false, "n_p, beam elements per link (n = 6 n_p + 12 coordinates)",
        [](P& p) -> int& { return p.elements; });
  t.add("pendulum.link_length", "m", 0, 1e3, true, "l_p, each link", [](P& p) -> double& { return p.link_length; });
  t.add("pendulum.density", "kg/m3", 0, 1e5, true, "rho", [](P& p) -> double& { return p.density; });
  t.add("pendulum.young_modulus", "Pa", 0, 1e13, true, "E", [](P& p) -> double& { return p.young_modulus; });
  t.add("pendulum.section_radius", "m", 0, 10, true, "r_p, circular cross-section",
        [](P& p) -> double& { return p.section_radius; });
  t.add("pendulum.gravity", "m/s2", 0, 1e3, false, "g, along -y", [](P& p) -> double& { return p.gravity; });
  return stability_only(FlexiblePendulum::name,
                        "planar flexible double pendulum, floating frame of reference, two-node beam elements",
                        "seed 003 §4.2", t);
}

}  // namespace constrained_detail

// ---- entries of the catalog (kernels/catalog/catalog.hpp) ----------------------
// `Constrained`: the system (coordinates, constraint_count, build,
// initial_guess, reported_coordinate; per_thread_coordinates where a point
// fits one thread). `size_key`: the parameter that sets its size (messages),
// "" for a system of fixed size.
// The penalty defaults are UCS's α, ξ, ω (seed 003 §3.3: α = 1e6 for the
// linkage, 1e7 for the pendulum).

struct NLoopLinkagePhysics {
  static constexpr const char* key = "constrained:nloop-linkage";
  static constexpr bool runs = false, linearizes = false;
  using Constrained = NLoopLinkage;
  static constexpr const char* size_key = "linkage.loops";
  static constexpr double penalty_alpha = 1e6, penalty_xi = 1.0, penalty_omega = 10.0;
  static std::vector<ModelDescriptor> describe() { return {constrained_detail::describe_nloop()}; }
};

struct FlexiblePendulumPhysics {
  static constexpr const char* key = "constrained:flexible-pendulum";
  static constexpr bool runs = false, linearizes = false;
  using Constrained = FlexiblePendulum;
  static constexpr const char* size_key = "pendulum.elements";
  static constexpr double penalty_alpha = 1e7, penalty_xi = 1.0, penalty_omega = 10.0;
  static std::vector<ModelDescriptor> describe() { return {constrained_detail::describe_pendulum()}; }
};

}  // namespace hs
