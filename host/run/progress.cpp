#include "host/run/progress.hpp"

#include <utility>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>

namespace hs {

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

Progress::Progress(ProgressStyle style, long total, long already_done, ProgressCallback callback)
    : callback_(std::move(callback)), total_(total), base_(already_done), start_(std::chrono::steady_clock::now()) {
  if (style == ProgressStyle::automatic) style = ::isatty(fileno(stderr)) ? ProgressStyle::bar : ProgressStyle::lines;
  if (style == ProgressStyle::callback && !callback_) style = ProgressStyle::none;
  style_ = style;
  if (style_ == ProgressStyle::none) return;
  thread_ = std::thread([this] { loop(); });
}

void Progress::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  print(true);
}

void Progress::loop() {
  const auto period = style_ == ProgressStyle::lines ? std::chrono::milliseconds(10000) : std::chrono::milliseconds(250);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) print(false);
}

void Progress::print(bool final) {
  const long done = base_ + done_.load();
  if (style_ == ProgressStyle::callback) {
    callback_(done, total_, final);
    return;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? done_.load() / elapsed : 0.0;
  const double eta = rate > 0 ? (total_ - done) / rate : std::numeric_limits<double>::quiet_NaN();
  const double frac = total_ > 0 ? static_cast<double>(done) / total_ : 1.0;
  char tail[160];
  std::snprintf(tail, sizeof tail, "%5.1f%%  %ld/%ld instances  %.3g inst/s  elapsed %s  ETA %s", 100 * frac, done,
                total_, rate, clock_text(elapsed).c_str(), final ? "0:00" : clock_text(eta).c_str());
  if (style_ == ProgressStyle::bar) {
    constexpr int width = 30;
    const int fill = static_cast<int>(frac * width);
    std::string bar(width, ' ');
    for (int i = 0; i < fill && i < width; ++i) bar[i] = '=';
    if (fill < width) bar[fill] = '>';
    std::fprintf(stderr, "\r[%s] %s\033[K%s", bar.c_str(), tail, final ? "\n" : "");
  } else {
    std::fprintf(stderr, "progress: %s\n", tail);
  }
  std::fflush(stderr);
}

}  // namespace hs
