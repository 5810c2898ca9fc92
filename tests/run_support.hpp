// Runs a study given as text on the CPU backend and reads its summary
// columns and trajectory channels by name (tests of formulations and
// friction laws through the engine: test_lugre, test_penalty).
#pragma once
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host/build_paths.hpp"
#include "host/run/batch.hpp"
#include "host/study/study.hpp"

namespace hs::run_test {

struct StudyRun {
  Study study;
  BatchResult result;
  double column(const char* name, long instance = 0) const {
    return result.summary(instance, study.descriptor->summary_column(name));
  }
  std::vector<double> channel(const char* name, long instance = 0) const {
    const auto& ch = study.descriptor->trajectory_channels;
    long c = -1;
    for (size_t k = 0; k < ch.size(); ++k)
      if (ch[k].name == name) c = static_cast<long>(k);
    std::vector<double> out;
    for (long k = 0; k < result.samples_per_instance; ++k)
      out.push_back(result.trajectories[(instance * result.samples_per_instance + k) * result.sample_width + c]);
    return out;
  }
};

inline StudyRun run_study_text(const std::string& text) {
  StudyRun r{parse_study(text, "inline.toml"), {}};
  r.result = run_batch_cpu(hs::batch_spec(r.study.record(), r.study.design(), 1));
  return r;
}

// A shipped study's text with `key = old` replaced by `key = new` (exact text).
inline std::string shipped_study(const std::string& file) {
  std::ifstream in(std::string(HYDROSWEEP_SOURCE_DIR) + "/studies/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace hs::run_test
