// Ranks of one study: the single-process case, launcher detection and the
// session (host/run/ranks.hpp). The MPI side is host/run/mpi_ranks.cpp.
#include "host/run/ranks.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace hs {

// host/run/mpi_ranks.cpp when built with MPI.
std::unique_ptr<Ranks> start_mpi(int* argc, char*** argv);
void stop_mpi();

std::string Ranks::broadcast(const std::string& text) const {
  std::vector<char> bytes(text.begin(), text.end());
  broadcast(bytes);
  return std::string(bytes.begin(), bytes.end());
}

long Ranks::broadcast(long v) const {
  std::vector<char> bytes(sizeof v);
  std::memcpy(bytes.data(), &v, sizeof v);
  broadcast(bytes);
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

int Ranks::threads_per_rank(int requested) const {
  if (requested > 0 || local_size() <= 1 || std::getenv("OMP_NUM_THREADS")) return requested;
  return std::max(1, omp_get_num_procs() / local_size());
}

int usable_threads(int requested, std::string* note) {
  const int processors = std::max(1, omp_get_num_procs());
  const int wanted = requested > 0 ? requested : omp_get_max_threads();
  if (wanted <= processors) return requested;
  if (note)
    *note = (requested > 0 ? "--threads " + std::to_string(requested)
                           : "OMP_NUM_THREADS=" + std::string(std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "?")) +
            " is more than the " + std::to_string(processors) + " processor(s) this process may use: running " +
            std::to_string(processors) + " thread(s)";
  omp_set_num_threads(processors);
  return processors;
}

const Ranks& single_process() {
  static const Ranks one;
  return one;
}

namespace {
int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : -1;
}
}  // namespace

Launch detect_launch() {
  Launch l;
  // Open MPI's mpirun; PMIx (Open MPI 4+, srun --mpi=pmix); PMI-1/2 (MPICH's
  // Hydra, srun --mpi=pmi2). A plain shell inside an sbatch allocation sets
  // SLURM_* but none of these, so a non-MPI `hydrosweep run` there stays one process.
  if (env_int("OMPI_COMM_WORLD_SIZE") >= 1) {
    l = {true, env_int("OMPI_COMM_WORLD_SIZE"), env_int("OMPI_COMM_WORLD_RANK"), "mpirun"};
  } else if (std::getenv("PMIX_RANK")) {
    l = {true, env_int("PMIX_SIZE") > 0 ? env_int("PMIX_SIZE") : 0, env_int("PMIX_RANK"), "PMIx"};
  } else if (env_int("PMI_SIZE") >= 1) {
    l = {true, env_int("PMI_SIZE"), env_int("PMI_RANK"), "PMI"};
  }
  if (l.rank < 0) l.rank = 0;
  return l;
}

#ifdef HYDROSWEEP_HAVE_MPI
bool mpi_available() { return true; }
#else
bool mpi_available() { return false; }
std::unique_ptr<Ranks> start_mpi(int*, char***) { return nullptr; }
void stop_mpi() {}
#endif

RankSession::RankSession(int* argc, char*** argv) {
  const Launch l = detect_launch();
  if (!l.under_mpi_launcher) return;
  if (!mpi_available()) {
    if (l.world_size == 1) return;  // one rank: nothing to share
    throw MpiUnavailable(
        "this hydrosweep was built without MPI, but " + l.launcher + " started it as one of " +
        (l.world_size > 0 ? std::to_string(l.world_size) : std::string("several")) +
        " ranks: each would run the whole study into the same directory. Install Open MPI (apt-get install "
        "libopenmpi-dev openmpi-bin, as scripts/setup.sh does) and rebuild, or run a single process");
  }
  ranks_ = start_mpi(argc, argv);
}

RankSession::~RankSession() {
  if (ranks_) {
    ranks_.reset();
    stop_mpi();
  }
}

}  // namespace hs
