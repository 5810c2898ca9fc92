#include "host/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace hs {

std::string round_trip_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string join(const std::vector<std::string>& items, const std::string& sep, const std::string& quote) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + quote + items[i] + quote;
  return out;
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string closest(const std::string& name, const std::vector<std::string>& candidates, bool always) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    const auto dot = c.rfind('.');
    if (name.find('.') == std::string::npos && dot != std::string::npos)
      d = std::min(d, edit_distance(name, c.substr(dot + 1)));
    if (d < best_d) { best_d = d; best = c; }
  }
  if (!always && best_d > std::max<size_t>(2, name.size() / 3)) return "";
  return best;
}

}  // namespace hs
