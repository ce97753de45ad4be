// The table of kernels compiled once per x86-64 ISA level (isa_kernels.cpp). The baseline copy
// is part of libpt2ov; each wider copy is a shared object of its own beside libpt2ov.so
// (libpt2ov_isa_<level>.so), loaded by cpu_isa.cpp only on a CPU that has the level, whose one
// exported symbol is the C function kIsaKernelsEntry returning its table. Template code (Eigen,
// the standard library) compiled for AVX2 or AVX-512 thus stays private to that object: built
// into libpt2ov, its weak symbols could be the copies the linker keeps for baseline callers too.
//
// The table is plain C (function pointers over plain types) so that the library and an object
// built from the same source agree on it; `size` and `layout_version` let the loader refuse an
// object built from another source (a stale install) rather than call through a wrong table.
//
// Adding an entry: one field here, one assignment in isa_kernels.cpp's fill function, and a
// check in tests/cpp/kernels/test_isa_kernels.cpp that runs it on every level the CPU has.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pt2ov::kernels::isa {

// Raised whenever a field changes meaning (not when one is only added at the end: `size` tells).
inline constexpr uint32_t kIsaKernelsLayoutVersion = 1;

// c = alpha * (a @ b) + beta * c over row-major-or-column-major operands: a is [m, k], b is
// [k, n], c is [m, n], each element (i, j) at data[i * row_stride + j * column_stride] (strides
// in elements; one of each operand's two strides is 1, the other at least the extent of the
// unit-stride dim). beta == 0 writes c without reading it (NaN and inf in it included), as BLAS
// does. Runs on the calling thread; the caller splits big products (kernels/gemm.h).
using GemmF32 = void (*)(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_row_stride,
                         int64_t a_column_stride, const float* b, int64_t b_row_stride, int64_t b_column_stride,
                         float beta, float* c, int64_t c_row_stride, int64_t c_column_stride);
using GemmF64 = void (*)(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t a_row_stride,
                         int64_t a_column_stride, const double* b, int64_t b_row_stride, int64_t b_column_stride,
                         double beta, double* c, int64_t c_row_stride, int64_t c_column_stride);

// The float32 loops of float_math.h (what each computes, and how exactly, is said there).
using MapF32 = void (*)(const float* in, float* out, int64_t n);
using BinaryF32 = void (*)(const float* a, const float* b, float* out, int64_t n);
using SumF32 = double (*)(const float* p, int64_t n);
using ExtremumF32 = float (*)(const float* p, int64_t n, bool maximum, bool* unsure);

struct IsaKernels {
    size_t size;              // sizeof(IsaKernels) where it was built
    uint32_t layout_version;  // kIsaKernelsLayoutVersion where it was built
    const char* isa;          // "baseline", "x86-64-v3", ...: the level it was compiled for
    GemmF32 gemm_f32;
    GemmF64 gemm_f64;
    MapF32 exp_f32;
    MapF32 sigmoid_f32;
    MapF32 tanh_f32;
    MapF32 softmax_row_f32;  // one row of n > 0 elements
    BinaryF32 multiply_f32;
    BinaryF32 add_f32;
    SumF32 sum_f32;
    ExtremumF32 extremum_f32;
};

}  // namespace pt2ov::kernels::isa

// The one symbol a libpt2ov_isa_<level>.so exports: `extern "C" const IsaKernels* NAME()`.
#define PT2OV_ISA_KERNELS_ENTRY pt2ov_isa_kernels
#define PT2OV_ISA_STRINGIFY_(x) #x
#define PT2OV_ISA_STRINGIFY(x) PT2OV_ISA_STRINGIFY_(x)
inline constexpr const char* kIsaKernelsEntry = PT2OV_ISA_STRINGIFY(PT2OV_ISA_KERNELS_ENTRY);
