// Reductions over dims: sum, mean, prod (floats accumulate in double, integers in wrapping
// int64, then cast to the recorded result dtype, which carries a `dtype=` argument), amax,
// amin, max/min of everything (NaN wins), any and all.
#include <algorithm>
#include <cmath>

#include "kernels/dispatch.h"

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

// sum / prod / mean, with or without dims; dtype= is already in the recorded result dtype.
std::vector<RuntimeValue> sum_like(const KernelCall& call, Fold kind) {
    const StridedTensor& self = call.tensor("self", 0);
    const Reduction r = reduction_of(call, self);
    const DType dtype = call.output_meta(0).dtype;
    if (kind == Fold::Mean && !dtype_is_floating(dtype)) {
        call.fail("mean() needs a floating input or dtype=, got " + std::string(dtype_name(dtype)));
    }
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

// amax / amin over dims, and max / min of every element: the input's dtype; NaN wins.
std::vector<RuntimeValue> extremum(const KernelCall& call, bool maximum, bool all_dims) {
    const StridedTensor& self = call.tensor("self", 0);
    const Reduction r = all_dims ? plan_reduction(self, {}, false) : reduction_of(call, self);
    if (r.reduced_count() == 0) {
        call.fail(std::string(maximum ? "max" : "min") + "(): cannot reduce over a dim of size zero (input shape " +
                  shape_string(self.sizes) + ")");
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
