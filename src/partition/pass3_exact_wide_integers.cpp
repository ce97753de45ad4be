#include "kernels/registry.h"
#include "lower/openvino_facts.h"
#include "partition/placement_detail.h"

namespace pt2ov::partition {

using namespace detail;

namespace {

// Integer division PyTorch rounds toward -inf, which OpenVINO's CPU plugin truncates
// (openvino_facts IntegerDivisionTruncates).
bool is_integer_division(const graph::Graph& graph, const graph::Node& node) {
    if (node.outputs.empty() || node.outputs[0].kind != ArgKind::Tensor) return false;
    return lower::openvino_facts::rounds_integer_division_wrong(node.op, graph.value(node.outputs[0].name).meta.dtype);
}

// A non-negative dividend over a positive divisor, both bounded at load within the range
// OpenVINO divides exactly (openvino_facts IntegerDivisionOfNonNegativeExact): floor and
// truncation agree there, so the plugin's rounding is PyTorch's.
bool division_exact_on_openvino(const graph::Graph& graph, const Int64Ranges& ranges, const graph::Node& node) {
    if (node.arity() < 2) return false;
    for (size_t i = 0; i < 2; ++i) {  // bool operands (bounded [0, 1]) were not measured
        const auto& arg = node.arg(i);
        if (arg.kind == ArgKind::Tensor && graph.value(arg.name).meta.dtype == DType::Bool) return false;
    }
    const auto dividend = ranges.bound(node.arg(0));
    const auto divisor = ranges.bound(node.arg(1));
    return dividend && divisor &&
           lower::openvino_facts::integer_division_exact(dividend->min, dividend->max, divisor->min, divisor->max);
}

}  // namespace

// Pass 3: OpenVINO's CPU plugin computes int64 and float64 in 32 bits. So, where a kernel
// exists, these run on the CPU, where they are exact:
//  - a node computing 64-bit values from 64-bit values;
//  - a node reading a 64-bit value such a node made (it may hold values beyond 32 bits), or an
//    int64 constant that does hold one;
//  - a node with an integer argument beyond 32 bits (OpenVINO would cut the constant).
// Except where every int64 value the node reads and writes is bounded within 32 bits at load
// (partition/int64_ranges.h): there 32 bits compute it exactly. Integer division with rounding
// runs on the CPU too, except a non-negative dividend over a positive divisor bounded at load
// (division_exact_on_openvino), which OpenVINO divides as PyTorch does.
// Values entering OpenVINO from elsewhere are checked at run time instead (runtime/executor.cpp).
void pass3_exact_wide_integers(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                               Plan& plan) {
    // Under --strict these are refused (pass 4): OpenVINO alone cannot run them exactly.
    std::set<std::string> wide(sources.wide_int64_constants.begin(), sources.wide_int64_constants.end());
    const Int64Ranges ranges(graph, sources.int64_constant_ranges);
    auto bounded_in_32_bits = [&](const std::string& name) {
        const auto range = ranges.of(name);
        return range && lower::openvino_facts::int64_passes_exactly(range->min) &&
               lower::openvino_facts::int64_passes_exactly(range->max);
    };
    auto is_wide_dtype = [&](const std::string& name) {
        const auto* value = graph.find_value(name);
        return value && value->kind == graph::ValueKind::Tensor &&
               lower::openvino_facts::computes_in_32_bits(value->meta.dtype);
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto& node = graph.nodes[i];
        bool reads = false, writes = false, reads_wide = false, wide_argument = false;
        for_each_read(node, [&](const std::string& name) {
            reads |= is_wide_dtype(name);
            reads_wide |= wide.count(name) > 0;
        });
        for_each_written(node, [&](const std::string& name) { writes |= is_wide_dtype(name); });
        std::function<void(const Argument&)> check_argument = [&](const Argument& arg) {
            if (arg.kind == ArgKind::Int && !lower::openvino_facts::int64_passes_exactly(arg.int_value)) {
                wide_argument = true;
            }
            for (const auto& item : arg.items) check_argument(item);
        };
        for (const auto& input : node.inputs) check_argument(input.arg);
        if (!kernels::find_kernel(node.op)) continue;
        if (is_integer_division(graph, node) && !(division_exact_on_openvino(graph, ranges, node) && !reads_wide)) {
            put_on_cpu(plan, i, "integer division rounding toward -inf: OpenVINO's CPU plugin truncates negative "
                                "quotients instead (tests/models/regressions.py, int32_floor_div)");
        } else if (reads && writes && !sources.moving_nodes.count(node.source_name()) &&
                   !(options.strict && sources.passthrough_nodes.count(node.source_name())) &&
                   !(ranges.fits_in_32_bits(node) && !reads_wide && !wide_argument)) {
            // (A node whose every int64 value is bounded within 32 bits at load, such as index
            // arithmetic on arange positions, stays: OpenVINO's 32-bit computation of it is exact.)
            // (A node that only moves values stays: its values were checked where they entered
            // OpenVINO. Under --strict so does one OpenVINO turns into nothing: pt2ov copies it.)
            put_on_cpu(plan, i, "computes 64-bit values from 64-bit values exactly (OpenVINO's CPU plugin computes them in 32 bits)");
        } else if (reads_wide) {
            put_on_cpu(plan, i, "reads int64 values that may exceed 32 bits, which OpenVINO's CPU plugin would cut");
        } else if (wide_argument) {
            put_on_cpu(plan, i, "has an integer argument beyond 32 bits, which OpenVINO's CPU plugin would cut");
        }
        if (plan.where[i] == Where::Cpu) {
            for_each_written(node, [&](const std::string& name) {
                if (is_wide_dtype(name) && !bounded_in_32_bits(name)) wide.insert(name);
            });
        }
    }
}

}  // namespace pt2ov::partition
