// Compiles the whole per-instance kernel (initialize, trapezoidal steps with
// dual-number tangents, summary) as device code with warnings as errors, so
// that CI — which has nvcc but no GPU — proves kernels/ is valid CUDA: the
// planar four-bar with the static friction laws' one compiled policy (every
// static law's body, docs/models/friction.md §10; it was one kernel per law).
#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/friction/law_choice.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/four_bar.hpp"

namespace compile_check {
struct DiscardSamples {
  __device__ void operator()(long, const hs::Sample<3, 3>&) const {}
};

template <class Friction>
__global__ void run_four_bar(const hs::FourBarParams* params, hs::IntegratorSettings settings,
                             hs::RunSummary<3, 3>* out, int n) {
  using Integrator = hs::DoubleStepTrapezoidal<hs::HydraulicFourBar<Friction>>;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hs::run_instance<Integrator>(params[i], settings, 0, DiscardSamples{});
}
}  // namespace compile_check

template __global__ void compile_check::run_four_bar<hs::StaticFrictionChoice<hs::BrownMcPhee, hs::BengisuAkay, hs::NoFriction>>(
    const hs::FourBarParams*, hs::IntegratorSettings, hs::RunSummary<3, 3>*, int);

// Per-thread eigenvalues (kernels/eigen/small_eigen.hpp) as device code.
#include "kernels/eigen/small_eigen.hpp"
namespace compile_check {
__global__ void eigenvalues6(const hs::Mat<double, 6, 6>* A, hs::EigenResult<6>* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hs::eigenvalues<6>(A[i]);
}
}  // namespace compile_check
