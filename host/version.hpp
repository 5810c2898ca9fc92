// The version of this build (CMakeLists.txt's project version), written into
// every output file and every partial run's manifest.
#pragma once

namespace hs {

const char* hydrosweep_version();

// The hash of the kernel sources this build was compiled from (every file under
// kernels/ and host/run/backends/, host/cuda_support.hpp, host/device_block.hpp;
// scripts/kernel_sources_hash.py), which device findings are tied to
// (host/run/device_verification.hpp). Defined in a unit the build generates
// (cmake/kernel_sources_hash.cmake).
const char* kernel_sources_hash();

}  // namespace hs
