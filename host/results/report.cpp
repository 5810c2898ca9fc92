// A finished run's analysis as text (report.hpp), read from the /analysis
// group and the outputs' units that host/results/output.cpp writes.
#include "host/results/report.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "host/hdf5_read.hpp"
#include "host/run/errors.hpp"

namespace hs {
namespace {

bool has_attribute(hid_t obj, const std::string& name) { return H5Aexists(obj, name.c_str()) > 0; }

double number(hid_t obj, const std::string& name) {
  double v = NAN;
  if (!has_attribute(obj, name)) return v;
  H5Handle a{H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose};
  if (a.id >= 0) H5Aread(a.id, H5T_NATIVE_DOUBLE, &v);
  return v;
}

std::vector<std::string> strings(hid_t obj, const std::string& name) { return read_string_attribute(obj, name.c_str()); }

std::string text(hid_t obj, const std::string& name) {
  const auto v = strings(obj, name);
  return v.empty() ? std::string() : v.front();
}

std::vector<double> doubles(hid_t parent, const std::string& name) {
  std::vector<double> v;
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) return v;
  H5Handle d{H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose};
  H5Handle s{H5Dget_space(d.id), H5Sclose};
  const hssize_t n = H5Sget_simple_extent_npoints(s.id);
  if (n <= 0 || n > (1 << 20)) return v;
  v.resize(static_cast<size_t>(n));
  if (H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) v.clear();
  return v;
}

bool exists(hid_t parent, const std::string& path) { return H5Lexists(parent, path.c_str(), H5P_DEFAULT) > 0; }

std::string g(double v) {
  if (std::isnan(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}
std::string interval(double lo, double hi) { return "[" + g(lo) + ", " + g(hi) + "]"; }
std::string percent(double level) {
  char b[16];
  std::snprintf(b, sizeof b, "%g%%", 100.0 * level);
  return b;
}

// Rows of cells as aligned columns, two spaces apart, indented by two.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t k = 0; k < r.size(); ++k) {
      if (width.size() <= k) width.push_back(0);
      width[k] = std::max(width[k], r[k].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = " ";
    for (size_t k = 0; k < r.size(); ++k) line += " " + r[k] + std::string(width[k] - r[k].size() + 1, ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string analysis_report(const std::string& dir_or_file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path path = fs::is_directory(dir_or_file, ec) ? fs::path(dir_or_file) / "results.h5" : fs::path(dir_or_file);
  if (!fs::is_regular_file(path, ec))
    throw OutputError(path.string() + ": no such file (report reads the results.h5 of a finished `hydrosweep run`)");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5Handle f{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (f.id < 0 || !exists(f.id, "metadata") || !exists(f.id, "outputs"))
    throw OutputError(path.string() + ": not a hydrosweep results file (no /metadata and /outputs)");
  H5Handle meta{H5Gopen2(f.id, "metadata", H5P_DEFAULT), H5Gclose};
  H5Handle outputs{H5Gopen2(f.id, "outputs", H5P_DEFAULT), H5Gclose};
  auto unit_of = [&](const std::string& q) {
    if (!exists(outputs.id, q)) return std::string();
    H5Handle d{H5Dopen2(outputs.id, q.c_str(), H5P_DEFAULT), H5Dclose};
    const std::string u = text(d.id, "unit");
    return u == "-" ? std::string() : u;
  };
  const double n = number(meta.id, "instance_count"), failed = number(meta.id, "failed_count");
  std::string out = "study \"" + text(meta.id, "study_name") + "\" (" + text(meta.id, "model") + ", " +
                    text(meta.id, "sample_method") + "): " + g(n) + " instances, " + g(failed) + " failed\n";
  if (!exists(f.id, "analysis")) return out + "no [analysis] table: nothing analysed (summary.csv has every output)\n";
  H5Handle an{H5Gopen2(f.id, "analysis", H5P_DEFAULT), H5Gclose};
  const double confidence = number(an.id, "confidence");
  const std::vector<std::string> quantities = strings(an.id, "quantities");
  if (exists(an.id, "statistics") && !quantities.empty()) {
    H5Handle st{H5Gopen2(an.id, "statistics", H5P_DEFAULT), H5Gclose};
    std::vector<std::vector<std::string>> rows;
    std::vector<double> levels;
    for (const auto& q : quantities) {
      if (!exists(st.id, q)) continue;
      H5Handle h{H5Gopen2(st.id, q.c_str(), H5P_DEFAULT), H5Gclose};
      if (rows.empty()) {
        levels = doubles(h.id, "quantile_levels");
        std::vector<std::string> head = {"quantity", "unit", "mean", percent(confidence) + " interval", "std"};
        for (double l : levels) head.push_back("q" + g(l));
        head.push_back("n");
        rows.push_back(head);
      }
      std::vector<std::string> r = {q, unit_of(q), g(number(h.id, "mean")),
                                    interval(number(h.id, "mean_ci_low"), number(h.id, "mean_ci_high")), g(number(h.id, "std"))};
      const auto qs = doubles(h.id, "quantiles");
      for (size_t k = 0; k < levels.size(); ++k) r.push_back(k < qs.size() ? g(qs[k]) : "-");
      const double undefined = number(h.id, "count_undefined");
      r.push_back(g(number(h.id, "count_ok")) + (undefined > 0 ? " (" + g(undefined) + " undefined)" : ""));
      rows.push_back(r);
    }
    if (!rows.empty()) out += "statistics (failed instances excluded; intervals by bootstrap):\n" + table(rows);
  }
  if (exists(an.id, "failure")) {
    H5Handle fa{H5Gopen2(an.id, "failure", H5P_DEFAULT), H5Gclose};
    const std::string q = text(fa.id, "quantity"), u = unit_of(q);
    out += "failure probability P[" + q + (text(fa.id, "direction") == "below" ? " < " : " > ") + g(number(fa.id, "limit")) +
           (u.empty() ? "" : " " + u) + "] = " + g(number(fa.id, "probability")) + " " +
           interval(number(fa.id, "ci_low"), number(fa.id, "ci_high")) + " (" + g(number(fa.id, "failures")) + " of " +
           g(number(fa.id, "count")) + ", " + percent(confidence) + " Wilson score interval)\n";
  }
  if (exists(an.id, "sobol")) {
    H5Handle so{H5Gopen2(an.id, "sobol", H5P_DEFAULT), H5Gclose};
    for (const auto& q : quantities) {
      if (!exists(so.id, q)) continue;
      H5Handle h{H5Gopen2(so.id, q.c_str(), H5P_DEFAULT), H5Gclose};
      const auto factors = strings(h.id, "factors");
      const auto s1 = doubles(h.id, "first_order"), s1l = doubles(h.id, "first_order_ci_low"),
                 s1h = doubles(h.id, "first_order_ci_high"), st = doubles(h.id, "total"), stl = doubles(h.id, "total_ci_low"),
                 sth = doubles(h.id, "total_ci_high");
      out += "Sobol' indices of " + q + " (N = " + g(number(h.id, "base_samples")) + " base samples, " +
             g(number(h.id, "dropped_rows")) + " dropped; " + percent(confidence) + " bootstrap intervals):\n";
      std::vector<std::vector<std::string>> rows = {{"factor", "first order S1", "interval", "total ST", "interval"}};
      for (size_t k = 0; k < factors.size() && k < s1.size() && k < st.size(); ++k)
        rows.push_back({factors[k], g(s1[k]), interval(s1l.size() > k ? s1l[k] : NAN, s1h.size() > k ? s1h[k] : NAN), g(st[k]),
                        interval(stl.size() > k ? stl[k] : NAN, sth.size() > k ? sth[k] : NAN)});
      out += table(rows);
      // Second order (sample.second_order): the pairs j < k of the d x d matrix.
      const auto s2 = doubles(h.id, "second_order"), s2l = doubles(h.id, "second_order_ci_low"),
                 s2h = doubles(h.id, "second_order_ci_high");
      const size_t d = factors.size();
      if (d < 2 || s2.size() != d * d) continue;
      std::vector<std::vector<std::string>> pairs = {{"pair", "second order S2", "interval"}};
      for (size_t j = 0; j < d; ++j)
        for (size_t k = j + 1; k < d; ++k) {
          const size_t jk = j * d + k;
          pairs.push_back({factors[j] + " x " + factors[k], g(s2[jk]),
                           interval(s2l.size() == s2.size() ? s2l[jk] : NAN, s2h.size() == s2.size() ? s2h[jk] : NAN)});
        }
      out += table(pairs);
    }
  }
  return out;
}

}  // namespace hs
