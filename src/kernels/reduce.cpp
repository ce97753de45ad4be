// Reductions over dims: sum, mean, prod (floats accumulate in double, integers in wrapping
// int64, then cast to the recorded result dtype, which carries a `dtype=` argument), amax,
// amin, max/min of everything (NaN wins), any and all.
//
// Accumulation order. A float32 or float64 input that is row-major and reduced over its
// trailing dims (a sum over the last dim, or of everything) is summed in chunks of kChunk
// consecutive elements, the chunk sums then added in order in double. A float64 chunk is summed
// in eight interleaved double partial sums (element j to sum j % 8) added pairwise; a float32
// chunk by the ISA table's sum_f32 (kernels/isa/float_math.h): blocks of 256 elements in 32 interleaved
// float lanes (at most 8 elements each), each block's lanes added into 32 double sums, added
// pairwise. Every other sum folds its elements one after another in double. A float32 sum is
// thus within 8 * 2^-24 times the sum of its elements' magnitudes of the exact sum, the margin
// of PyTorch's own float cascade sum (a sum in double throughout took twice the time, 2-2.6x
// PyTorch's at 1M elements); the others are closer. The chunks do not depend on the thread count
// or the instruction set, so a result is the same however the work is split and on every
// machine.
#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels/dense_paths.h"
#include "kernels/cpu_isa.h"
#include "kernels/contracts.h"

namespace pt2ov::kernels {
namespace {

// The reduced dims of `self` (all of them when the op has no `dim` or an empty one) and keepdim.
Reduction reduction_of(const KernelCall& call, const StridedTensor& self) {
    std::vector<int64_t> dims;
    if (call.has("dim", 1)) dims = normalize_dims(call, call.ints("dim", 1), static_cast<int64_t>(self.rank()));
    return plan_reduction(self, dims, call.bool_arg("keepdim", 2, false));
}

// Calls body(begin, end, kept_offsets, step) over ranges of the kept positions (row-major over
// kept_sizes): kept_offsets[i] is position i's byte offset in the input; step is the byte
// distance between consecutive reduced elements when they are evenly spaced (one reduced dim,
// as in a reduction over the last dim), else 0 (walk r.reduced_bytes). Each position folds its
// own elements in their order, so splitting positions over threads leaves every result as it is.
template <typename Body>
void for_kept_positions(const Reduction& r, const Body& body) {
    const std::vector<int64_t> kept_offsets =
        byte_offsets(r.kept_sizes, r.kept_input.strides, r.kept_input.element_size());
    const auto& reduced = r.reduced_bytes;
    int64_t step = reduced.size() >= 2 ? reduced[1] - reduced[0] : 0;
    for (size_t j = 1; j < reduced.size() && step != 0; ++j) {
        if (reduced[j] - reduced[j - 1] != step) step = 0;
    }
    if (!reduced.empty() && reduced[0] != 0) step = 0;
    const auto positions = static_cast<int64_t>(kept_offsets.size());
    const int64_t work = positions * std::max<int64_t>(r.reduced_count(), 1);
    auto range = [&](int64_t begin, int64_t end) { body(begin, end, kept_offsets, step); };
    if (work < kParallelMinElements || positions < 2) {
        range(0, positions);
    } else {
        const int64_t per_range = std::max<int64_t>(1, kParallelMinElements / 2 / std::max<int64_t>(r.reduced_count(), 1));
        parallel_ranges(positions, per_range, range);
    }
}

// Folds the reduced elements of each kept position with `step` from `init`, then `finish`,
// into a new tensor of the accumulator's dtype (double or int64) over the kept dims.
template <typename In, typename Acc, typename Step, typename Finish>
StridedTensor fold(const Reduction& r, Acc init, Step step, Finish finish) {
    constexpr DType acc_dtype = std::is_same_v<Acc, double> ? DType::Float64 : DType::Int64;
    StridedTensor result = StridedTensor::allocate(acc_dtype, r.kept_sizes);
    auto* results = reinterpret_cast<Acc*>(result.data);
    const std::byte* input = r.kept_input.data;
    const int64_t count = r.reduced_count();
    for_kept_positions(r, [&](int64_t begin, int64_t end, const std::vector<int64_t>& kept, int64_t spacing) {
        for (int64_t i = begin; i < end; ++i) {
            const std::byte* p = input + kept[i];
            Acc acc = init;
            if (spacing != 0) {
                for (int64_t j = 0; j < count; ++j) acc = step(acc, load<In>(p + j * spacing));
            } else {
                for (int64_t offset : r.reduced_bytes) acc = step(acc, load<In>(p + offset));
            }
            results[i] = finish(acc);
        }
    });
    return result;
}

enum class Fold { Sum, Prod, Mean };

// ---- Dense rows ----------------------------------------------------------------------------

// Chunk length of the dense path (elements): the unit of work split over threads.
constexpr int64_t kChunk = 8192;

// A row-major input reduced over its trailing dims is [rows, cols] in memory.
struct DenseRows {
    int64_t rows = 1, cols = 1;
};

// `self` as [rows, cols] when it is row-major, has elements and `dims` (normalized; empty: all)
// are its last dims.
std::optional<DenseRows> dense_rows(const StridedTensor& self, std::vector<int64_t> dims) {
    if (self.numel() == 0 || !self.is_contiguous()) return std::nullopt;
    const auto rank = static_cast<int64_t>(self.rank());
    if (dims.empty()) {
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
    }
    std::sort(dims.begin(), dims.end());
    const auto first = rank - static_cast<int64_t>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] != first + static_cast<int64_t>(i)) return std::nullopt;
    }
    DenseRows d;
    for (int64_t i = 0; i < rank; ++i) (i < first ? d.rows : d.cols) *= self.sizes[static_cast<size_t>(i)];
    return d;
}

// The shapes of a reduction (out_sizes, kept_sizes, kept_output) without its list of reduced
// offsets, which for a sum of everything holds one entry per element: planned over a view
// whose reduced dims have size 1.
Reduction reduction_shape(const StridedTensor& self, const std::vector<int64_t>& dims, bool keepdim) {
    std::vector<int64_t> sizes = self.sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (dims.empty() || std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end()) sizes[d] = 1;
    }
    return plan_reduction(self.view(sizes, self.strides), dims, keepdim);
}

// chunk(row, begin, end) -> Partial for every chunk of every row (in parallel for big inputs),
// then finish(row, partials, count) for each row with its chunks' partials in order.
template <typename Partial, typename Chunk, typename Finish>
void reduce_dense_rows(const DenseRows& d, const Chunk& chunk, const Finish& finish) {
    const int64_t chunks = (d.cols + kChunk - 1) / kChunk;
    const int64_t tasks = d.rows * chunks;
    std::vector<Partial> partials(static_cast<size_t>(tasks));
    auto range = [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
            const int64_t row = t / chunks, start = (t % chunks) * kChunk;
            partials[static_cast<size_t>(t)] = chunk(row, start, std::min(d.cols, start + kChunk));
        }
    };
    if (d.rows * d.cols < kParallelMinElements || tasks < 2) {
        range(0, tasks);
    } else {
        parallel_ranges(tasks, std::max<int64_t>(1, kParallelMinElements / 2 / std::min(d.cols, kChunk)), range);
    }
    for (int64_t row = 0; row < d.rows; ++row) finish(row, &partials[static_cast<size_t>(row * chunks)], chunks);
}

// The sum of n consecutive elements in double: for double, eight interleaved partial sums,
// added pairwise; for float, the ISA table's sum_f32.
inline double dense_sum(const float* p, int64_t n) { return isa_kernels().sum_f32(p, n); }
inline double dense_sum(const double* p, int64_t n) {
    double lanes[8] = {};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        for (int k = 0; k < 8; ++k) lanes[k] += p[j + k];
    }
    for (int k = 0; j < n; ++j, ++k) lanes[k] += p[j];
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// sum / mean of a dense float32 or float64 input over its trailing dims, as double over the kept dims.
template <typename T>
StridedTensor dense_sum_rows(const StridedTensor& self, const DenseRows& d, bool mean) {
    StridedTensor result = StridedTensor::allocate_for_overwrite(DType::Float64, {d.rows});
    auto* results = reinterpret_cast<double*>(result.data);
    const auto* data = reinterpret_cast<const T*>(self.data);
    reduce_dense_rows<double>(
        d, [&](int64_t row, int64_t begin, int64_t end) { return dense_sum(data + row * d.cols + begin, end - begin); },
        [&](int64_t row, const double* partials, int64_t count) {
            double acc = 0;
            for (int64_t c = 0; c < count; ++c) acc += partials[c];
            results[row] = mean ? acc / static_cast<double>(d.cols) : acc;
        });
    return result;
}

// sum / prod / mean, with or without dims; dtype= is already in the recorded result dtype.
std::vector<RuntimeValue> sum_like(const KernelCall& call, Fold kind) {
    const StridedTensor& self = call.tensor("self", 0);
    const DType dtype = call.output_meta(0).dtype;
    if (kind == Fold::Mean && !dtype_is_floating(dtype)) {
        call.fail("mean() needs a floating input or dtype=, got " + std::string(dtype_name(dtype)));
    }
    const bool dense_type = self.dtype == DType::Float32 || self.dtype == DType::Float64;
    if (kind != Fold::Prod && dense_type && dtype_is_floating(dtype)) {
        std::vector<int64_t> dims;
        if (call.has("dim", 1)) dims = normalize_dims(call, call.ints("dim", 1), static_cast<int64_t>(self.rank()));
        if (const auto d = dense_rows(self, dims)) {
            const Reduction r = reduction_shape(self, dims, call.bool_arg("keepdim", 2, false));
            const StridedTensor folded = self.dtype == DType::Float32 ? dense_sum_rows<float>(self, *d, kind == Fold::Mean)
                                                                      : dense_sum_rows<double>(self, *d, kind == Fold::Mean);
            StridedTensor out = allocate_output(call, 0, r.out_sizes, dtype);
            copy_into(folded.view(r.kept_sizes, contiguous_strides(r.kept_sizes)), r.kept_output(out));
            return single(out);
        }
    }
    const Reduction r = reduction_of(call, self);
    const auto count = static_cast<double>(r.reduced_count());
    StridedTensor folded = visit_dtype(self.dtype, [&]<typename In>() {
        if (dtype_is_floating(dtype)) {
            auto step = [kind](double acc, auto v) { return kind == Fold::Prod ? acc * double(v) : acc + double(v); };
            auto finish = [kind, count](double acc) { return kind == Fold::Mean ? acc / count : acc; };
            return fold<In>(r, kind == Fold::Prod ? 1.0 : 0.0, step, finish);
        }
        // Integers: the input as int64 (floats truncated as a cast would), wrapping arithmetic.
        auto step = [kind](int64_t acc, auto v) {
            const auto x = static_cast<uint64_t>(cast<int64_t>(v));
            return static_cast<int64_t>(kind == Fold::Prod ? static_cast<uint64_t>(acc) * x : static_cast<uint64_t>(acc) + x);
        };
        return fold<In>(r, int64_t{kind == Fold::Prod ? 1 : 0}, step, [](int64_t acc) { return acc; });
    });
    StridedTensor out = allocate_output(call, 0, r.out_sizes, dtype);
    copy_into(folded, r.kept_output(out));
    return single(out);
}

// The extremum of one row in order, as the general path takes it: the first NaN, else the
// first element equal to the extremum.
template <typename T>
T extremum_in_order(const T* p, int64_t n, bool maximum) {
    T best = p[0];
    for (int64_t j = 0; j < n; ++j) {
        if (std::isnan(p[j])) return p[j];
        if (maximum ? best < p[j] : p[j] < best) best = p[j];
    }
    return best;
}

// A chunk's extremum (float: the ISA table's extremum_f32; double: below) from interleaved lanes
// (two 16-byte vectors of them, as GCC's vector
// extension, which the compiler does not find from scalar code here), and whether the chunk
// holds a NaN or an infinity (v * 0 is NaN for those), in which case the row is taken again in
// order.
template <typename T>
struct ChunkExtremum {
    T best;
    bool unsure;
};
inline ChunkExtremum<float> dense_extremum(const float* p, int64_t n, bool maximum) {
    bool unsure = false;
    const float best = isa_kernels().extremum_f32(p, n, maximum, &unsure);
    return {best, unsure};
}
template <typename T>
ChunkExtremum<T> dense_extremum(const T* p, int64_t n, bool maximum) {
    typedef T Vec __attribute__((vector_size(16)));
    constexpr int kLanes = 16 / sizeof(T);
    auto load_vec = [](const T* at) {
        Vec v;
        std::memcpy(&v, at, sizeof(Vec));
        return v;
    };
    const Vec first = Vec{} + p[0];  // every lane p[0]
    Vec lanes0 = first, lanes1 = first, probe0 = Vec{}, probe1 = Vec{};
    int64_t j = 0;
    if (maximum) {
        for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
            const Vec v0 = load_vec(p + j), v1 = load_vec(p + j + kLanes);
            lanes0 = lanes0 < v0 ? v0 : lanes0;
            lanes1 = lanes1 < v1 ? v1 : lanes1;
            probe0 += v0 * T(0);
            probe1 += v1 * T(0);
        }
    } else {
        for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
            const Vec v0 = load_vec(p + j), v1 = load_vec(p + j + kLanes);
            lanes0 = v0 < lanes0 ? v0 : lanes0;
            lanes1 = v1 < lanes1 ? v1 : lanes1;
            probe0 += v0 * T(0);
            probe1 += v1 * T(0);
        }
    }
    T best = lanes0[0];
    T sum = 0;
    for (int k = 0; k < kLanes; ++k) {
        for (const T lane : {lanes0[k], lanes1[k]}) best = maximum ? (best < lane ? lane : best) : (lane < best ? lane : best);
        sum += probe0[k] + probe1[k];
    }
    for (; j < n; ++j) {
        best = maximum ? (best < p[j] ? p[j] : best) : (p[j] < best ? p[j] : best);
        sum += p[j] * T(0);
    }
    return {best, std::isnan(sum)};
}

// amax / amin of a dense float32 or float64 input over its trailing dims. The lanes give the
// extremum's value; a row holding NaN or infinity, or whose extremum is zero (+0 and -0 compare
// equal, and the general path keeps the first), is taken again in order, so the result is the
// general path's bit for bit.
template <typename T>
void dense_extremum_rows(const StridedTensor& self, const DenseRows& d, bool maximum, T* results) {
    const auto* data = reinterpret_cast<const T*>(self.data);
    reduce_dense_rows<ChunkExtremum<T>>(
        d, [&](int64_t row, int64_t begin, int64_t end) { return dense_extremum(data + row * d.cols + begin, end - begin, maximum); },
        [&](int64_t row, const ChunkExtremum<T>* partials, int64_t count) {
            T best = partials[0].best;
            bool unsure = false;
            for (int64_t c = 0; c < count; ++c) {
                unsure = unsure || partials[c].unsure;
                best = maximum ? (best < partials[c].best ? partials[c].best : best) : (partials[c].best < best ? partials[c].best : best);
            }
            results[row] = unsure || best == T(0) ? extremum_in_order(data + row * d.cols, d.cols, maximum) : best;
        });
}

// amax / amin over dims, and max / min of every element: the input's dtype; NaN wins.
std::vector<RuntimeValue> extremum(const KernelCall& call, bool maximum, bool all_dims) {
    const StridedTensor& self = call.tensor("self", 0);
    if (self.dtype == DType::Float32 || self.dtype == DType::Float64) {
        std::vector<int64_t> dims;
        if (!all_dims && call.has("dim", 1)) dims = normalize_dims(call, call.ints("dim", 1), static_cast<int64_t>(self.rank()));
        if (const auto d = dense_rows(self, dims)) {
            const Reduction r = reduction_shape(self, dims, !all_dims && call.bool_arg("keepdim", 2, false));
            StridedTensor folded = StridedTensor::allocate_for_overwrite(self.dtype, r.kept_sizes);
            if (self.dtype == DType::Float32) {
                dense_extremum_rows<float>(self, *d, maximum, reinterpret_cast<float*>(folded.data));
            } else {
                dense_extremum_rows<double>(self, *d, maximum, reinterpret_cast<double*>(folded.data));
            }
            StridedTensor out = allocate_output(call, 0, r.out_sizes, self.dtype);
            copy_into(folded, r.kept_output(out));
            return single(out);
        }
    }
    const Reduction r = all_dims ? plan_reduction(self, {}, false) : reduction_of(call, self);
    if (r.reduced_count() == 0) {
        call.fail(std::string(maximum ? "max" : "min") + "(): cannot reduce over a dim of size zero (input shape " +
                  shape_text(self.sizes) + ")");
    }
    StridedTensor out = allocate_output(call, 0, r.out_sizes, self.dtype);
    const StridedTensor kept_out = r.kept_output(out);
    const std::vector<int64_t> out_offsets = byte_offsets(kept_out.sizes, kept_out.strides, kept_out.element_size());
    visit_dtype(self.dtype, [&]<typename T>() {
        const int64_t count = r.reduced_count();
        for_kept_positions(r, [&](int64_t begin, int64_t end, const std::vector<int64_t>& kept, int64_t spacing) {
            for (int64_t i = begin; i < end; ++i) {
                const std::byte* p = r.kept_input.data + kept[i];
                auto best = load<T>(p + r.reduced_bytes[0]);
                for (int64_t j = 0; j < count; ++j) {
                    const auto v = load<T>(p + (spacing != 0 ? j * spacing : r.reduced_bytes[j]));
                    if constexpr (is_floating_v<T>) {
                        if (std::isnan(v)) {
                            best = v;
                            break;
                        }
                    }
                    if (maximum ? best < v : v < best) best = v;
                }
                store<T>(kept_out.data + out_offsets[i], best);
            }
        });
    });
    return single(out);
}

// any / all: truth is "not zero"; the result dtype is bool (uint8 for a uint8 input).
std::vector<RuntimeValue> any_all(const KernelCall& call, bool any) {
    const StridedTensor& self = call.tensor("self", 0);
    const Reduction r = reduction_of(call, self);
    StridedTensor truth = visit_dtype(self.dtype, [&]<typename In>() {
        auto step = [any](int64_t acc, auto v) -> int64_t {
            const bool nonzero = v != decltype(v)(0);
            return any ? (acc || nonzero) : (acc && nonzero);
        };
        return fold<In>(r, int64_t{any ? 0 : 1}, step, [](int64_t acc) { return acc; });
    });
    StridedTensor out = allocate_output(call, 0, r.out_sizes);
    copy_into(truth, r.kept_output(out));
    return single(out);
}

// Every kernel here reduces `self` over `dim` (every dim when it has none), keeping size 1 with `keepdim`.
PT2OV_FILE_SHAPE_CONTRACT(reduced_self);

PT2OV_KERNEL("aten.sum.dim_IntList", [](const KernelCall& c) { return sum_like(c, Fold::Sum); });
PT2OV_KERNEL("aten.sum.default", [](const KernelCall& c) { return sum_like(c, Fold::Sum); });
PT2OV_KERNEL("aten.mean.dim", [](const KernelCall& c) { return sum_like(c, Fold::Mean); });
PT2OV_KERNEL("aten.mean.default", [](const KernelCall& c) { return sum_like(c, Fold::Mean); });
PT2OV_KERNEL("aten.prod.dim_int", [](const KernelCall& c) { return sum_like(c, Fold::Prod); });
PT2OV_KERNEL("aten.prod.default", [](const KernelCall& c) { return sum_like(c, Fold::Prod); });
PT2OV_KERNEL("aten.amax.default", [](const KernelCall& c) { return extremum(c, true, false); });
PT2OV_KERNEL("aten.amin.default", [](const KernelCall& c) { return extremum(c, false, false); });
PT2OV_KERNEL("aten.max.default", [](const KernelCall& c) { return extremum(c, true, true); });
PT2OV_KERNEL("aten.min.default", [](const KernelCall& c) { return extremum(c, false, true); });
PT2OV_KERNEL("aten.any.dim", [](const KernelCall& c) { return any_all(c, true); });
PT2OV_KERNEL("aten.any.dims", [](const KernelCall& c) { return any_all(c, true); });
PT2OV_KERNEL("aten.any.default", [](const KernelCall& c) { return any_all(c, true); });
PT2OV_KERNEL("aten.all.dim", [](const KernelCall& c) { return any_all(c, false); });
PT2OV_KERNEL("aten.all.dims", [](const KernelCall& c) { return any_all(c, false); });
PT2OV_KERNEL("aten.all.default", [](const KernelCall& c) { return any_all(c, false); });

}  // namespace
}  // namespace pt2ov::kernels
