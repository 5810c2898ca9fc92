// The batch a chunk of a study runs (host/run/batch.hpp).
#include "host/run/batch.hpp"
#include "host/study/study.hpp"

namespace hs {

BatchSpec batch_spec(const StudyRecord& record, const Design& design, int threads, long first, long count) {
  BatchSpec spec;
  const long n = design.instance_count();
  if (count < 0 || first + count > n) count = n - first;
  spec.model = design.descriptor;
  spec.parameters = design.rows(first, count);
  spec.settings = record.settings;
  spec.friction = record.friction;
  spec.formulation = record.formulation;
  spec.trajectory_stride = record.trajectory_stride;
  spec.threads = threads;
  spec.settling_rate = record.analysis.settling_rate;
  return spec;
}

}  // namespace hs
