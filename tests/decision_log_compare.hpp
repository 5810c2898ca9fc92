// Where two decision logs of one instance part (kernels/core/decision_log.hpp):
// the host's and the device's in device_trace_decisions (tests/device_trace.cu,
// docs/gpu.md §7), a planted difference in tests/test_decision_log.cpp.
// Host code only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/core/decision_log.hpp"

namespace hs {
namespace decision_compare {

// One side's log as read back: the stored entries and how many were taken
// (count > entries.size(): the log was full, the rest was not stored).
struct Side {
  std::vector<DecisionEntry> entries;
  long count = 0;
};

// The entries a log holds: all it took, or its capacity when it was full.
inline long stored_entries(const DecisionLog& l) { return l.count < l.capacity ? l.count : l.capacity; }

// A log in host memory of `capacity` entries: install `log`, run, read `side()`.
struct HostDecisionLog {
  std::vector<DecisionEntry> storage;
  DecisionLog log;
  explicit HostDecisionLog(long capacity) : storage(static_cast<size_t>(capacity)) {
    log.entries = storage.data();
    log.capacity = capacity;
  }
  Side side() const {
    Side s;
    s.count = log.count;
    s.entries.assign(storage.begin(), storage.begin() + stored_entries(log));
    return s;
  }
};

struct Parting {
  long index = -1;  // the first entry whose site or outcome differs, or where one log ends; -1: none
  long marks = 0;   // trace marks before it (a run trace marks each step: its step number)
  double mark_value = std::nan("");    // the last mark's value (the step's t)
  long first_value_difference = -1;    // the first entry before `index` whose value or threshold differ (> 1e-12 relative)
};

inline bool same_decision(const DecisionEntry& a, const DecisionEntry& b) { return a.site == b.site && a.taken == b.taken; }

inline bool values_differ(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return false;
  return !(std::fabs(a - b) <= 1e-12 * std::fmax(std::fabs(a), std::fabs(b)));
}

// How close a decision was: |value − threshold| over the larger magnitude
// (0: a tie, which a one-ulp difference of either side can flip).
inline double relative_margin(const DecisionEntry& e) {
  const double scale = std::fmax(std::fabs(e.value), std::fabs(e.threshold));
  return scale > 0.0 ? std::fabs(e.value - e.threshold) / scale : 0.0;
}

inline Parting find_parting(const Side& a, const Side& b) {
  Parting p;
  const long stored = static_cast<long>(std::min(a.entries.size(), b.entries.size()));
  const int mark = static_cast<int>(DecisionSite::trace_mark);
  for (long i = 0; i < stored; ++i) {
    const DecisionEntry& x = a.entries[static_cast<size_t>(i)];
    const DecisionEntry& y = b.entries[static_cast<size_t>(i)];
    if (!same_decision(x, y)) {
      p.index = i;
      return p;
    }
    if (p.first_value_difference < 0 && (values_differ(x.value, y.value) || values_differ(x.threshold, y.threshold)))
      p.first_value_difference = i;
    if (x.site == mark) {
      ++p.marks;
      p.mark_value = x.value;
    }
  }
  // Equal as far as both were stored: they part where one ends first.
  if (a.count != b.count) p.index = stored;
  return p;
}

inline std::string format_entry(const char* side, long i, const DecisionEntry& e) {
  char line[256];
  std::snprintf(line, sizeof line, "    %-6s #%-8ld %-22s %-9s value % .17e threshold % .17e margin %.2e\n", side, i,
                decision_site_name(e.site), e.taken ? "taken" : "not taken", e.value, e.threshold, relative_margin(e));
  return line;
}

// What the trace prints for one combination: the parting decision on both
// sides with the entries before it, the first value that differed, and the
// closest calls before the parting (the candidates a one-ulp change flips).
inline std::string describe(const Side& host, const Side& device, const std::string& what) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%s decisions: host %ld, device %ld", what.c_str(), host.count, device.count);
  out += line;
  for (const Side* s : {&host, &device})
    if (s->count > static_cast<long>(s->entries.size())) {
      std::snprintf(line, sizeof line, " (%s log full: %ld not stored)", s == &host ? "host" : "device",
                    s->count - static_cast<long>(s->entries.size()));
      out += line;
    }
  out += "\n";
  const Parting p = find_parting(host, device);
  const long shown_until = p.index >= 0 ? p.index : static_cast<long>(std::min(host.entries.size(), device.entries.size()));
  if (p.first_value_difference >= 0) {
    const long i = p.first_value_difference;
    std::snprintf(line, sizeof line, "  first value difference at #%ld:\n", i);
    out += line;
    out += format_entry("host", i, host.entries[static_cast<size_t>(i)]);
    out += format_entry("device", i, device.entries[static_cast<size_t>(i)]);
  }
  if (p.index < 0) {
    out += "  the same decisions in the same order\n";
  } else {
    std::snprintf(line, sizeof line, "  parted at decision #%ld, after %ld marks (last mark %.9g):\n", p.index, p.marks,
                  p.mark_value);
    out += line;
    for (long i = std::max(0L, p.index - 6); i < p.index; ++i) out += format_entry("both", i, host.entries[static_cast<size_t>(i)]);
    if (p.index < static_cast<long>(host.entries.size())) out += format_entry("host", p.index, host.entries[static_cast<size_t>(p.index)]);
    else out += "    host   (no more decisions)\n";
    if (p.index < static_cast<long>(device.entries.size()))
      out += format_entry("device", p.index, device.entries[static_cast<size_t>(p.index)]);
    else out += "    device (no more decisions)\n";
  }
  // The five closest calls before the parting, on the host's values.
  std::vector<long> order;
  for (long i = 0; i < shown_until; ++i)
    if (host.entries[static_cast<size_t>(i)].site != static_cast<int>(DecisionSite::trace_mark)) order.push_back(i);
  const size_t k = std::min<size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(), [&](long a, long b) {
    return relative_margin(host.entries[static_cast<size_t>(a)]) < relative_margin(host.entries[static_cast<size_t>(b)]);
  });
  if (k > 0) out += "  closest calls before it (host values):\n";
  for (size_t j = 0; j < k; ++j) out += format_entry("host", order[j], host.entries[static_cast<size_t>(order[j])]);
  return out;
}

}  // namespace decision_compare
}  // namespace hs
