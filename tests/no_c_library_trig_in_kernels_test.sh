#!/usr/bin/env bash
# No C library sin, cos, tan or sincos in kernels/ outside the math layer.
# Every kernel calls hs::math::sin/cos/sincos (kernels/core/dual.hpp): on the
# CPU one polynomial (kernels/core/trig.hpp) for one instance and for lanes,
# so a lane gives its scalar run's bits and the native, baseline and
# sanitizer builds agree bit for bit (docs/models/lanes.md; the regression
# recordings of tests/test_regression_shipped_studies.cpp). A bare sin(x),
# std::cos(x) or ::sincos(...) would call glibc on the host, whose results
# differ from the polynomial's in the last bits.
#
# Usage: no_c_library_trig_in_kernels_test.sh SOURCE_DIR
# The math layer itself is exempt: kernels/core/dual.hpp (hs::math, the
# device's sin and cos), trig.hpp (the polynomial), lanes.hpp (the lanes'
# overloads). Comments are ignored. First shows that the scan finds a bare
# call in a probe line and passes math:: calls, so that it cannot pass by
# matching nothing.
set -euo pipefail
root="${1:?usage: $0 SOURCE_DIR}"
python3 - "$root" <<'PY'
import pathlib, re, sys

CALL = re.compile(r"(?<!math::)(?<![\w.])(?:std::|::)?(?:sin|cos|tan|sincos)\s*\(")
EXEMPT = {"kernels/core/dual.hpp", "kernels/core/trig.hpp", "kernels/core/lanes.hpp"}

def code(line):
    return line.split("//", 1)[0]

probe_bad = ["  const double s = std::sin(x);", "  double c = cos(a), t = ::tan(b);", "  sincos(q, &s, &c);"]
probe_good = ["  const double s = math::sin(x);", "  math::sincos(q, &s, &c);  // not sin(q)", "  y = asin(x) + cosh(x);"]
if not all(CALL.search(code(l)) for l in probe_bad) or any(CALL.search(code(l)) for l in probe_good):
    sys.exit("no_c_library_trig_in_kernels_test: the scan does not tell the probe lines apart")
print("probe: the scan finds std::sin, cos, ::tan and sincos, and passes math::sin, math::sincos, asin, cosh")

root = pathlib.Path(sys.argv[1])
found = []
files = sorted(p for p in (root / "kernels").rglob("*") if p.suffix in (".hpp", ".h", ".cuh", ".cu", ".cpp"))
for path in files:
    rel = path.relative_to(root).as_posix()
    if rel in EXEMPT:
        continue
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if CALL.search(code(line)):
            found.append(f"{rel}:{n}: {line.strip()}")
if found:
    print("C library trigonometry in kernels/ (call hs::math:: instead):")
    print("\n".join(found))
    sys.exit(1)
print(f"no C library sin/cos/tan/sincos in {len(files) - len(EXEMPT)} kernel files (math layer exempt)")
PY
