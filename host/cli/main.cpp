// hydrosweep: command-line front end.
//
//   hydrosweep run STUDY.toml --out DIR [--threads N] [--quiet]
//   hydrosweep check STUDY.toml            validate a study, print its grid
//   hydrosweep parameters [--model NAME]   Markdown table of all parameters
//
// Exit codes: 0 success (instances that failed are flagged in the outputs,
// they are results, not errors); 2 bad study file or command line (nothing is
// written); 1 anything else (I/O, HDF5, out of memory).
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "host/batch.hpp"
#include "host/output.hpp"
#include "host/parameters.hpp"
#include "host/study.hpp"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// A usage-class error (exit 2), raised after CLI11 has parsed the line.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string fmt(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string plural(long n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

void print_study(const hs::Study& s) {
  std::printf("study \"%s\" (%s): %s, model %s, friction %s, dt %s s, duration %s s\n", s.name.c_str(), s.path.c_str(),
              plural(s.instance_count(), "instance").c_str(), s.model.c_str(), hs::friction_model_name(s.friction).c_str(),
              fmt(s.settings.dt).c_str(), fmt(s.settings.duration).c_str());
  for (size_t i = 0; i < s.grid.size(); ++i) {
    const auto& a = s.grid[i];
    std::printf("  grid[%zu] %s: %zu values, %s .. %s %s\n", i, a.parameter.c_str(), a.values.size(), fmt(a.values.front()).c_str(),
                fmt(a.values.back()).c_str(), a.info->unit.c_str());
  }
}

int run(const std::string& study_path, const std::string& out_dir, int threads, bool quiet) {
  const hs::Study study = hs::load_study(study_path);  // StudyError: exit 2, nothing written
  try {
    hs::check_output_dir(out_dir);  // fail before the run, not after it
  } catch (const hs::OutputError& e) {
    throw UsageError(std::string("--out: ") + e.what());
  }
  if (!quiet) print_study(study);

  const hs::BatchSpec spec = study.batch_spec(threads);
  const hs::BatchResult result = hs::run_batch_cpu(spec);
  const hs::OutputPaths paths = hs::write_outputs(out_dir, study, spec, result, "cpu");
  if (quiet) return 0;

  long steps = 0;
  std::map<std::string, long> failures;
  for (const auto& s : result.summaries) {
    steps += s.steps;
    if (s.status != hs::Status::ok) ++failures[hs::status_name(s.status)];
  }
  const long n = static_cast<long>(result.summaries.size());
  std::printf("ran %s on %s in %.3f s: %.4g instance-steps/s\n", plural(n, "instance").c_str(),
              plural(result.threads_used, "thread").c_str(), result.wall_seconds,
              result.wall_seconds > 0 ? steps / result.wall_seconds : 0.0);
  std::printf("failed: %ld of %ld", result.failed(), n);
  if (!failures.empty()) {
    std::printf(" (");
    const char* sep = "";
    for (const auto& [name, count] : failures) { std::printf("%s%s %ld", sep, name.c_str(), count); sep = ", "; }
    std::printf(")");
  }
  std::printf("\nwrote %s and %s\n", paths.results_h5.c_str(), paths.summary_csv.c_str());
  return 0;
}

int check(const std::string& study_path) {
  print_study(hs::load_study(study_path));
  return 0;
}

int parameters(const std::string& model) {
  hs::FourBarParams defaults;
  if (!hs::model_defaults(model, defaults)) {
    std::string names;
    for (const auto& m : hs::model_names()) names += (names.empty() ? "" : ", ") + m;
    throw UsageError("--model \"" + model + "\" is not one of " + names);
  }
  std::printf("| Parameter | Unit | Range | Default (%s) | Description |\n", model.c_str());
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (const auto& p : hs::four_bar_parameters())
    std::printf("| `%s` | %s | %s | %s | %s |\n", p.name.c_str(), p.unit.c_str(), p.range_text().c_str(),
                fmt(p.field(defaults)).c_str(), p.description.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hydrosweep: batch simulation of hydraulically actuated four-bar mechanisms"};
  app.set_version_flag("--version", hs::hydrosweep_version());
  app.require_subcommand(1);

  std::string study_path, out_dir, model = "four-bar";
  int threads = 0;
  bool quiet = false;
  CLI::App* run_cmd = app.add_subcommand("run", "Run every instance of a study and write DIR/results.h5 and DIR/summary.csv");
  run_cmd->add_option("study", study_path, "Study file (TOML)")->required();
  run_cmd->add_option("-o,--out", out_dir, "Output directory (created if missing)")->required();
  run_cmd->add_option("-j,--threads", threads, "CPU threads (default: all cores)")->check(CLI::PositiveNumber);
  run_cmd->add_flag("-q,--quiet", quiet, "Print nothing on success");
  CLI::App* check_cmd = app.add_subcommand("check", "Validate a study file and print its grid");
  check_cmd->add_option("study", study_path, "Study file (TOML)")->required();
  CLI::App* params_cmd = app.add_subcommand("parameters", "Print the parameter table (Markdown)");
  params_cmd->add_option("--model", model, "Model whose defaults are shown");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hydrosweep: error: " << e.what() << "\n(run 'hydrosweep --help' for usage)\n";
    return kExitUsage;
  }

  try {
    if (*run_cmd) return run(study_path, out_dir, threads, quiet);
    if (*check_cmd) return check(study_path);
    if (*params_cmd) return parameters(model);
  } catch (const hs::StudyError& e) {
    std::cerr << "hydrosweep: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const UsageError& e) {
    std::cerr << "hydrosweep: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "hydrosweep: error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitUsage;
}
