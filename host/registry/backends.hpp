// The backends a study can ask for ([execution] backend, --backend), by name:
// where the loop over instances runs. What this build and machine have of them,
// and the dispatch, are the run stage's (host/run/batch.hpp); every backend
// runs the same kernel code (host/run/backends/instance_kernel.hpp).
#pragma once
#include <string>

namespace hs {

enum class Backend { automatic, cpu, cuda, kokkos };
bool parse_backend(const std::string& name, Backend& out);  // "auto", "cpu", "cuda", "kokkos"
std::string backend_name(Backend b);

}  // namespace hs
