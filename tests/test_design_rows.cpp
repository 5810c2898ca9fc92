// A design the user made ([sample] method = "rows", host/design/design_rows.hpp;
// docs/study-files.md): rows from a CSV or NumPy .npy file give the same
// instances as the same points written as a grid, value for value; the rows
// are stored in /metadata/design/rows; every bad file exits 2 naming the file,
// the line or row, the column and what is allowed; a resume refuses edited rows.
// (HDF5 designs and rows given from Python: python/tests/test_design_rows.py.)
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstring>

#include "cli_support.hpp"
#include "host/design/design.hpp"

using namespace cli_test;

namespace {

// The points of a 3 x 2 grid over the bulk modulus and the valve time
// constant, first axis slowest (the grid's order).
const double kBulk[3] = {0.9e9, 1.2e9, 1.6e9};
const double kTau[2] = {0.004, 0.011};
const char* kHead = R"(
[study]
friction = "brown-mcphee"
[integrator]
dt = 1e-3
duration = 0.6
[input]
times = [0.0, 0.2]
values = [0.0, 10.0]
[derived]
"friction.static_force" = "1.5 * friction.coulomb_force"
)";

std::string grid_study() {
  return std::string(kHead) + R"(
[[grid]]
parameter = "circuit.oil_bulk_modulus"
values = [0.9e9, 1.2e9, 1.6e9]
[[grid]]
parameter = "circuit.valve_time_constant"
values = [0.004, 0.011]
)";
}

std::string csv_rows() {
  // An extra column the study does not select, and the columns in the other order.
  std::string s = "# the grid's six points\nid, circuit.valve_time_constant, circuit.oil_bulk_modulus\n";
  for (int i = 0; i < 6; ++i)
    s += std::to_string(i) + ", " + hs::round_trip_text(kTau[i % 2]) + ", " + hs::round_trip_text(kBulk[i / 2]) + "\n";
  return s;
}

// A version-1 .npy file of float64 rows (numpy.save's layout).
std::string npy(const std::vector<double>& values, long rows, long cols) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  return out;
}

std::string run_study(const TempDir& tmp, const std::string& name, const std::string& text) {
  write_file(tmp.path / (name + ".toml"), text);
  const fs::path out = tmp.path / name;
  const Result r = hydrosweep("run '" + (tmp.path / (name + ".toml")).string() + "' --out '" + out.string() + "' --quiet",
                              tmp.path);
  EXPECT_EQ(r.code, 0) << name << ": " << r.err;
  return out.string();
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST(DesignRows, CsvAndNpyRowsEqualTheSameGridValueForValue) {
  TempDir tmp;
  const fs::path grid = run_study(tmp, "grid", grid_study());
  write_file(tmp.path / "points.csv", csv_rows());
  // The same [sample] table but for the file: the columns named in the grid's order.
  const auto rows_study = [](const std::string& file) {
    return std::string(kHead) + "[sample]\nmethod = \"rows\"\nfile = \"" + file +
           "\"\ncolumns = [\"circuit.oil_bulk_modulus\", \"circuit.valve_time_constant\"]\n";
  };
  const fs::path csv = run_study(tmp, "csv", rows_study("points.csv"));
  std::vector<double> values;
  for (int i = 0; i < 6; ++i) values.insert(values.end(), {kBulk[i / 2], kTau[i % 2]});
  write_file(tmp.path / "points.npy", npy(values, 6, 2));
  const fs::path np = run_study(tmp, "npy", rows_study("points.npy"));
  // The full parameter rows, the derived static force and the outputs: the
  // same bits (summary.csv below has every output, in round-trip text).
  H5File g(grid / "results.h5"), c(csv / "results.h5"), n(np / "results.h5");
  for (const char* d : {"/inputs/all", "/inputs/friction.static_force", "/outputs/status", "/outputs/q1", "/outputs/p2_max",
                        "/outputs/steps", "/outputs/settling_time", "/outputs/peak_energy_drift"}) {
    SCOPED_TRACE(d);
    const auto a = read_doubles(g.id, d);
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(same_bits(a, read_doubles(c.id, d)));
    EXPECT_TRUE(same_bits(a, read_doubles(n.id, d)));
  }
  // summary.csv: the same text, row for row.
  EXPECT_EQ(read_file(grid / "summary.csv"), read_file(csv / "summary.csv"));
  EXPECT_EQ(read_file(grid / "summary.csv"), read_file(np / "summary.csv"));
  // The rows themselves, with their source, regenerate the inputs.
  EXPECT_EQ(string_attribute(c.id, "/metadata/design", "method"), "rows");
  EXPECT_EQ(string_attribute(c.id, "/metadata/design", "source_format"), "csv");
  EXPECT_TRUE(same_bits(read_doubles(c.id, "/metadata/design/rows"), values));
  EXPECT_TRUE(same_bits(read_doubles(n.id, "/metadata/design/rows"), values));
}

TEST(DesignRows, CheckPrintsTheColumnsAndTheRows) {
  TempDir tmp;
  write_file(tmp.path / "points.csv", "circuit.oil_bulk_modulus\n1e9\n1.1e9\n");
  write_file(tmp.path / "s.toml", std::string(kHead) + "[sample]\nmethod = \"rows\"\nfile = \"points.csv\"\n");
  const Result r = hydrosweep("check '" + (tmp.path / "s.toml").string() + "'", tmp.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 instances (rows)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("column[0] circuit.oil_bulk_modulus: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.1e+09"), std::string::npos) << r.out;
}

// Each mistake exits 2 before anything runs, naming the file, where in it,
// the column and what is allowed.
TEST(DesignRows, BadFilesExit2NamingTheRowAndColumn) {
  TempDir tmp;
  struct Case {
    const char* name;
    const char* file;       // written as rows.csv (or rows.npy for the npy cases)
    const char* sample;     // the [sample] table's keys after method
    const char* expected;   // in stderr
  };
  const std::string npy_2x2 = npy({1e9, 0.004, 1.1e9, 0.004}, 2, 2);
  const Case cases[] = {
      {"out_of_range", "circuit.oil_bulk_modulus\n1e9\n\n-5\n", "file = \"rows.csv\"",
       "rows.csv:4 (row 2), column circuit.oil_bulk_modulus: -5 is out of range (0, 1e+12] Pa"},
      {"not_a_number", "circuit.oil_bulk_modulus,circuit.valve_time_constant\n1e9,abc\n", "file = \"rows.csv\"",
       "rows.csv:2 (row 1), column 2 (circuit.valve_time_constant): 'abc' is not a number"},
      {"unknown_column", "circuit.oil_bulk_modulu\n1e9\n", "file = \"rows.csv\"",
       "unknown parameter 'circuit.oil_bulk_modulu' (sample.file column 1) of model four-bar; did you mean 'circuit.oil_bulk_modulus'?"},
      {"ragged", "circuit.oil_bulk_modulus,circuit.valve_time_constant\n1e9\n", "file = \"rows.csv\"",
       "rows.csv:2: 1 values, but the header has 2 columns"},
      {"duplicate", "circuit.oil_bulk_modulus,circuit.oil_bulk_modulus\n1e9,1e9\n", "file = \"rows.csv\"",
       "column name 'circuit.oil_bulk_modulus' appears twice (columns 1 and 2)"},
      {"not_finite", "circuit.oil_bulk_modulus\ninf\n", "file = \"rows.csv\"",
       "rows.csv:2 (row 1), column 1 (circuit.oil_bulk_modulus): inf is not a finite number"},
      {"no_rows", "circuit.oil_bulk_modulus\n", "file = \"rows.csv\"", "rows.csv: no rows (a design needs at least one)"},
      {"missing_file", nullptr, "file = \"nowhere.csv\"", "nowhere.csv: no such design file"},
      {"missing_key", "circuit.oil_bulk_modulus\n1e9\n", "", "sample.method = \"rows\" needs file = \"PATH\""},
      {"count", "circuit.oil_bulk_modulus\n1e9\n", "file = \"rows.csv\"\ncount = 3",
       "sample.count does not apply to method = \"rows\": the file's rows are the design"},
      {"select_unknown", "a,b\n1,2\n", "file = \"rows.csv\"\ncolumns = [\"c\"]",
       "sample.columns names 'c', which the header does not have (it has 2 columns: a, b)"},
      {"npy_without_names", "npy", "file = \"rows.npy\"", "the array has 2 columns, and sample.columns names 0"},
      {"dataset_not_hdf5", "circuit.oil_bulk_modulus\n1e9\n", "file = \"rows.csv\"\ndataset = \"d\"",
       "sample.dataset is for an HDF5 file (.h5, .hdf5); rows.csv is not one"},
      {"wrong_extension", "x", "file = \"rows.txt\"", "a design file is .csv, .npy, .h5 or .hdf5"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path dir = tmp.path / c.name;
    fs::create_directories(dir);
    if (c.file && std::string(c.file) == "npy") write_file(dir / "rows.npy", npy_2x2);
    else if (c.file) write_file(dir / (std::string(c.name) == "wrong_extension" ? "rows.txt" : "rows.csv"), c.file);
    write_file(dir / "s.toml", std::string(kHead) + "[sample]\nmethod = \"rows\"\n" + c.sample + "\n");
    const Result r = hydrosweep("run '" + (dir / "s.toml").string() + "' --out '" + (dir / "out").string() + "'", tmp.path);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("s.toml:"), std::string::npos) << r.err;  // the study file and line too
    EXPECT_FALSE(fs::exists(dir / "out" / "results.h5"));
  }
  // [[factor]] tables do not mix with rows.
  write_file(tmp.path / "rows.csv", "circuit.oil_bulk_modulus\n1e9\n");
  write_file(tmp.path / "f.toml", std::string(kHead) + "[sample]\nmethod = \"rows\"\nfile = \"rows.csv\"\n"
                                  "[[factor]]\nparameter = \"circuit.valve_time_constant\"\nrelative = 0.1\n");
  const Result r = hydrosweep("check '" + (tmp.path / "f.toml").string() + "'", tmp.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("[[factor]] tables do not apply to method = \"rows\""), std::string::npos) << r.err;
}

// The design file is part of the study: a resume after its rows changed is
// refused (the manifest's study hash covers the study text and the file's
// FNV-1a digest); with the same rows the run resumes and finishes.
TEST(DesignRows, ResumeRefusesEditedRows) {
  TempDir tmp;
  std::string rows = "circuit.oil_bulk_modulus\n";
  for (int i = 0; i < 12; ++i) rows += hs::round_trip_text(1e9 + 5e7 * i) + "\n";
  write_file(tmp.path / "rows.csv", rows);
  write_file(tmp.path / "s.toml", "[integrator]\nduration = 10.0\n[sample]\nmethod = \"rows\"\nfile = \"rows.csv\"\n"
                                  "[execution]\nchunk_size = 3\n");
  const fs::path out = tmp.path / "out";
  // One instance at a time (~75 ms each): still running when the first chunk file appears (it is written
  // while the next chunk runs).
  const pid_t pid = spawn({"run", (tmp.path / "s.toml").string(), "--out", out.string(), "-j", "1", "--lanes", "1",
                           "--progress", "none"},
                          tmp.path / "log");
  wait_for_chunks(out / ".hydrosweep-partial", 1, pid);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 130) << read_file(tmp.path / "log");
  const std::string resume = "run '" + (tmp.path / "s.toml").string() + "' --out '" + out.string() + "' --resume --quiet";
  write_file(tmp.path / "rows.csv", rows + "2e9\n");
  const Result edited = hydrosweep(resume, tmp.path);
  EXPECT_EQ(edited.code, 2);
  EXPECT_NE(edited.err.find("the study text and its design file"), std::string::npos) << edited.err;
  write_file(tmp.path / "rows.csv", rows);
  const Result same = hydrosweep(resume, tmp.path);
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(read_csv(out / "summary.csv").size(), 13u);
}
