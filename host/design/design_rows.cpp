// Reading a user's design file (design_rows.hpp): CSV, NumPy .npy, HDF5.
#include "host/design/design_rows.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "host/design/design.hpp"
#include "host/hdf5_read.hpp"

namespace hs {

std::string DesignRows::where(long i) const {
  if (!lines.empty()) return path + ":" + std::to_string(lines[static_cast<size_t>(i)]) + " (row " + std::to_string(i + 1) + ")";
  return path + " row " + std::to_string(i + 1);
}

std::uint64_t content_digest(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

namespace {

[[noreturn]] void fail(const std::string& what) { throw DesignRowsError(what); }


std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

std::string file_bytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(path + ": no such design file (sample.file; a path relative to the study file)");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(path + ": cannot read its size: " + ec.message());
  if (size > static_cast<std::uintmax_t>(kMaxDesignRowsBytes))
    fail(path + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(kMaxDesignRowsBytes >> 30) +
         " GiB a design file may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot be opened for reading");
  std::string bytes(static_cast<size_t>(size), '\0');
  if (size > 0 && !in.read(&bytes[0], static_cast<std::streamsize>(size))) fail(path + ": read error");
  return bytes;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) { cells.push_back(trim(cell)); cell.clear(); }
    else cell += c;
  }
  cells.push_back(trim(cell));
  return cells;
}

bool parse_double(const std::string& text, double& out) {
  if (text.empty()) return false;
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  const auto r = std::from_chars(first, text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

void check_finite(const DesignRows& d, long i, size_t j, double v) {
  if (!std::isfinite(v))
    fail(d.where(i) + ", column " + std::to_string(j + 1) + " (" + d.columns[j] + "): " + round_trip_text(v) +
         " is not a finite number");
}

void check_unique(const std::vector<std::string>& names, const std::string& path) {
  for (size_t j = 0; j < names.size(); ++j) {
    if (names[j].empty()) fail(path + ": column " + std::to_string(j + 1) + " has no name");
    for (size_t k = 0; k < j; ++k)
      if (names[k] == names[j]) fail(path + ": column name '" + names[j] + "' appears twice (columns " +
                                     std::to_string(k + 1) + " and " + std::to_string(j + 1) + ")");
  }
}

void check_row_count(const std::string& path, long rows, long max_rows) {
  if (rows == 0) fail(path + ": no rows (a design needs at least one)");
  if (rows > max_rows) fail(path + ": " + std::to_string(rows) + " rows, more than the " + std::to_string(max_rows) + " a study may run");
}

// The values held in memory (doubles) stay within kMaxDesignRowsBytes.
void check_value_count(const std::string& path, double rows, double cols) {
  if (rows * cols * sizeof(double) > static_cast<double>(kMaxDesignRowsBytes))
    fail(path + ": " + round_trip_text(rows) + " x " + round_trip_text(cols) + " values, more than the " +
         std::to_string(kMaxDesignRowsBytes >> 30) + " GiB of doubles a design may take");
}

// ---- CSV -------------------------------------------------------------------

DesignRows read_csv(const std::string& path, const std::string& bytes, const std::vector<std::string>& wanted, long max_rows) {
  DesignRows d;
  d.path = path;
  d.format = "csv";
  std::istringstream in(bytes);
  std::string line;
  long line_no = 0;
  std::vector<std::string> header;
  std::vector<size_t> take;  // header positions of the columns read
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      for (auto& h : header) h = trim(h);
      check_unique(header, path + ":" + std::to_string(line_no));
      if (wanted.empty()) {
        for (size_t j = 0; j < header.size(); ++j) take.push_back(j);
      } else {
        for (const auto& w : wanted) {
          const auto it = std::find(header.begin(), header.end(), w);
          if (it == header.end())
            fail(path + ":" + std::to_string(line_no) + ": sample.columns names '" + w + "', which the header does not have (it has " +
                 std::to_string(header.size()) + " columns: " + [&] {
                   std::string s;
                   for (size_t k = 0; k < header.size(); ++k) s += (k ? ", " : "") + header[k];
                   return s;
                 }() + ")");
          take.push_back(static_cast<size_t>(it - header.begin()));
        }
      }
      for (size_t j : take) d.columns.push_back(header[j]);
      d.values.cols = take.size();
      continue;
    }
    if (cells.size() != header.size())
      fail(path + ":" + std::to_string(line_no) + ": " + std::to_string(cells.size()) + " values, but the header has " +
           std::to_string(header.size()) + " columns");
    const long i = static_cast<long>(d.lines.size());
    if (i >= max_rows) fail(path + ": more than the " + std::to_string(max_rows) + " rows a study may run");
    d.lines.push_back(line_no);
    check_value_count(path, static_cast<double>(i + 1), static_cast<double>(take.size()));
    for (size_t k = 0; k < take.size(); ++k) {
      double v = 0.0;
      const std::string& cell = cells[take[k]];
      if (!parse_double(cell, v))
        fail(path + ":" + std::to_string(line_no) + " (row " + std::to_string(i + 1) + "), column " + std::to_string(take[k] + 1) +
             " (" + header[take[k]] + "): '" + cell + "' is not a number");
      d.values.values.push_back(v);
      check_finite(d, i, k, v);
    }
  }
  if (header.empty()) fail(path + ": empty (a design file starts with a header line of column names)");
  d.values.rows = d.lines.size();
  check_row_count(path, d.row_count(), max_rows);
  return d;
}

// ---- NumPy .npy (format versions 1-3: a magic string, a header dict, the data) ----

std::string header_value(const std::string& header, const std::string& key, const std::string& path) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) fail(path + ": the .npy header has no '" + key + "'");
  auto p = header.find(':', k);
  if (p == std::string::npos) fail(path + ": malformed .npy header");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  size_t e = p;
  if (header[p] == '(') e = header.find(')', p) + 1;
  else if (header[p] == '\'') e = header.find('\'', p + 1) + 1;
  else while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  return header.substr(p, e - p);
}

DesignRows read_npy(const std::string& path, const std::string& bytes, const std::vector<std::string>& names, long max_rows) {
  DesignRows d;
  d.path = path;
  d.format = "npy";
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail(path + ": not a NumPy .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(path + ": truncated .npy header");
    for (int b = 3; b >= 0; --b) header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + b]);
    start = 12;
  } else {
    fail(path + ": .npy format version " + std::to_string(major) + " (this reader takes 1, 2 and 3)");
  }
  if (start + header_len > bytes.size()) fail(path + ": truncated .npy header");
  const std::string header = bytes.substr(start, header_len);
  const std::string descr = header_value(header, "descr", path);
  const bool fortran = header_value(header, "fortran_order", path) == "True";
  const std::string shape = header_value(header, "shape", path);
  std::vector<long> dims;
  for (size_t p = 1; p < shape.size();) {
    while (p < shape.size() && !std::isdigit(static_cast<unsigned char>(shape[p]))) {
      if (shape[p] == ')') break;
      ++p;
    }
    if (p >= shape.size() || shape[p] == ')') break;
    long v = 0;
    const auto r = std::from_chars(shape.data() + p, shape.data() + shape.size(), v);
    dims.push_back(v);
    p = static_cast<size_t>(r.ptr - shape.data());
  }
  if (dims.size() != 1 && dims.size() != 2)
    fail(path + ": an array of shape " + shape + "; a design is 2-D (rows, columns) or 1-D (one column)");
  const long n = dims[0], m = dims.size() == 2 ? dims[1] : 1;
  struct Kind { const char* code; size_t size; };
  const std::string code = descr.size() >= 4 ? descr.substr(2, descr.size() - 3) : "";
  const char order = descr.size() >= 2 ? descr[1] : '?';
  if (order == '>') fail(path + ": big-endian data (" + descr + "); save it little-endian (numpy's default)");
  static const Kind kinds[] = {{"f8", 8}, {"f4", 4}, {"i8", 8}, {"i4", 4}};
  const Kind* kind = nullptr;
  for (const Kind& k : kinds)
    if (code == k.code) kind = &k;
  if (!kind) fail(path + ": dtype " + descr + "; a design is float64, float32, int64 or int32");
  if (names.size() != static_cast<size_t>(m))
    fail(path + ": the array has " + std::to_string(m) + " columns, and sample.columns names " + std::to_string(names.size()) +
         " (a .npy file has no column names: list them in order)");
  check_unique(names, path + " (sample.columns)");
  check_row_count(path, n, max_rows);
  check_value_count(path, static_cast<double>(n), static_cast<double>(m));
  const size_t data = start + header_len;
  if (bytes.size() - data < static_cast<size_t>(n) * static_cast<size_t>(m) * kind->size)
    fail(path + ": holds fewer bytes than its shape " + shape + " needs");
  d.columns = names;
  d.values = SampleMatrix(static_cast<size_t>(n), static_cast<size_t>(m));
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j) {
      const size_t e = static_cast<size_t>(fortran ? j * n + i : i * m + j);
      const char* p = bytes.data() + data + e * kind->size;
      double v;
      if (code == "f8") std::memcpy(&v, p, 8);
      else if (code == "f4") { float f; std::memcpy(&f, p, 4); v = f; }
      else if (code == "i8") { std::int64_t x; std::memcpy(&x, p, 8); v = static_cast<double>(x); }
      else { std::int32_t x; std::memcpy(&x, p, 4); v = x; }
      d.values(static_cast<size_t>(i), static_cast<size_t>(j)) = v;
      check_finite(d, i, static_cast<size_t>(j), v);
    }
  return d;
}

// ---- HDF5 -----------------------------------------------------------------

DesignRows read_hdf5(const std::string& path, const std::string& dataset_name, const std::vector<std::string>& names, long max_rows) {
  DesignRows d;
  d.path = path;
  d.format = "hdf5";
  d.dataset = dataset_name.empty() ? "design" : dataset_name;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors come back as messages of ours, not printed stacks
  H5Handle f{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (f.id < 0) fail(path + ": not an HDF5 file, or it cannot be opened");
  if (H5Lexists(f.id, d.dataset.c_str(), H5P_DEFAULT) <= 0)
    fail(path + ": no dataset '" + d.dataset + "' (sample.dataset names the design's dataset; default \"design\")");
  H5Handle ds{H5Dopen2(f.id, d.dataset.c_str(), H5P_DEFAULT), H5Dclose};
  if (ds.id < 0) fail(path + ": '" + d.dataset + "' is not a dataset");
  H5Handle type{H5Dget_type(ds.id), H5Tclose};
  const H5T_class_t cls = H5Tget_class(type.id);
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) fail(path + ": dataset '" + d.dataset + "' is not numeric (a design is a 2-D array of numbers)");
  H5Handle space{H5Dget_space(ds.id), H5Sclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank != 1 && rank != 2) fail(path + ": dataset '" + d.dataset + "' has " + std::to_string(rank) + " dimensions; a design is 2-D (rows, columns) or 1-D");
  hsize_t dims[2] = {0, 1};
  H5Sget_simple_extent_dims(space.id, dims, nullptr);
  const long n = static_cast<long>(dims[0]), m = static_cast<long>(rank == 2 ? dims[1] : 1);
  check_row_count(path, n, max_rows);
  check_value_count(path, static_cast<double>(n), static_cast<double>(m));
  d.columns = names.empty() ? read_string_attribute(ds.id, "columns") : names;
  if (d.columns.empty())
    fail(path + ": dataset '" + d.dataset + "' has no \"columns\" attribute; name its columns with sample.columns = [...]");
  if (d.columns.size() != static_cast<size_t>(m))
    fail(path + ": dataset '" + d.dataset + "' has " + std::to_string(m) + " columns, and " +
         (names.empty() ? std::string("its \"columns\" attribute") : std::string("sample.columns")) + " names " +
         std::to_string(d.columns.size()));
  check_unique(d.columns, path);
  d.values = SampleMatrix(static_cast<size_t>(n), static_cast<size_t>(m));
  if (H5Dread(ds.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.values.data()) < 0)
    fail(path + ": dataset '" + d.dataset + "' cannot be read as numbers");
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j) check_finite(d, i, static_cast<size_t>(j), d.values(static_cast<size_t>(i), static_cast<size_t>(j)));
  return d;
}

}  // namespace

DesignRows read_design_rows(const std::string& path, const std::vector<std::string>& columns, const std::string& dataset,
                            long max_rows) {
  const std::string ext = lower_extension(path);
  if (ext != ".csv" && ext != ".npy" && ext != ".h5" && ext != ".hdf5")
    fail(path + ": a design file is .csv, .npy, .h5 or .hdf5 (by its extension)");
  try {
    const std::string bytes = file_bytes(path);
    DesignRows d = ext == ".csv" ? read_csv(path, bytes, columns, max_rows)
                 : ext == ".npy" ? read_npy(path, bytes, columns, max_rows)
                                 : read_hdf5(path, dataset, columns, max_rows);
    d.digest = content_digest(bytes);
    return d;
  } catch (const std::bad_alloc&) {
    fail(path + ": not enough memory to hold the design");
  }
}

}  // namespace hs
