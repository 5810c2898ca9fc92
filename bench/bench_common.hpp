// Helpers shared by the benchmark programs: the benchmark instance set,
// a description of the machine and build (so a result file says where its
// numbers come from), a small JSON writer and argv parsing.
#pragma once
#include "host/build_paths.hpp"
#include "host/run/batch.hpp"
#include "host/registry/models.hpp"
#include "host/results/output.hpp"
#include "host/design/sampling.hpp"
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernels/models/four_bar.hpp"

namespace hs::bench {

// Length of the seed 002 work cycle [s]: the unit in which throughput is
// reported ("work cycles per second"), whatever --duration is.
constexpr double kWorkCycleSeconds = 10.0;

// ---------------------------------------------------------------------------
// The benchmark instance set

// splitmix64: a tiny, well-mixed, fully deterministic generator, so the
// instance set is identical on every machine and compiler (std::
// distributions are not specified bit-for-bit across standard libraries).
inline uint64_t splitmix64(uint64_t& state) { return hs::mix64(state += 0x9E3779B97F4A7C15ull); }
// Uniform in [0, 1) from the top 53 bits.
inline double uniform01(uint64_t& state) { return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53; }

// N copies of the seed 002 four-bar whose Coulomb friction force is scaled
// by 1 ± 10 % (uniform, deterministic). The perturbation makes every
// instance a different trajectory (different Newton histories), as in a
// real parameter sweep, while keeping all of them well inside the model's
// admissible range, so none fails and the work per instance stays
// representative of the default model.
inline std::vector<FourBarParams> perturbed_four_bars(long n, uint64_t seed = 2024) {
  std::vector<FourBarParams> out;
  out.reserve(static_cast<size_t>(n));
  uint64_t state = seed;
  for (long i = 0; i < n; ++i) {
    FourBarParams P = seed002_four_bar();
    P.actuator[0].friction.coulomb_force *= 1.0 + 0.1 * (2.0 * uniform01(state) - 1.0);
    out.push_back(P);
  }
  return out;
}

// The same instances as parameter rows of a registered model (default
// "four-bar": rows are built exactly as perturbed_four_bars draws them), in a
// batch with Brown–McPhee friction and the double step (the host's flat
// representation). Every actuator's Coulomb force takes the instance's one
// scale; a model with a controller runs it (lift-tilt: the VDC inside the kernel).
// The descriptor may also be a model file's (bench/model_file_throughput.cpp).
inline hs::BatchSpec perturbed_batch(long n, const hs::ModelDescriptor& m, uint64_t seed = 2024) {
  hs::BatchSpec spec;
  spec.model = &m;
  spec.friction = "brown-mcphee";
  spec.formulation = "double-step";
  // Every actuator's Coulomb force ("friction.coulomb_force" or
  // "actuator<k>.friction.coulomb_force"), one draw per instance.
  const std::string tail = "friction.coulomb_force";
  std::vector<int> coulomb;
  for (const auto& info : m.parameters)
    if (info.name.size() >= tail.size() && info.name.compare(info.name.size() - tail.size(), tail.size(), tail) == 0)
      coulomb.push_back(info.index);
  spec.parameters.reserve(static_cast<size_t>(n * m.parameter_count()));
  uint64_t state = seed;
  for (long i = 0; i < n; ++i) {
    std::vector<double> row = m.defaults;
    const double scale = 1.0 + 0.1 * (2.0 * uniform01(state) - 1.0);
    for (int c : coulomb) row[c] *= scale;
    spec.parameters.insert(spec.parameters.end(), row.begin(), row.end());
  }
  return spec;
}
inline hs::BatchSpec perturbed_batch(long n, const std::string& model = "four-bar", uint64_t seed = 2024) {
  const hs::ModelDescriptor* found = hs::find_model(model);
  if (!found) {
    std::fprintf(stderr, "bench: unknown model '%s'\n", model.c_str());
    std::exit(2);
  }
  return perturbed_batch(n, *found, seed);
}

// The median of repeated measurements (the mean of the middle two for an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Sum of a summary column over a batch's instances.
inline double column_sum(const hs::BatchResult& r, const hs::ModelDescriptor& m, const char* column) {
  const long c = m.summary_column(column);
  double sum = 0.0;
  for (long i = 0; i < r.instance_count(); ++i) sum += r.summary(i, c);
  return sum;
}
inline double column_max(const hs::BatchResult& r, const hs::ModelDescriptor& m, const char* column) {
  const long c = m.summary_column(column);
  double best = 0.0;
  for (long i = 0; i < r.instance_count(); ++i) best = std::max(best, r.summary(i, c));
  return best;
}

// One CPU batch's successful instance-steps per wall second (the instance
// loop only); the batch's result into *keep when asked.
inline double steps_per_second(const hs::BatchSpec& spec, hs::BatchResult* keep = nullptr) {
  hs::BatchResult r = hs::run_batch_cpu(spec);
  const double rate = column_sum(r, *spec.model, "steps") / r.wall_seconds;
  if (keep) *keep = std::move(r);
  return rate;
}

// ---------------------------------------------------------------------------
// Machine and build description

inline std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// The CPU model line of host/ (first "model name" of /proc/cpuinfo).
using hs::cpu_model;

inline int logical_cores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

inline std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

inline std::string compiler_description() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

// Output of a shell command, trimmed ("" on failure). Only used for git.
inline std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, f)) out += buf;
    if (pclose(f) != 0) return "";
  }
  return trim(out);
}

// Commit of the source tree the binary was built from, with "-dirty" when
// tracked files of kernels/ or host/ have uncommitted changes (new,
// untracked files cannot change what an existing build compiles unless a
// tracked file changes too): the kernels evolve, and a
// figure is only meaningful next to the code that produced it. Read at run
// time, so it describes the tree at measurement time (the binary should be
// rebuilt first).
inline std::string source_revision() {
#ifdef HS_SOURCE_DIR
  const std::string git = std::string("git -C '") + HS_SOURCE_DIR + "' ";
  std::string rev = command_output(git + "rev-parse --short HEAD 2>/dev/null");
  if (rev.empty()) return "unknown";
  if (!command_output(git + "status --porcelain --untracked-files=no -- kernels host 2>/dev/null").empty())
    rev += "-dirty";
  return rev;
#else
  return "unknown";
#endif
}

// "AMD EPYC 7B13 64-Core Processor" -> "amd-epyc-7b13-64-core-processor":
// a file-name-safe machine tag for the result files.
inline std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

// Tag naming a machine in result files: CPU model and logical core count
// ("amd-epyc-2c"), which is what the figures depend on (host names of cloud
// VMs say nothing).
inline std::string machine_tag() { return slug(cpu_model()) + "-" + std::to_string(logical_cores()) + "c"; }

// ---------------------------------------------------------------------------
// Minimal JSON writer: nested objects/arrays, commas handled by a stack.

class Json {
 public:
  Json& begin_object(const char* key = nullptr) { open(key, '{'); return *this; }
  Json& end_object() { close('}'); return *this; }
  Json& begin_array(const char* key = nullptr) { open(key, '['); return *this; }
  Json& end_array() { close(']'); return *this; }
  Json& field(const char* key, const std::string& v) { prefix(key); quote(v); return *this; }
  Json& field(const char* key, const char* v) { return field(key, std::string(v)); }
  Json& field(const char* key, double v) {
    prefix(key);
    char buf[40];
    // Non-finite numbers are not JSON: write null.
    if (v == v && v - v == 0.0) std::snprintf(buf, sizeof buf, "%.6g", v);
    else std::snprintf(buf, sizeof buf, "null");
    s_ << buf;
    return *this;
  }
  Json& field(const char* key, long v) { prefix(key); s_ << v; return *this; }
  Json& field(const char* key, int v) { return field(key, static_cast<long>(v)); }
  Json& field(const char* key, bool v) { prefix(key); s_ << (v ? "true" : "false"); return *this; }
  std::string str() const { return s_.str() + "\n"; }

 private:
  void indent() { s_ << '\n' << std::string(2 * first_.size(), ' '); }
  void prefix(const char* key) {
    if (!first_.empty()) {
      if (!first_.back()) s_ << ',';
      first_.back() = false;
      indent();
    }
    if (key) { quote(key); s_ << ": "; }
  }
  void open(const char* key, char bracket) {
    prefix(key);
    s_ << bracket;
    first_.push_back(true);
  }
  void close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) indent();
    s_ << bracket;
  }
  void quote(const std::string& v) {
    s_ << '"';
    for (char c : v) {
      if (c == '"' || c == '\\') s_ << '\\' << c;
      else if (static_cast<unsigned char>(c) < 0x20) s_ << ' ';
      else s_ << c;
    }
    s_ << '"';
  }
  std::ostringstream s_;
  std::vector<bool> first_;  // per open container: no element written yet
};

// The "machine" object every result file starts with.
inline void write_machine(Json& j) {
  j.begin_object("machine")
      .field("cpu_model", cpu_model())
      .field("logical_cores", logical_cores())
      .field("hostname", host_name())
      .field("compiler", compiler_description())
#ifdef HS_BENCH_CXX_FLAGS
      .field("cxx_flags", HS_BENCH_CXX_FLAGS)
#endif
      .field("source_revision", source_revision())
      .field("date_utc", hs::utc_now_iso8601())
      .end_object();
}

inline bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

// Write a benchmark's result file and say where; false (after a message on
// stderr) if it cannot be written.
inline bool save_result(const std::string& path, const Json& j) {
  if (!write_file(path, j.str())) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("wrote %s\n", path.c_str());
  return true;
}

// ---------------------------------------------------------------------------
// argv: "--name value" pairs.

class Args {
 public:
  Args(int argc, char** argv) : argv_(argv + 1, argv + argc) {}
  // Value after `name`, or `fallback`. Exits with a message on a missing value.
  std::string get(const std::string& name, const std::string& fallback) const {
    for (size_t i = 0; i < argv_.size(); ++i) {
      if (argv_[i] != name) continue;
      if (i + 1 >= argv_.size()) {
        std::fprintf(stderr, "%s needs a value\n", name.c_str());
        std::exit(2);
      }
      return argv_[i + 1];
    }
    return fallback;
  }
  double number(const std::string& name, double fallback) const {
    const std::string v = get(name, "");
    if (v.empty()) return fallback;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0') {
      std::fprintf(stderr, "%s: not a number: %s\n", name.c_str(), v.c_str());
      std::exit(2);
    }
    return x;
  }
  bool flag(const std::string& name) const {
    for (const auto& a : argv_)
      if (a == name) return true;
    return false;
  }
  // Exit with `usage` if an argument is not one of `known` (catches typos
  // that would otherwise silently run the default benchmark).
  void check_known(const std::vector<std::string>& valued, const std::vector<std::string>& flags,
                   const char* usage) const {
    auto contains = [](const std::vector<std::string>& list, const std::string& a) {
      for (const auto& k : list)
        if (a == k) return true;
      return false;
    };
    for (size_t i = 0; i < argv_.size(); ++i) {
      const std::string& a = argv_[i];
      if (contains(valued, a)) { ++i; continue; }  // skip its value
      if (contains(flags, a)) continue;
      std::fprintf(stderr, "unknown argument: %s\n%s", a.c_str(), usage);
      std::exit(a == "--help" || a == "-h" ? 0 : 2);
    }
  }

 private:
  std::vector<std::string> argv_;
};

}  // namespace hs::bench
