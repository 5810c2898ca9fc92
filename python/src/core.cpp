// hydrosweep._core: the Python binding of the host library (pybind11).
//
// The same host calls as the CLI (host/cli/main.cpp): run() is `hydrosweep run
// STUDY --out DIR --progress none --quiet`, stability() is `hydrosweep
// stability STUDY --out DIR --quiet` without the PNG. Results are not passed
// back as arrays: the files are the results (the pure-Python layer reads
// DIR/results.h5 or DIR/stability.h5 with h5py), so a study run from Python
// and one run from the CLI are the same files.
//
// Errors: every C++ exception is caught here and raised as a Python exception
// whose message is e.what(), the text the CLI prints after "hydrosweep:
// error: ". The classes follow the CLI's exit codes: exit 2 (hs::StudyError,
// a refused resume, a usage error) -> hydrosweep.StudyError (ValueError);
// exit 1 (hs::OutputError, every other std::exception) ->
// hydrosweep.HydrosweepError (RuntimeError), hs::OutputError as its subclass
// hydrosweep.OutputError. (hs::run_study raises hs::ResumeError for every
// refusal before a run -- a resume that does not fit, a backend this build
// lacks -- so it is a StudyError, as in the CLI.)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <limits>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/registry/model_file.hpp"
#include "host/registry/models.hpp"
#include "host/results/commit.hpp"
#include "host/results/output.hpp"
#include "host/run/chunk_store.hpp"
#include "host/run/memory_budget.hpp"
#include "host/run/batch.hpp"
#include "host/run/ranks.hpp"
#include "host/cli/run_study.hpp"
#include "host/run/stability_map.hpp"
#include "host/study/study.hpp"

namespace py = pybind11;

namespace {

// A usage-class error (the CLI's UsageError: exit 2): raised as StudyError.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// An interrupted run (Ctrl-C): raised as KeyboardInterrupt.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

PyObject* g_study_error = nullptr;      // hydrosweep.StudyError(ValueError)
PyObject* g_hydrosweep_error = nullptr; // hydrosweep.HydrosweepError(RuntimeError)
PyObject* g_output_error = nullptr;     // hydrosweep.OutputError(HydrosweepError)

// Runs f() and turns whatever it throws into the Python exception of its
// class (above), message e.what(). Called with the GIL held; f may release it.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (py::error_already_set&) {
    throw;  // already a Python exception
  } catch (const hs::StudyError& e) {
    PyErr_SetString(g_study_error, e.what());
  } catch (const hs::ResumeError& e) {
    PyErr_SetString(g_study_error, e.what());
  } catch (const UsageError& e) {
    PyErr_SetString(g_study_error, e.what());
  } catch (const hs::ModelFileError& e) {
    PyErr_SetString(g_study_error, e.what());
  } catch (const Interrupted& e) {
    PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
  } catch (const hs::OutputError& e) {
    PyErr_SetString(g_output_error, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(g_hydrosweep_error, e.what());
  } catch (...) {
    PyErr_SetString(g_hydrosweep_error, "unknown C++ exception");
  }
  throw py::error_already_set();
}

// Ctrl-C during a run from the main thread: the first asks the run to stop
// after the instances in flight (as the CLI's handler does); the handler then
// restores the default, so a second Ctrl-C ends the process at once.
std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");
extern "C" void on_interrupt(int) {
  g_cancel.store(true);
  ::signal(SIGINT, SIG_DFL);
}

// Installs on_interrupt for the lifetime of the object and then puts back
// whatever was there (Python's own handler).
class InterruptScope {
 public:
  explicit InterruptScope(bool active) : active_(active) {
    if (!active_) return;
    g_cancel.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    active_ = ::sigaction(SIGINT, &sa, &old_) == 0;
  }
  ~InterruptScope() {
    if (active_) ::sigaction(SIGINT, &old_, nullptr);
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  bool active_;
  struct sigaction old_ {};
};

// One study at a time per process: HDF5 (Debian's build) is not thread-safe,
// and the signal handler above has one flag.
std::mutex g_run_mutex;

// The study: from a file (path; the CLI's hs::load_study) or from TOML text
// with a name for messages (hs::parse_study, e.g. a dict converted to TOML).
hs::Study load(const std::string& path, const std::optional<std::string>& text) {
  if (!text) return hs::load_study(path);
  return hs::parse_study(*text, path);
}

void check_out_dir(const std::string& out_dir) {
  try {
    hs::check_output_dir(out_dir);
  } catch (const hs::OutputError& e) {
    throw hs::OutputError(std::string("--out: ") + e.what());  // the CLI's text
  }
}

hs::Backend backend_of(const std::string& name) {
  hs::Backend b = hs::Backend::automatic;
  if (!hs::parse_backend(name, b)) throw UsageError("backend \"" + name + "\" is not one of auto, cpu, cuda, kokkos");
  return b;
}

std::string join_notes(const std::string& a, const std::string& b) { return a.empty() ? b : b.empty() ? a : a + "; " + b; }

void check_counts(int threads, long chunk_size) {
  if (threads < 0) throw UsageError("threads = " + std::to_string(threads) + ": must be >= 0 (0: all cores)");
  if (chunk_size < 0)
    throw UsageError("chunk_size = " + std::to_string(chunk_size) + ": must be >= 0 (0: the study's or automatic)");
}

// hydrosweep run STUDY --out DIR [--threads N] [--backend B] [--chunk-size N]
// [--resume] [--extend N] --progress none --quiet (host/cli/main.cpp, run()).
// progress: None, or a callable(done, total, final) the run calls every 250 ms
// and once at the end, from its progress thread with the GIL taken; an
// exception it raises is reported as unraisable and the run goes on.
py::dict run(const std::string& path, const std::optional<std::string>& text, const std::string& out_dir, int threads,
             const std::string& backend, long chunk_size, bool resume, long extend, bool handle_interrupt,
             py::object progress) {
  return guarded([&] {
    check_counts(threads, chunk_size);
    hs::StudyRunOptions opt;
    opt.backend = backend_of(backend);
    // At most the processors here, with a note (issue 36 class 4; the CLI's -j).
    std::string thread_note;
    opt.threads = hs::usable_threads(threads, &thread_note);
    opt.chunk_size = chunk_size;
    opt.resume = resume;
    opt.progress = hs::ProgressStyle::none;
    if (!progress.is_none()) {
      opt.progress = hs::ProgressStyle::callback;
      opt.progress_callback = [progress](long done, long total, bool final) {
        py::gil_scoped_acquire gil;
        try {
          progress(done, total, final);
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("hydrosweep.run progress");
        }
      };
    }
    std::atomic<bool> never{false};
    hs::StudyRunReport rep;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(g_run_mutex);
      hs::Study study = load(path, text);
      hs::require_command(study, "run");
      check_out_dir(out_dir);
      // extend > 0: the study with `extend` more samples, keeping the finished
      // run in out_dir (hs::extend_study; its refusals are ResumeErrors).
      std::unique_ptr<hs::FinishedRun> finished;
      if (extend != 0) {
        hs::ExtendedStudy larger = hs::extend_study(study, out_dir, extend);
        study = std::move(larger.study);
        finished = std::move(larger.finished);
        opt.extend = finished.get();
      }
      InterruptScope interrupts(handle_interrupt);
      opt.cancel = handle_interrupt ? &g_cancel : &never;
      // hs::ResumeError (a refused resume or backend): StudyError, the CLI's exit 2.
      rep = hs::run_study(study.record(), study.design(), out_dir, opt);
    }
    if (rep.interrupted) {
      const long saved = rep.resumed + rep.ran;
      if (saved == 0) throw Interrupted("interrupted before the first chunk finished: nothing was saved");
      throw Interrupted("interrupted: " + std::to_string(saved) + " of " + std::to_string(rep.instances) +
                        " instances are saved in " + out_dir + "/" + hs::kPartialDirName +
                        "; continue with resume=True" + (extend != 0 ? " and extend=" + std::to_string(extend) : ""));
    }
    py::dict r;
    r["command"] = "run";
    r["instances"] = rep.instances;
    r["ran"] = rep.ran;
    r["resumed"] = rep.resumed;
    r["extended_from"] = rep.extended_from;
    r["failed"] = rep.failed;
    r["steps"] = rep.steps;
    py::dict failures;
    for (const auto& [name, count] : rep.failures) failures[py::str(name)] = count;
    r["failures"] = failures;
    r["wall_seconds"] = rep.wall_seconds;
    r["threads"] = rep.threads;
    r["backend"] = rep.backend;
    r["note"] = join_notes(thread_note, rep.note);
    r["chunk_size"] = rep.chunk_size;
    r["chunks"] = rep.chunks;
    r["results_h5"] = rep.paths.results_h5;
    r["summary_csv"] = rep.paths.summary_csv;
    return r;
  });
}

// hydrosweep stability STUDY --out DIR [--threads N] [--backend B] --quiet
// (host/cli/main.cpp, stability()), without stability_map.png.
py::dict stability(const std::string& path, const std::optional<std::string>& text, const std::string& out_dir, int threads,
                   const std::string& backend_flag) {
  return guarded([&] {
    check_counts(threads, 0);
    std::string thread_note;
    threads = hs::usable_threads(threads, &thread_note);
    const hs::Backend flag = backend_of(backend_flag);
    py::dict r;
    std::string note, model, friction;
    hs::RunRecord rec;
    hs::StabilityOutputPaths paths;
    long n = 0, failed = 0, stable = 0, unstable = 0, overdamped = 0;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(g_run_mutex);
      const hs::Study study = load(path, text);
      hs::require_command(study, "stability");
      check_out_dir(out_dir);
      hs::Backend requested = study.backend;
      if (backend_flag != "auto") requested = flag;
      hs::Backend backend;
      try {
        backend = hs::stability_backend(requested, &note, study.descriptor, study.record().friction);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<hs::StabilityPoint> points =
          hs::run_stability(study.record(), study.design(), backend, threads);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      rec.backend = hs::backend_name(backend);
      rec.device = hs::backend_device(backend);
      rec.threads = backend == hs::Backend::cpu ? hs::stability_threads(threads) : 0;
      rec.wall_seconds = wall;
      paths = hs::write_stability_outputs(out_dir, study.record(), study.design(), points, rec);
      model = study.model;
      friction = study.friction;
      n = static_cast<long>(points.size());
      for (const auto& p : points) {
        if (p.status != 0) { ++failed; continue; }
        (p.max_real < 0 ? stable : unstable) += 1;
        overdamped += p.overdamped != 0;
      }
    }
    r["command"] = "stability";
    r["points"] = n;
    r["failed"] = failed;
    r["stable"] = stable;
    r["unstable"] = unstable;
    r["overdamped"] = overdamped;
    r["model"] = model;
    r["friction"] = friction;
    r["backend"] = rec.backend;
    r["device"] = rec.device;
    r["threads"] = rec.threads;
    r["wall_seconds"] = rec.wall_seconds;
    r["note"] = join_notes(thread_note, note);
    r["stability_h5"] = paths.stability_h5;
    r["stability_csv"] = paths.stability_csv;
    return r;
  });
}

py::list outputs_of(const std::vector<hs::OutputInfo>& list) {
  py::list out;
  for (const auto& o : list) {
    py::dict d;
    d["name"] = o.name;
    d["unit"] = o.unit;
    d["description"] = o.description;
    d["integer"] = o.integer;
    out.append(d);
  }
  return out;
}

// hydrosweep.check: the study read and validated as `hydrosweep check` reads
// it (every error a StudyError), and its design: the varied inputs' names and
// units and the first `rows` instances' values (the CLI prints the first ten).
py::dict check(const std::string& path, const std::optional<std::string>& text, long rows) {
  return guarded([&] {
    const hs::Study s = load(path, text);
    py::dict d;
    d["name"] = s.name;
    d["model"] = s.model;
    d["formulation"] = s.formulation;
    d["friction"] = s.friction;
    d["method"] = std::string(hs::sample_method_name(s.method));
    d["instance_count"] = s.instance_count();
    d["varied_names"] = s.varied_names();
    d["varied_units"] = s.varied_units();
    py::list design;
    const long shown = std::min(s.instance_count(), std::max(0L, rows));
    for (long i = 0; i < shown; ++i) design.append(py::cast(s.varied_values(i)));
    d["design"] = design;
    return d;
  });
}

// The finished chunks of an interrupted run in out_dir (hydrosweep.read_partial):
// the study (the one the run was started with) rebuilds the manifest the
// chunks must match, as a resume does (a mismatch is a StudyError naming the
// lines); every chunk present and intact gives its statuses and summary rows,
// the others stay not_run / NaN; a damaged chunk is listed, not read.
// Returned as bytes (status int32, summaries float64 N x C, varied float64
// N x V) for numpy.frombuffer.
py::dict partial(const std::string& path, const std::optional<std::string>& text, const std::string& out_dir) {
  return guarded([&] {
    namespace fs = std::filesystem;
    const hs::Study study = load(path, text);
    hs::require_command(study, "run");
    const fs::path partial_dir = fs::path(out_dir) / hs::kPartialDirName, manifest_path = partial_dir / "manifest";
    if (!fs::exists(manifest_path))
      throw UsageError(out_dir + " holds no interrupted run (no " + manifest_path.string() +
                       (fs::exists(fs::path(out_dir) / "results.h5") ? "; the run finished: read_results reads it)" : ")"));
    const long n = study.instance_count();
    const long samples = hs::sample_count(study.settings, study.trajectory_stride);
    const long chunk = hs::check_manifest(manifest_path, out_dir, hs::manifest_lines(study.record(), study.design(), n, samples), n);
    const auto& columns = study.descriptor->summary_columns;
    const long C = static_cast<long>(columns.size()), W = static_cast<long>(study.descriptor->trajectory_channels.size());
    const std::vector<std::string> varied_names = study.varied_names();
    const long V = static_cast<long>(varied_names.size());
    // The arrays here and their copies into Python bytes (then numpy): twice
    // the statuses (both widths), summary rows and varied inputs.
    hs::require_memory(study.record(),
                       2.0 * static_cast<double>(n) *
                           static_cast<double>((C + V) * sizeof(double) + sizeof(hs::Status) + sizeof(std::int32_t)),
                       "sample.count", "the partial results' statuses, summary rows and varied inputs (and their copies)",
                       "read them on a machine with more memory");
    std::vector<hs::Status> status(static_cast<size_t>(n), hs::Status::not_run);
    std::vector<double> rows(static_cast<size_t>(n * C), std::numeric_limits<double>::quiet_NaN());
    const hs::ChunkIdentity identity{hs::study_hash(study.record()), chunk};
    long finished = 0;
    py::list damaged;
    for (long c = 0, first = 0; first < n; ++c, first += chunk) {
      const fs::path p = hs::chunk_path(partial_dir, c);
      if (!fs::exists(p)) continue;
      const long count = std::min(chunk, n - first);
      std::vector<hs::Status> st(static_cast<size_t>(count));
      std::vector<double> r(static_cast<size_t>(count * C));
      const std::string problem = hs::read_chunk_summaries(p, first, hs::ChunkLayout{count, samples, C, W}, identity,
                                                           st.data(), r.data());
      if (!problem.empty()) {
        damaged.append(py::make_tuple(p.string(), problem));
        continue;
      }
      std::copy(st.begin(), st.end(), status.begin() + first);
      std::copy(r.begin(), r.end(), rows.begin() + first * C);
      finished += count;
    }
    std::vector<std::int32_t> status32(status.size());
    for (size_t i = 0; i < status.size(); ++i) status32[i] = static_cast<std::int32_t>(status[i]);
    std::vector<double> varied(static_cast<size_t>(n * V));
    for (long i = 0; i < n && V > 0; ++i) {
      const std::vector<double> v = study.varied_values(i);
      std::copy(v.begin(), v.end(), varied.begin() + i * V);
    }
    auto bytes = [](const auto& v) {
      return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
    };
    py::dict d;
    d["instance_count"] = n;
    d["finished"] = finished;
    d["chunk_size"] = chunk;
    d["model"] = study.model;
    d["sample_method"] = std::string(hs::sample_method_name(study.method));
    d["status"] = bytes(status32);
    d["status_names"] = hs::status_names();  // as /outputs/status records them
    d["summaries"] = bytes(rows);
    d["output_names"] = outputs_of(columns);
    d["varied_names"] = varied_names;
    d["varied_units"] = study.varied_units();
    d["varied"] = bytes(varied);
    d["damaged"] = damaged;
    return d;
  });
}

// Every registered model (host/registry/models.hpp), in the CLI's order.
py::list models() {
  return guarded([] {
    py::list out;
    for (const auto& m : hs::models()) {
      py::dict d;
      d["name"] = m.name;
      d["title"] = m.title;
      d["source"] = m.source;
      d["doc"] = m.doc;
      d["physics"] = m.physics;
      d["supports"] = hs::model_support_text(m);
      d["commands"] = m.commands;
      d["friction_laws"] = m.friction_laws;
      d["formulations"] = m.formulations;
      d["stability_friction_laws"] = m.stability_friction_laws;
      d["stability_methods"] = m.stability_methods;
      d["parameter_count"] = m.parameter_count();
      d["summary_columns"] = outputs_of(m.summary_columns);
      d["trajectory_channels"] = outputs_of(m.trajectory_channels);
      d["driving_coordinate"] = m.driving_coordinate;
      out.append(d);
    }
    return out;
  });
}

// The parameter table of `hydrosweep parameters --model MODEL` (schedule:
// also the valve schedule's input.* columns, which the CLI leaves out).
py::list parameters(const std::string& model, bool schedule) {
  return guarded([&] {
    // A model file (docs/model-files.md) or a compiled model, as the CLI takes them.
    std::shared_ptr<const hs::ModelDescriptor> from_file;
    if (hs::names_model_file(model)) from_file = hs::load_model_file(model);
    const hs::ModelDescriptor* m = from_file ? from_file.get() : hs::find_model(model);
    if (!m) {
      std::string names;
      for (const auto& n : hs::model_names()) names += (names.empty() ? "" : ", ") + n;
      throw UsageError("--model \"" + model + "\" is not one of " + names + ", nor a model file (FILE.toml)");  // the CLI's text
    }
    py::list out;
    for (const auto& p : m->parameters) {
      const bool is_schedule = p.role == hs::ParameterInfo::Role::input_schedule;
      if (is_schedule && !schedule) continue;
      py::dict d;
      d["name"] = p.name;
      d["unit"] = p.unit;
      d["min"] = p.min;
      d["max"] = p.max;
      d["min_exclusive"] = p.min_exclusive;
      d["range"] = p.range_text();
      d["default"] = m->defaults[p.index];
      d["description"] = p.description;
      d["integer"] = p.integer;
      d["role"] = is_schedule ? "input_schedule" : "parameter";
      d["index"] = p.index;
      out.append(d);
    }
    return out;
  });
}

}  // namespace

// A new exception class hydrosweep.NAME(base), an attribute of the module.
static PyObject* new_exception(py::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string qualified = std::string("hydrosweep.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (!type) throw py::error_already_set();
  m.attr(name) = py::reinterpret_steal<py::object>(type);  // the module keeps it alive
  return type;
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "hydrosweep host library (the compiled part of the hydrosweep package; use the hydrosweep module)";
  g_study_error = new_exception(m, "StudyError", PyExc_ValueError,
                                "A bad study (file or dict) or option, a refused resume or backend: the CLI's exit status 2.");
  g_hydrosweep_error = new_exception(m, "HydrosweepError", PyExc_RuntimeError,
                                     "Any other failure of the host library: the CLI's exit status 1.");
  g_output_error = new_exception(m, "OutputError", g_hydrosweep_error,
                                 "The outputs cannot be written (not a writable directory, full disk, HDF5).");

  m.def("version", [] { return std::string(hs::hydrosweep_version()); });
  m.def("run", &run, py::arg("path"), py::arg("text"), py::arg("out"), py::arg("threads"), py::arg("backend"),
        py::arg("chunk_size"), py::arg("resume"), py::arg("extend"), py::arg("handle_interrupt"),
        py::arg("progress") = py::none());
  m.def("stability", &stability, py::arg("path"), py::arg("text"), py::arg("out"), py::arg("threads"),
        py::arg("backend"));
  // A final write a killed run committed is completed before the package
  // reads DIR (host/results/commit.hpp); returns the files it put in place.
  m.def("finish_interrupted_commit", [](const std::string& dir) {
    return guarded([&] { return hs::finish_interrupted_commit(dir); });
  }, py::arg("dir"));
  m.def("check", &check, py::arg("path"), py::arg("text"), py::arg("rows"));
  m.def("partial", &partial, py::arg("path"), py::arg("text"), py::arg("out"));
  m.def("models", &models);
  m.def("parameters", &parameters, py::arg("model"), py::arg("schedule"));
#ifdef HYDROSWEEP_HAVE_CUDA
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
#ifdef HYDROSWEEP_HAVE_KOKKOS
  m.attr("has_kokkos") = true;
#else
  m.attr("has_kokkos") = false;
#endif
}
