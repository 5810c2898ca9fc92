// HDF5 and CSV writers (layout: output.hpp). The HDF5 C API is used
// directly; every handle lives in an RAII wrapper so an exception half-way
// closes what was opened and the temporary file can be removed.
#include "host/results/output.hpp"
#include "host/results/commit.hpp"

#include "kernels/linearize/stability.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>

#ifndef HYDROSWEEP_VERSION
#define HYDROSWEEP_VERSION "unknown"
#endif

namespace hs {

namespace {
// Text for a "# ..." header line of a CSV file: control characters (a study
// name's line break) as spaces, so that the header stays one line. The study
// parser refuses them in study.name; this keeps any other path honest.
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break, its quotes doubled, so pandas.read_csv and Python's csv module read
// it back with their defaults.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A data file's columns, one row each: the sidecar <name>.columns.csv
// (column,unit,description) beside summary.csv and stability.csv, so that the
// data files themselves are plain tables (a header row, then numbers) that
// load with default arguments, and every column still says its unit.
struct ColumnDoc {
  std::string column, unit, description;
};
// The design's varied inputs, columns of both data files.
void append_varied_column_docs(std::vector<ColumnDoc>& docs, const std::vector<std::string>& names,
                               const std::vector<std::string>& units) {
  for (size_t k = 0; k < names.size(); ++k) docs.push_back({names[k], units[k], "varied input of the design"});
}

// What stability.h5's datasets and stability.csv's columns of the same figure say.
const char* const kMaxRealText = "largest Re(lambda) without the structural zeros (< 0: asymptotically stable)";
const char* const kDampingRatioText =
    "zeta = -Re/|lambda| of the dominant (least damped) oscillatory pair; NaN when overdamped";
const char* const kOverdampedText =
    "1: no oscillatory mode (|Im| <= oscillatory_tolerance |lambda| for every non-structural eigenvalue)";
const char* const kStructuralZerosText = "eigenvalues with |lambda| <= zero_tolerance max|lambda|";
void write_columns_csv(const std::string& path, const std::vector<ColumnDoc>& columns) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw OutputError("cannot create " + path + ": " + std::strerror(errno));
  std::fputs("column,unit,description\n", f);
  for (const auto& c : columns)
    std::fprintf(f, "%s,%s,%s\n", csv_field(c.column).c_str(), csv_field(c.unit).c_str(),
                 csv_field(one_line(c.description)).c_str());
  const bool failed = std::ferror(f);
  const int saved = errno;
  if (std::fclose(f) != 0 || failed)
    throw OutputError("writing " + path + " failed: " + std::strerror(failed ? saved : errno));
}
}  // namespace

namespace {
namespace fs = std::filesystem;

// ---- HDF5 helpers ----------------------------------------------------------

// Why the last HDF5 call failed: the innermost message of HDF5's error stack
// (for I/O, the file driver's message carries the system's reason, e.g. "File
// too large" under a file-size limit, "No space left on device").
std::string hdf5_reason() {
  std::string innermost;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &innermost);
  return innermost.empty() ? std::string() : ": " + innermost;
}

class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw OutputError("HDF5: " + what + " failed" + hdf5_reason());
  }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw OutputError("HDF5: " + what + " failed" + hdf5_reason());
}

// HDF5 prints its error stack to stderr by default (our exceptions say
// enough), and at exit closes what it still holds: a file whose flush failed
// (full disk, file-size limit) stays open inside the library, and closing it
// again from its atexit handler crashes HDF5 1.10. H5dont_atexit must come
// before any other HDF5 call of the process; later calls leave it as it is.
void prepare_hdf5() {
  static const bool once = [] {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

Handle group(hid_t parent, const std::string& name) {
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "creating group " + name);
}

Handle string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  check(H5Tset_size(t, H5T_VARIABLE), "string type size");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "string type charset");
  return t;
}

void attribute(hid_t obj, const std::string& name, const std::string& value) {
  Handle type = string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle attr(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "attribute " + name);
  const char* p = value.c_str();
  check(H5Awrite(attr, type, &p), "writing attribute " + name);
}

// A 1-D string array (an empty list gives a zero-length array).
void attribute(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
  Handle type = string_type();
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace");
  Handle attr(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "attribute " + name);
  if (!n) return;
  std::vector<const char*> p;
  for (const auto& v : values) p.push_back(v.c_str());
  check(H5Awrite(attr, type, p.data()), "writing attribute " + name);
}

template <class T>
void scalar_attribute(hid_t obj, const std::string& name, hid_t type, T value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  Handle attr(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "attribute " + name);
  check(H5Awrite(attr, type, &value), "writing attribute " + name);
}
void attribute(hid_t obj, const std::string& name, double v) { scalar_attribute(obj, name, H5T_NATIVE_DOUBLE, v); }
void attribute(hid_t obj, const std::string& name, long v) { scalar_attribute<int64_t>(obj, name, H5T_NATIVE_INT64, v); }

// A 1-D dataset of n values; file type = memory type (little-endian native).
Handle vector_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type, const void* data, hsize_t n) {
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace");
  Handle d(H5Dcreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
           "creating dataset " + name);
  check(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "writing dataset " + name);
  return d;
}

// A 1-D dataset of n values written later, a block at a time (write_vector_rows).
Handle empty_vector_dataset(hid_t parent, const std::string& name, hid_t file_type, hsize_t n) {
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace");
  return Handle(H5Dcreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                "creating dataset " + name);
}
// Values [first, first + count) of a 1-D dataset.
void write_vector_rows(hid_t d, const std::string& name, hid_t mem_type, const void* data, long first, long count) {
  if (count <= 0) return;
  const hsize_t start = static_cast<hsize_t>(first), n = static_cast<hsize_t>(count);
  Handle space(H5Dget_space(d), H5Sclose, "dataspace of " + name);
  Handle mem(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace");
  check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &n, nullptr), "selecting rows of " + name);
  check(H5Dwrite(d, mem_type, mem, space, H5P_DEFAULT, data), "writing dataset " + name);
}

// The summary rows in instance order, a block of about 1 MiB at a time.
void for_each_summary_block(const StudyResults& res,
                            const std::function<void(long first, long count, const double* rows)>& use) {
  const long n = static_cast<long>(res.status.size());
  const long block = std::max<long>(1, (1L << 17) / std::max<long>(res.summary_width, 1));
  std::vector<double> rows;
  for (long first = 0; first < n; first += block) {
    const long count = std::min(block, n - first);
    rows.resize(static_cast<size_t>(count * res.summary_width));
    res.summaries(first, count, rows.data());
    use(first, count, rows.data());
  }
}

// A rows x cols double matrix filled a block of rows at a time, so memory
// stays bounded (about one chunk) however large N x M gets.
void matrix_dataset(hid_t parent, const std::string& name, hsize_t rows, hsize_t cols,
                    const std::function<void(hsize_t row, double* out)>& fill, bool compress,
                    const std::function<void(hid_t)>& annotate) {
  const hsize_t dims[2] = {rows, cols};
  Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "dataspace");
  // ~1 MiB chunks of whole rows: reading one instance's trajectory touches one chunk.
  const hsize_t block = std::clamp<hsize_t>((hsize_t(1) << 17) / std::max<hsize_t>(cols, 1), 1, rows);
  const hsize_t chunk[2] = {block, cols};
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "property list");
  check(H5Pset_chunk(dcpl, 2, chunk), "chunking " + name);
  if (compress && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
    check(H5Pset_shuffle(dcpl), "shuffle filter");
    check(H5Pset_deflate(dcpl, 1), "deflate filter");
  }
  Handle d(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose,
           "creating dataset " + name);
  std::vector<double> buf(block * cols);
  for (hsize_t r0 = 0; r0 < rows; r0 += block) {
    const hsize_t nr = std::min(block, rows - r0);
    for (hsize_t r = 0; r < nr; ++r) fill(r0 + r, buf.data() + r * cols);
    const hsize_t start[2] = {r0, 0}, count[2] = {nr, cols};
    Handle mem(H5Screate_simple(2, count, nullptr), H5Sclose, "dataspace");
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), "selecting rows of " + name);
    check(H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf.data()), "writing dataset " + name);
  }
  if (annotate) annotate(d);
}

void analysis_group(hid_t file, const StudyAnalysis& a) {
  Handle g = group(file, "analysis");
  std::vector<std::string> quantities;
  for (const auto& [q, _] : a.statistics) quantities.push_back(q);
  attribute(g, "quantities", quantities);
  attribute(g, "confidence", a.confidence);
  {
    Handle st = group(g, "statistics");
    for (const auto& [q, m] : a.statistics) {
      Handle h = group(st, q);
      attribute(h, "mean", m.mean);
      attribute(h, "std", m.std_dev);
      attribute(h, "mean_ci_low", m.mean_ci.lower);
      attribute(h, "mean_ci_high", m.mean_ci.upper);
      attribute(h, "std_ci_low", m.std_dev_ci.lower);
      attribute(h, "std_ci_high", m.std_dev_ci.upper);
      attribute(h, "count_ok", static_cast<long>(m.valid));
      attribute(h, "count_failed", a.failed_instances);
      attribute(h, "count_undefined", static_cast<long>(m.failed + m.infinite) - a.failed_instances);
      attribute(h, "confidence", a.confidence);
      std::vector<double> lv, v, lo, hi;
      for (const auto& e : m.quantiles) {
        lv.push_back(e.probability); v.push_back(e.value); lo.push_back(e.ci.lower); hi.push_back(e.ci.upper);
      }
      const hsize_t n = lv.size();
      vector_dataset(h, "quantile_levels", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, lv.data(), n);
      vector_dataset(h, "quantiles", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), n);
      vector_dataset(h, "quantile_ci_low", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, lo.data(), n);
      vector_dataset(h, "quantile_ci_high", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, hi.data(), n);
    }
  }
  if (a.has_failure) {
    Handle f = group(g, "failure");
    attribute(f, "quantity", a.failure_quantity);
    attribute(f, "limit", a.limit);
    attribute(f, "direction", std::string(a.limit_above ? "above" : "below"));
    attribute(f, "probability", a.failure.estimate);
    attribute(f, "ci_low", a.failure.ci.lower);
    attribute(f, "ci_high", a.failure.ci.upper);
    attribute(f, "failures", static_cast<long>(a.failure.failures));
    attribute(f, "count", static_cast<long>(a.failure.valid));
    attribute(f, "failed_instances", static_cast<long>(a.failure.failed_instances));
    attribute(f, "method", std::string("Wilson score interval"));
  }
  if (!a.sobol.empty()) {
    Handle so = group(g, "sobol");
    for (const auto& [q, idx] : a.sobol) {
      Handle h = group(so, q);
      attribute(h, "factors", a.sobol_factors);
      attribute(h, "base_samples", static_cast<long>(idx.base_rows));
      attribute(h, "dropped_rows", static_cast<long>(idx.dropped_rows));
      attribute(h, "confidence", a.confidence);
      attribute(h, "variance", idx.output_variance);
      std::vector<double> v[6];
      for (size_t k = 0; k < idx.dimension; ++k) {
        v[0].push_back(idx.first_order[k].value); v[1].push_back(idx.first_order[k].ci.lower); v[2].push_back(idx.first_order[k].ci.upper);
        v[3].push_back(idx.total_order[k].value); v[4].push_back(idx.total_order[k].ci.lower); v[5].push_back(idx.total_order[k].ci.upper);
      }
      const char* names[6] = {"first_order", "first_order_ci_low", "first_order_ci_high", "total", "total_ci_low", "total_ci_high"};
      for (int k = 0; k < 6; ++k) vector_dataset(h, names[k], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v[k].data(), idx.dimension);
      if (idx.second_order.empty()) continue;
      // S_jk of the pairs (sample.second_order): d x d, entry (j, k) for j < k,
      // NaN on and below the diagonal, as SALib's S2.
      const hsize_t d = idx.dimension;
      auto pairs = [&](const char* name, auto value) {
        matrix_dataset(
            h, name, d, d,
            [&](hsize_t j, double* row) {
              for (hsize_t k = 0; k < d; ++k) row[k] = value(idx.second_order[j * d + k]);
            },
            false, [&](hid_t ds) { attribute(ds, "columns", a.sobol_factors); });
      };
      pairs("second_order", [](const IndexEstimate& e) { return e.value; });
      pairs("second_order_ci_low", [](const IndexEstimate& e) { return e.ci.lower; });
      pairs("second_order_ci_high", [](const IndexEstimate& e) { return e.ci.upper; });
    }
  }
}

// The varied inputs of every instance, generated once from the study for
// both files: column k holds input names[k] of instances 0..N-1.
struct VariedInputs {
  std::vector<std::string> names, units;
  std::vector<std::vector<double>> columns;
};
VariedInputs varied_inputs(const Design& design, long n) {
  VariedInputs v{design.varied_names(), design.varied_units(), {}};
  v.columns.assign(v.names.size(), std::vector<double>(static_cast<size_t>(n)));
  if (v.names.empty()) return v;
  for (long i = 0; i < n; ++i) {
    const std::vector<double> row = design.varied_values(i);
    for (size_t k = 0; k < v.names.size(); ++k) v.columns[k][i] = row[k];
  }
  return v;
}

// What every /metadata group holds about the study, whichever command wrote it.
void study_metadata(hid_t g, const StudyRecord& record, const Design& design) {
  attribute(g, "study_text", record.text);
  attribute(g, "study_path", record.path);
  attribute(g, "study_name", record.name);
  attribute(g, "study_description", record.description);
  attribute(g, "hydrosweep_version", std::string(hydrosweep_version()));
  attribute(g, "model", record.model);
  // A model file's path and text (docs/model-files.md): the study text alone
  // names the file, which may change after the run.
  if (design.descriptor && !design.descriptor->file_path.empty()) {
    attribute(g, "model_file_path", design.descriptor->file_path);
    attribute(g, "model_file_text", design.descriptor->file_text);
  }
  attribute(g, "friction", record.friction);
  attribute(g, "sample_method", std::string(sample_method_name(design.method)));
  attribute(g, "sample_count", design.sample_count);
  attribute(g, "seed", static_cast<long>(design.seed));
  attribute(g, "scramble", static_cast<long>(design.scramble ? 1 : 0));
}

void attribute(hid_t obj, const std::string& name, const std::vector<double>& values) {
  const hsize_t n = values.size();
  Handle space(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL), H5Sclose, "dataspace");
  Handle attr(H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "attribute " + name);
  if (n) check(H5Awrite(attr, H5T_NATIVE_DOUBLE, values.data()), "writing attribute " + name);
}

// Parameter names of a law, in Distribution::params order (host/design/sampling.hpp).
std::vector<std::string> distribution_parameter_names(DistributionKind kind) {
  switch (kind) {
    case DistributionKind::uniform: return {"min", "max"};
    case DistributionKind::normal: return {"mean", "std"};
    case DistributionKind::truncated_normal: return {"mean", "std", "min", "max"};
    case DistributionKind::lognormal: return {"median", "sigma_log"};
  }
  return {};
}

// /metadata/design: what regenerates the design without the source code. The
// unit-cube points (sampled methods) mapped through each factor's law by its
// inverse CDF give the factor values; a grid is the product of the axes.
void design_metadata(hid_t metadata, const Design& design, hsize_t n) {
  Handle g = group(metadata, "design");
  attribute(g, "method", std::string(sample_method_name(design.method)));
  attribute(g, "sampler", std::string(design.sampler_description()));
  attribute(g, "seed", static_cast<long>(design.seed));
  attribute(g, "scramble", static_cast<long>(design.scramble ? 1 : 0));
  if (design.method == SampleMethod::saltelli)  // blocks of 2d + 2 (B_A^j rows) when 1, else d + 2
    attribute(g, "second_order", static_cast<long>(design.second_order ? 1 : 0));
  std::vector<std::string> names;
  for (const auto& f : design.grid) names.push_back(f.name);
  attribute(g, "factors", names);
  std::vector<std::string> derived;
  for (const auto& d : design.derived) derived.push_back(d.target->name + " = " + d.expression->text());
  attribute(g, "derived", derived);
  const bool grid = design.method == SampleMethod::grid;
  {
    Handle fg = group(g, "factors");
    for (size_t k = 0; k < design.grid.size(); ++k) {
      const Factor& f = design.grid[k];
      Handle h = group(fg, f.name);
      attribute(h, "index", static_cast<long>(k));
      attribute(h, "unit", f.unit);
      std::vector<std::string> targets;
      if (f.info) targets.push_back(f.info->name);
      for (const ParameterInfo* p : f.scaled) targets.push_back(p->name);
      attribute(h, "mode", std::string(f.info ? "parameter" : "scale"));
      attribute(h, "parameters", targets);
      if (grid) {
        vector_dataset(h, "values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, f.values.data(), f.values.size());
        continue;
      }
      if (design.method == SampleMethod::rows) continue;  // its values: column k of /metadata/design/rows
      const auto law_names = distribution_parameter_names(f.distribution.kind);
      attribute(h, "distribution", std::string(distribution_kind_name(f.distribution.kind)));
      attribute(h, "distribution_parameter_names", law_names);
      attribute(h, "distribution_parameters",
                std::vector<double>(f.distribution.params.begin(), f.distribution.params.begin() + law_names.size()));
      attribute(h, "law", f.distribution.describe());
    }
  }
  if (grid || design.grid.empty()) return;
  const size_t d = design.grid.size();
  if (design.method == SampleMethod::rows) {
    // The user's rows themselves: the file regenerates its inputs without the design file.
    const DesignRows& rows = *design.user_rows;
    attribute(g, "source", rows.path);
    attribute(g, "source_format", rows.format);
    if (!rows.dataset.empty()) attribute(g, "source_dataset", rows.dataset);
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(rows.digest));
    attribute(g, "source_fnv1a64", std::string(digest));
    matrix_dataset(
        g, "rows", n, d, [&](hsize_t i, double* row) { std::copy_n(rows.values.row(i), d, row); }, false,
        [&](hid_t ds) {
          attribute(ds, "columns", names);
          attribute(ds, "description", std::string("the design file's rows: instance i is row i, column k sets factor k's parameter"));
        });
    return;
  }
  matrix_dataset(
      g, "unit_points", n, d, [&](hsize_t i, double* row) { design.unit_point(static_cast<long>(i), row); }, false,
      [&](hid_t ds) {
        attribute(ds, "columns", names);
        attribute(ds, "description",
                  std::string("unit-cube point of every instance; factor k's value is its law's inverse CDF at column k"));
      });
  if (!design.rank_correlation.empty()) {
    // [[correlation]]: the targets, and the copula that drew them (the unit
    // points above are already correlated).
    matrix_dataset(
        g, "rank_correlation", d, d,
        [&](hsize_t i, double* row) { std::copy_n(design.rank_correlation.data() + i * d, d, row); }, false,
        [&](hid_t ds) {
          attribute(ds, "columns", names);
          attribute(ds, "copula", std::string("gaussian"));
          attribute(ds, "description",
                    std::string("Spearman rank correlation of factors i and j ([[correlation]]); drawn through a Gaussian "
                                "copula: the sampler's independent unit point u becomes Phi(L Phi^-1(u)), L the Cholesky factor "
                                "of 2 sin(pi r / 6), before unit_points records it"));
        });
  }
  if (design.method != SampleMethod::saltelli) return;
  const size_t block = saltelli_block_size(d, design.second_order);
  std::vector<int32_t> role(n);
  for (hsize_t i = 0; i < n; ++i) role[i] = static_cast<int32_t>(i % block);
  std::vector<std::string> role_names{"A", "B"};
  for (size_t j = 0; j < d; ++j) role_names.push_back("A_B^" + std::to_string(j) + " (A with " + names[j] + " from B)");
  for (size_t j = 0; j < d && design.second_order; ++j)
    role_names.push_back("B_A^" + std::to_string(j) + " (B with " + names[j] + " from A)");
  Handle r = vector_dataset(g, "saltelli_role", H5T_STD_I32LE, H5T_NATIVE_INT32, role.data(), n);
  attribute(r, "role_names", role_names);
  attribute(r, "description", std::string("role_names[saltelli_role[i]] is instance i's row of the Saltelli design; "
                                          "statistics use the A and B rows only, Sobol' indices all rows"));
}

// The analysis settings that regenerate /analysis from /outputs.
void analysis_metadata(hid_t metadata, const StudyRecord& record, const Design& design) {
  attribute(metadata, "confidence", record.analysis.confidence);
  attribute(metadata, "bootstrap_resamples", record.analysis.bootstrap);
  attribute(metadata, "bootstrap_seed", static_cast<long>(study_bootstrap_seed(design.seed)));
  attribute(metadata, "quantile_levels", record.analysis.quantile_levels);
}

// /inputs: the values each instance ran with, regenerated from the study
// (deterministic), one instance at a time so memory stays bounded.
void inputs_group(hid_t file, const Design& design, const VariedInputs& varied, hsize_t n) {
  {
    Handle g = group(file, "inputs");
    const auto& params = design.descriptor->parameters;
    attribute(g, "varied", varied.names);
    for (size_t k = 0; k < varied.names.size(); ++k) {
      Handle d = vector_dataset(g, varied.names[k], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, varied.columns[k].data(), n);
      attribute(d, "unit", varied.units[k]);
      const ParameterInfo* p = design.descriptor->find_parameter(varied.names[k]);
      attribute(d, "description", p ? p->description : "scale factor of " + varied.names[k]);
    }
    std::vector<std::string> names, punits;
    for (const auto& p : params) { names.push_back(p.name); punits.push_back(p.unit); }
    matrix_dataset(
        g, "all", n, params.size(),
        [&](hsize_t i, double* row) {
          const std::vector<double> inst = design.instance(static_cast<long>(i));
          std::copy(inst.begin(), inst.end(), row);
        },
        false, [&](hid_t d) { attribute(d, "columns", names); attribute(d, "units", punits); });
  }
}

void write_h5(const std::string& path, const StudyRecord& record,
              const Design& design, const StudyResults& res, const VariedInputs& varied) {
  const hsize_t n = res.status.size();
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating " + path);
  inputs_group(file, design, varied, n);

  // /outputs
  long failed = 0;
  {
    Handle g = group(file, "outputs");
    std::vector<int32_t> status(n);
    for (hsize_t i = 0; i < n; ++i) {
      status[i] = static_cast<int32_t>(res.status[i]);
      failed += status[i] != 0;
    }
    Handle d = vector_dataset(g, "status", H5T_STD_I32LE, H5T_NATIVE_INT32, status.data(), n);
    attribute(d, "status_names", status_names());
    attribute(d, "description", "why the instance stopped: status_names[status]; 0 = ok (ran to the end)");
    // One dataset per summary column, filled a block of instances at a time
    // in one pass over the summary rows.
    const auto& columns = design.descriptor->summary_columns;
    std::vector<Handle> datasets;
    for (const OutputInfo& c : columns) {
      datasets.push_back(empty_vector_dataset(g, c.name, c.integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, n));
      attribute(datasets.back(), "unit", c.unit);
      attribute(datasets.back(), "description", c.description);
    }
    std::vector<double> reals;
    std::vector<int64_t> integers;
    for_each_summary_block(res, [&](long first, long count, const double* rows) {
      for (size_t ci = 0; ci < columns.size(); ++ci) {
        const auto at = [&](long k) { return rows[k * res.summary_width + static_cast<long>(ci)]; };
        if (columns[ci].integer) {
          integers.resize(static_cast<size_t>(count));
          for (long k = 0; k < count; ++k) integers[k] = static_cast<int64_t>(at(k));
          write_vector_rows(datasets[ci], columns[ci].name, H5T_NATIVE_INT64, integers.data(), first, count);
        } else {
          reals.resize(static_cast<size_t>(count));
          for (long k = 0; k < count; ++k) reals[k] = at(k);
          write_vector_rows(datasets[ci], columns[ci].name, H5T_NATIVE_DOUBLE, reals.data(), first, count);
        }
      }
    });
  }

  // /trajectories, a block of instances at a time.
  const long m = res.samples_per_instance;
  if (record.trajectory_stride > 0 && m > 0 && res.trajectories) {
    Handle g = group(file, "trajectories");
    attribute(g, "stride", static_cast<long>(record.trajectory_stride));
    attribute(g, "description", "every stride-th step and t = 0; samples never recorded (after a failure) are NaN in every channel");
    const long W = res.sample_width;
    const long block = std::max<long>(1, (1L << 20) / (m * W));
    std::vector<double> buf;
    long buf_first = -1;
    // Instance li's m samples of the kernel's W channels, a block of instances read at a time.
    auto samples_of = [&](long li) -> const double* {
      if (buf_first < 0 || li < buf_first || li >= buf_first + block) {
        buf_first = li - li % block;
        const long count = std::min<long>(block, static_cast<long>(n) - buf_first);
        buf.resize(static_cast<size_t>(count * m * W));
        res.trajectories(buf_first, count, buf.data());
      }
      return buf.data() + (li - buf_first) * m * W;
    };
    const auto& channels = design.descriptor->trajectory_channels;
    for (size_t ci = 0; ci < channels.size(); ++ci) {
      const OutputInfo& ch = channels[ci];
      matrix_dataset(
          g, ch.name, n, static_cast<hsize_t>(m),
          [&](hsize_t i, double* row) {
            const double* s = samples_of(static_cast<long>(i));
            for (long k = 0; k < m; ++k) row[k] = s[k * W + ci];
          },
          true, [&](hid_t d) { attribute(d, "unit", ch.unit); });
    }
    // The channels derived on the host (a model file's named points), from
    // the kernel's samples and each instance's parameters.
    const ModelDescriptor& model = *design.descriptor;
    const auto& derived = model.derived_channels;
    if (!derived.empty() && model.derive_samples) {
      const long D = static_cast<long>(derived.size());
      std::vector<double> values(static_cast<size_t>(m * D));
      long values_of = -1;
      for (long dj = 0; dj < D; ++dj) {
        matrix_dataset(
            g, derived[dj].name, n, static_cast<hsize_t>(m),
            [&](hsize_t i, double* row) {
              const long li = static_cast<long>(i);
              if (li != values_of) {
                const std::vector<double> inst = design.instance(li);
                model.derive_samples(model, inst.data(), samples_of(li), m, W, values.data());
                values_of = li;
              }
              for (long k = 0; k < m; ++k) row[k] = values[k * D + dj];
            },
            true, [&](hid_t d) {
              attribute(d, "unit", derived[dj].unit);
              attribute(d, "description", derived[dj].description);
            });
        values_of = -1;
      }
    }
  }

  if (res.analysis) analysis_group(file, *res.analysis);

  // /metadata
  Handle g = group(file, "metadata");
  study_metadata(g, record, design);
  attribute(g, "formulation", record.formulation);
  attribute(g, "driving_coordinate", design.descriptor->driving_coordinate);
  attribute(g, "backend", res.run.backend);
  attribute(g, "device", res.run.device);
  attribute(g, "threads", static_cast<long>(res.run.threads));
  attribute(g, "ranks", static_cast<long>(res.run.ranks));
  attribute(g, "wall_seconds", res.run.wall_seconds);
  attribute(g, "chunk_size", res.run.chunk_size);
  attribute(g, "chunks", res.run.chunks);
  attribute(g, "resumed_instances", res.run.resumed_instances);
  attribute(g, "created", utc_now_iso8601());
  attribute(g, "instance_count", static_cast<long>(n));
  attribute(g, "failed_count", failed);
  attribute(g, "dt", record.settings.dt);
  attribute(g, "duration", record.settings.duration);
  attribute(g, "trajectory_stride", static_cast<long>(record.trajectory_stride));
  attribute(g, "samples_per_instance", m);
  analysis_metadata(g, record, design);
  design_metadata(g, design, n);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing " + path);
}

// ---- CSV -------------------------------------------------------------------

void write_csv(const std::string& path, const Design& design, const StudyResults& res, const VariedInputs& varied) {
  const auto& columns = design.descriptor->summary_columns;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw OutputError("cannot create " + path + ": " + std::strerror(errno));
  std::fputs("index,status", f);
  for (const auto& name : varied.names) std::fprintf(f, ",%s", name.c_str());
  for (const auto& c : columns) std::fprintf(f, ",%s", c.name.c_str());
  std::fputc('\n', f);
  for_each_summary_block(res, [&](long first, long count, const double* rows) {
    for (long k = 0; k < count; ++k) {
      const long i = first + k;
      std::fprintf(f, "%ld,%s", i, status_name(res.status[i]));
      for (const auto& column : varied.columns) std::fprintf(f, ",%.17g", column[i]);
      const double* row = rows + k * res.summary_width;
      for (size_t c = 0; c < columns.size(); ++c) {
        if (columns[c].integer) std::fprintf(f, ",%lld", static_cast<long long>(row[c]));
        else std::fprintf(f, ",%.17g", row[c]);
      }
      std::fputc('\n', f);
    }
  });
  const bool failed = std::ferror(f);
  const int saved = errno;
  if (std::fclose(f) != 0 || failed)
    throw OutputError("writing " + path + " failed: " + std::strerror(failed ? saved : errno));
}

// summary.csv's columns: the instance number, its status, the varied inputs,
// then the model's summary columns (their units and descriptions come from
// the model's descriptor, kernels/integrators/run_columns.hpp).
std::vector<ColumnDoc> summary_column_docs(const Design& design, const VariedInputs& varied) {
  std::vector<ColumnDoc> docs{{"index", "-", "instance number, the row of the design (from 0)"},
                              {"status", "-", "ok, or the failure that stopped the instance (docs/usage.md)"}};
  append_varied_column_docs(docs, varied.names, varied.units);
  for (const auto& c : design.descriptor->summary_columns) docs.push_back({c.name, c.unit, c.description});
  return docs;
}

void check_output_names(const std::string& dir, const std::vector<std::string>& names);

}  // namespace

std::vector<std::string> status_names() {
  std::vector<std::string> names;
  for (int code = 0;; ++code) {
    const std::string n = status_name(static_cast<Status>(code));
    if (n == "unknown") break;
    names.push_back(n);
  }
  return names;
}

void check_output_dir(const std::string& dir) {
  if (dir.empty()) throw OutputError("the output directory is empty: name one (an empty name would write into the working directory)");
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) throw OutputError("output directory " + dir + ": " + ec.message());
  if (fs::exists(p, ec) && !fs::is_directory(p, ec)) throw OutputError("output directory " + dir + " exists and is not a directory");
  while (!fs::exists(p, ec)) p = p.parent_path();  // terminates at "/"
  if (!fs::is_directory(p, ec)) throw OutputError("cannot create output directory " + dir + ": " + p.string() + " is not a directory");
  if (::access(p.c_str(), W_OK | X_OK) != 0)
    throw OutputError("cannot write to output directory " + dir + ": " + p.string() + ": " + std::strerror(errno));
  check_output_names(dir, {"results.h5", "summary.csv", "summary.columns.csv", "stability.h5", "stability.csv",
                           "stability.columns.csv"});
  finish_interrupted_write(dir);
}

void finish_interrupted_write(const std::string& dir) {
  const std::vector<std::string> finished = finish_interrupted_commit(dir);
  if (finished.empty()) return;
  std::string names;
  for (const auto& n : finished) names += (names.empty() ? "" : ", ") + n;
  std::fprintf(stderr, "hydrosweep: note: finished the final write a killed run had begun in %s (%s)\n", dir.c_str(),
               names.c_str());
}

OutputPaths write_outputs(const std::string& dir, const StudyRecord& record,
                          const Design& design, const StudyResults& result) {
  if (static_cast<long>(result.status.size()) != design.instance_count() ||
      result.summary_width != static_cast<long>(design.descriptor->summary_columns.size()) ||
      !result.summaries)
    throw OutputError("internal: " + std::to_string(result.status.size()) + " summaries of width " +
                      std::to_string(result.summary_width) + " for " + std::to_string(design.instance_count()) +
                      " instances");
  prepare_hdf5();
  check_output_dir(dir);

  const VariedInputs varied = varied_inputs(design, static_cast<long>(result.status.size()));
  const auto paths = commit_outputs(dir, {{"results.h5", [&](const std::string& tmp) { write_h5(tmp, record, design, result, varied); }},
                                            {"summary.csv", [&](const std::string& tmp) { write_csv(tmp, design, result, varied); }},
                                            {"summary.columns.csv",
                                             [&](const std::string& tmp) { write_columns_csv(tmp, summary_column_docs(design, varied)); }}},
                                    {"plots/"});  // `hydrosweep plot`'s pictures of the earlier run
  return {paths[0], paths[1]};
}

namespace {
// What sits at an output's name must be an earlier output (a file) or
// nothing: a directory or other object the user put there is theirs, and is
// neither moved aside nor replaced (issue 36).
void check_output_names(const std::string& dir, const std::vector<std::string>& names) {
  std::error_code ec;
  for (const auto& name : names) {
    const fs::path p = fs::path(dir) / name;
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st) || fs::is_regular_file(st)) continue;
    throw OutputError(p.string() + " exists and is " + (fs::is_directory(st) ? "a directory" : "not a regular file") +
                      ", where hydrosweep writes its " + name + ": move it away or choose another --out");
  }
}

}  // namespace

// ---- stability maps (hydrosweep stability) ------------------------------------

namespace {

const char* const kEquilibriumText =
    "static equilibrium at crank angle = mechanism.initial_angle1, p3 = circuit.rod_side_initial_pressure, "
    "valve closed (U = 0), p1 = p2 from the statics";

// What the model's map linearizes where, and the widths of its records.
std::string equilibrium_text(const Design& design) {
  const ModelDescriptor* d = design.descriptor;
  if (d && !d->stability_equilibrium.empty()) return d->stability_equilibrium;
  return std::string("reduced Jacobian of seed 000 at the ") + kEquilibriumText;
}
// Seed 003's constrained systems (their methods are mcs, rcs, ucs) order and
// select their eigenvalues differently (host/constrained/points.hpp).
bool constrained_map(const Design& design) {
  return design.descriptor && !design.descriptor->stability_methods.empty() &&
         design.descriptor->stability_methods.front() != "reduced";
}
std::string stability_method(const StudyRecord& record, const Design& design) {
  if (!record.stability.method.empty()) return record.stability.method;
  return design.descriptor && !design.descriptor->stability_methods.empty() ? design.descriptor->stability_methods.front()
                                                                            : "reduced";
}
int eigenvalue_columns(const Design& design) {
  const ModelDescriptor* d = design.descriptor;
  return d && d->stability_eigenvalues > 0 ? std::min(d->stability_eigenvalues, kStabilityRecordEigenvalues) : 6;
}
int pressure_columns(const Design& design) {
  const ModelDescriptor* d = design.descriptor;
  return d && d->stability_pressures > 0 ? std::min(d->stability_pressures, kStabilityPressures) : 3;
}

void write_stability_h5(const std::string& path, const StudyRecord& record,
                        const Design& design, const std::vector<StabilityRecord>& pts,
                        const RunRecord& run, const VariedInputs& varied) {
  const hsize_t n = pts.size();
  const int ne = eigenvalue_columns(design), npr = pressure_columns(design);
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating " + path);
  inputs_group(file, design, varied, n);

  long failed = 0;
  {
    Handle g = group(file, "stability");
    attribute(g, "description", equilibrium_text(design) + "; its eigenvalues");
    auto doubles = [&](const std::string& name, const std::string& unit, const std::string& what, auto value) {
      std::vector<double> v(n);
      for (hsize_t i = 0; i < n; ++i) v[i] = value(pts[i]);
      Handle d = vector_dataset(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), n);
      attribute(d, "unit", unit);
      attribute(d, "description", what);
    };
    auto ints = [&](const std::string& name, const std::string& what, auto value) {
      std::vector<int32_t> v(n);
      for (hsize_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(value(pts[i]));
      Handle d = vector_dataset(g, name, H5T_STD_I32LE, H5T_NATIVE_INT32, v.data(), n);
      attribute(d, "unit", std::string("-"));
      attribute(d, "description", what);
      return d;
    };
    auto matrix = [&](const std::string& name, hsize_t cols, const std::string& unit, const std::string& what, auto value) {
      matrix_dataset(
          g, name, n, cols, [&](hsize_t i, double* row) { for (hsize_t k = 0; k < cols; ++k) row[k] = value(pts[i], k); }, false,
          [&](hid_t d) { attribute(d, "unit", unit); attribute(d, "description", what); });
    };
    using P = StabilityRecord;
    {
      Handle d = ints("status", "status_names[status]; 0 = ok (equilibrium, Jacobian and eigenvalues computed)",
                      [](const P& p) { return p.status; });
      attribute(d, "status_names", status_names());
    }
    for (const auto& p : pts) failed += p.status != 0;
    matrix("eigenvalues_real", ne, "1/s",
           constrained_map(design)
               ? "Re of the " + std::to_string(ne) + " lowest-frequency true eigenvalues of the study's [stability] method (" +
                     stability_method(record, design) + ", seed 003), by increasing |Im| (pairs: +Im first)"
               : "Re of all " + std::to_string(ne) + " eigenvalues (open loop: of the reduced Jacobian; sampled closed loop: ln(mu)/T "
                 "of the one-period multipliers mu), by decreasing real part (pairs: +Im first)",
           [](const P& p, hsize_t k) { return p.re[k]; });
    matrix("eigenvalues_imag", ne, "1/s", "Im of the eigenvalues, same order as eigenvalues_real",
           [](const P& p, hsize_t k) { return p.im[k]; });
    doubles("max_real", "1/s", kMaxRealText, [](const P& p) { return p.max_real; });
    doubles("damping_ratio", "-", kDampingRatioText, [](const P& p) { return p.damping_ratio; });
    doubles("frequency", "rad/s", "damped frequency Im(lambda) of the dominant pair; NaN when overdamped",
            [](const P& p) { return p.frequency; });
    ints("overdamped", kOverdampedText, [](const P& p) { return p.overdamped; });
    ints("structural_zeros", std::string(kStructuralZerosText) + " (2 per cylinder expected: the closed valve conserves "
         "two oil volumes (three-volume circuit), each chamber's oil (two-volume and servo-valve circuits; 1 with "
         "internal leakage) or each cylinder's free pressure level (lift-tilt))",
         [](const P& p) { return p.structural_zeros; });
    doubles("crank_angle", "rad", "driving coordinate at the equilibrium (z1 planar, phi2 3D, q1 lift-tilt)",
            [](const P& p) { return p.crank_angle; });
    matrix("pressure", npr, "Pa",
           npr == 3   ? "p1, p2, p3 at the equilibrium"
           : npr == 6 ? "p1, p2, p3 of cylinder 1, then of cylinder 2, at the equilibrium"
                      : "p_a1, p_b1, p_a2, p_b2 at the equilibrium",
           [](const P& p, hsize_t k) { return p.pressure[k]; });
  }

  Handle g = group(file, "metadata");
  attribute(g, "kind", std::string("stability"));
  study_metadata(g, record, design);
  std::vector<std::string> factors;
  for (const auto& a : design.grid) factors.push_back(a.name);
  attribute(g, "factors", factors);  // the design's axes/factors (the other varied inputs are derived)
  attribute(g, "equilibrium", equilibrium_text(design));
  attribute(g, "zero_tolerance", record.stability.zero_tolerance);
  attribute(g, "oscillatory_tolerance", record.stability.oscillatory_tolerance);
  attribute(g, "method", stability_method(record, design));  // reduced (seed 000) or mcs / rcs / ucs (seed 003)
  attribute(g, "backend", run.backend);
  attribute(g, "device", run.device);
  attribute(g, "threads", static_cast<long>(run.threads));
  attribute(g, "ranks", static_cast<long>(run.ranks));
  attribute(g, "wall_seconds", run.wall_seconds);
  attribute(g, "points_per_second", run.wall_seconds > 0 ? double(n) / run.wall_seconds : 0.0);
  attribute(g, "created", utc_now_iso8601());
  attribute(g, "instance_count", static_cast<long>(n));
  attribute(g, "failed_count", failed);
  design_metadata(g, design, n);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing " + path);
}

// stability.csv's columns (the same figures as stability.h5's /stability).
std::vector<ColumnDoc> stability_column_docs(const StudyRecord& record, const Design& design, const VariedInputs& varied) {
  const std::string order = constrained_map(design)
                                ? "the lowest-frequency true eigenvalues of method " + stability_method(record, design) +
                                      ", by increasing |Im|"
                                : std::string("the eigenvalues by decreasing real part");
  std::vector<ColumnDoc> docs{{"index", "-", "point number, the row of the design (from 0)"}};
  append_varied_column_docs(docs, varied.names, varied.units);
  docs.push_back({"status", "-", "ok (equilibrium, Jacobian and eigenvalues computed), or why not"});
  docs.push_back({"max_real", "1/s", kMaxRealText});
  docs.push_back({"damping_ratio", "-", kDampingRatioText});
  docs.push_back({"frequency_hz", "Hz", "damped frequency Im(lambda)/(2 pi) of the dominant pair; NaN when overdamped"});
  docs.push_back({"overdamped", "-", kOverdampedText});
  docs.push_back({"structural_zeros", "-", std::string(kStructuralZerosText) + ", left out of max_real"});
  for (int k = 1; k <= eigenvalue_columns(design); ++k) {
    docs.push_back({"lambda" + std::to_string(k) + "_re", "1/s", "Re of eigenvalue " + std::to_string(k) + " of " + order});
    docs.push_back({"lambda" + std::to_string(k) + "_im", "1/s", "Im of eigenvalue " + std::to_string(k) + " of " + order});
  }
  return docs;
}

void write_stability_csv(const std::string& path, const Design& design, const std::vector<StabilityRecord>& pts,
                         const VariedInputs& varied) {
  const int ne = eigenvalue_columns(design);
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw OutputError("cannot create " + path + ": " + std::strerror(errno));
  std::fputs("index", f);
  for (const auto& name : varied.names) std::fprintf(f, ",%s", name.c_str());
  std::fputs(",status,max_real,damping_ratio,frequency_hz,overdamped,structural_zeros", f);
  for (int k = 1; k <= ne; ++k) std::fprintf(f, ",lambda%d_re,lambda%d_im", k, k);
  std::fputc('\n', f);
  for (size_t i = 0; i < pts.size(); ++i) {
    const StabilityRecord& p = pts[i];
    std::fprintf(f, "%zu", i);
    for (const auto& column : varied.columns) std::fprintf(f, ",%.17g", column[i]);
    std::fprintf(f, ",%s,%.17g,%.17g,%.17g,%d,%d", status_name(static_cast<Status>(p.status)), p.max_real, p.damping_ratio,
                 p.frequency / (2.0 * M_PI), p.overdamped, p.structural_zeros);
    for (int k = 0; k < ne; ++k) std::fprintf(f, ",%.17g,%.17g", p.re[k], p.im[k]);
    std::fputc('\n', f);
  }
  const bool failed = std::ferror(f);
  const int saved = errno;
  if (std::fclose(f) != 0 || failed)
    throw OutputError("writing " + path + " failed: " + std::strerror(failed ? saved : errno));
}

}  // namespace

StabilityOutputPaths write_stability_outputs(const std::string& dir, const StudyRecord& record, const Design& design,
                                             const std::vector<StabilityRecord>& points, const RunRecord& run) {
  if (static_cast<long>(points.size()) != design.instance_count())
    throw OutputError("internal: " + std::to_string(points.size()) + " stability points for " +
                      std::to_string(design.instance_count()) + " instances");
  prepare_hdf5();
  check_output_dir(dir);
  const VariedInputs varied = varied_inputs(design, static_cast<long>(points.size()));
  const auto paths =
      commit_outputs(dir, {{"stability.h5", [&](const std::string& tmp) { write_stability_h5(tmp, record, design, points, run, varied); }},
                             {"stability.csv", [&](const std::string& tmp) { write_stability_csv(tmp, design, points, varied); }},
                             {"stability.columns.csv",
                              [&](const std::string& tmp) { write_columns_csv(tmp, stability_column_docs(record, design, varied)); }}},
                     {"stability_map.png"});  // the earlier map
  return {paths[0], paths[1]};
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace hs
