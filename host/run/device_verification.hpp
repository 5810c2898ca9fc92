#pragma once
// What a run on a real GPU found about the CUDA backend, per (command,
// model, formulation, friction law): the backend's kernels are the same
// source as the CPU's, but only a device shows whether nvcc's build of them
// agrees with g++'s. scripts/device_check.sh runs the gpu-labelled tests
// (tests/test_gpu.cpp) on a lent device; their findings are recorded here,
// with the device and the date, and the commands act on them:
//   verified    the device agreed with the CPU to rounding: `auto` may pick CUDA;
//   disagrees   a device measured results that are not the CPU's: `auto` runs on
//               the CPU (with a note), an explicit `--backend cuda` is refused
//               (exit 2) naming the combination and what was measured;
//   unverified  never compared on a device, or compared with kernel sources
//               that have changed since (each finding carries the hash of the
//               sources measured, scripts/kernel_sources_hash.py): `auto` runs
//               on the CPU (with a note), an explicit `--backend cuda` runs
//               with a warning.
// A new finding is a new line in device_verification.cpp.
#include <string>

#include "host/version.hpp"
#include "kernels/models/descriptor.hpp"

namespace hs {

enum class DeviceVerdict { verified, disagrees, unverified };

struct DeviceFinding {
  DeviceVerdict verdict = DeviceVerdict::unverified;
  std::string note;  // what was measured, on which device and when
  std::string kernels;  // the hash of the kernel sources it was measured with ("" if never)
};

// The name under which a model's findings are recorded: a compiled model's
// own; for a model read from a file, its catalog entry's key
// ("planar-multibody", "planar-multibody-2"): every file of an entry runs the
// same generic kernels, whatever it names its model.
std::string device_record_model(const ModelDescriptor& model);

// command: "run" or "stability" (formulation "" for stability); model: a
// device_record_model.
// kernels: the hash of the kernel sources to judge (this build's,
// kernel_sources_hash(), host/version.hpp). A finding of "verified" holds
// only for the sources it was measured with: for others it is unverified,
// and says so; a disagreement stays.
DeviceFinding device_finding(const std::string& command, const std::string& model, const std::string& formulation,
                             const std::string& friction, const std::string& kernels = kernel_sources_hash());

// What a command does with the finding when CUDA could run it: `requested`
// when the user named the backend (command line or study file), else `auto`.
struct DeviceDecision {
  bool use_device = true;
  std::string note;     // for the user: why the CPU, or a warning
  std::string refusal;  // non-empty: the explicit request is refused with this message
};
DeviceDecision decide_device(const std::string& command, const ModelDescriptor& model, const std::string& formulation,
                             const std::string& friction, bool requested,
                             const std::string& kernels = kernel_sources_hash());

}  // namespace hs
