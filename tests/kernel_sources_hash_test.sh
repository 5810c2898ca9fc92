#!/usr/bin/env bash
# The build's hash of the kernel sources (cmake/kernel_sources_hash.cmake,
# printed by `hydrosweep --version`) is the one scripts/kernel_sources_hash.py
# computes for this tree, with which device findings are recorded
# (host/run/device_verification.cpp, docs/gpu.md §3); and the hash moves when
# a kernel source changes (a copy of the tree with one byte added differs).
# Usage: kernel_sources_hash_test.sh HYDROSWEEP SOURCE_DIR
set -euo pipefail
exe="${1:?usage: $0 HYDROSWEEP SOURCE_DIR}"
root="${2:?usage: $0 HYDROSWEEP SOURCE_DIR}"
script_hash="$(python3 "$root/scripts/kernel_sources_hash.py" --root "$root")"
version="$("$exe" --version)"
echo "script: $script_hash; hydrosweep --version: $version"
[[ "$version" == *"(kernel sources $script_hash)"* ]] || { echo "FAIL: the build's hash is not the script's"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/host/run"
cp -r "$root/kernels" "$tmp/kernels"
cp -r "$root/host/run/backends" "$tmp/host/run/backends"
cp "$root/host/cuda_support.hpp" "$root/host/device_block.hpp" "$tmp/host/"
same="$(python3 "$root/scripts/kernel_sources_hash.py" --root "$tmp")"
[[ "$same" == "$script_hash" ]] || { echo "FAIL: a copy of the sources hashes to $same"; exit 1; }
echo " " >> "$tmp/kernels/core/dual.hpp"
moved="$(python3 "$root/scripts/kernel_sources_hash.py" --root "$tmp")"
[[ "$moved" != "$script_hash" ]] || { echo "FAIL: a changed kernel source kept the hash"; exit 1; }
echo "PASS: $script_hash; one byte more in kernels/core/dual.hpp: $moved"
