#include "host/run/reference_run.hpp"

#include "host/run/batch.hpp"

namespace hs {

std::vector<double> reference_trajectory(const StudyRecord& record, const Design& design,
                                         const std::atomic<bool>* cancel) {
  BatchSpec one = batch_spec(record, design, 1, 0, 0);
  one.parameters = design.base;
  one.trajectory_stride = 1;
  // One instance: lanes would run it beside seven copies of itself (the same
  // bits, docs/models/lanes.md §4) for about twice the serial time before the
  // first chunk can start.
  one.lanes = 1;
  one.cancel = cancel;  // Ctrl-C stops the reference run too (the caller then stops before the first chunk)
  const BatchResult r = run_batch_cpu(one);
  if (r.cancelled || r.status[0] != Status::ok) return {};
  // The driving coordinate's channel (docs/models/README.md §5.4).
  long channel = -1;
  for (size_t c = 0; c < design.descriptor->trajectory_channels.size(); ++c)
    if (design.descriptor->trajectory_channels[c].name == design.descriptor->driving_coordinate)
      channel = static_cast<long>(c);
  if (channel < 0) return {};
  std::vector<double> ref(static_cast<size_t>(r.samples_per_instance));
  for (long k = 0; k < r.samples_per_instance; ++k) ref[k] = r.sample(0, k)[channel];
  return ref;
}

}  // namespace hs
