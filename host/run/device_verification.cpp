#include "host/run/device_verification.hpp"

#include <vector>

#include "host/version.hpp"

namespace hs {
namespace {

struct Entry {
  const char *command, *model, *formulation, *friction;  // "*" matches anything
  DeviceVerdict verdict;
  const char* note;
  // The hash of the kernel sources measured (scripts/kernel_sources_hash.py
  // --commit REV of the commit that recorded the finding); "" for unverified.
  const char* kernels = "";
};

// The kernel sources of the device runs of 2026-11-26 (NVIDIA H200, commit
// 198faf5, bench/results/device-check-nvidia-h200-2026-11-26.log); those of
// 2026-11-25 (H100, 4272a6d and 0fe44f9) were 6aa88b6b14b0 and c41b887373b3.
constexpr const char* kH200Of20261126 = "b498ee524805";

// First match wins. Measured with tests/test_gpu.cpp (Gpu.*), tests/device_trace.cu
// and scripts/device_check.sh on an NVIDIA H100 80GB HBM3 and an NVIDIA H200,
// 2026-11-25 and 2026-11-26 (bench/results/device-check-*.log; docs/gpu.md §3).
// The 3D four-bar disagreed on 2026-11-25 (a stale residual in the double step's
// initialize, fixed and measured bit-identical at t = 0 and within 5e-10 of scale
// over 1.5 s on 2026-11-26).
// "Agreed" is within 2e-9 of each quantity's scale, with Newton counts at
// most one iteration apart in a step (libm and rounding: nvcc and g++ both
// without FMA contraction).
const std::vector<Entry>& findings() {
  static const std::vector<Entry> table = {
      {"run", "four-bar", "double-step", "none", DeviceVerdict::disagrees,
       "on an H100 and an H200 (2026-11-25, again 2026-11-26 with tests/device_trace.cu) the GPU run did not move "
       "after the valve opened at t = 1 s (the states agree to 1e-9 until then; by t = 1.5 s the crank angle is "
       "still 1.047 rad on the GPU, 0.9995 rad on the CPU)", kH200Of20261126},
      {"run", "four-bar-seed001", "double-step", "none", DeviceVerdict::disagrees,
       "on an H100 and an H200 (2026-11-25) the GPU run did not move after the valve opened", kH200Of20261126},
      {"run", "quick-return", "double-step", "modified-lugre", DeviceVerdict::disagrees,
       "on an H200 (2026-11-25 and 2026-11-26) every GPU instance stopped with newton_failure at the first step, "
       "where the CPU runs the whole cycle", kH200Of20261126},
      {"run", "four-bar", "*", "*", DeviceVerdict::verified, "on an NVIDIA H200 (2026-11-26)", kH200Of20261126},
      {"run", "four-bar-seed001", "*", "*", DeviceVerdict::verified, "on an NVIDIA H200 (2026-11-26)", kH200Of20261126},
      {"run", "four-bar-3d", "*", "*", DeviceVerdict::verified, "on an NVIDIA H200 (2026-11-26)", kH200Of20261126},
      {"run", "quick-return", "*", "*", DeviceVerdict::verified, "on an NVIDIA H200 (2026-11-26)", kH200Of20261126},
      {"run", "lift-tilt", "*", "*", DeviceVerdict::verified, "on an NVIDIA H200 (2026-11-26)", kH200Of20261126},
      {"stability", "lift-tilt", "*", "*", DeviceVerdict::disagrees,
       "on an H100 and an H200 (2026-11-25, again 2026-11-26) the GPU's closed-loop equilibrium and so its "
       "eigenvalues left the CPU's (dominant -2.44 against -3.0003 1/s at the defaults, where the exact-model "
       "closed form is -lambda = -3)", kH200Of20261126},
      {"stability", "nloop-linkage", "*", "*", DeviceVerdict::unverified,
       "its per-thread MCS kernel (2026-11-26) has not run on a device yet"},
      {"run", "planar-multibody", "*", "*", DeviceVerdict::unverified,
       "the model files' generic one-cylinder kernels (2026-11-29) have not run on a device yet"},
      {"run", "planar-multibody-2", "*", "*", DeviceVerdict::unverified,
       "the model files' generic two-cylinder kernels (2026-11-29) have not run on a device yet"},
      {"stability", "planar-multibody", "*", "*", DeviceVerdict::unverified,
       "the model files' one-cylinder stability kernel (2026-11-29) has not run on a device yet"},
      {"stability", "planar-multibody-2", "*", "*", DeviceVerdict::unverified,
       "the model files' two-cylinder stability kernel (2026-11-29) has not run on a device yet"},
      {"stability", "*", "*", "*", DeviceVerdict::verified, "on an NVIDIA H200 (2026-11-26)", kH200Of20261126},
  };
  return table;
}

bool matches(const char* pattern, const std::string& value) { return std::string(pattern) == "*" || value == pattern; }

}  // namespace

std::string device_record_model(const ModelDescriptor& model) {
  return model.file_path.empty() ? model.name : model.physics;
}

DeviceFinding device_finding(const std::string& command, const std::string& model, const std::string& formulation,
                             const std::string& friction, const std::string& kernels) {
  for (const Entry& e : findings())
    if (matches(e.command, command) && matches(e.model, model) && matches(e.formulation, formulation) &&
        matches(e.friction, friction)) {
      if (e.verdict == DeviceVerdict::unverified || kernels == e.kernels) return {e.verdict, e.note, e.kernels};
      const std::string changed = std::string("kernel sources ") + e.kernels + ", this build's " + kernels;
      // A disagreement stays recorded until a device shows it gone (a change
      // of the kernels need not have fixed it); an agreement holds only for
      // the sources it was measured with.
      if (e.verdict == DeviceVerdict::disagrees) return {e.verdict, std::string(e.note) + " (" + changed + ")", e.kernels};
      return {DeviceVerdict::unverified,
              std::string("agreed with the CPU ") + e.note + " (" + changed +
                  "): the kernels have changed since, so it is unverified until a device compares them again "
                  "(scripts/device_check.sh)",
              e.kernels};
    }
  return {DeviceVerdict::unverified, "not yet compared with the CPU on a device", ""};
}

DeviceDecision decide_device(const std::string& command, const ModelDescriptor& model, const std::string& formulation,
                             const std::string& friction, bool requested, const std::string& kernels) {
  const DeviceFinding found = device_finding(command, device_record_model(model), formulation, friction, kernels);
  const std::string what =
      "model " + model.name + (formulation.empty() ? "" : " with formulation " + formulation) + " and friction " + friction;
  DeviceDecision d;
  if (found.verdict == DeviceVerdict::disagrees) {
    d.use_device = false;
    if (requested)
      d.refusal = "backend cuda: for " + what + " the CUDA backend disagreed with the CPU: " + found.note + "; use --backend cpu";
    else
      d.note = "running on the CPU: for " + what + " the CUDA backend disagreed with the CPU (" + found.note + ")";
  } else if (found.verdict == DeviceVerdict::unverified) {
    d.use_device = requested;
    d.note = requested ? "the CUDA backend has not been compared with the CPU on a device for " + what + "; check its results"
                       : "running on the CPU: the CUDA backend has not been compared with the CPU on a device for " + what;
  }
  return d;
}

}  // namespace hs
