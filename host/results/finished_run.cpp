// A finished run's results.h5 read back (host/results/finished_run.hpp).
#include "host/results/finished_run.hpp"

#include <hdf5.h>

#include <string>
#include <vector>

#include "host/hdf5_read.hpp"

namespace hs {
namespace {

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hid_t is held as int64_t");

bool exists(hid_t parent, const std::string& path) { return H5Lexists(parent, path.c_str(), H5P_DEFAULT) > 0; }

// Elements [first, first + count) of a 1-D dataset, or rows of a 2-D one
// (count x columns), converted to `mem_type`.
void read_rows(hid_t file, const std::string& name, long first, long count, hid_t mem_type, void* out,
               const std::string& path) {
  H5Handle d{H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose};
  if (d.id < 0) throw OutputError(path + ": no dataset " + name + " (not a hydrosweep results file of this version)");
  H5Handle space{H5Dget_space(d.id), H5Sclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  hsize_t dims[2] = {0, 1};
  if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(space.id, dims, nullptr) < 0 ||
      dims[0] < static_cast<hsize_t>(first + count))
    throw OutputError(path + ": dataset " + name + " has fewer rows than the run's " + std::to_string(first + count));
  const hsize_t start[2] = {static_cast<hsize_t>(first), 0}, size[2] = {static_cast<hsize_t>(count), rank == 2 ? dims[1] : 1};
  H5Handle mem{H5Screate_simple(rank, size, nullptr), H5Sclose};
  if (H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
      H5Dread(d.id, mem_type, mem.id, space.id, H5P_DEFAULT, out) < 0)
    throw OutputError(path + ": cannot read " + name);
}

}  // namespace

FinishedRun::FinishedRun(const std::string& results_h5) : path_(results_h5) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become messages, not HDF5's stack dump
  file_ = H5Fopen(results_h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) throw OutputError("cannot open " + results_h5 + " (no finished run there, or not an HDF5 file)");
  const hid_t f = static_cast<hid_t>(file_);
  if (!exists(f, "metadata") || !exists(f, "outputs/status")) {
    H5Fclose(f);
    file_ = -1;
    throw OutputError(results_h5 + " is not the results of `hydrosweep run` (no /metadata or /outputs/status)");
  }
  H5Handle meta{H5Gopen2(f, "metadata", H5P_DEFAULT), H5Gclose};
  const auto text = read_string_attribute(meta.id, "study_text");
  const auto method = read_string_attribute(meta.id, "sample_method");
  const auto version = read_string_attribute(meta.id, "hydrosweep_version");
  version_ = version.empty() ? "" : version[0];
  study_text_ = text.empty() ? "" : text[0];
  sample_method_ = method.empty() ? "" : method[0];
  long n = -1;
  if (H5Aexists(meta.id, "instance_count") > 0) {
    H5Handle a{H5Aopen(meta.id, "instance_count", H5P_DEFAULT), H5Aclose};
    if (H5Aread(a.id, H5T_NATIVE_LONG, &n) < 0) n = -1;
  }
  if (study_text_.empty() || n < 0) {
    H5Fclose(f);
    file_ = -1;
    throw OutputError(results_h5 + ": /metadata has no study_text or instance_count (written by an older version?)");
  }
  instance_count_ = n;
}

FinishedRun::~FinishedRun() {
  if (file_ >= 0) H5Fclose(static_cast<hid_t>(file_));
}

void FinishedRun::statuses(long first, long count, Status* out) const {
  std::vector<int> raw(static_cast<size_t>(count));
  if (count > 0) read_rows(static_cast<hid_t>(file_), "outputs/status", first, count, H5T_NATIVE_INT, raw.data(), path_);
  for (long i = 0; i < count; ++i) out[i] = static_cast<Status>(raw[i]);
}

void FinishedRun::summary_rows(long first, long count, const std::vector<OutputInfo>& columns, double* out) const {
  const long C = static_cast<long>(columns.size());
  std::vector<double> column(static_cast<size_t>(count));
  for (long c = 0; c < C; ++c) {
    // Integer columns are int64 in the file and whole doubles in the rows: read as double, the same value.
    read_rows(static_cast<hid_t>(file_), "outputs/" + columns[c].name, first, count, H5T_NATIVE_DOUBLE, column.data(), path_);
    for (long i = 0; i < count; ++i) out[i * C + c] = column[i];
  }
}

void FinishedRun::trajectory_rows(long first, long count, const std::vector<OutputInfo>& channels, long m,
                                  double* out) const {
  const long W = static_cast<long>(channels.size());
  std::vector<double> block(static_cast<size_t>(count * m));
  for (long c = 0; c < W; ++c) {
    read_rows(static_cast<hid_t>(file_), "trajectories/" + channels[c].name, first, count, H5T_NATIVE_DOUBLE,
              block.data(), path_);
    for (long i = 0; i < count; ++i)
      for (long k = 0; k < m; ++k) out[(i * m + k) * W + c] = block[i * m + k];
  }
}

}  // namespace hs
