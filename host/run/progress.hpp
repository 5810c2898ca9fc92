// The progress display of a study's run (hydrosweep run; the CLI's --progress).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace hs {

// callback: no text; ProgressCallback every 250 ms and once at the end (an
// embedding program's own display: the Python package's progress bar).
enum class ProgressStyle { automatic, bar, lines, none, callback };
// (instances done, instances in all, final call).
using ProgressCallback = std::function<void(long done, long total, bool final)>;

// "m:ss" or "h:mm:ss"; "--:--" for a time not known.
std::string clock_text(double seconds);

// Prints progress from its own thread: a redrawn bar on a terminal, a line
// every 10 s otherwise. Counts are instances; the rate is this call's.
class Progress {
 public:
  Progress(ProgressStyle style, long total, long already_done, ProgressCallback callback = nullptr);
  ~Progress() { stop(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  std::atomic<long>& counter() { return done_; }
  // Ends the thread and prints the final line (idempotent).
  void stop();

 private:
  void loop();
  void print(bool final);

  ProgressStyle style_;
  ProgressCallback callback_;
  long total_, base_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<long> done_{0};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace hs
