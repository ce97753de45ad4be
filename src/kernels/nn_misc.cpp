// Layer ops OpenVINO has no converter for: _trilinear and bilinear, multi_margin_loss,
// multilabel_margin_loss, native_group_norm and segment_reduce. Products are
// computed in double and rounded once; segment_reduce accumulates in the data's own type (each
// step rounded for float16 and bfloat16), as PyTorch's kernel does.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "kernels/contracts.h"
#include "kernels/layer_common.h"

namespace pt2ov::kernels {
namespace {

void require_floating(const KernelCall& call, const StridedTensor& t, std::string_view what) {
    if (!dtype_is_floating(t.dtype)) call.fail("expects a floating " + std::string(what) + ", got " + std::string(dtype_name(t.dtype)));
}

// ---- _trilinear, bilinear ------------------------------------------------------------------

// Products of floating inputs are summed in double; of integer ones in 64-bit modular
// arithmetic, which wraps as PyTorch's int64 does in any summation order.
template <typename Acc>
std::vector<Acc> dense_as(const StridedTensor& t) {
    if constexpr (std::is_same_v<Acc, double>) {
        return dense_values<double>(t);
    } else {
        const auto values = dense_int64(t);
        return std::vector<Acc>(values.begin(), values.end());
    }
}

template <typename Acc>
StridedTensor products_output(const KernelCall& call, const std::vector<Acc>& values, const std::vector<int64_t>& sizes) {
    if constexpr (std::is_same_v<Acc, double>) {
        return output_of_values<double>(call, 0, values, sizes, call.output_meta(0).dtype);
    } else {
        return output_of_values<int64_t>(call, 0, std::vector<int64_t>(values.begin(), values.end()), sizes, call.output_meta(0).dtype);
    }
}

template <typename F>
decltype(auto) visit_products(DType dtype, F&& f) {
    if (dtype_is_integer(dtype)) return f.template operator()<uint64_t>();
    return f.template operator()<double>();
}

void require_numeric(const KernelCall& call, const StridedTensor& t) {
    if (t.dtype == DType::Bool) call.fail("expects numeric inputs, got bool");
}

// i1, i2, i3 each unsqueezed at its expand dims to one rank, broadcast, multiplied, and summed
// over sumdim.
std::vector<RuntimeValue> trilinear(const KernelCall& call) {
    const StridedTensor* inputs[3] = {&call.tensor("i1", 0), &call.tensor("i2", 1), &call.tensor("i3", 2)};
    const std::vector<int64_t> expands[3] = {call.ints("expand1", 3, {}), call.ints("expand2", 4, {}), call.ints("expand3", 5, {})};
    const auto sumdim = call.ints("sumdim", 6, {});
    const auto total = static_cast<int64_t>(inputs[0]->rank() + expands[0].size());
    // PyTorch's own check (unroll_dim in [0, total)): the inputs expand to at least one dim, so
    // a dim of expand or sumdim indexes a dim that exists (0-d inputs: refused, as by PyTorch).
    const int64_t unroll_dim = call.int_arg("unroll_dim", 7, 0);
    if (unroll_dim < 0 || unroll_dim >= total) {
        call.fail("unroll_dim must be in [0, " + std::to_string(total - 1) + "], got " + std::to_string(unroll_dim));
    }
    std::vector<StridedTensor> views;
    std::vector<int64_t> sizes(static_cast<size_t>(total), 1);
    for (int k = 0; k < 3; ++k) {
        const StridedTensor& t = *inputs[k];
        require_numeric(call, t);
        if (t.dtype != inputs[0]->dtype) call.fail("expects three inputs of one dtype");
        if (static_cast<int64_t>(t.rank() + expands[k].size()) != total) call.fail("expects every input to expand to one rank");
        std::vector<bool> expanded(static_cast<size_t>(total), false);
        for (int64_t d : expands[k]) expanded[static_cast<size_t>(normalize_dim(call, d, total))] = true;
        std::vector<int64_t> vs, st;
        size_t next = 0;
        for (int64_t d = 0; d < total; ++d) {
            if (expanded[static_cast<size_t>(d)]) {
                vs.push_back(1);
                st.push_back(0);
            } else {
                if (next >= t.rank()) call.fail("expand dims do not fit the input's rank");
                vs.push_back(t.sizes[next]);
                st.push_back(t.strides[next]);
                ++next;
            }
        }
        views.push_back(t.view(vs, st));
        sizes = broadcast_shapes(call, sizes, vs);
    }
    std::vector<bool> summed(static_cast<size_t>(total), false);
    for (int64_t d : sumdim) summed[static_cast<size_t>(normalize_dim(call, d, total))] = true;
    std::vector<int64_t> out_sizes = sizes, result_sizes;
    for (int64_t d = 0; d < total; ++d) {
        if (summed[static_cast<size_t>(d)]) {
            out_sizes[static_cast<size_t>(d)] = 1;
        } else {
            result_sizes.push_back(sizes[static_cast<size_t>(d)]);
        }
    }
    const auto out_strides = contiguous_strides(out_sizes);
    const int64_t count = product(sizes);
    return visit_products(inputs[0]->dtype, [&]<typename Acc>() {
        std::vector<std::vector<Acc>> dense;
        for (const auto& v : views) dense.push_back(dense_as<Acc>(broadcast_to(call, v, sizes)));
        std::vector<Acc> out(static_cast<size_t>(product(out_sizes)), Acc(0));
        for (int64_t k = 0; k < count; ++k) {
            int64_t rest = k, at = 0;
            for (int64_t d = total - 1; d >= 0; --d) {
                const int64_t i = rest % sizes[static_cast<size_t>(d)];
                rest /= sizes[static_cast<size_t>(d)];
                if (!summed[static_cast<size_t>(d)]) at += i * out_strides[static_cast<size_t>(d)];
            }
            const auto kk = static_cast<size_t>(k);
            out[static_cast<size_t>(at)] += dense[0][kk] * dense[1][kk] * dense[2][kk];
        }
        // PyTorch drops the summed dims (the values' order is the same either way).
        return single(products_output<Acc>(call, out, result_sizes));
    });
}

// bilinear(x1 [..., A], x2 [..., B], weight [O, A, B], bias [O]): [..., O].
std::vector<RuntimeValue> bilinear(const KernelCall& call) {
    const StridedTensor& x1 = call.tensor("input1", 0);
    const StridedTensor& x2 = call.tensor("input2", 1);
    const StridedTensor& weight = call.tensor("weight", 2);
    const auto bias = call.optional_tensor("bias", 3);
    for (const auto* t : {&x1, &x2, &weight}) require_numeric(call, *t);
    if (x1.dtype != weight.dtype || x2.dtype != weight.dtype || (bias && bias->dtype != weight.dtype)) {
        call.fail("expects inputs, weight and bias of one dtype");
    }
    if (weight.rank() != 3 || x1.rank() == 0 || x2.rank() != x1.rank()) call.fail("expects a 3-d weight and two inputs of one rank");
    const int64_t outs = weight.sizes[0], a = weight.sizes[1], b = weight.sizes[2];
    if (x1.sizes.back() != a || x2.sizes.back() != b) call.fail("input features do not match the weight's shape " + shape_text(weight.sizes));
    if (!std::equal(x1.sizes.begin(), x1.sizes.end() - 1, x2.sizes.begin())) call.fail("expects inputs with the same leading dims");
    if (bias && (bias->rank() != 1 || bias->sizes[0] != outs)) call.fail("expects a bias of " + std::to_string(outs) + " values");
    const int64_t rows = product(x1.sizes, 0, x1.rank() - 1);
    std::vector<int64_t> sizes(x1.sizes.begin(), x1.sizes.end() - 1);
    sizes.push_back(outs);
    return visit_products(weight.dtype, [&]<typename Acc>() {
        const auto u = dense_as<Acc>(x1), v = dense_as<Acc>(x2), w = dense_as<Acc>(weight);
        const std::vector<Acc> bv = bias ? dense_as<Acc>(*bias) : std::vector<Acc>(static_cast<size_t>(outs), Acc(0));
        std::vector<Acc> out(static_cast<size_t>(rows * outs));
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t o = 0; o < outs; ++o) {
                Acc sum = 0;
                for (int64_t i = 0; i < a; ++i) {
                    for (int64_t j = 0; j < b; ++j) sum += u[r * a + i] * w[(o * a + i) * b + j] * v[r * b + j];
                }
                out[static_cast<size_t>(r * outs + o)] = sum + bv[static_cast<size_t>(o)];
            }
        }
        return single(products_output<Acc>(call, out, sizes));
    });
}

// ---- margin losses -------------------------------------------------------------------------

// A [N, C] or [C] input with its targets; reduction 0 none, 1 mean, 2 sum.
std::vector<double> reduced(const KernelCall& call, std::vector<double> losses, int64_t reduction, std::vector<int64_t>& sizes) {
    if (reduction == 0) return losses;
    if (reduction != 1 && reduction != 2) call.fail("unknown reduction " + std::to_string(reduction));
    double total = 0;
    for (double l : losses) total += l;
    sizes.clear();
    if (reduction == 1) total /= static_cast<double>(losses.size());
    return {total};
}

std::vector<RuntimeValue> multi_margin_loss(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& target = call.tensor("target", 1);
    const double p = scalar_to_double(call.scalar("p", 2));
    const double margin = scalar_to_double(call.scalar("margin", 3));
    const auto weight = call.optional_tensor("weight", 4);
    const int64_t reduction = call.int_arg("reduction", 5, 1);
    require_floating(call, self, "input");
    if (p != 1 && p != 2) call.fail("only p = 1 and p = 2 are supported");
    if (self.rank() > 2) call.fail("expects a 1-d or 2-d input, got shape " + shape_text(self.sizes));
    if (!dtype_is_integer(target.dtype)) call.fail("expects an integer target");
    const int64_t classes = self.rank() == 0 ? 1 : self.sizes.back();
    const int64_t n = self.rank() == 2 ? self.sizes[0] : 1;
    if (target.numel() != n) call.fail("expects one target per sample");
    if (classes == 0) call.fail("expects a non-empty class dim");
    if (weight && weight->numel() != classes) call.fail("expects one weight per class");
    const auto x = dense_values<double>(self);
    const auto y = dense_int64(target);
    const auto w = weight ? dense_values<double>(*weight) : std::vector<double>();
    std::vector<double> losses;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t t = y[static_cast<size_t>(i)];
        if (t < 0 || t >= classes) call.fail("target " + std::to_string(t) + " is out of range for " + std::to_string(classes) + " classes");
        const double* row = x.data() + i * classes;
        double sum = 0;
        for (int64_t j = 0; j < classes; ++j) {
            if (j == t) continue;
            const double z = margin - row[t] + row[j];
            if (z > 0) sum += (p == 1 ? z : z * z) * (weight ? w[static_cast<size_t>(t)] : 1.0);
        }
        losses.push_back(sum / static_cast<double>(classes));
    }
    std::vector<int64_t> sizes = self.rank() == 2 ? std::vector<int64_t>{n} : std::vector<int64_t>{};
    const auto out = reduced(call, std::move(losses), reduction, sizes);
    return single(output_of_values<double>(call, 0, out, sizes, call.output_meta(0).dtype));
}

// Targets: each row's class indices up to the first -1; the loss sums, over each target t and
// each non-target j, max(0, 1 - (x[t] - x[j])), divided by the number of classes.
std::vector<RuntimeValue> multilabel_margin_loss(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const StridedTensor& target = call.tensor("target", 1);
    const int64_t reduction = call.int_arg("reduction", 2, 1);
    require_floating(call, self, "input");
    if (self.rank() > 2) call.fail("expects a 0-d, 1-d or 2-d input, got shape " + shape_text(self.sizes));
    if (target.sizes != self.sizes || !dtype_is_integer(target.dtype)) call.fail("expects an integer target of the input's shape");
    const int64_t classes = self.rank() == 0 ? 1 : self.sizes.back();
    const int64_t n = self.rank() == 2 ? self.sizes[0] : 1;
    const auto x = dense_values<double>(self);
    const auto y = dense_int64(target);
    std::vector<double> losses, is_target(x.size(), 0.0);
    for (int64_t i = 0; i < n; ++i) {
        const double* row = x.data() + i * classes;
        const int64_t* labels = y.data() + i * classes;
        double* mark = is_target.data() + i * classes;
        int64_t count = 0;
        for (; count < classes && labels[count] >= 0; ++count) {
            if (labels[count] >= classes) call.fail("target " + std::to_string(labels[count]) + " is out of range");
            mark[labels[count]] = 1.0;
        }
        double sum = 0;
        for (int64_t k = 0; k < count; ++k) {
            const double xt = row[labels[k]];
            for (int64_t j = 0; j < classes; ++j) {
                if (mark[j] != 0) continue;
                const double z = 1 - xt + row[j];
                if (z > 0) sum += z;
            }
        }
        losses.push_back(sum / static_cast<double>(classes));
    }
    std::vector<int64_t> sizes = self.rank() == 2 ? std::vector<int64_t>{n} : std::vector<int64_t>{};
    const auto out = reduced(call, std::move(losses), reduction, sizes);
    std::vector<RuntimeValue> result{RuntimeValue::of(output_of_values<double>(call, 0, out, sizes, call.output_meta(0).dtype))};
    if (call.node().outputs.size() > 1) {
        result.push_back(RuntimeValue::of(output_of_values<double>(call, 1, is_target, self.sizes, call.output_meta(1).dtype)));
    }
    return result;
}

// ---- native_group_norm ---------------------------------------------------------------------

std::vector<RuntimeValue> native_group_norm(const KernelCall& call) {
    const StridedTensor& input = call.tensor("input", 0);
    const auto weight = call.optional_tensor("weight", 1);
    const auto bias = call.optional_tensor("bias", 2);
    const int64_t n = call.int_arg("N", 3), c = call.int_arg("C", 4), hw = call.int_arg("HxW", 5);
    const int64_t groups = call.int_arg("group", 6);
    const double eps = call.float_arg("eps", 7, 1e-5);
    require_floating(call, input, "input");
    if (input.rank() < 2 || input.sizes[0] != n || input.sizes[1] != c || product(input.sizes, 2) != hw) {
        call.fail("N, C and HxW do not match the input's shape " + shape_text(input.sizes));
    }
    if (groups <= 0 || c % groups != 0) call.fail("expects C divisible by a positive number of groups");
    for (const auto& t : {weight, bias}) {
        if (t && t->numel() != c) call.fail("expects weight and bias of one value per channel");
    }
    const auto x = dense_values<double>(input);
    const auto w = weight ? dense_values<double>(*weight) : std::vector<double>(static_cast<size_t>(c), 1.0);
    const auto b = bias ? dense_values<double>(*bias) : std::vector<double>(static_cast<size_t>(c), 0.0);
    const int64_t per_group = c / groups, inner = per_group * hw;
    std::vector<double> out(x.size()), means(static_cast<size_t>(n * groups)), rstds(static_cast<size_t>(n * groups));
    for (int64_t k = 0; k < n * groups; ++k) {
        const double* row = x.data() + k * inner;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < inner; ++j) mean += row[j];
        mean = inner ? mean / static_cast<double>(inner) : 0.0;
        for (int64_t j = 0; j < inner; ++j) var += (row[j] - mean) * (row[j] - mean);
        var = inner ? var / static_cast<double>(inner) : 0.0;
        const double rstd = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < inner; ++j) {
            const auto ch = static_cast<size_t>((k % groups) * per_group + j / std::max<int64_t>(hw, 1));
            out[static_cast<size_t>(k * inner + j)] = (row[j] - mean) * rstd * w[ch] + b[ch];
        }
        means[static_cast<size_t>(k)] = mean;
        rstds[static_cast<size_t>(k)] = rstd;
    }
    std::vector<RuntimeValue> result{RuntimeValue::of(output_of_values<double>(call, 0, out, input.sizes, call.output_meta(0).dtype))};
    // The statistics may be unused outputs the program does not name (None).
    const auto& outputs = call.node().outputs;
    for (size_t k = 1; k < 3; ++k) {
        const bool named = k < outputs.size() && outputs[k].kind == graph::Argument::Kind::Tensor;
        result.push_back(named ? RuntimeValue::of(output_of_values<double>(call, k, k == 1 ? means : rstds, {n, groups},
                                                                           call.output_meta(k).dtype))
                               : RuntimeValue{});
    }
    return result;
}

// ---- segment_reduce ------------------------------------------------------------------------

enum class SegmentReduction { Sum, Mean, Max, Min, Prod };

template <typename T>
StridedTensor segment_reduce_as(const KernelCall& call, const StridedTensor& data, int64_t axis,
                                const std::vector<int64_t>& starts, int64_t segments, SegmentReduction how,
                                std::optional<double> initial, std::vector<int64_t> out_sizes) {
    using V = compute_t<T>;
    const auto values = dense_values<V>(data);
    const int64_t outer = product(data.sizes, 0, static_cast<size_t>(axis));
    const int64_t along = data.sizes[static_cast<size_t>(axis)];
    const int64_t inner = product(data.sizes, static_cast<size_t>(axis) + 1);
    std::vector<V> out(static_cast<size_t>(outer * segments * inner));
    V start_value;
    if (initial) {
        start_value = cast<T>(*initial);
    } else if (how == SegmentReduction::Max) {
        start_value = -std::numeric_limits<V>::infinity();
    } else if (how == SegmentReduction::Min) {
        start_value = std::numeric_limits<V>::infinity();
    } else {
        start_value = how == SegmentReduction::Prod ? V(1) : V(0);
    }
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t s = 0; s < segments; ++s) {
            const int64_t begin = starts[static_cast<size_t>(o * (segments + 1) + s)];
            const int64_t end = starts[static_cast<size_t>(o * (segments + 1) + s + 1)];
            for (int64_t i = 0; i < inner; ++i) {
                V acc = start_value;
                for (int64_t j = begin; j < end; ++j) {
                    const V v = values[static_cast<size_t>((o * along + j) * inner + i)];
                    switch (how) {
                        case SegmentReduction::Max: acc = std::isnan(v) ? v : std::max(acc, v); break;
                        case SegmentReduction::Min: acc = std::isnan(v) ? v : std::min(acc, v); break;
                        case SegmentReduction::Prod: acc = cast<T>(acc * v); break;
                        default: acc = cast<T>(acc + v); break;
                    }
                }
                const int64_t length = end - begin;
                if (how == SegmentReduction::Mean) {
                    if (length == 0 && !initial) {
                        acc = std::numeric_limits<V>::quiet_NaN();
                    } else if (length > 0 && !std::isnan(acc)) {
                        acc = cast<T>(acc / static_cast<V>(length));
                    }
                }
                out[static_cast<size_t>((o * segments + s) * inner + i)] = acc;
            }
        }
    }
    return output_of_values<V>(call, 0, out, std::move(out_sizes), call.output_meta(0).dtype);
}

std::vector<RuntimeValue> segment_reduce(const KernelCall& call) {
    const StridedTensor& data = call.tensor("data", 0);
    const graph::Argument* reduce_arg = call.arg("reduce", 1);
    if (!reduce_arg || reduce_arg->kind != graph::Argument::Kind::String) call.fail("argument 'reduce' must be a string");
    const std::string& reduce = reduce_arg->string_value;
    const auto lengths = call.optional_tensor("lengths", kKeywordOnly);
    const auto indices = call.optional_tensor("indices", kKeywordOnly);
    const auto offsets = call.optional_tensor("offsets", kKeywordOnly);
    const bool unsafe = call.bool_arg("unsafe", kKeywordOnly, false);
    std::optional<double> initial;
    if (call.has("initial", kKeywordOnly)) initial = scalar_to_double(call.scalar("initial", kKeywordOnly));
    SegmentReduction how;
    if (reduce == "sum") how = SegmentReduction::Sum;
    else if (reduce == "mean") how = SegmentReduction::Mean;
    else if (reduce == "max") how = SegmentReduction::Max;
    else if (reduce == "min") how = SegmentReduction::Min;
    else if (reduce == "prod") how = SegmentReduction::Prod;
    else call.fail("unknown reduction '" + reduce + "'");
    require_floating(call, data, "data");
    if (indices) call.fail("segment_reduce with indices is not supported (PyTorch does not implement it either)");
    if (lengths.has_value() == offsets.has_value()) call.fail("needs exactly one of lengths and offsets");
    if (data.rank() == 0) call.fail("expects data of rank 1 or more");
    const int64_t axis = normalize_dim(call, call.int_arg("axis", kKeywordOnly, 0), static_cast<int64_t>(data.rank()));
    const StridedTensor& segs = lengths ? *lengths : *offsets;
    if (!dtype_is_integer(segs.dtype)) call.fail("expects integer lengths or offsets");
    if (static_cast<int64_t>(segs.rank()) != axis + 1 ||
        !std::equal(segs.sizes.begin(), segs.sizes.end() - 1, data.sizes.begin())) {
        call.fail("expects lengths or offsets of shape data.shape[:axis] + (segments,), got " + shape_text(segs.sizes));
    }
    const auto given = dense_int64(segs);
    const int64_t outer = product(data.sizes, 0, static_cast<size_t>(axis)), along = data.sizes[static_cast<size_t>(axis)];
    const int64_t segments = lengths ? segs.sizes.back() : segs.sizes.back() - 1;
    if (segments < 0) call.fail("offsets need at least one entry");
    // starts: for each outer index, segments + 1 boundaries.
    std::vector<int64_t> starts;
    for (int64_t o = 0; o < outer; ++o) {
        const int64_t* row = given.data() + o * segs.sizes.back();
        int64_t at = lengths ? 0 : row[0];
        starts.push_back(at);
        for (int64_t s = 0; s < segments; ++s) {
            const int64_t next = lengths ? at + row[s] : row[s + 1];
            if ((lengths && row[s] < 0) || next < at || next > along || at < 0) {
                call.fail("lengths must be non-negative and offsets non-decreasing, within the axis of " + std::to_string(along));
            }
            starts.push_back(next);
            at = next;
        }
        if (lengths && !unsafe && at != along) {
            call.fail("expects every row of lengths to sum to data.size(axis) = " + std::to_string(along) + ", got " + std::to_string(at));
        }
    }
    std::vector<int64_t> out_sizes = data.sizes;
    out_sizes[static_cast<size_t>(axis)] = segments;
    return visit_floating(data.dtype, [&]<typename T>() {
        return single(segment_reduce_as<T>(call, data, axis, starts, segments, how, initial, out_sizes));
    });
}

// ---- shape contracts -----------------------------------------------------------------------

std::optional<std::vector<ExpectedSizes>> one_output(ExpectedSizes sizes) { return std::vector<ExpectedSizes>{std::move(sizes)}; }

// The three inputs unsqueezed at their expand dims to one rank, broadcast, less the sumdim dims.
std::optional<std::vector<ExpectedSizes>> trilinear_shape(const ShapeQuery& query) {
    const std::optional<ExpectedSizes> inputs[3] = {query.sizes("i1", 0), query.sizes("i2", 1), query.sizes("i3", 2)};
    const std::optional<std::vector<int64_t>> expands[3] = {query.ints("expand1", 3), query.ints("expand2", 4), query.ints("expand3", 5)};
    const auto sumdim = query.ints("sumdim", 6);
    const auto unroll_dim = query.int_arg("unroll_dim", 7);
    for (int k = 0; k < 3; ++k) {
        if (!inputs[k] || !expands[k]) return std::nullopt;
    }
    if (!sumdim || !unroll_dim) return std::nullopt;
    const auto total = static_cast<int64_t>(inputs[0]->size() + expands[0]->size());
    if (*unroll_dim < 0 || *unroll_dim >= total) {
        query.contradiction(fmt::format("its unroll_dim {} is not a dim of the {} its inputs expand to", *unroll_dim, total));
    }
    const auto dim_of = [&](int64_t d) {
        if (d < -total || d >= total) query.contradiction(fmt::format("dim {} is out of range for rank {}", d, total));
        return static_cast<size_t>(d < 0 ? d + total : d);
    };
    ExpectedSizes sizes(static_cast<size_t>(total), 1);
    for (int k = 0; k < 3; ++k) {
        if (static_cast<int64_t>(inputs[k]->size() + expands[k]->size()) != total) {
            query.contradiction("its inputs do not expand to one rank");
        }
        std::vector<bool> expanded(static_cast<size_t>(total), false);
        for (int64_t d : *expands[k]) expanded[dim_of(d)] = true;
        ExpectedSizes unsqueezed;
        size_t next = 0;
        for (size_t d = 0; d < static_cast<size_t>(total); ++d) {
            if (!expanded[d] && next >= inputs[k]->size()) query.contradiction("its expand dims do not fit its inputs' ranks");
            unsqueezed.push_back(expanded[d] ? std::optional<int64_t>(1) : (*inputs[k])[next++]);
        }
        sizes = broadcast(query, sizes, unsqueezed);
    }
    std::vector<bool> summed(static_cast<size_t>(total), false);
    for (int64_t d : *sumdim) summed[dim_of(d)] = true;
    ExpectedSizes out;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (!summed[d]) out.push_back(sizes[d]);
    }
    return one_output(out);
}

// input1 [..., A] and input2 [..., B] with the same leading sizes, weight [O, A, B]: [..., O].
std::optional<std::vector<ExpectedSizes>> bilinear_shape(const ShapeQuery& query) {
    const auto x1 = query.sizes("input1", 0), x2 = query.sizes("input2", 1), weight = query.sizes("weight", 2);
    if (!x1 || !x2 || !weight) return std::nullopt;
    if (x1->empty() || x1->size() != x2->size()) query.contradiction("its inputs' ranks differ (or are 0)");
    if (weight->size() != 3) query.contradiction(fmt::format("its weight has {} dims where bilinear takes 3", weight->size()));
    const auto agree = [&](const std::optional<int64_t>& a, const std::optional<int64_t>& b, const std::string& what) {
        if (a && b && *a != *b) query.contradiction(fmt::format("{}: {} and {} differ", what, *a, *b));
    };
    for (size_t d = 0; d + 1 < x1->size(); ++d) agree((*x1)[d], (*x2)[d], "its inputs' batch sizes");
    agree(x1->back(), (*weight)[1], "input1's features and the weight's second size");
    agree(x2->back(), (*weight)[2], "input2's features and the weight's third size");
    ExpectedSizes out = *x1;
    out.back() = (*weight)[0];
    return one_output(out);
}

constexpr int64_t kNoReduction = 0;

// [N] per sample of an [N, C] input without reduction, a scalar with one. The decomposition
// export runs (torch._decomp multi_margin_loss, multilabel_margin_loss_forward) makes a vector
// [C] one sample [1] where PyTorch's kernel makes a scalar: that rank is left unchecked.
std::optional<std::vector<ExpectedSizes>> margin_loss_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0), target = query.sizes("target", 1);
    const auto reduction = query.int_arg("reduction", query.node().op == graph::op_id("aten.multi_margin_loss.default") ? 5 : 2);
    if (!self || !target || !reduction) return std::nullopt;
    if (self->size() > 2) query.contradiction(fmt::format("its input has {} dims where the loss takes a vector or a matrix", self->size()));
    const bool multilabel = query.node().op != graph::op_id("aten.multi_margin_loss.default");
    if (multilabel) {
        bool same = target->size() == self->size();
        for (size_t d = 0; same && d < self->size(); ++d) same = !(*self)[d] || !(*target)[d] || *(*self)[d] == *(*target)[d];
        if (!same) query.contradiction("its target's sizes are not its input's");
    }
    ExpectedSizes loss;
    if (*reduction == kNoReduction) {
        if (self->size() < 2) return std::nullopt;
        loss.push_back((*self)[0]);
    }
    if (multilabel) return std::vector<ExpectedSizes>{loss, *target};
    return one_output(loss);
}

// The input's sizes, and mean and 1/std [N, group].
std::optional<std::vector<ExpectedSizes>> group_norm_shape(const ShapeQuery& query) {
    const auto input = query.sizes("input", 0);
    if (!input) return std::nullopt;
    const ExpectedSizes statistics{query.int_arg("N", 3), query.int_arg("group", 6)};
    return std::vector<ExpectedSizes>{*input, statistics, statistics};
}

// lengths' sizes (or offsets' with one fewer in the last dim) followed by data's sizes after
// `axis`, as meta_segment_reduce makes them; a negative axis, which that meta function does not
// wrap, is left unchecked.
std::optional<std::vector<ExpectedSizes>> segment_reduce_shape(const ShapeQuery& query) {
    const auto data = query.sizes("data", 0);
    const auto axis = query.int_arg("axis", 5);
    if (!data || !axis || *axis < 0) return std::nullopt;
    if (*axis >= static_cast<int64_t>(data->size())) {
        query.contradiction(fmt::format("its axis {} is out of range for rank {}", *axis, data->size()));
    }
    auto segments = query.sizes("lengths", 2);
    if (!segments) {
        segments = query.sizes("offsets", 4);
        if (!segments || segments->empty()) return std::nullopt;
        auto& last = segments->back();
        if (last) last = *last - 1;
    }
    ExpectedSizes out = *segments;
    out.insert(out.end(), data->begin() + *axis + 1, data->end());
    return one_output(out);
}

PT2OV_KERNEL("aten._trilinear.default", trilinear, trilinear_shape);
PT2OV_KERNEL("aten.bilinear.default", bilinear, bilinear_shape);
PT2OV_KERNEL("aten.multi_margin_loss.default", multi_margin_loss, margin_loss_shape);
PT2OV_KERNEL("aten.multilabel_margin_loss.default", multilabel_margin_loss, margin_loss_shape);
PT2OV_KERNEL("aten.multilabel_margin_loss_forward.default", multilabel_margin_loss, margin_loss_shape);
PT2OV_KERNEL("aten.native_group_norm.default", native_group_norm, group_norm_shape);
PT2OV_KERNEL("aten.segment_reduce.default", segment_reduce, segment_reduce_shape);

}  // namespace
}  // namespace pt2ov::kernels
