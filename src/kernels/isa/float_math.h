// Internal to the CPU kernels: float32 loops over dense memory that the compiler vectorizes
// (exp, sigmoid, tanh, a softmax row, sums, extrema, products). Plain functions over pointers,
// with nothing inline that another translation unit could share: float_math.cpp is compiled
// once per x86-64 level with the ISA table (isa_kernels.h), and the kernels call the level's
// copy through the table (kernels/cpu_isa.h), never these names.
//
// Accuracy, against the result rounded from double (tests/cpp/kernels/test_float_math.cpp
// measures it over the whole float range): exp within 1.5 ulp, sigmoid within 2.5, tanh within 1.5,
// a softmax element within 3. Special values are PyTorch's: exp overflows to inf above
// 88.72, gives subnormals down to -103.9 and 0 below; sigmoid is 0 below -88.7 (its exp(-x)
// overflows, as in PyTorch's vectorized sigmoid) and 1 above 16.6; tanh keeps -0 and is +-1
// beyond +-9.01; NaN gives NaN.
#pragma once

#include <cstdint>

namespace pt2ov::kernels::float_math {

// out[i] = f(in[i]) for i < n; out may be in.
void exp(const float* in, float* out, int64_t n);
void sigmoid(const float* in, float* out, int64_t n);
void tanh(const float* in, float* out, int64_t n);

// out[i] = a[i] * b[i], and a[i] + b[i].
void multiply(const float* a, const float* b, float* out, int64_t n);
void add(const float* a, const float* b, float* out, int64_t n);

// softmax of one row of n > 0 elements: exp(in[i] - max) / sum, the exponentials summed in
// double. A row holding +inf or NaN gives NaN everywhere, a row of -inf too, as PyTorch's.
void softmax_row(const float* in, float* out, int64_t n);

// The sum of n elements, returned in double: 32 float lanes (element j to lane j % 32) over
// blocks of 256 elements, each block's lanes then added into 32 double sums, added pairwise at
// the end. Within 8 * 2^-24 times the sum of the elements' magnitudes of the exact sum (each
// float lane adds at most 8 elements), as PyTorch's float cascade sum is within a small multiple
// of it; accumulating every element in double instead costs twice the time. The same result on
// every instruction set.
double sum(const float* p, int64_t n);

// The largest (maximum) or smallest element of n > 0 elements by <; *unsure tells whether any
// element is NaN or infinite (then a caller that must return the first NaN walks the elements
// in order).
float extremum(const float* p, int64_t n, bool maximum, bool* unsure);

}  // namespace pt2ov::kernels::float_math
