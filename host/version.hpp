// The version of this build (CMakeLists.txt's project version), written into
// every output file and every partial run's manifest.
#pragma once

namespace hs {

const char* hydrosweep_version();

}  // namespace hs
