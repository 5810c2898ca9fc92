#include "host/registry/backends.hpp"

namespace hs {

bool parse_backend(const std::string& name, Backend& out) {
  if (name == "auto") {
    out = Backend::automatic;
    return true;
  }
  if (name == "cpu") {
    out = Backend::cpu;
    return true;
  }
  if (name == "cuda") {
    out = Backend::cuda;
    return true;
  }
  if (name == "kokkos") {
    out = Backend::kokkos;
    return true;
  }
  return false;
}

std::string backend_name(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::kokkos: return "kokkos";
  }
  return "?";
}

}  // namespace hs
