#!/usr/bin/env bash
# Install what hydrosweep needs on a fresh Debian machine (idempotent).
# Debian packages via apt-get, Python packages via pip.
set -euo pipefail

debs=(cmake g++ make pkg-config ccache
      libeigen3-dev liblapack-dev libhdf5-dev hdf5-tools libtomlplusplus-dev libcli11-dev
      libgtest-dev libgmock-dev libbenchmark-dev libsundials-dev
      python3-venv python3-dev  # the Python package: its test environment (scripts/test_python.sh), Python.h
      libopenmpi-dev openmpi-bin  # MPI-sharded studies (mpirun -np K hydrosweep run)
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

# The compiler cache every build of the checkout goes through (CMakeLists.txt
# sets the launcher; docs/build.md §2): room for a CUDA build and a few CPU
# flavours. Set once, never shrunk below what the user chose.
if command -v ccache >/dev/null 2>&1; then
  max="$(ccache --get-config max_size 2>/dev/null || echo 0)"
  case "$max" in
    *G) [ "${max%.*G}" -lt 10 ] 2>/dev/null && ccache --set-config max_size=10G >/dev/null ;;
    *) ccache --set-config max_size=10G >/dev/null ;;
  esac
fi

# Python side: h5py, matplotlib, numpy (plots); scipy, pytest (the tests that
# regenerate a results file's design and analysis from its metadata alone).
if ! python3 -c "import h5py, matplotlib, numpy, scipy, pytest" 2>/dev/null; then
  echo "setup: installing python packages h5py matplotlib numpy scipy pytest"
  python3 -m pip install -q h5py matplotlib numpy scipy pytest
fi
# cuobjdump and nvdisasm for the kernel-resources gate of CUDA builds
# (bench/kernel_resources.py --gate) and the GPU projection (bench/gpu_projection.py);
# the CUDA toolkit here ships without them: PyPI's nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  if ! python3 -c "import nvidia, os, sys; sys.exit(not any(os.path.isfile(os.path.join(b, s, 'bin', 'nvdisasm')) for b in nvidia.__path__ for s in os.listdir(b)))" 2>/dev/null; then
    echo "setup: installing python packages nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm"
    python3 -m pip install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
  fi
fi
echo "setup: ok"
