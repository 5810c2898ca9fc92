// The host memory a study may use, and the checks made before every
// allocation whose size follows from the study.
//
// The study parser bounds what a file can ask for on any machine (instances,
// steps, trajectory bytes: host/study/study.hpp). What fits depends on the machine,
// so the commands check, before they allocate, that the buffers a study needs
// fit in the memory budget: the smaller of the physical memory and the
// container's cgroup limit, or HYDROSWEEP_MEMORY_LIMIT (bytes, suffixes K M G
// T as powers of 1024) when that is set and smaller. A study that does not fit
// is refused (StudyError, exit 2) with a message naming the study file, the
// key that sizes the buffer, the bytes needed and the budget, before any
// run starts; std::bad_alloc never has to reach the user.
//
// Sizes (N instances, M samples per trajectory, S steps, V varied inputs):
//   run: per-instance results N x (analysed columns + V + 5 doubles) for the
//        whole run and the writers (the other summary columns are streamed
//        from the chunk files); one chunk's parameters, summaries and trajectories
//        C x (params + summary + M samples), twice when a device backend stages
//        them; the reference run (S + 1) x (sample + double).
//   stability: N x (params + point + V + 2 doubles).
// The automatic chunk size is lowered until a chunk takes at most a quarter
// of the budget; an explicit [execution] chunk_size that does not fit is
// refused.
#pragma once
#include <string>

#include "host/study/study.hpp"

namespace hs {

struct MemoryBudget {
  double bytes = 0.0;
  std::string source;  // "physical memory", "cgroup memory.max" or "HYDROSWEEP_MEMORY_LIMIT"
};
// Throws StudyError when HYDROSWEEP_MEMORY_LIMIT is set but not a size.
MemoryBudget memory_budget();

// "1.5 GiB", "12 MiB", "640 B".
std::string format_bytes(double bytes);

// Refuses (StudyError) when `bytes` exceed the budget: "<study path>: <key>
// needs <bytes> for <what>, more than the memory budget of <budget> (<source>);
// <advice>".
void require_memory(const StudyRecord& record, double bytes, const std::string& key, const std::string& what,
                    const std::string& advice);

// Bytes of one chunk of `chunk` instances of `hydrosweep run`.
double run_chunk_bytes(const StudyRecord& record, const Design& design, long chunk);

// Checks everything `hydrosweep run` allocates that the study sizes (see the
// file comment) and returns the chunk size to use: `requested` (> 0: the
// command line's or the study's, checked) or, when 0, the automatic size
// (about 20 chunks, at most 65536, a whole number of lockstep groups per
// thread: a multiple of the widest lane width times `threads`; on a GPU
// backend, `device`, the whole study up to 262144 instances, since a GPU
// needs ~1e5 instances in flight) lowered until a chunk fits in a quarter of
// the budget.
long plan_run_memory(const StudyRecord& record, const Design& design, long requested, int threads, bool device = false);

// Checks everything `hydrosweep stability` allocates that the study sizes.
void plan_stability_memory(const StudyRecord& record, const Design& design);
// Seed 003's constrained systems (host/constrained/points.hpp): the
// dense matrices of the design's largest point, `threads` at once; refused
// (StudyError naming the size key and the bytes) when over the budget. `check`
// and `stability` both make it. No-op for the other models.
void plan_constrained_memory(const StudyRecord& record, const Design& design, int threads);

}  // namespace hs
