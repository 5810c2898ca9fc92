// Embeds the batch engine (hydrosweep::host): loads a study file and runs it
// into an output directory, as `hydrosweep run STUDY --out DIR` does
// (host/cli/main.cpp), and reports what the engine reports. Errors are the
// engine's exceptions, printed with their message.
#include <cstdio>
#include <exception>

#include "host/cli/run_study.hpp"
#include "host/study/study.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: embed_host STUDY.toml OUT_DIR\n");
    return 2;
  }
  try {
    const hs::Study study = hs::load_study(argv[1]);
    hs::StudyRunOptions options;
    options.progress = hs::ProgressStyle::none;
    options.backend = hs::Backend::cpu;
    const hs::StudyRunReport report = hs::run_study(study.record(), study.design(), argv[2], options);
    std::printf("instances %ld failed %ld steps %ld backend %s\nwrote %s\n", report.instances, report.failed,
                report.steps, report.backend.c_str(), report.paths.summary_csv.c_str());
    return report.failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed_host: %s\n", e.what());
    return 2;
  }
}
