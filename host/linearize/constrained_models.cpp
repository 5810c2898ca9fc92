#include "host/linearize/constrained_models.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/models/flexible_pendulum.hpp"
#include "kernels/models/nloop_linkage.hpp"

namespace hs {
namespace {

// A descriptor for a model that only the stability map runs.
template <class Params>
ModelDescriptor stability_only(const char* name, const char* title, const char* source, const char* doc,
                               ParameterTableBuilder<Params>& t, const Params& defaults) {
  ModelDescriptor d;
  d.name = name;
  d.title = title;
  d.source = source;
  d.doc = doc;
  d.physics = std::string("constrained:") + name;
  d.parameters = t.table();
  d.defaults = t.defaults();
  d.params_bytes.assign(reinterpret_cast<const unsigned char*>(&defaults),
                        reinterpret_cast<const unsigned char*>(&defaults) + sizeof(Params));
  d.commands = {"stability"};
  d.friction_laws = {"none"};
  d.stability_friction_laws = {"none"};
  d.stability_methods = {"mcs", "rcs", "ucs"};
  d.stability_eigenvalues = kStabilityRecordEigenvalues;
  d.stability_pressures = 0;
  d.stability_equilibrium =
      "static equilibrium of M q'' = f - Phi_q^T lambda, Phi = 0 (Newton from the model's guess, minimum-norm "
      "multipliers), linearized by the study's [stability] method: seed 003's mcs, rcs or ucs "
      "(docs/models/nloop-and-flexible.md)";
  return d;
}

template <class Model>
ConstrainedModel make(ModelDescriptor d, PenaltySettings penalty, const char* size_key) {
  ConstrainedModel cm;
  cm.size_key = size_key;
  cm.descriptor = std::move(d);
  cm.default_penalty = penalty;
  typename Model::Params base;
  std::memcpy(&base, cm.descriptor.params_bytes.data(), sizeof(base));
  auto params = [table = cm.descriptor.parameters, base](const double* row) { return unpack_row(table, row, base); };
  cm.size = [params](const double* row, long& n, long& m) {
    const auto p = params(row);
    n = Model::coordinates(p);
    m = Model::constraint_count(p);
  };
  cm.build = [params](const double* row, ConstrainedSystem*& sys, Eigen::VectorXd& q0, int& reported) {
    const auto p = params(row);
    sys = new ConstrainedSystem(Model::coordinates(p), Model::constraint_count(p));
    Model::build(p, *sys);
    q0.resize(sys->n());
    Model::initial_guess(p, q0.data());
    reported = Model::reported_coordinate(p);
  };
  if constexpr (HasPerThreadMcs<Model>::value) {
    cm.per_thread_coordinates = Model::per_thread_coordinates;
    cm.per_thread_mcs = [params](const double* row, const ConstrainedSettings& settings,
                                 const StabilitySettings& figures, StabilityRecord& out) {
      const auto p = params(row);
      if (!fits_per_thread<Model>(p)) return false;
      out = constrained_mcs_point<Model>(p, per_thread_settings(settings), figures);
      return true;
    };
  }
  return cm;
}

ModelDescriptor describe_nloop() {
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
                        "seed 003 §4.1", "docs/models/nloop-and-flexible.md", t, d);
}

ModelDescriptor describe_pendulum() {
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
  return stability_only("flexible-pendulum",
                        "planar flexible double pendulum, floating frame of reference, two-node beam elements",
                        "seed 003 §4.2", "docs/models/nloop-and-flexible.md", t, d);
}

}  // namespace

const std::vector<ConstrainedModel>& constrained_models() {
  static const std::vector<ConstrainedModel> list = [] {
    std::vector<ConstrainedModel> v;
    v.push_back(make<NLoopLinkage>(describe_nloop(), PenaltySettings{1e6, 1.0, 10.0}, "linkage.loops"));
    v.push_back(make<FlexiblePendulum>(describe_pendulum(), PenaltySettings{1e7, 1.0, 10.0}, "pendulum.elements"));
    return v;
  }();
  return list;
}

const ConstrainedModel* find_constrained_model(const std::string& name) {
  for (const auto& m : constrained_models())
    if (m.descriptor.name == name) return &m;
  return nullptr;
}

double constrained_point_bytes(long n, long m) {
  const double pencil = static_cast<double>(2 * n + m);
  const double newton = static_cast<double>(n + m);
  // RCS: A, E and LAPACK's copies of both; UCS: A, E, copies and V (2n)²;
  // the equilibrium: J and its decomposition; n × n blocks (M, K, H, ...).
  return 8.0 * (5.0 * pencil * pencil + 2.0 * newton * newton + 8.0 * static_cast<double>(n) * n);
}

PerThreadConstrainedSettings per_thread_settings(const ConstrainedSettings& settings) {
  PerThreadConstrainedSettings p;
  p.max_iterations = settings.max_iterations;
  p.step_tolerance = settings.step_tolerance;
  p.rank_tolerance = settings.rank_tolerance;
  return p;
}

StabilityRecord constrained_stability_point(const ConstrainedModel& model, const double* row, ConstrainedMethod method,
                                            const ConstrainedSettings& settings, const StabilitySettings& figures) {
  StabilityRecord out;
  if (method == ConstrainedMethod::mcs && model.per_thread_mcs && model.per_thread_mcs(row, settings, figures, out))
    return out;
  return constrained_stability_point_host(model, row, method, settings, figures);
}

StabilityRecord constrained_stability_point_host(const ConstrainedModel& model, const double* row,
                                                 ConstrainedMethod method, const ConstrainedSettings& settings,
                                                 const StabilitySettings& figures) {
  StabilityRecord out;
  blank_stability(out, 0);
  try {
    ConstrainedSystem* raw = nullptr;
    Eigen::VectorXd q0;
    int reported = 0;
    model.build(row, raw, q0, reported);
    const std::unique_ptr<ConstrainedSystem> sys(raw);
    const ConstrainedEquilibrium eq = lagrange_equilibrium(*sys, q0, settings);
    if (eq.status != Status::ok) {
      out.status = static_cast<int>(eq.status);
      return out;
    }
    out.crank_angle = eq.q[reported];
    const ConstrainedLinearization L = linearize_constrained(*sys, eq, method, settings);
    out.status = static_cast<int>(L.status);
    if (L.status != Status::ok) return out;
    const int count = static_cast<int>(L.eigenvalues.size());
    out.eigenvalue_count = count < kStabilityRecordEigenvalues ? count : kStabilityRecordEigenvalues;
    for (int k = 0; k < out.eigenvalue_count; ++k) {
      out.re[k] = L.eigenvalues[k].real();
      out.im[k] = L.eigenvalues[k].imag();
    }
    std::vector<double> re(count), im(count);
    for (int k = 0; k < count; ++k) {
      re[k] = L.eigenvalues[k].real();
      im[k] = L.eigenvalues[k].imag();
    }
    stability_figures(re.data(), im.data(), count, figures, out);
  } catch (const std::exception&) {
    // LAPACK's failure or an allocation: this point only.
    out.status = static_cast<int>(Status::diverged);
  }
  return out;
}

}  // namespace hs
