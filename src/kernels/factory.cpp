// Tensors made from numbers: arange, full, zeros, ones, empty (zero-filled), their *_like and
// new_* forms, and scalar_tensor. The dtype is the one torch.export recorded (it resolved the
// default dtype and the dtype= arguments); device, layout and pin_memory are ignored.
#include <cmath>

#include "graph/schema.h"
#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

void fill(const StridedTensor& t, const Scalar& value) {
    visit_dtype(t.dtype, [&]<typename T>() {
        const auto element = std::visit([](auto v) { return cast<T>(v); }, value);
        for_each_element<1>(t.sizes, {&t}, [&](const std::array<std::byte*, 1>& p) { store<T>(p[0], element); });
    });
}

std::vector<int64_t> checked_sizes(const KernelCall& call, std::vector<int64_t> sizes) {
    for (int64_t s : sizes) {
        if (s < 0) call.fail("negative size in " + shape_text(sizes));
    }
    return sizes;
}

// What a filled tensor holds: the fill_value argument, or a number of the op's own (empty is
// zero-filled).
enum class Fill { Argument, Zero, One };

std::optional<Scalar> fill_value_of(const KernelCall& call, Fill fill, size_t value_position) {
    switch (fill) {
        case Fill::Argument: return call.scalar("fill_value", value_position);
        case Fill::Zero: return Scalar{int64_t{0}};
        case Fill::One: return Scalar{int64_t{1}};
    }
    return std::nullopt;
}

// full / zeros / ones / empty(SymInt[] size, ...), and new_*(Tensor self, SymInt[] size, ...):
// the size at `size_position`, a fill_value (for full) right after it.
template <size_t size_position, Fill fill_with>
std::vector<RuntimeValue> filled(const KernelCall& call) {
    const auto sizes = checked_sizes(call, call.ints("size", size_position));
    const int64_t format = call.memory_format("memory_format", kKeywordOnly, kContiguousFormat);
    StridedTensor shape_only;
    shape_only.sizes = sizes;
    StridedTensor out = format == kContiguousFormat ? allocate_output(call, 0, sizes)
                                                    : allocate_like(call, shape_only, call.output_meta(0).dtype, format);
    if (const auto value = fill_value_of(call, fill_with, size_position + 1)) fill(out, *value);
    return single(out);
}

// zeros_like / ones_like / empty_like / full_like(Tensor self, [Scalar fill_value,] *, ...,
// MemoryFormat? memory_format=None): laid out like self unless memory_format says otherwise.
template <Fill fill_with>
std::vector<RuntimeValue> filled_like(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t format = call.memory_format("memory_format", kKeywordOnly, kPreserveFormat);
    StridedTensor out = allocate_like(call, self, call.output_meta(0).dtype, format);
    if (const auto value = fill_value_of(call, fill_with, 1)) fill(out, *value);
    return single(out);
}

// scalar_tensor(Scalar s, *, ScalarType? dtype=None, ...)
std::vector<RuntimeValue> scalar_tensor(const KernelCall& call) {
    StridedTensor out = StridedTensor::allocate(call.output_meta(0).dtype, {});
    fill(out, call.scalar("s", 0));
    return single(out);
}

// linspace(start, end, steps, *, dtype=None, ...): `steps` values from start to end, as
// PyTorch's CPU kernel makes them: in double for integer results, else in the result's type
// (each f16/bf16 operation rounded, as c10::Half arithmetic does); step = (end - start) /
// (steps - 1), the first half counted up from start and the second half down from end
// (openvino_facts LinspaceDtypeIgnored).
std::vector<RuntimeValue> linspace(const KernelCall& call) {
    const Scalar start = call.scalar("start", 0), end = call.scalar("end", 1);
    const int64_t steps = call.int_arg("steps", 2);
    if (steps < 0) call.fail("linspace needs steps >= 0, got " + std::to_string(steps));
    const DType dtype = call.output_meta(0).dtype;
    if (dtype == DType::Bool) call.fail("linspace does not make bool");
    StridedTensor out = allocate_output(call, 0, {steps}, dtype);
    const int64_t halfway = steps / 2;
    visit_dtype(dtype, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>) {
            using S = std::conditional_t<is_integer_v<T>, double, compute_t<T>>;
            // Rounds a step-type value to T's precision (a no-op for double and float).
            auto r = [](S v) -> S {
                if constexpr (is_reduced_float_v<T>) return cast<T>(v);
                else return v;
            };
            const S first = is_integer_v<T> ? static_cast<S>(scalar_to_double(start)) : r(static_cast<S>(scalar_to_double(start)));
            const S last = is_integer_v<T> ? static_cast<S>(scalar_to_double(end)) : r(static_cast<S>(scalar_to_double(end)));
            const S step = steps > 1 ? r(r(last - first) / r(static_cast<S>(steps - 1))) : S(0);
            for (int64_t i = 0; i < steps; ++i) {
                const S v = steps == 1 ? first  // PyTorch fills one step with start
                          : i < halfway ? r(first + r(step * r(static_cast<S>(i))))
                                        : r(last - r(step * r(static_cast<S>(steps - i - 1))));
                store<T>(out.data + i * out.strides[0] * static_cast<int64_t>(out.element_size()), cast<T>(v));
            }
        }
    });
    return single(out);
}

// arange.default(end), arange.start(start, end), arange.start_step(start, end, step=1)
struct Range {
    Scalar start = int64_t{0}, end = int64_t{0}, step = int64_t{1};
};

Range range_of(const KernelCall& call) {
    Range r;
    if (call.node().op == graph::op_id("aten.arange.default")) {
        r.end = call.scalar("end", 0);
        return r;
    }
    r.start = call.scalar("start", 0);
    r.end = call.scalar("end", 1);
    if (call.has("step", 2)) r.step = call.scalar("step", 2);
    return r;
}

// The element count as PyTorch computes it: in integers for an int64 result of int bounds,
// else ceil((end - start) / step) in double.
int64_t range_length(const KernelCall& call, const Range& r, DType dtype) {
    const double start = scalar_to_double(r.start), end = scalar_to_double(r.end), step = scalar_to_double(r.step);
    if (step == 0) call.fail("arange() step must be nonzero");
    if (!std::isfinite(start) || !std::isfinite(end)) call.fail("arange() bounds must be finite");
    if ((step > 0 && end < start) || (step < 0 && end > start)) {
        call.fail("arange() upper bound and larger bound are inconsistent with the step sign");
    }
    const bool integral = !scalar_is_floating(r.start) && !scalar_is_floating(r.end) && !scalar_is_floating(r.step);
    if (dtype == DType::Int64 && integral) {
        const int64_t s = scalar_to_int(r.start), e = scalar_to_int(r.end), st = scalar_to_int(r.step);
        const int64_t sign = st > 0 ? 1 : -1;
        int64_t span = 0;
        if (__builtin_sub_overflow(e, s, &span) || __builtin_add_overflow(span, st - sign, &span)) {
            call.fail("arange() has more elements than an int64 counts");
        }
        return span / st;
    }
    const double length = std::ceil((end - start) / step);
    if (!(length < 9.2e18)) call.fail("arange() has more elements than an int64 counts");
    return static_cast<int64_t>(length);
}

std::vector<RuntimeValue> arange(const KernelCall& call) {
    const Range r = range_of(call);
    const DType dtype = call.output_meta(0).dtype;
    if (dtype == DType::Bool) call.fail("arange() does not make bool tensors");
    const int64_t length = range_length(call, r, dtype);
    StridedTensor out = StridedTensor::allocate(dtype, {length});
    visit_dtype(dtype, [&]<typename T>() {
        auto* data = out.data;
        const auto element = static_cast<int64_t>(out.element_size());
        for (int64_t i = 0; i < length; ++i) {
            // PyTorch's accumulate types: int64 for integers, double for f32/f64, float for f16/bf16.
            if constexpr (is_integer_v<T>) {
                const auto v = static_cast<int64_t>(static_cast<uint64_t>(scalar_to_int(r.start)) +
                                                    static_cast<uint64_t>(scalar_to_int(r.step)) * static_cast<uint64_t>(i));
                store<T>(data + i * element, cast<T>(v));
            } else if constexpr (is_reduced_float_v<T>) {
                const float v = static_cast<float>(scalar_to_double(r.start)) +
                                static_cast<float>(scalar_to_double(r.step)) * static_cast<float>(i);
                store<T>(data + i * element, cast<T>(v));
            } else if constexpr (std::is_floating_point_v<T>) {
                const double v = scalar_to_double(r.start) + scalar_to_double(r.step) * static_cast<double>(i);
                store<T>(data + i * element, cast<T>(v));
            }
        }
    });
    return single(out);
}


// eye(n) and eye(n, m): ones on the diagonal, zeros elsewhere, of the output's dtype (bool too).
std::vector<RuntimeValue> eye(const KernelCall& call) {
    const int64_t rows = call.int_arg("n", 0);
    const int64_t columns = call.node().op == graph::op_id("aten.eye.m") ? call.int_arg("m", 1) : rows;
    if (rows < 0 || columns < 0) {
        call.fail("eye() needs sizes >= 0, got " + std::to_string(rows) + " and " + std::to_string(columns));
    }
    const DType dtype = call.output_meta(0).dtype;
    StridedTensor out = StridedTensor::allocate(dtype, {rows, columns});  // zero-filled
    const auto element = static_cast<int64_t>(out.element_size());
    visit_dtype(dtype, [&]<typename T>() {
        for (int64_t i = 0; i < std::min(rows, columns); ++i) store<T>(out.data + (i * columns + i) * element, cast<T>(1));
    });
    return single(out);
}

// Shape contracts.
// full / zeros / ones / empty(size) and new_*(self, size): the size argument (a symbolic item
// unknown); a negative size is refused, as PyTorch refuses to make such a tensor.
std::optional<std::vector<ExpectedSizes>> size_argument_shape(const ShapeQuery& query) {
    const auto sizes = size_list(query, "size");
    if (!sizes) return std::nullopt;
    for (const auto& s : *sizes) {
        if (s && *s < 0) query.contradiction("its size has the negative dim " + std::to_string(*s));
    }
    return std::vector<ExpectedSizes>{*sizes};
}

std::optional<std::vector<ExpectedSizes>> zero_dim_shape(const ShapeQuery&) { return std::vector<ExpectedSizes>{ExpectedSizes{}}; }

// linspace: `steps` values.
std::optional<std::vector<ExpectedSizes>> linspace_shape(const ShapeQuery& query) {
    const auto steps = query.int_arg("steps", 2);
    if (!steps) return std::vector<ExpectedSizes>{{std::nullopt}};
    if (*steps < 0) query.contradiction("its number of steps " + std::to_string(*steps) + " is negative");
    return std::vector<ExpectedSizes>{{*steps}};
}

// A Scalar argument of arange as a static number (nullopt when symbolic).
struct Bound {
    double value = 0;
    std::optional<int64_t> integer;  // set when the argument is an int
};

std::optional<Bound> bound_of(const ShapeQuery& query, ArgName name, int64_t fallback) {
    const graph::Node& node = query.node();
    const auto at = node.schema->position_of(name.id());
    if (!at) return Bound{static_cast<double>(fallback), fallback};
    const graph::Argument& arg = node.arg(*at);
    switch (arg.kind) {
        case graph::Argument::Kind::Int: return Bound{static_cast<double>(arg.int_value), arg.int_value};
        case graph::Argument::Kind::Bool: return Bound{arg.bool_value ? 1.0 : 0.0, arg.bool_value ? 1 : 0};
        case graph::Argument::Kind::Float: return Bound{arg.float_value, std::nullopt};
        default: return std::nullopt;
    }
}

// arange: ceil((end - start) / step) values, counted here for int bounds only (PyTorch counts
// float bounds in the result's accumulate type, which the metadata leaves to the kernel).
std::optional<std::vector<ExpectedSizes>> arange_shape(const ShapeQuery& query) {
    const bool only_end = query.node().op == graph::op_id("aten.arange.default");
    const auto start = only_end ? std::optional<Bound>(Bound{0, 0}) : bound_of(query, "start", 0);
    const auto end = bound_of(query, "end", 0);
    const auto step = bound_of(query, "step", 1);
    const std::vector<ExpectedSizes> unknown{{std::nullopt}};
    if (!start || !end || !step) return unknown;
    if (step->value == 0) query.contradiction("its step is zero");
    if ((step->value > 0 && end->value < start->value) || (step->value < 0 && end->value > start->value)) {
        query.contradiction("its bounds and step sign are inconsistent");
    }
    constexpr int64_t exact = int64_t{1} << 52;  // where double arithmetic counts as exactly as int64
    if (!start->integer || !end->integer || !step->integer) return unknown;
    const int64_t s = *start->integer, e = *end->integer, st = *step->integer;
    const auto beyond = [&](int64_t v) { return v > exact || v < -exact; };
    if (beyond(s) || beyond(e) || beyond(st)) return unknown;
    const int64_t span = e - s;
    return std::vector<ExpectedSizes>{{span / st + (span % st != 0 ? 1 : 0)}};
}

PT2OV_KERNEL("aten.full.default", (filled<0, Fill::Argument>), size_argument_shape);
PT2OV_KERNEL("aten.zeros.default", (filled<0, Fill::Zero>), size_argument_shape);
PT2OV_KERNEL("aten.ones.default", (filled<0, Fill::One>), size_argument_shape);
PT2OV_KERNEL("aten.empty.memory_format", (filled<0, Fill::Zero>), size_argument_shape);
PT2OV_KERNEL("aten.new_full.default", (filled<1, Fill::Argument>), size_argument_shape);
PT2OV_KERNEL("aten.new_zeros.default", (filled<1, Fill::Zero>), size_argument_shape);
PT2OV_KERNEL("aten.new_ones.default", (filled<1, Fill::One>), size_argument_shape);
PT2OV_KERNEL("aten.new_empty.default", (filled<1, Fill::Zero>), size_argument_shape);
PT2OV_KERNEL("aten.full_like.default", filled_like<Fill::Argument>, same_as_self);
PT2OV_KERNEL("aten.zeros_like.default", filled_like<Fill::Zero>, same_as_self);
PT2OV_KERNEL("aten.ones_like.default", filled_like<Fill::One>, same_as_self);
PT2OV_KERNEL("aten.empty_like.default", filled_like<Fill::Zero>, same_as_self);
PT2OV_KERNEL("aten.scalar_tensor.default", scalar_tensor, zero_dim_shape);
PT2OV_KERNEL("aten.linspace.default", linspace, linspace_shape);
// eye: [n, n] or [n, m], for static sizes.
std::optional<std::vector<ExpectedSizes>> eye_shape(const ShapeQuery& query) {
    const auto rows = query.int_arg("n", 0);
    const auto columns = query.node().op == graph::op_id("aten.eye.m") ? query.int_arg("m", 1) : rows;
    if ((rows && *rows < 0) || (columns && *columns < 0)) query.contradiction("its size is negative");
    return std::vector<ExpectedSizes>{{rows, columns}};
}

PT2OV_KERNEL("aten.eye.default", eye, eye_shape);
PT2OV_KERNEL("aten.eye.m", eye, eye_shape);
PT2OV_KERNEL("aten.arange.default", arange, arange_shape);
PT2OV_KERNEL("aten.arange.start", arange, arange_shape);
PT2OV_KERNEL("aten.arange.start_step", arange, arange_shape);

}  // namespace
}  // namespace pt2ov::kernels
