// The MCS eigenproblem K_r v = ω² M_r v of seed 003's systems on the GPU:
// cusolverDnDsygvd (Cholesky of M_r, tridiagonalization, divide and conquer),
// for `count` problems of one order n in a row on one handle and one
// workspace: a sweep over material or spring parameters gives problems of a
// single size. The host path (LAPACK dsygvd, host/constrained/lapack.hpp) is what
// runs without a device; tests/test_gpu_eigen.cpp compares the two on a device.
// Built with the CUDA backend (HYDROSWEEP_HAVE_CUDA).
#pragma once
#include <vector>

namespace hs {

// K, M: count × n × n, column-major (symmetric: either order), M positive
// definite. w: count × n eigenvalues, ascending. Returns each problem's
// info (0: ok; > n: M not positive definite). Throws std::runtime_error on a
// CUDA or cuSOLVER failure or without a device.
std::vector<int> symmetric_definite_cusolver(const std::vector<double>& K, const std::vector<double>& M, int n, int count,
                                             std::vector<double>& w);

// The batched path for small orders (n ≤ 32, cuSOLVER's syevjBatched limit),
// a sweep's many small problems in three batched calls rather than a loop:
// M = L Lᵀ (cusolverDnDpotrfBatched), S = L⁻¹ K L⁻ᵀ (two cublasDtrsmBatched),
// the eigenvalues of S (cusolverDnDsyevjBatched, Jacobi). Same layout and
// results as symmetric_definite_cusolver. info per problem: 0 ok; > 0 and
// ≤ n: M not positive definite (the leading minor); > n: Jacobi did not
// converge. Throws std::invalid_argument for n > 32.
std::vector<int> symmetric_definite_cusolver_batched(const std::vector<double>& K, const std::vector<double>& M, int n,
                                                     int count, std::vector<double>& w);

}  // namespace hs
