// Eigen's dense module for the host code, the tests and the benchmarks,
// without GCC 12's false -Wuninitialized / -Wmaybe-uninitialized reports
// from its AVX-512 intrinsics: avx512fintrin.h starts some vectors as
// `__m512d __Y = __Y;`, and GCC reports that line wherever Eigen's packet
// code is inlined (~840 reports in a -march=native build on an AVX-512
// machine, all in system headers). As kernels/core/lanes.hpp does for
// <experimental/simd>: the intrinsics' header is included first inside the
// pragma, so the reports of its lines are not printed; our own code keeps
// both warnings.
#pragma once
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <Eigen/Dense>
#pragma GCC diagnostic pop
