// Stability maps: the batch's (physics, friction law) found in the catalog
// (kernels/catalog/catalog.hpp) and the templated kernel stability_point run
// over the points, or, for a model with the constrained capability
// (ModelDescriptor::constrained), its host function table per point; OpenMP on the CPU here,
// Kokkos in host/run/backends/kokkos.cpp, CUDA in host/run/backends/cuda_stability.cu.
#include "host/run/stability_map.hpp"
#include "host/run/device_verification.hpp"

#include "host/run/memory_budget.hpp"
#include "host/run/rank_collectives.hpp"

#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "host/registry/models.hpp"
#include "host/study/study.hpp"
#include "host/constrained/points.hpp"
#include "host/run/backends/cpu_space.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "host/run/backends/space_batch.hpp"

namespace hs {

StabilitySettings stability_settings(const StabilitySpec& spec) {
  StabilitySettings s;
  s.zero_tolerance = spec.zero_tolerance;
  s.oscillatory_tolerance = spec.oscillatory_tolerance;
  return s;
}

StabilityPoint blank_stability_point(Status s) {
  StabilityPoint p;
  blank_stability(p);
  p.status = static_cast<int>(s);
  return p;
}

namespace {

// The design's inadmissible instances.
std::vector<char> inadmissible(const Design& design, const StabilityBatch& batch) {
  const long n = batch.point_count();
  std::vector<char> skip(static_cast<size_t>(n), 0);
  const std::vector<std::string> why = design.instance_problems(batch.parameters.data(), n, stability_threads(batch.threads));
  for (long i = 0; i < n; ++i) skip[i] = !why[static_cast<size_t>(i)].empty();
  return skip;
}
void flag_invalid(const std::vector<char>& skip, std::vector<StabilityPoint>& out) {
  for (size_t i = 0; i < skip.size(); ++i)
    if (skip[i]) out[i] = blank_stability_point(Status::invalid_parameters);
}

// Seed 003's constrained systems (host/constrained/points.hpp):
// the study's [stability] method, one point per thread on the host path.
void run_constrained(const ConstrainedModel& model, const StabilityBatch& batch, std::vector<StabilityPoint>& out) {
  ConstrainedMethod method = ConstrainedMethod::mcs;
  if (!batch.method.empty() && !parse_constrained_method(batch.method, method))
    throw std::invalid_argument("model " + model.name + " has no stability method '" + batch.method + "'");
  ConstrainedSettings settings;
  settings.penalty = model.default_penalty;
  if (batch.penalty.alpha > 0) settings.penalty.alpha = batch.penalty.alpha;
  if (batch.penalty.xi > 0) settings.penalty.xi = batch.penalty.xi;
  if (batch.penalty.omega > 0) settings.penalty.omega = batch.penalty.omega;
  const long P = batch.model->parameter_count();
  // The host function table per point, not a kernel: launched on the CPU's
  // space directly (point sizes may differ along the design: one per task).
  const CpuSpace space(batch.threads);
  space.launch(
      [&](long i) {
        if (batch.admissible(i))
          out[i] = constrained_stability_point(model, batch.parameters.data() + i * P, method, settings, batch.settings);
      },
      batch.point_count(), space_batch::OnePerItem{});
}

}  // namespace

void check_device_constrained(const StabilityBatch& batch) {
  const ConstrainedModel* c = batch.model ? batch.model->constrained : nullptr;
  if (!c) return;
  const std::string& name = batch.model->name;
  if (!c->per_thread_mcs)
    throw std::invalid_argument("model " + name + " is linearized on the host only; use --backend cpu");
  if (!batch.method.empty() && batch.method != "mcs")
    throw std::invalid_argument("[stability] method = \"" + batch.method + "\": on the GPU model " + name +
                                " runs per thread by mcs only (rcs and ucs need the host's QZ); use --backend cpu");
  const long P = batch.model->parameter_count();
  for (long i = 0; i < batch.point_count(); ++i) {
    long n = 0, m = 0;
    c->size(batch.parameters.data() + i * P, n, m);
    if (n > c->per_thread_coordinates)
      throw std::invalid_argument("point " + std::to_string(i) + " of model " + name + " has n = " + std::to_string(n) +
                                  " coordinates" + c->size_note() + "; the GPU's per-thread code holds up to " +
                                  std::to_string(c->per_thread_coordinates) + "; use --backend cpu");
  }
}

namespace {

// On the CPU's space: StabilityKernel through the one host path
// (host/run/backends/space_batch.hpp), its one host compilation
// (stability_kernel_entry's), or a constrained model's host function table.
std::vector<StabilityPoint> run_cpu(const StabilityBatch& batch) {
  std::vector<StabilityPoint> out;
  if (const ConstrainedModel* c = batch.model ? batch.model->constrained : nullptr) {
    out.assign(static_cast<size_t>(batch.point_count()), blank_stability_point(Status::not_run));
    run_constrained(*c, batch, out);
    return out;
  }
  if (run_stability_cpu_lanes(batch, out)) return out;
  with_batch_combination(batch, [&](auto combination) {
    using System = typename decltype(combination)::System;
    CpuSpace space(batch.threads);
    out = space_batch::run_points<typename System::Params>(
        batch, space, [&](const typename System::Params* params, StabilityRecord* points) {
          return StabilityKernel<System>{params, batch.settings, points};
        });
  });
  return out;
}

}  // namespace

HostKernelEntry stability_kernel_entry(const StabilityBatch& batch) {
  HostKernelEntry entry = nullptr;
  with_batch_combination(batch, [&](auto combination) {
    entry = &call_host_kernel<StabilityKernel<typename decltype(combination)::System>>;
  });
  return entry;
}

StabilityBatch stability_batch(const StudyRecord& record, const Design& design, int threads) {
  plan_stability_memory(record, design);  // before any study-sized allocation (host/run/memory_budget.hpp)
  plan_constrained_memory(record, design, stability_threads(threads));
  StabilityBatch b;
  b.model = design.descriptor;
  b.friction = record.friction;
  b.parameters = design.instances();
  b.settings = stability_settings(record.stability);
  b.method = record.stability.method;
  b.penalty = {record.stability.penalty_alpha, record.stability.penalty_xi, record.stability.penalty_omega};
  b.threads = threads;
  return b;
}

std::vector<StabilityPoint> run_stability_cpu(const StabilityBatch& batch) { return run_cpu(batch); }

std::vector<StabilityPoint> run_stability_cpu(const StudyRecord& record, const Design& design, int threads) {
  return run_stability(record, design, Backend::cpu, threads);
}

int stability_threads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

Backend stability_backend(Backend requested, std::string* note, const ModelDescriptor* model, const std::string& friction) {
  // Seed 003's systems of run-time size: the host path, except a model with a
  // per-thread MCS capacity, which --backend cuda runs one point per GPU
  // thread (run_stability checks the method and the sizes). auto stays on
  // the CPU, where the same per-thread code runs for the small ones.
  if (const ConstrainedModel* c = model ? model->constrained : nullptr) {
    if (requested == Backend::kokkos || (requested == Backend::cuda && !c->per_thread_mcs))
      throw std::invalid_argument("backend " + backend_name(requested) + ": model " + model->name +
                                  " is linearized on the host (dense LAPACK)" +
                                  (c->per_thread_mcs ? std::string(" or, by mcs at small sizes, per thread on cuda")
                                                     : std::string("; it has no per-thread GPU path")) +
                                  "; use --backend cpu or auto");
    if (requested != Backend::cuda) return Backend::cpu;
  }
  // What a device measured of this map (host/run/device_verification.hpp); a
  // caller without a model asks for the backend alone.
  auto decide = [&](bool requested) {
    return model ? decide_device("stability", *model, "", friction, requested) : DeviceDecision{};
  };
  if (requested == Backend::kokkos) {
    std::string why;
    if (!backend_available(Backend::kokkos, &why)) throw std::invalid_argument("backend kokkos: " + why);
    return Backend::kokkos;
  }
  if (requested == Backend::cpu) return Backend::cpu;
#ifdef HYDROSWEEP_HAVE_CUDA_STABILITY
  const bool kernel = true;
#else
  const bool kernel = false;
#endif
  if (requested == Backend::cuda) {
    std::string why;
    if (!backend_available(Backend::cuda, &why)) throw std::invalid_argument("backend cuda: " + why);
    if (!kernel)
      throw std::invalid_argument("backend cuda: this build has no CUDA stability kernel (host/run/backends/cuda_stability.cu "
                                  "was not there when it was configured); use --backend cpu");
    const DeviceDecision d = decide(true);
    if (!d.refusal.empty()) throw std::invalid_argument(d.refusal);
    if (note && !d.note.empty()) *note = d.note;
    return Backend::cuda;
  }
  // automatic
  if (resolve_backend(Backend::automatic) == Backend::cuda) {
    if (kernel) {
      const DeviceDecision d = decide(false);
      if (d.use_device) return Backend::cuda;
      if (note) *note = d.note;
      return Backend::cpu;
    }
    if (note) *note = "a CUDA device is visible but this build has no CUDA stability kernel; running on the CPU";
  }
  return Backend::cpu;
}

namespace {

// Points [first, first + count) of the study on `backend`.
std::vector<StabilityPoint> run_stability_range(const StudyRecord& record, const Design& design, Backend backend,
                                                int threads, long first, long count, int lanes) {
  StabilityBatch batch = stability_batch(record, design, threads);
  batch.lanes = lanes;
  if (first != 0 || count != batch.point_count()) {
    const long P = design.parameter_count();
    batch.parameters = std::vector<double>(batch.parameters.begin() + first * P, batch.parameters.begin() + (first + count) * P);
  }
  batch.inadmissible = inadmissible(design, batch);
  std::vector<StabilityPoint> out;
  if (backend == Backend::cpu) {
    out = run_cpu(batch);
  } else {
    check_device_constrained(batch);
    if (backend == Backend::kokkos) {
      out = run_stability_kokkos(batch);
#ifdef HYDROSWEEP_HAVE_CUDA_STABILITY
    } else if (backend == Backend::cuda) {
      out = run_stability_cuda(batch);
#endif
    } else {
      throw std::invalid_argument("stability: backend " + backend_name(backend) + " is not available here");
    }
  }
  if (static_cast<long>(out.size()) != batch.point_count())
    throw std::runtime_error("stability backend " + backend_name(backend) + " returned " + std::to_string(out.size()) +
                             " points for " + std::to_string(batch.point_count()));
  flag_invalid(batch.inadmissible, out);
  return out;
}

}  // namespace

std::vector<StabilityPoint> run_stability(const StudyRecord& record,
                                          const Design& design, Backend backend, int threads, int lanes) {
  return run_stability_range(record, design, backend, threads, 0, design.instance_count(), lanes);
}

std::vector<StabilityPoint> run_stability(const StudyRecord& record, const Design& design, Backend backend,
                                          int threads, const Ranks& ranks, int lanes) {
  if (ranks.size() == 1) return run_stability(record, design, backend, threads, lanes);
  // Rank r: the r-th of `size` contiguous shares; rank 0 gathers them in order.
  static_assert(std::is_trivially_copyable<StabilityPoint>::value, "points travel as bytes");
  const long n = design.instance_count();
  const long first = n * ranks.rank() / ranks.size(), last = n * (ranks.rank() + 1) / ranks.size();
  std::string mine;
  on_every_rank(ranks, [&] {
    if ((last - first) * static_cast<double>(sizeof(StabilityPoint)) >= 2147483647.0)
      throw std::invalid_argument("stability: " + std::to_string(last - first) + " points on one rank are more than "
                                  "one MPI message holds (2 GiB); use more ranks");
    const std::vector<StabilityPoint> points = run_stability_range(record, design, backend, threads, first, last - first, lanes);
    mine.assign(reinterpret_cast<const char*>(points.data()), points.size() * sizeof(StabilityPoint));
  });
  const std::vector<std::string> shares = ranks.gather(mine);
  std::vector<StabilityPoint> all;
  if (!ranks.root()) return all;
  all.resize(static_cast<size_t>(n));
  size_t at = 0;
  for (const std::string& share : shares) {
    std::memcpy(reinterpret_cast<char*>(all.data()) + at, share.data(), share.size());
    at += share.size();
  }
  if (at != all.size() * sizeof(StabilityPoint))
    throw std::runtime_error("stability: the ranks returned " + std::to_string(at / sizeof(StabilityPoint)) +
                             " points for " + std::to_string(n));
  return all;
}

#ifndef HYDROSWEEP_HAVE_KOKKOS
std::vector<StabilityPoint> run_stability_kokkos(const StabilityBatch&) {
  std::string why;
  backend_available(Backend::kokkos, &why);
  throw std::invalid_argument("backend kokkos: " + why);
}
#endif

}  // namespace hs
