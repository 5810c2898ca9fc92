// CPU stability maps: runtime dispatch (model, friction law) onto the
// templated kernel stability_point, OpenMP over the points.
#include "host/stability.hpp"

#include "host/memory_budget.hpp"

#include <omp.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/linearize/actuated_system.hpp"
#include "kernels/models/planar_chain_dae.hpp"
#include "kernels/models/spatial_four_bar.hpp"

namespace hs {

StabilitySettings stability_settings(const StabilitySpec& spec) {
  StabilitySettings s;
  s.zero_tolerance = spec.zero_tolerance;
  s.oscillatory_tolerance = spec.oscillatory_tolerance;
  return s;
}

bool stability_model_is_spatial(const std::string& model) { return model == "four-bar-3d"; }

StabilityPoint blank_stability_point(Status s) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  StabilityPoint p;
  p.status = static_cast<int>(s);
  for (int k = 0; k < 6; ++k) p.re[k] = p.im[k] = nan;
  p.structural_zeros = 0;
  p.max_real = p.damping_ratio = p.frequency = nan;
  p.overdamped = 0;
  p.crank_angle = nan;
  for (double& v : p.pressure) v = nan;
  return p;
}

namespace {

static_assert(std::is_same_v<ActuatedSystem<PlanarChainDae<3>, BrownMcPhee>::Params, FourBarParams>,
              "the planar system takes the study's parameters as they are");
static_assert(std::is_same_v<ActuatedSystem<SpatialFourBarDae, BrownMcPhee>::Params, FourBarParams>,
              "the spatial system takes the study's parameters as they are");
static_assert(std::is_same_v<StabilityOf<ActuatedSystem<PlanarChainDae<3>, BrownMcPhee>>, StabilityPoint> &&
                  std::is_same_v<StabilityOf<ActuatedSystem<SpatialFourBarDae, BrownMcPhee>>, StabilityPoint>,
              "both formulations have 6 reduced states");

template <class Mechanism, class Friction>
void run_points(const std::vector<FourBarParams>& params, const std::vector<char>& skip, const StabilitySettings& settings,
                int threads, std::vector<StabilityPoint>& out) {
  using System = ActuatedSystem<Mechanism, Friction>;
  const long n = static_cast<long>(params.size());
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  // The equilibrium Newton count varies a little from point to point: dynamic.
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
  for (long i = 0; i < n; ++i)
    if (skip.empty() || !skip[i]) out[i] = stability_point<System>(params[i], settings);
}

template <class Mechanism>
void by_friction(FrictionModel friction, const std::vector<FourBarParams>& params, const std::vector<char>& skip,
                 const StabilitySettings& settings, int threads, std::vector<StabilityPoint>& out) {
  switch (friction) {
    case FrictionModel::brown_mcphee: return run_points<Mechanism, BrownMcPhee>(params, skip, settings, threads, out);
    case FrictionModel::bengisu_akay: return run_points<Mechanism, BengisuAkay>(params, skip, settings, threads, out);
    case FrictionModel::none: return run_points<Mechanism, NoFriction>(params, skip, settings, threads, out);
  }
  throw std::logic_error("stability: unknown friction model");
}

void dispatch(const std::vector<FourBarParams>& params, const std::vector<char>& skip, const StabilitySettings& settings,
              bool spatial, FrictionModel friction, int threads, std::vector<StabilityPoint>& out) {
  if (spatial) by_friction<SpatialFourBarDae>(friction, params, skip, settings, threads, out);
  else by_friction<PlanarChainDae<3>>(friction, params, skip, settings, threads, out);
}

}  // namespace

std::vector<StabilityPoint> run_stability_cpu(const std::vector<FourBarParams>& instances, const StabilitySettings& settings,
                                              bool spatial, FrictionModel friction, int threads) {
  std::vector<StabilityPoint> out(instances.size(), blank_stability_point(Status::not_run));
  dispatch(instances, {}, settings, spatial, friction, threads, out);
  return out;
}

namespace {
// The study's instances and which of them are inadmissible.
void generate(const Study& study, std::vector<FourBarParams>& params, std::vector<char>& skip) {
  plan_stability_memory(study);  // before any study-sized allocation (host/memory_budget.hpp)
  const long n = study.instance_count();
  params.resize(static_cast<size_t>(n));
  skip.assign(static_cast<size_t>(n), 0);
  for (long i = 0; i < n; ++i) {
    params[i] = study.instance(i);
    skip[i] = !study.instance_problem(params[i]).empty();
  }
}
void flag_invalid(const std::vector<char>& skip, std::vector<StabilityPoint>& out) {
  for (size_t i = 0; i < skip.size(); ++i)
    if (skip[i]) out[i] = blank_stability_point(Status::invalid_parameters);
}
}  // namespace

std::vector<StabilityPoint> run_stability_cpu(const Study& study, int threads) {
  std::vector<FourBarParams> params;
  std::vector<char> skip;
  generate(study, params, skip);
  std::vector<StabilityPoint> out(params.size(), blank_stability_point(Status::not_run));
  flag_invalid(skip, out);
  dispatch(params, skip, stability_settings(study.stability), stability_model_is_spatial(study.model), study.friction,
           threads, out);
  return out;
}

int stability_threads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

Backend stability_backend(Backend requested, std::string* note) {
  if (requested == Backend::kokkos) {
    if (note) *note = "stability maps have no Kokkos path; running on the CPU";
    return Backend::cpu;
  }
  if (requested == Backend::cpu) return Backend::cpu;
#ifdef HYDROSWEEP_HAVE_CUDA_STABILITY
  const bool kernel = true;
#else
  const bool kernel = false;
#endif
  if (requested == Backend::cuda) {
    std::string why;
    if (!backend_available(Backend::cuda, &why)) throw std::invalid_argument("backend cuda: " + why);
    if (!kernel)
      throw std::invalid_argument("backend cuda: this build has no CUDA stability kernel (host/backends/cuda_stability.cu "
                                  "was not there when it was configured); use --backend cpu");
    return Backend::cuda;
  }
  // automatic
  if (resolve_backend(Backend::automatic) == Backend::cuda) {
    if (kernel) return Backend::cuda;
    if (note) *note = "a CUDA device is visible but this build has no CUDA stability kernel; running on the CPU";
  }
  return Backend::cpu;
}

std::vector<StabilityPoint> run_stability(const Study& study, Backend backend, int threads) {
  if (backend == Backend::cpu) return run_stability_cpu(study, threads);
#ifdef HYDROSWEEP_HAVE_CUDA_STABILITY
  if (backend == Backend::cuda) {
    std::vector<FourBarParams> params;
    std::vector<char> skip;
    generate(study, params, skip);
    std::vector<StabilityPoint> out = run_stability_cuda(params, stability_settings(study.stability),
                                                         stability_model_is_spatial(study.model), study.friction);
    if (out.size() != params.size())
      throw std::runtime_error("run_stability_cuda returned " + std::to_string(out.size()) + " points for " +
                               std::to_string(params.size()));
    flag_invalid(skip, out);
    return out;
  }
#endif
  throw std::invalid_argument("stability: backend " + backend_name(backend) + " is not available here");
}

}  // namespace hs
