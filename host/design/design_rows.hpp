// A design the user made: its rows read from a CSV, NumPy .npy or HDF5 file
// ([sample] method = "rows", docs/study-files.md "`[sample]`: the design"). One row per instance, one
// column per varied parameter; the study parser matches the columns to the
// model's parameters and range-checks every value (host/study/study.cpp).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/design/sampling.hpp"

namespace hs {

// A file that cannot be read as a design: the message names the file and,
// where it applies, the line, row and column ("rows.csv:14: column 3
// (circuit.oil_bulk_modulus): 'abc' is not a number").
struct DesignRowsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DesignRows {
  std::string path;                  // the file as opened (messages, metadata)
  std::string format;                // "csv", "npy" or "hdf5"
  std::string dataset;               // hdf5: the dataset read
  std::vector<std::string> columns;  // column names, in the file's order
  SampleMatrix values;               // rows x columns
  std::vector<long> lines;           // csv: the file line of each row (1-based); empty for the others
  std::uint64_t digest = 0;          // FNV-1a of the file's bytes (a resumed run checks it is the same file)

  long row_count() const { return static_cast<long>(values.rows); }
  // Where row i is, for messages: "rows.csv:14 (row 12)" or "rows.npy row 12" (rows count from 1).
  std::string where(long i) const;
};

// The largest design file read (its bytes), and the most memory its values
// may take as doubles (every format; an HDF5 dataset's decompressed values).
constexpr long kMaxDesignRowsBytes = 4L << 30;

// Reads `path` by its extension: .csv (a header line of column names, then
// one row of numbers per line; blank lines and lines starting with '#'
// skipped), .npy (a 2-D array of float64, float32, int64 or int32, either
// order; a 1-D array is one column) or .h5/.hdf5 (the 2-D or 1-D numeric
// dataset `dataset`, "design" when empty). `columns` names the columns of an
// .npy or HDF5 array in order (HDF5: else the dataset's string-array attribute
// "columns"); for a CSV it selects those columns of the header (empty: all).
// At most max_rows rows. Every value must be finite. Throws DesignRowsError.
DesignRows read_design_rows(const std::string& path, const std::vector<std::string>& columns,
                            const std::string& dataset, long max_rows);

// FNV-1a of a file's bytes: the identity of an input outside the study
// text (a design file, a model file) that a resumed run checks.
std::uint64_t content_digest(const std::string& bytes);

}  // namespace hs
