// Reading back HDF5 files with the C API, for the host's readers (a design
// file's dataset, host/design/design_rows.cpp; the analysis of a results file,
// host/results/report.cpp): a handle that closes itself, and a string-array
// attribute as strings.
#pragma once
#include <hdf5.h>

#include <cstring>
#include <string>
#include <vector>

namespace hs {

// An HDF5 identifier closed by its close function at the end of the scope
// (a negative id, a failed open, is not closed).
struct H5Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  H5Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() {
    if (id >= 0) close(id);
  }
};

// The strings of attribute `name` of `obj` (variable- or fixed-length, a
// scalar or an array); empty when it is missing or not a string attribute.
inline std::vector<std::string> read_string_attribute(hid_t obj, const char* name) {
  std::vector<std::string> out;
  if (H5Aexists(obj, name) <= 0) return out;
  H5Handle a{H5Aopen(obj, name, H5P_DEFAULT), H5Aclose};
  H5Handle t{H5Aget_type(a.id), H5Tclose};
  H5Handle s{H5Aget_space(a.id), H5Sclose};
  if (a.id < 0 || t.id < 0 || s.id < 0 || H5Tget_class(t.id) != H5T_STRING) return out;
  const hssize_t n = H5Sget_simple_extent_npoints(s.id);
  if (n <= 0 || n > 100000) return out;
  if (H5Tis_variable_str(t.id) > 0) {
    H5Handle mt{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(mt.id, H5T_VARIABLE);
    H5Tset_cset(mt.id, H5Tget_cset(t.id));
    std::vector<char*> p(static_cast<size_t>(n), nullptr);
    if (H5Aread(a.id, mt.id, p.data()) < 0) return out;
    for (char* c : p) out.emplace_back(c ? c : "");
    H5Dvlen_reclaim(mt.id, s.id, H5P_DEFAULT, p.data());
  } else {
    const size_t size = H5Tget_size(t.id);
    std::vector<char> buf(static_cast<size_t>(n) * size);
    H5Handle mt{H5Tcopy(t.id), H5Tclose};
    if (H5Aread(a.id, mt.id, buf.data()) < 0) return out;
    for (hssize_t k = 0; k < n; ++k) {
      const char* c = buf.data() + k * size;
      out.emplace_back(c, strnlen(c, size));
    }
  }
  return out;
}

}  // namespace hs
