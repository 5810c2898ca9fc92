#include "host/run/device_verification.hpp"

#include <vector>

namespace hs {
namespace {

struct Entry {
  const char *command, *model, *formulation, *friction;  // "*" matches anything
  DeviceVerdict verdict;
  const char* note;
};

// First match wins. Measured with tests/test_gpu.cpp (Gpu.*) and
// scripts/device_check.sh on an NVIDIA H100 80GB HBM3 and an NVIDIA H200,
// 2026-11-25 (bench/results/device-check-*-2026-11-25.log; README, "GPU").
// "Agreed" is within 2e-9 of each quantity's scale, with Newton counts at
// most one iteration apart in a step (libm and rounding: nvcc and g++ both
// without FMA contraction).
const std::vector<Entry>& findings() {
  static const std::vector<Entry> table = {
      {"run", "four-bar", "double-step", "none", DeviceVerdict::disagrees,
       "on an H100 and an H200 (2026-11-25) the GPU run did not move after the valve opened (pressures and "
       "crank angle stayed at the initial state, 10 % from the CPU's by t = 2 s)"},
      {"run", "four-bar-seed001", "double-step", "none", DeviceVerdict::disagrees,
       "on an H100 and an H200 (2026-11-25) the GPU run did not move after the valve opened"},
      {"run", "four-bar-3d", "*", "*", DeviceVerdict::disagrees,
       "on an H200 (2026-11-25) the GPU's crank angle left the CPU's by 5e-5 rad and p1_min by 0.9 % within 2 s; "
       "on an H100 the penalty kernel could not launch (its per-thread stack does not fit for every resident thread)"},
      {"run", "four-bar", "*", "*", DeviceVerdict::verified, ""},
      {"run", "four-bar-seed001", "*", "*", DeviceVerdict::verified, ""},
      {"run", "lift-tilt", "double-step", "brown-mcphee", DeviceVerdict::verified, ""},
      {"stability", "lift-tilt", "*", "*", DeviceVerdict::disagrees,
       "on an H100 and an H200 (2026-11-25) the GPU's closed-loop eigenvalues left the CPU's (dominant -2.44 "
       "against -3.0003 1/s at the defaults, where the exact-model closed form is -lambda = -3)"},
      {"stability", "*", "*", "*", DeviceVerdict::verified, ""},
  };
  return table;
}

bool matches(const char* pattern, const std::string& value) { return std::string(pattern) == "*" || value == pattern; }

}  // namespace

DeviceFinding device_finding(const std::string& command, const std::string& model, const std::string& formulation,
                             const std::string& friction) {
  for (const Entry& e : findings())
    if (matches(e.command, command) && matches(e.model, model) && matches(e.formulation, formulation) &&
        matches(e.friction, friction))
      return {e.verdict, e.note};
  return {DeviceVerdict::unverified, "not yet compared with the CPU on a device"};
}

DeviceDecision decide_device(const std::string& command, const std::string& model, const std::string& formulation,
                             const std::string& friction, bool requested) {
  const DeviceFinding found = device_finding(command, model, formulation, friction);
  const std::string what =
      "model " + model + (formulation.empty() ? "" : " with formulation " + formulation) + " and friction " + friction;
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
