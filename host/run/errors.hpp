// The failures of running and writing a study that the front ends tell apart
// (the CLI's exit statuses, docs/usage.md): thrown by the chunk store
// (host/run/chunk_store.hpp), the writers (host/results/output.hpp) and the
// orchestration (host/cli/run_study.hpp); they cross MPI ranks by kind
// (host/run/rank_collectives.hpp).
#pragma once
#include <stdexcept>

namespace hs {

// File-system or HDF5 failure while writing chunks or outputs (exit status 1).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A refused run or resume (no file is touched; the message names the
// directory or file and what to do): exit status 2 in the CLI.
class ResumeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hs
