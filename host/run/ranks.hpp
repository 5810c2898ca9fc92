// The processes that share one study (issue 17, "studies across nodes"):
// under mpirun or srun every rank runs the same `hydrosweep run`, takes its
// share of the chunks and writes them into the shared output directory's
// partial-results directory (host/cli/run_study.hpp); rank 0 prepares that
// directory, then reads every chunk back and writes results.h5 and
// summary.csv exactly as one process would. Nothing else crosses ranks: the
// chunk files are the exchange format, so a killed rank loses only its
// unfinished chunk and `--resume` (under MPI or not) completes the study.
//
// Ranks is the few collective operations the runner needs. One process is a
// Ranks of size 1 (no MPI needed); MpiRanks (host/run/mpi_ranks.cpp, built
// when Open MPI is found) wraps MPI_COMM_WORLD.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // Ranks on this node (they share its cores and GPUs), and this one's place among them.
  virtual int local_size() const { return 1; }
  virtual int local_rank() const { return 0; }
  // Waits (sleeping, not polling) until every rank is here.
  virtual void barrier() const {}
  // Sum / max over the ranks, result on every rank.
  virtual long sum(long v) const { return v; }
  virtual double max(double v) const { return v; }
  // Rank 0's bytes on every rank.
  virtual void broadcast(std::vector<char>& bytes) const { (void)bytes; }
  // Every rank's text, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather(const std::string& text) const { return {text}; }
  // What the launcher is, for messages ("mpirun", "one process").
  virtual std::string name() const { return "one process"; }

  bool root() const { return rank() == 0; }
  // OpenMP threads for one rank: `requested` when > 0, else the node's cores
  // divided among its ranks (at least 1) when several share the node and
  // OMP_NUM_THREADS is unset, else 0 (OpenMP's default: all cores).
  int threads_per_rank(int requested) const;
  std::string broadcast(const std::string& text) const;
  long broadcast(long v) const;
};

// The single-process Ranks.
const Ranks& single_process();

// The CPU threads a command runs with: `requested` (0: OpenMP's default,
// OMP_NUM_THREADS or every processor), at most the processors this process
// may use, since more never speed up a sweep and tens of thousands crash
// OpenMP's thread creation (issue 36: `-j 100000`). When it lowers the
// count it says so in *note and sets OpenMP's default to it, for the
// parallel loops that take the default.
int usable_threads(int requested, std::string* note);

// How this process was started: as one of several ranks of an MPI launcher
// (mpirun/mpiexec, srun --mpi=pmix or pmi2: the launcher's environment
// variables), and how many.
struct Launch {
  bool under_mpi_launcher = false;
  int world_size = 1;   // 0 when the launcher does not say
  int rank = 0;         // this process's rank, as the launcher says
  std::string launcher; // "mpirun", "PMIx", "PMI"
};
Launch detect_launch();

// Whether this build has MPI (HYDROSWEEP_HAVE_MPI).
bool mpi_available();

// A launcher started several ranks of a build without MPI.
class MpiUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// MPI for this process when it was started as a rank of an MPI launcher:
// MPI_Init here, MPI_Finalize when the session ends. Without a launcher, a
// session of one process. Throws MpiUnavailable when the launcher started
// several ranks and this build has no MPI (each would run the whole study).
class RankSession {
 public:
  RankSession(int* argc, char*** argv);
  ~RankSession();
  RankSession(const RankSession&) = delete;
  RankSession& operator=(const RankSession&) = delete;
  const Ranks& ranks() const { return ranks_ ? *ranks_ : single_process(); }

 private:
  std::unique_ptr<Ranks> ranks_;
};

}  // namespace hs
