#include "host/version.hpp"

namespace hs {

const char* hydrosweep_version() { return HYDROSWEEP_VERSION; }  // CMakeLists.txt defines it for this file

}  // namespace hs
