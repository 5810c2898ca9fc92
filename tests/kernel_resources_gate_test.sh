#!/usr/bin/env bash
# The kernel-resources gate (bench/kernel_resources.py --gate) on the built
# library: passes against the committed record, and fails, naming the kernel,
# when the record says a kernel's stack was 8 bytes smaller (what a kernel
# whose stack grew by 8 bytes looks like to the gate) or lacks a kernel.
#   kernel_resources_gate_test.sh LIBRARY SOURCE_DIR
set -uo pipefail
lib="$1"; root="$2"
script="$root/bench/kernel_resources.py"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 "$script" --gate "$lib" || { echo "FAIL: the gate refused the committed record"; exit 1; }
python3 - "$root/bench/results/kernel-resources-gate-sm90.json" "$tmp" <<'PY'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
rec = json.load(open(src))
first = sorted(rec["kernels"])[0]
grown = json.loads(json.dumps(rec)); grown["kernels"][first]["stack_bytes"] -= 8
json.dump(grown, open(tmp + "/grown.json", "w"))
missing = json.loads(json.dumps(rec)); del missing["kernels"][first]
json.dump(missing, open(tmp + "/missing.json", "w"))
open(tmp + "/name", "w").write(rec["kernels"][first]["name"])
PY
name="$(cat "$tmp/name")"
out="$(python3 "$script" --gate "$lib" --record "$tmp/grown.json")"; rc=$?
echo "$out"
[[ $rc == 1 && "$out" == *"gate FAILED"* && "$out" == *"$name: stack_bytes"*"(+8 B"* ]] || { echo "FAIL: a grown stack passed the gate"; exit 1; }
out="$(python3 "$script" --gate "$lib" --record "$tmp/missing.json")"; rc=$?
[[ $rc == 1 && "$out" == *"new kernel without a record: $name"* ]] || { echo "FAIL: an unrecorded kernel passed the gate"; exit 1; }
echo "kernel_resources_gate_test: passed"
