// Ranks over MPI_COMM_WORLD (host/run/ranks.hpp), built when Open MPI is found
// (CMakeLists.txt, HYDROSWEEP_HAVE_MPI). Only collectives on small values:
// the instances' results travel as chunk files (host/run/chunk_store.hpp).
#include <mpi.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "host/run/ranks.hpp"

namespace hs {
namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("MPI: ") + what + " failed: " + std::string(text, static_cast<size_t>(length)));
}

class MpiRanks final : public Ranks {
 public:
  MpiRanks() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    check(MPI_Comm_size(node, &local_size_), "MPI_Comm_size");
    check(MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank");
    MPI_Comm_free(&node);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_size() const override { return local_size_; }
  int local_rank() const override { return local_rank_; }
  // A barrier that sleeps while it waits: Open MPI's blocking collectives
  // poll at full speed, so ranks waiting for rank 0's writing (or for the
  // slowest rank's last chunk) would take the cores it needs, the more so
  // with more ranks than cores (--oversubscribe).
  void barrier() const override {
    MPI_Request request;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    for (int done = 0;;) {
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  long sum(long v) const override {
    long r = 0;
    check(MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return r;
  }
  double max(double v) const override {
    double r = 0;
    check(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return r;
  }
  void broadcast(std::vector<char>& bytes) const override {
    long n = static_cast<long>(bytes.size());
    check(MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    bytes.resize(static_cast<size_t>(n));
    if (n > 0) check(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }
  std::vector<std::string> gather(const std::string& text) const override {
    const int length = static_cast<int>(text.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(lengths.size());
    check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<char> all;
    if (rank_ == 0) {
      long total = 0;
      for (int r = 0; r < size_; ++r) { offsets[r] = static_cast<int>(total); total += lengths[r]; }
      all.resize(static_cast<size_t>(total));
    }
    check(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                      MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> texts;
    for (size_t r = 0; r < lengths.size(); ++r) texts.emplace_back(all.data() + offsets[r], static_cast<size_t>(lengths[r]));
    return texts;
  }
  std::string name() const override { return std::to_string(size_) + " MPI ranks"; }

 private:
  int rank_ = 0, size_ = 1, local_size_ = 1, local_rank_ = 0;
};

}  // namespace

std::unique_ptr<Ranks> start_mpi(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // FUNNELED: only the main thread calls MPI (the OpenMP workers never do).
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  }
  // Errors come back as codes (check() turns them into exceptions the CLI
  // reports), not as MPI's default abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return std::make_unique<MpiRanks>();
}

void stop_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

}  // namespace hs
