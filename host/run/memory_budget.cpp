// Memory budget and the study-sized allocation checks (memory_budget.hpp).
#include "host/run/memory_budget.hpp"

#include "host/constrained/points.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "host/run/stability_map.hpp"

namespace hs {
namespace {

constexpr double kKiB = 1024.0;

// The cgroup v2 (memory.max) or v1 (memory.limit_in_bytes) limit of this
// process' container; 0 when there is none.
double cgroup_limit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") continue;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && v > 0 && v < 1e18) return v;  // v1 reports ~2^63 for "no limit"
  }
  return 0.0;
}

// "2G", "512M", "1e9", "1048576" → bytes; NaN if it is not a size.
double parse_size(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return NAN;
  const std::string unit(end);
  if (unit == "K" || unit == "KiB") v *= kKiB;
  else if (unit == "M" || unit == "MiB") v *= kKiB * kKiB;
  else if (unit == "G" || unit == "GiB") v *= kKiB * kKiB * kKiB;
  else if (unit == "T" || unit == "TiB") v *= kKiB * kKiB * kKiB * kKiB;
  else if (!unit.empty() && unit != "B") return NAN;
  return std::isfinite(v) && v > 0 ? v : NAN;
}

std::string instances_key(const Design& design) {
  if (design.method == SampleMethod::grid) return "the grid's size ([[grid]] values/count)";
  if (design.method == SampleMethod::rows) return "the rows of sample.file";
  if (design.method != SampleMethod::saltelli) return "sample.count";
  return design.second_order ? "sample.count (x 2 factors + 2)" : "sample.count (x factors + 2)";
}

}  // namespace

MemoryBudget memory_budget() {
  MemoryBudget b;
  const double pages = static_cast<double>(::sysconf(_SC_PHYS_PAGES)), page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  b.bytes = pages > 0 && page > 0 ? pages * page : 1e18;
  b.source = "physical memory";
  if (const double cg = cgroup_limit(); cg > 0 && cg < b.bytes) {
    b.bytes = cg;
    b.source = "cgroup memory limit";
  }
  if (const char* env = std::getenv("HYDROSWEEP_MEMORY_LIMIT"); env && *env) {
    const double v = parse_size(env);
    if (std::isnan(v))
      throw StudyError(std::string("HYDROSWEEP_MEMORY_LIMIT = \"") + env +
                       "\" is not a size (allowed: a positive number of bytes, optionally with K, M, G or T)");
    if (v < b.bytes) {
      b.bytes = v;
      b.source = "HYDROSWEEP_MEMORY_LIMIT";
    }
  }
  return b;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) { bytes /= 1024.0; ++u; }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

void require_memory(const StudyRecord& record, double bytes, const std::string& key, const std::string& what,
                    const std::string& advice) {
  const MemoryBudget b = memory_budget();
  if (bytes <= b.bytes) return;
  throw StudyError(record.path + ": " + key + " needs " + format_bytes(bytes) + " for " + what +
                   ", more than the memory budget of " + format_bytes(b.bytes) + " (" + b.source + "); " + advice);
}

double run_chunk_bytes(const StudyRecord& record, const Design& design, long chunk) {
  const double samples = static_cast<double>(sample_count(record.settings, record.trajectory_stride));
  const auto& m = *design.descriptor;
  // ... and each row's instance-check message (Design::instance_problems; empty when admissible).
  const double per_instance = sizeof(double) * (m.parameters.size() + m.summary_columns.size() + 1 +
                                                samples * m.trajectory_channels.size()) +
                              sizeof(std::string);
  // A device backend stages the chunk in host and device buffers, and the
  // chunk file is written from (and read back into) host memory: count two copies.
  return 2.0 * static_cast<double>(chunk) * per_instance;
}

long plan_run_memory(const StudyRecord& record, const Design& design, long requested, int threads, bool device) {
  const double n = static_cast<double>(design.instance_count());
  const double varied = static_cast<double>(design.varied_names().size());
  // Held for the whole run: the status and the analysed columns
  // (AnalysisSpec::columns); the other summary columns stay in the chunk files.
  const double summary_row = sizeof(double) * (record.analysis.columns().size() + 1);
  require_memory(record, n * (summary_row + (varied + 4) * sizeof(double)), instances_key(design),
                 "the per-instance results of " + std::to_string(design.instance_count()) + " instances",
                 "split the study into several smaller ones");
  if (record.analysis.reference_run) {
    const double steps = std::round(record.settings.duration / record.settings.dt);
    require_memory(record, (steps + 1) * sizeof(double) * (design.descriptor->trajectory_channels.size() + 1),
                   "analysis.reference_run (integrator.duration / integrator.dt = " + std::to_string(static_cast<long>(steps)) +
                       " steps)",
                   "the nominal run's trajectory (the tracking_rms reference)",
                   "set [analysis] reference_run = false, or use a larger integrator.dt");
  }
  const long instances = std::max<long>(design.instance_count(), 1);
  if (requested > 0) {
    const long chunk = std::min(requested, instances);
    require_memory(record, run_chunk_bytes(record, design, chunk),
                   "the chunk size " + std::to_string(requested) + " (--chunk-size or execution.chunk_size)",
                   "one chunk's parameters, summaries and trajectories", "use a smaller chunk size or a larger output.trajectory_stride");
    return chunk;
  }
  const double quarter = memory_budget().bytes / 4.0;
  // CPU: >= 20 chunks, for progress and resume granularity. GPU: one thread
  // per instance, and the throughput rises with the instances in flight until
  // ~1e5 (H100, bench_throughput: 1.9e8 instance-steps/s at 1e4 instances,
  // 2.6e8 at 1e5; the lift-tilt's 10 000-instance Monte Carlo study took 87 s
  // in chunks of 500 and the 1792-instance Sobol' study 6 s in one chunk
  // against > 60 s in chunks of 256), so a chunk is as large as memory allows.
  // A CPU chunk is a whole number of lockstep groups on every thread (the
  // widest lane width times the threads): one of 9 instances on one thread
  // ran as two groups of 8 lanes, the second with one lane busy, and so took
  // as long as 16 (200 instances: 0.82 s instead of 0.52 s, docs/performance.md §1).
  // At least four groups per thread: the threads wait for each other at every
  // chunk's end, and with one group each the slower group sets the pace of
  // every chunk (200 four-bars on 2 threads: 13 chunks of one group per
  // thread ran ~4 % slower than 2 chunks; a small study needs no 20 chunks).
  const long group = static_cast<long>(widest_lanes()) * std::max(threads, 1);
  long chunk = device ? std::min<long>(instances, 262144)
                      : (std::clamp<long>(instances / 20, 4 * group, 65536) + group - 1) / group * group;
  chunk = std::min(chunk, instances);
  while (chunk > 1 && run_chunk_bytes(record, design, chunk) > quarter) {
    chunk = std::max<long>(1, chunk / 2);
    if (!device && chunk > group) chunk -= chunk % group;
  }
  require_memory(record, run_chunk_bytes(record, design, chunk),
                 "output.trajectory_stride = " + std::to_string(record.trajectory_stride),
                 "the trajectories of one instance", "raise the stride or shorten the run");
  return chunk;
}

void plan_constrained_memory(const StudyRecord& record, const Design& design, int threads) {
  const ConstrainedModel* c = design.descriptor->constrained;
  if (!c) return;
  // The largest point of the design, times the points linearized at once.
  double worst = 0.0;
  long worst_n = 0, worst_m = 0;
  const long count = design.instance_count(), chunk = 4096;
  for (long first = 0; first < count; first += chunk) {
    const long k = std::min(chunk, count - first);
    const std::vector<double> rows = design.rows(first, k);
    for (long i = 0; i < k; ++i) {
      long n = 0, m = 0;
      c->size(rows.data() + i * design.parameter_count(), n, m);
      const double b = constrained_point_bytes(n, m);
      if (b > worst) { worst = b; worst_n = n; worst_m = m; }
    }
  }
  const bool fixed_size = c->size_key.empty();
  require_memory(record, worst * threads, fixed_size ? "model " + c->name : c->size_key,
                 "the dense matrices of " + std::to_string(threads) + " point(s) linearized at once (n = " +
                     std::to_string(worst_n) + " coordinates, m = " + std::to_string(worst_m) +
                     " constraints: pencils of order up to 2n + m)",
                 fixed_size ? std::string("use fewer threads (--threads)")
                            : "choose a smaller " + c->size_key + " or fewer threads (--threads)");
}

void plan_stability_memory(const StudyRecord& record, const Design& design) {
  const double n = static_cast<double>(design.instance_count());
  const double varied = static_cast<double>(design.varied_names().size());
  // Rows and the kernel's typed copy of them, one result per point and its
  // instance-check message (Design::instance_problems).
  const double params = 2.0 * sizeof(double) * design.descriptor->parameters.size();
  require_memory(record, n * (params + sizeof(StabilityPoint) + sizeof(std::string) + (varied + 2) * sizeof(double)),
                 instances_key(design), "the parameters and results of " + std::to_string(design.instance_count()) + " points",
                 "split the study into several smaller ones");
}

}  // namespace hs
