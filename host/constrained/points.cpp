#include "host/constrained/points.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/catalog/catalog.hpp"

namespace hs {
namespace {

// The table of catalog entry Entry for its model `d` (the catalog's own
// description of it: the parameter table and the default instance).
template <class Entry>
ConstrainedModel make(const ModelDescriptor& d) {
  using Model = typename Entry::Constrained;
  ConstrainedModel cm;
  cm.name = d.name;
  cm.key = Entry::key;
  cm.size_key = Entry::size_key;
  cm.default_penalty = PenaltySettings{Entry::penalty_alpha, Entry::penalty_xi, Entry::penalty_omega};
  typename Model::Params base;
  std::memcpy(&base, d.params_bytes.data(), sizeof(base));
  auto params = [table = d.parameters, base](const double* row) { return unpack_row(table, row, base); };
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

}  // namespace

std::unique_ptr<ConstrainedModel> constrained_table_of(const ModelDescriptor& d) {
  std::unique_ptr<ConstrainedModel> table;
  each_constrained_entry([&](auto entry) {
    using Entry = decltype(entry);
    if (!table && d.physics == Entry::key) table = std::make_unique<ConstrainedModel>(make<Entry>(d));
  });
  return table;
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
    out.eigenvalue_count = count < kConstrainedReportedEigenvalues ? count : kConstrainedReportedEigenvalues;
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
