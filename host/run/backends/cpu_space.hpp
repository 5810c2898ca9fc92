// The CPU's execution space for the one host path (space_batch.hpp): buffers
// in host memory, a launch over OpenMP threads, one item per task.
#pragma once
#include <atomic>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hs {

struct CpuSpace {
  template <class T>
  using Buffer = std::vector<T>;
  static constexpr bool instance_major = true;  // each thread writes its own rows
  static constexpr bool host_control = true;    // cancellation before each item and inside it; progress per item

  // A slice's buffers copy its results once more before they reach the
  // batch's rows: 64 MiB of them keeps that copy small beside the chunk
  // (host/run/memory_budget.cpp) and the slices long enough that the
  // threads' wait at each slice's end costs nothing measurable.
  static constexpr double kDefaultSliceBytes = 64.0 * 1024 * 1024;

  int thread_count = 1;
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<long>* progress = nullptr;
  double slice_bytes = kDefaultSliceBytes;

  // threads <= 0: every core (OpenMP's default); bytes <= 0: the default slice.
  explicit CpuSpace(int threads, const std::atomic<bool>* cancel_flag = nullptr,
                    std::atomic<long>* progress_count = nullptr, double bytes = 0.0)
      : cancel(cancel_flag), progress(progress_count), slice_bytes(bytes > 0 ? bytes : kDefaultSliceBytes) {
#ifdef _OPENMP
    thread_count = threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
#endif
  }

  int threads() const { return thread_count; }
  double memory_bytes() const { return slice_bytes; }

  template <class T>
  Buffer<T> upload(std::vector<T> host) const {
    return host;
  }
  template <class T>
  Buffer<T> filled(long n, const T& value) const {
    return Buffer<T>(static_cast<size_t>(n), value);
  }
  template <class T>
  static T* data(Buffer<T>& b) {
    return b.data();
  }
  template <class T>
  void download(Buffer<T>& b, std::vector<T>& host) const {
    host.swap(b);
  }

  // kernel(i) for i in [0, count), one item per task: an item is one
  // instance (~10 ms) or one lockstep group, so scheduling costs nothing
  // and small batches still use every core. Items not started when
  // *cancel turns true are skipped (their outputs keep their blank values).
  template <class Kernel, class Weight>
  void launch(const Kernel& kernel, long count, Weight&& weight) const {
#pragma omp parallel for schedule(dynamic, 1) num_threads(thread_count)
    for (long i = 0; i < count; ++i) {
      if (cancel && cancel->load(std::memory_order_relaxed)) continue;
      kernel(i);
      if (progress) progress->fetch_add(weight(i), std::memory_order_relaxed);
    }
  }
};

}  // namespace hs
