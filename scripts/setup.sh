#!/usr/bin/env bash
# Install what hydrosweep needs on a fresh Debian machine (idempotent).
# Debian packages via apt-get, Python packages via pip.
set -euo pipefail

debs=(cmake g++ make pkg-config
      libeigen3-dev liblapack-dev libhdf5-dev hdf5-tools libtomlplusplus-dev libcli11-dev
      libgtest-dev libgmock-dev libbenchmark-dev libsundials-dev
      libtrilinos-kokkos-dev)  # Kokkos (Serial space): the optional Kokkos backend
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python side: h5py, matplotlib, numpy (plots); scipy, pytest (the tests that
# regenerate a results file's design and analysis from its metadata alone).
if ! python3 -c "import h5py, matplotlib, numpy, scipy, pytest" 2>/dev/null; then
  echo "setup: installing python packages h5py matplotlib numpy scipy pytest"
  python3 -m pip install -q h5py matplotlib numpy scipy pytest
fi
echo "setup: ok"
