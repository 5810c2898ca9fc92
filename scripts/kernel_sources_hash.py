#!/usr/bin/env python3
"""The hash of the kernel sources a device verification is tied to.

The device code is every file under kernels/ and host/run/backends/, and
host/cuda_support.hpp and host/device_block.hpp. Their hash: SHA-256 over the
lines "<path> <sha256 of the file>\\n" in path order, its first 12 hex digits.
The build computes the same in cmake/kernel_sources_hash.cmake (`hydrosweep
--version` prints it; ctest checks the two agree), and
host/run/device_verification.cpp records with every device finding the hash of
the sources it was measured with: when the sources change, a finding of
"verified" returns to "unverified" by itself (docs/gpu.md §3).

    python3 scripts/kernel_sources_hash.py              # this working tree
    python3 scripts/kernel_sources_hash.py --commit REV # a commit's (git)
"""
import argparse
import hashlib
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("kernels/", "host/run/backends/")
FILES = ("host/cuda_support.hpp", "host/device_block.hpp")


def included(path):
    return path.startswith(FOLDERS) or path in FILES


def tree_files(root):
    out = {}
    for folder in FOLDERS:
        for here, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                full = os.path.join(here, name)
                out[os.path.relpath(full, root).replace(os.sep, "/")] = full
    for f in FILES:
        if os.path.isfile(os.path.join(root, f)):
            out[f] = os.path.join(root, f)
    return {p: open(full, "rb").read() for p, full in out.items()}


def commit_files(root, rev):
    names = subprocess.run(["git", "-C", root, "ls-tree", "-r", "--name-only", rev], check=True,
                           capture_output=True, text=True).stdout.split("\n")
    return {p: subprocess.run(["git", "-C", root, "show", f"{rev}:{p}"], check=True, capture_output=True).stdout
            for p in names if p and included(p)}


def kernel_sources_hash(files):
    text = "".join(f"{p} {hashlib.sha256(files[p]).hexdigest()}\n" for p in sorted(files))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT, help="the repository (default: this script's)")
    ap.add_argument("--commit", help="hash a commit's sources (git) instead of the working tree's")
    ap.add_argument("--list", action="store_true", help="print the files hashed")
    a = ap.parse_args()
    files = commit_files(a.root, a.commit) if a.commit else tree_files(a.root)
    if not files:
        sys.exit("kernel_sources_hash: no kernel sources under " + a.root)
    if a.list:
        for p in sorted(files):
            print(p)
    print(kernel_sources_hash(files))


if __name__ == "__main__":
    main()
