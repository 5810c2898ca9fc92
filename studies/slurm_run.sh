#!/bin/bash
# One hydrosweep study over several nodes under Slurm (README "Studies across
# ranks (MPI)"): every task is an MPI rank that runs its share of the chunks
# with OpenMP on its cores; rank 0 writes DIR/results.h5 and DIR/summary.csv,
# the same as one process would. DIR must be on a file system every node sees
# (the ranks exchange their chunks as files in DIR/.hydrosweep-partial).
#
#   sbatch studies/slurm_run.sh STUDY.toml DIR [more hydrosweep run options]
#   sbatch studies/slurm_run.sh STUDY.toml DIR --resume    # after a failed or cancelled job
#
# Adjust the resources below to the cluster: one task per node (or per
# socket) with all its cores is usually best; for GPUs, one task per GPU
# (--gpus-per-task=1) and --backend cuda.
#SBATCH --job-name=hydrosweep
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=32
#SBATCH --time=01:00:00
#SBATCH --output=hydrosweep-%j.log
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: sbatch $0 STUDY.toml DIR [hydrosweep run options]" >&2
  exit 2
fi
study=$1
out=$2
shift 2
# The CLI: HYDROSWEEP (a path) or the one on PATH (cmake --install puts it in PREFIX/bin).
hydrosweep=${HYDROSWEEP:-hydrosweep}
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
export OMP_PROC_BIND=spread OMP_PLACES=cores
# srun starts the ranks through PMIx (Open MPI 4/5); with an MPI whose Slurm
# plugin is PMI-2, use --mpi=pmi2. A plain `hydrosweep run` in this script
# (without srun) runs as one process on the first node.
srun --mpi=pmix --cpus-per-task="$OMP_NUM_THREADS" "$hydrosweep" run "$study" --out "$out" --progress lines "$@"
