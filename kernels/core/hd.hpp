// Host/device annotation shared by every kernel header.
//
// Kernel code is compiled three ways: by the host compiler for the CPU and
// Kokkos backends, and by nvcc for the CUDA backend. HS_HD marks a function
// callable from both sides; nothing else in kernels/ may depend on which
// compiler is in use (docs/models/README.md §5.1: no #ifdef __CUDA_ARCH__ inside physics).
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HS_HD __host__ __device__
#define HS_FORCEINLINE __forceinline__
#define HS_UNROLL _Pragma("unroll")
#else
#define HS_HD
#define HS_FORCEINLINE inline __attribute__((always_inline))
#define HS_UNROLL _Pragma("GCC unroll 16")
#endif
