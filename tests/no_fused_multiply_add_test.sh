#!/usr/bin/env bash
# No fused multiply-add instruction in the engine's CPU code (CMakeLists.txt:
# the C++ builds compile without contraction, and GCC's basic-block SLP, which
# fuses anyway, is off). A fused a·b + c rounds once where the source rounds
# twice, so a -march=native build with one gives other bits than the baseline
# build and the sanitizer flavour, which the regression recordings compare bit
# for bit (tests/test_regression_shipped_studies.cpp).
#
# Usage: no_fused_multiply_add_test.sh LIBRARY.a
# First shows that the scan finds a fused instruction where there is one (an
# object compiled with -mfma -ffp-contract=fast), so that it cannot pass by
# matching nothing. Then scans every object of the library. Objects that
# define Eigen's functions are skipped and named: seed 003's host
# linearization, built on Eigen's blocked products, whose packet math calls
# FMA intrinsics on purpose when the ISA has them (the regression test
# compares those results at 1e-10, not bit for bit).
set -euo pipefail
pattern='[[:space:]]v?f(n)?m(add|sub|addsub|subadd)[0-9]*(p|s)(d|s|h)[[:space:]]'
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo 'double f(double a, double b, double c) { return a * b + c; }' > "$tmp/probe.cpp"
"${CXX:-c++}" -O2 -mfma -ffp-contract=fast -c "$tmp/probe.cpp" -o "$tmp/probe.o"
# (grep -c, not -q: with pipefail an early exit of grep would fail the pipe.)
if [[ "$(objdump -d --no-show-raw-insn "$tmp/probe.o" | grep -Ec "$pattern")" -eq 0 ]]; then
  echo "no_fused_multiply_add_test: the scan does not find the probe's fused multiply-add"
  objdump -d --no-show-raw-insn "$tmp/probe.o"
  exit 1
fi
echo "probe: the scan finds the fused multiply-add of a*b + c compiled with -mfma -ffp-contract=fast"

library="$(realpath "$1")"
mkdir "$tmp/objects"
cd "$tmp/objects"
ar x "$library"
status=0
scanned=0
for object in *.o; do
  if [[ "$(nm -C --defined-only "$object" | grep -Ec ' [TtWw] (.* )?Eigen::')" -ne 0 ]]; then
    echo "skipped $object (defines Eigen's functions)"
    continue
  fi
  scanned=$((scanned + 1))
  objdump -d --no-show-raw-insn -C "$object" |
    awk -v pat="$pattern" '/^[0-9a-f]+ <.*>:$/ { fn = $0 } $0 ~ pat { print fn }' > "$tmp/found" || true
  n="$(wc -l < "$tmp/found")"
  if [[ "$n" -ne 0 ]]; then
    echo "$object: $n fused multiply-add instructions, in:"
    cut -c1-200 "$tmp/found" | sort | uniq -c | sort -rn | head -20
    status=1
  fi
done
if [[ "$scanned" -eq 0 ]]; then
  echo "no_fused_multiply_add_test: no object scanned in $library"
  exit 1
fi
[[ "$status" -eq 0 ]] && echo "$library: $scanned objects scanned, no fused multiply-add instruction"
exit $status
