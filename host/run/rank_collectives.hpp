// Collective steps of a study shared by several ranks (host/run/ranks.hpp):
// whatever one step throws, every rank ends the same way, with the same
// exception type and message, which only rank 0 reports (host/cli/main.cpp).
// With one process each is just the step.
#pragma once
#include <exception>
#include <string>
#include <vector>

#include "host/run/ranks.hpp"

namespace hs {

// An exception as text ("kind" letter + message) and back, for ResumeError,
// OutputError, StudyError and any other std::exception (host/run/rank_collectives.cpp).
std::string verdict_of(const std::exception& e);
[[noreturn]] void throw_verdict(const std::string& verdict);

// Runs `step` on rank 0 alone; the other ranks wait for its verdict and end
// the same way (the same exception; only rank 0 reports it, host/cli/main.cpp).
// One process: `step` itself.
template <class Step>
void on_root(const Ranks& ranks, Step&& step) {
  if (ranks.size() == 1) return step();
  std::string verdict;
  if (ranks.root()) {
    try {
      step();
    } catch (const std::exception& e) {
      verdict = verdict_of(e);
    }
  }
  ranks.barrier();  // the others sleep while rank 0 works
  verdict = ranks.broadcast(verdict);
  if (!verdict.empty()) throw_verdict(verdict);
}

// Runs `step` on every rank; when any fails, every rank throws: the failing
// ranks' messages ("rank r: ..."), of the first failing rank's kind. One
// process: `step` itself.
template <class Step>
void on_every_rank(const Ranks& ranks, Step&& step) {
  if (ranks.size() == 1) return step();
  std::string mine;
  try {
    step();
  } catch (const std::exception& e) {
    mine = verdict_of(e);
  }
  ranks.barrier();  // ranks done early sleep until the last one is
  std::string verdict;
  if (ranks.root()) {
    const std::vector<std::string> all = ranks.gather(mine);
    for (size_t r = 0; r < all.size(); ++r) {
      if (all[r].empty()) continue;
      if (verdict.empty()) verdict = all[r].substr(0, 1);
      else verdict += "\n";
      verdict += "rank " + std::to_string(r) + ": " + all[r].substr(1);
    }
  } else {
    ranks.gather(mine);
  }
  verdict = ranks.broadcast(verdict);
  if (!verdict.empty()) throw_verdict(verdict);
}

}  // namespace hs
