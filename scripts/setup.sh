#!/usr/bin/env bash
# Install what hydrosweep needs on a fresh Debian machine (idempotent):
# Debian packages via apt-get, Python packages via pip into the project's
# virtual environment .venv/ (never the system interpreter; docs/build.md §6).
#
#   scripts/setup.sh           what the main command needs (scripts/run_default.sh):
#                              the compiler, CMake, ccache, Eigen, LAPACK, HDF5,
#                              toml++, CLI11; .venv with numpy, h5py, matplotlib
#   scripts/setup.sh --tests   and what the test command adds (scripts/test.sh):
#                              GoogleTest, Google Benchmark, SUNDIALS (the CVODE
#                              peer), Open MPI, Kokkos, the Python headers;
#                              scipy and pytest in .venv
#
# HYDROSWEEP_VENV: another place for the virtual environment. The scripts
# put it first on PATH (scripts/python_env.sh); the CLI of a source-tree build
# uses it for its plots (host/cli/main.cpp, plot_python).
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0
case "${1:-}" in
  "") ;;
  --tests) tests=1 ;;
  *) echo "setup.sh: unknown argument '$1' (allowed: none, or --tests)" >&2; exit 2 ;;
esac

debs=(cmake g++ make pkg-config ccache
      libeigen3-dev liblapack-dev libhdf5-dev hdf5-tools libtomlplusplus-dev libcli11-dev
      python3-venv)  # the project's virtual environment
if [ "$tests" = 1 ]; then
  debs+=(libgtest-dev libgmock-dev libbenchmark-dev libsundials-dev
         python3-dev                 # Python.h: the Python package (scripts/test_python.sh)
         libopenmpi-dev openmpi-bin  # MPI-sharded studies (mpirun -np K hydrosweep run)
         libtrilinos-kokkos-dev)     # Kokkos (Serial space): the optional Kokkos backend
fi
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

# Python: the project's virtual environment. numpy, h5py, matplotlib draw
# the plots; scipy and pytest run the tests that regenerate a results file's
# design and analysis from its metadata alone (tests/python/).
venv="${HYDROSWEEP_VENV:-$PWD/.venv}"
if [ ! -x "$venv/bin/python3" ]; then
  echo "setup: creating the virtual environment $venv"
  python3 -m venv "$venv"
fi
py="$venv/bin/python3"
modules=(numpy h5py matplotlib)
[ "$tests" = 1 ] && modules+=(scipy pytest)
need=()
for m in "${modules[@]}"; do "$py" -c "import $m" 2>/dev/null || need+=("$m"); done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing python packages ${need[*]} into $venv"
  "$py" -m pip install -q "${need[@]}"
fi
# cuobjdump and nvdisasm for the kernel-resources gate of CUDA builds
# (bench/kernel_resources.py --gate) and the GPU projection (bench/gpu_projection.py);
# the CUDA toolkit here ships without them: PyPI's nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm.
if [ "$tests" = 1 ] && { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  if ! "$py" -c "import nvidia, os, sys; sys.exit(not any(os.path.isfile(os.path.join(b, s, 'bin', 'nvdisasm')) for b in nvidia.__path__ for s in os.listdir(b)))" 2>/dev/null; then
    echo "setup: installing python packages nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm into $venv"
    "$py" -m pip install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
  fi
fi
echo "setup: ok"
