#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

#include "common/error.h"
#include "kernels/registry.h"
#include "lower/openvino_facts.h"
#include "partition/passes.h"

namespace pt2ov::partition {

using graph::Argument;
using ArgKind = graph::Argument::Kind;

bool op_matches(const std::string& op, const std::string& target) {
    if (op == target) return true;
    // "aten.atan" names every overload: "aten.atan.default", "aten.atan.out", ...
    return target.size() > op.size() && target.compare(0, op.size(), op) == 0 && target[op.size()] == '.' &&
           target.find('.', op.size() + 1) == std::string::npos;
}

namespace {

void for_each_value(const Argument& arg, const std::function<void(const std::string&)>& visit) {
    if (arg.kind == ArgKind::Tensor || arg.kind == ArgKind::SymInt || arg.kind == ArgKind::SymBool ||
        arg.kind == ArgKind::SymFloat) {
        visit(arg.name);
    }
    for (const auto& item : arg.items) for_each_value(item, visit);
}

void for_each_read(const graph::Node& node, const std::function<void(const std::string&)>& visit) {
    for (const auto& input : node.inputs) for_each_value(input.arg, visit);
}

void for_each_written(const graph::Node& node, const std::function<void(const std::string&)>& visit) {
    for (const auto& out : node.outputs) for_each_value(out, visit);
}

void put_on_cpu(Plan& plan, size_t index, std::string reason) {
    if (plan.where[index] == Where::Cpu) return;  // the first reason stands
    plan.where[index] = Where::Cpu;
    plan.reason[index] = std::move(reason);
}

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

// Whether every value `node` reads is in `known` (constants, and what nodes of constants made).
bool reads_only(const graph::Node& node, const std::set<std::string>& known) {
    bool only = true;
    for_each_read(node, [&](const std::string& name) { only = only && known.count(name) > 0; });
    return only;
}

}  // namespace

std::vector<Decompression> weight_decompression(const graph::Graph& graph, const ValueSources& sources) {
    using graph::op_id;
    const size_t count = graph.nodes.size();
    std::vector<Decompression> found(count, Decompression::None);
    std::set<std::string> known(sources.constants.begin(), sources.constants.end());
    std::set<std::string> decompressed;
    const auto is_half = [](DType d) { return d == DType::Float16 || d == DType::BFloat16; };
    // A weight's integers: 8-bit or narrower values of constants only, and what subtracting
    // integer zero points, converting between integer types and reshaping make of them.
    std::set<std::string> weight_integers;
    const auto integer_tensor = [&](const std::string& name) {
        const auto* value = graph.find_value(name);
        return value && value->kind == graph::ValueKind::Tensor && !dtype_is_floating(value->meta.dtype) &&
               value->meta.dtype != DType::Bool;
    };
    for (const auto& name : sources.constants) {
        const auto* value = graph.find_value(name);
        if (value && value->kind == graph::ValueKind::Tensor &&
            (value->meta.dtype == DType::UInt8 || value->meta.dtype == DType::Int8)) {
            weight_integers.insert(name);
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const auto& node = graph.nodes[i];
        if (node.outputs.empty() || !reads_only(node, known)) continue;
        for_each_written(node, [&](const std::string& name) { known.insert(name); });
        if (node.outputs.size() != 1 || node.outputs[0].kind != ArgKind::Tensor) continue;
        const auto& made = graph.value(node.outputs[0].name).meta;
        const bool arithmetic = graph::is_one_of(node.op, {op_id("aten.sub.Tensor"), op_id("aten.mul.Tensor")});
        const bool conversion = graph::is_one_of(node.op, {op_id("aten._to_copy.default"), op_id("aten.to.dtype"),
                                                           op_id("prims.convert_element_type.default")});
        const bool view = graph::is_one_of(node.op, {op_id("aten.view.default"), op_id("aten.reshape.default"),
                                                     op_id("aten._unsafe_view.default"), op_id("aten.unsqueeze.default"),
                                                     op_id("aten.permute.default"), op_id("aten.t.default"),
                                                     op_id("aten.transpose.int")});
        if (integer_tensor(node.outputs[0].name)) {
            if (made.dtype == DType::UInt8 || made.dtype == DType::Int8) {
                weight_integers.insert(node.outputs[0].name);
                continue;
            }
            // A wider integer only as a weight's integers minus integer zero points, or converted.
            bool from_weight = false, integers_only = true;
            for_each_read(node, [&](const std::string& name) {
                from_weight = from_weight || weight_integers.count(name) > 0;
                integers_only = integers_only && integer_tensor(name);
            });
            if ((node.op == op_id("aten.sub.Tensor") || conversion || view) && from_weight && integers_only) {
                weight_integers.insert(node.outputs[0].name);
            }
            continue;
        }
        if (!dtype_is_floating(made.dtype) || (!arithmetic && !conversion && !view)) continue;
        bool from_integers = false, only_weight_parts = true, in_half = is_half(made.dtype);
        for_each_read(node, [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            if (!value || value->kind != graph::ValueKind::Tensor) return;
            in_half = in_half || is_half(value->meta.dtype);
            if (decompressed.count(name) || (!view && weight_integers.count(name))) {
                from_integers = true;  // PT2E's dequantize multiplies the integers by the scales directly
            } else if (!(arithmetic && dtype_is_floating(value->meta.dtype))) {
                only_weight_parts = false;  // a scale (or a view of it) is a float of constants; nothing else is a part
            }
        });
        if (from_integers && only_weight_parts) {
            found[i] = in_half ? Decompression::Half : Decompression::Float32;
            decompressed.insert(node.outputs[0].name);
        }
    }
    return found;
}

// Pass 1: the user's lists always win over "OpenVINO supports it".
void pass1_user_lists(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto& node = graph.nodes[i];
        for (const auto& op : options.cpu_ops) {
            if (op_matches(op, node.source_target()) || op_matches(op, node.target)) {
                put_on_cpu(plan, i, "kept off OpenVINO by --cpu-op " + op);
            }
        }
        for (const auto& name : options.cpu_nodes) {
            if (name == node.source_name()) put_on_cpu(plan, i, "kept off OpenVINO by --cpu-node " + name);
        }
        if (auto failed = options.verify_failures.find(node.source_name()); failed != options.verify_failures.end()) {
            put_on_cpu(plan, i, "verified at load: " + failed->second);
        }
        if (auto failed = options.compile_failures.find(node.source_name()); failed != options.compile_failures.end()) {
            put_on_cpu(plan, i, "OpenVINO " + options.openvino_version + " could not compile the step that held it (" +
                                    failed->second + ")");
        }
    }
}

// Pass 2: what OpenVINO itself could not convert, and what it converts wrongly: a node meeting
// the condition of a converter fault in the facts table (openvino_facts::converter_fault,
// docs/EXACTNESS.md O9) runs on the CPU kernels, with the fact named in its reason; under
// --strict it is refused (pass 4), and without a kernel no engine runs it: an error, never a
// wrong number.
void pass2_openvino_support(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported,
                            const PlacementOptions& options, Plan& plan, const std::vector<Decompression>& decompression) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        auto it = unsupported.find(graph.nodes[i].source_name());
        if (it != unsupported.end()) {
            put_on_cpu(plan, i, "OpenVINO " + options.openvino_version + " cannot convert it: " + it->second);
        } else if (options.compressed_weights && i < decompression.size() && decompression[i] == Decompression::Half) {
            if (plan.where[i] == Where::Cpu) continue;  // the user's list stands
            // --compressed-weights: the plugin's float32 decompression is the user's choice (E9).
            plan.reason[i] = "weight decompression left to OpenVINO " + options.openvino_version +
                             " (--compressed-weights): the integers stay narrow in memory; each weight within half a "
                             "float16 step of eager's (docs/EXACTNESS.md E9)";
        } else if (const auto* fault = lower::openvino_facts::converter_fault(graph.nodes[i], graph)) {
            put_on_cpu(plan, i, "OpenVINO " + std::string(fault->measured_on) + " converts it wrongly: " +
                                    std::string(fault->what) + " (openvino_facts " + std::string(fault->name) + ")");
        }
    }
}

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

// Pass 3b: the whole method on the CPU kernels, when asked (Program::load times a small
// program both ways and keeps the faster: compile/planner.h). A node without a kernel
// stays where it was.
void pass3b_all_on_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    if (options.all_on_cpu_reason.empty()) return;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (plan.where[i] == Where::OpenVINO && kernels::find_kernel(graph.nodes[i].op)) {
            put_on_cpu(plan, i, options.all_on_cpu_reason);
        }
    }
}

// Pass 3c: a node that reads constants only (parameters, buffers the program never mutates,
// lifted constants, and what other such nodes make) and has a CPU kernel is computed once, at
// load, by the CPU kernels, exactly as eager computes it; the OpenVINO steps that read what it
// made get it as a Constant (runtime/executor_openvino.cpp). On OpenVINO it would be computed
// again at every call, by the plugin's arithmetic (NNCF's weight decompression, a weight's
// unpacking, a table of positions). Except the nodes at the end of such a chain that OpenVINO
// converts to moves alone (a weight's transpose before its matmul, a reshape): they stay in the
// OpenVINO step that reads them, which folds them into its Constant without a copy of ours.
void pass3c_computed_once_at_load(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                                  const std::vector<Decompression>& decompression, Plan& plan) {
    if (options.strict) return;
    const size_t count = graph.nodes.size();
    std::set<std::string> known(sources.constants.begin(), sources.constants.end());
    std::vector<bool> constant(count, false);
    // A weight's decompression stays on OpenVINO in float32, and in float16 under --compressed-weights.
    const auto stays = [&](size_t i) {
        return decompression[i] == Decompression::Float32 ||
               (decompression[i] == Decompression::Half && options.compressed_weights);
    };
    std::vector<std::vector<size_t>> users(count);
    for (size_t i = 0; i < count; ++i) {
        for_each_read(graph.nodes[i], [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            if (value && value->producer >= 0 && static_cast<size_t>(value->producer) != i) users[value->producer].push_back(i);
        });
    }
    // What only a decompression that stays reads stays with it: the integers of a float32 one (a
    // weight minus its zero points), which the lowering hands to the plugin as a narrow integer
    // Constant (lower/low_precision.h), and the scales' views. A float16 one's integers are
    // computed at load: unpacked, they enter OpenVINO as 4-bit Constants where they fit.
    std::vector<bool> feeds_decompression(count, false);
    for (size_t i = count; i-- > 0;) {
        const auto& node = graph.nodes[i];
        bool floats = !node.outputs.empty();
        for_each_written(node, [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            floats = floats && value && value->kind == graph::ValueKind::Tensor && dtype_is_floating(value->meta.dtype);
        });
        feeds_decompression[i] = decompression[i] == Decompression::None && !users[i].empty() &&
                                 std::all_of(users[i].begin(), users[i].end(), [&](size_t u) {
                                     return decompression[u] == Decompression::Float32 || feeds_decompression[u] ||
                                            (floats && stays(u));
                                 });
    }
    for (size_t i = 0; i < count; ++i) {  // nodes are in an order that runs
        const auto& node = graph.nodes[i];
        if (node.outputs.empty() || !kernels::find_kernel(node.op) || stays(i) || feeds_decompression[i]) continue;
        if (!reads_only(node, known)) continue;
        constant[i] = true;
        for_each_written(node, [&](const std::string& name) { known.insert(name); });
    }
    // A view of one value (a concatenation makes a new tensor, which is better made once). Only
    // where OpenVINO runs it: a node an earlier pass put on the CPU kernels (a converter fault:
    // NNCF's int8 `q - 8` saturates on the plugin) would run there at every call instead.
    std::vector<bool> moves_at_end(count, false);
    for (size_t i = count; i-- > 0;) {
        const auto& name = graph.nodes[i].source_name();
        if (!constant[i] || plan.where[i] != Where::OpenVINO ||
            !(sources.moving_nodes.count(name) || sources.passthrough_nodes.count(name))) {
            continue;
        }
        std::set<std::string> read;
        for_each_read(graph.nodes[i], [&](const std::string& value) { read.insert(value); });
        if (read.size() != 1) continue;
        moves_at_end[i] = std::all_of(users[i].begin(), users[i].end(), [&](size_t u) { return !constant[u] || moves_at_end[u]; });
    }
    plan.at_load.assign(count, false);
    for (size_t i = 0; i < count; ++i) {
        if (constant[i] && !moves_at_end[i] && plan.where[i] == Where::OpenVINO) {
            put_on_cpu(plan, i, "computed once at load by pt2ov's CPU kernels (it reads constants only); OpenVINO steps read "
                                "the value as a Constant");
        }
        plan.at_load[i] = constant[i] && plan.where[i] == Where::Cpu;
    }
}

// Pass 4: every node kept off OpenVINO needs a kernel; strict mode allows none.
void pass4_kernels_exist(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    std::string missing, refused;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (plan.where[i] != Where::Cpu) continue;
        const auto& node = graph.nodes[i];
        const std::string line = std::string(refused.empty() && missing.empty() ? " " : "; ") + node.source_name() + " (" + node.source_target() + "): " + plan.reason[i];
        if (options.strict) {
            refused += line;
        } else if (!kernels::find_kernel(node.op)) {
            missing += line + ", and pt2ov has no CPU kernel for " + node.target;
        }
    }
    if (!refused.empty()) {
        throw UnsupportedError("--strict: these nodes cannot run on OpenVINO, or not exactly:" + refused +
                               ". Drop --strict to run them on pt2ov's CPU kernels.");
    }
    if (!missing.empty()) {
        // Decomposing again cannot help a program that already is decomposed (graph::Graph::dialect).
        const std::string advice = graph.is_decomposed()
                                       ? ". The program is already decomposed (ep.run_decompositions()), so decomposing "
                                         "again cannot help: write the model without these ops."
                                       : ". Saving the program after ep.run_decompositions() may turn them into ops that run.";
        throw UnsupportedError("no engine can run these nodes:" + missing + advice);
    }
}

// Pass 5: a topological order that stays on one kind of step as long as it can, cut into
// steps where the kind changes. Steps are contiguous runs of a topological order, so no
// dependency cycle can pass through the CPU; staying on one kind makes OpenVINO steps maximal
// where independent CPU nodes would otherwise cut them. A node on OpenVINO that reads constants
// only (and what other such nodes make), and whose readers all run on OpenVINO (what pass 3c
// leaves there: a weight's transpose or view before the op that reads it) joins the step
// of its first reader rather than the first OpenVINO step: there the frontend folds it into the
// reader's Constant, where a later step would read it as a Parameter at every call (and an op
// that needs Constant weights, a mixture of experts' GroupedMatMul, would not compile).
void pass5_group_into_steps(const graph::Graph& graph, const ValueSources& sources, Plan& plan) {
    const size_t count = graph.nodes.size();
    std::vector<std::vector<size_t>> users(count);
    std::vector<std::set<size_t>> producers(count);
    for (size_t i = 0; i < count; ++i) {
        for_each_read(graph.nodes[i], [&](const std::string& name) {
            const auto* value = graph.find_value(name);
            if (value && value->producer >= 0 && static_cast<size_t>(value->producer) != i) producers[i].insert(value->producer);
        });
        for (auto p : producers[i]) users[p].push_back(i);
    }
    const auto at_load = [&](size_t i) { return i < plan.at_load.size() && plan.at_load[i]; };
    std::vector<bool> follows_reader(count, false);
    std::set<std::string> constant(sources.constants.begin(), sources.constants.end());
    for (size_t i = 0; i < count; ++i) {  // producers come first in the archive's order
        const auto& node = graph.nodes[i];
        follows_reader[i] = plan.where[i] == Where::OpenVINO && !at_load(i) && !users[i].empty() && reads_only(node, constant) &&
                            std::all_of(users[i].begin(), users[i].end(), [&](size_t u) { return plan.where[u] == Where::OpenVINO; });
        if (follows_reader[i]) for_each_written(node, [&](const std::string& name) { constant.insert(name); });
    }
    std::vector<size_t> pending(count, 0);
    for (size_t i = 0; i < count; ++i) {
        for (auto p : producers[i]) pending[i] += follows_reader[p] ? 0 : 1;
    }
    using Ready = std::priority_queue<size_t, std::vector<size_t>, std::greater<>>;
    // 0: OpenVINO, 1: CPU, 2: CPU at load (pass 3c), all taken first: they read constants only,
    // and so make one CPU step that runs at load instead of cutting OpenVINO steps.
    Ready ready[3];
    auto kind_of = [&](size_t i) { return plan.where[i] == Where::OpenVINO ? 0 : at_load(i) ? 2 : 1; };
    for (size_t i = 0; i < count; ++i) {
        if (!pending[i] && !follows_reader[i]) ready[kind_of(i)].push(i);
    }
    plan.steps.clear();
    std::vector<bool> placed(count, false);
    size_t emitted = 0;
    // A reader's producers that follow it, theirs first, into the reader's (OpenVINO) step.
    std::function<void(size_t)> place_followers = [&](size_t reader) {
        for (auto p : producers[reader]) {
            if (!follows_reader[p] || placed[p]) continue;
            place_followers(p);
            placed[p] = true;
            plan.steps.back().nodes.push_back(static_cast<int>(p));
            ++emitted;
        }
    };
    int current = -1;
    while (emitted < count) {
        int kind = current;
        int queue = current;
        if (!ready[2].empty()) {
            kind = 1;
            queue = 2;
        } else if (kind < 0 || ready[kind].empty()) {
            if (ready[0].empty() && ready[1].empty()) {
                throw InternalError("placement: " + std::to_string(count - emitted) + " nodes were never ready to run");
            }
            kind = queue = ready[0].empty() ? 1 : ready[1].empty() ? 0 : (ready[0].top() < ready[1].top() ? 0 : 1);
        }
        if (kind != current) {
            plan.steps.push_back(Step{kind == 0 ? Where::OpenVINO : Where::Cpu, {}, {}, {}});
            current = kind;
        }
        const size_t node = ready[queue].top();
        ready[queue].pop();
        if (kind == 0) place_followers(node);
        placed[node] = true;
        plan.steps.back().nodes.push_back(static_cast<int>(node));
        ++emitted;
        for (auto user : users[node]) {
            if (--pending[user] == 0 && !follows_reader[user]) ready[kind_of(user)].push(user);
        }
    }
}

// Elements a node reads and writes, or -1 when a shape is not static.
int64_t touched_elements(const graph::Graph& graph, const graph::Node& node) {
    int64_t total = 0;
    auto add = [&](const std::string& name) {
        const auto* value = graph.find_value(name);
        if (!value || value->kind != graph::ValueKind::Tensor || total < 0) return;
        if (!value->meta.all_static()) {
            total = -1;
            return;
        }
        int64_t count = 1;
        for (auto s : value->meta.static_sizes()) count *= s;
        total += count;
    };
    for_each_read(node, add);
    for_each_written(node, add);
    return total;
}

// Pass 6: an OpenVINO call costs about 10 us even for a few elements (measured on 2026.4.1,
// 2 cores: sin-relu-mul-cos on 16 floats takes 10 us on OpenVINO, 4 us on the CPU kernels; a
// relu forced to the CPU between them doubles the OpenVINO cost to 21 us). So, where the
// method already has CPU steps, an OpenVINO step that does little runs on the CPU too:
//  - a step that only computes shapes (symbolic ints);
//  - a step of at most kSmallStepNodes nodes touching at most kSmallStepElements elements in
//    all (inputs and outputs of every node, static shapes only; at 4096 floats per tensor the
//    two sides cost about the same: 33 us on OpenVINO, 26 us on the CPU).
// A method OpenVINO takes whole stays on OpenVINO here; Program::load may time a small one
// both ways and keep the faster (compile/planner.h).
//  - a step whose nodes only reshape, view or cast (any size, dynamic shapes included): on the
//    CPU such a node costs at most a copy, and the step between two CPU steps costs two
//    crossings (a mixture of experts' routing: its top-k's outputs reshaped and cast on
//    OpenVINO between the top-k and the sort, both on the CPU).
namespace {
constexpr size_t kSmallStepNodes = 8;
constexpr int64_t kSmallStepElements = 16384;

bool reshapes_or_casts(graph::OpId op) {
    using graph::op_id;
    static constexpr graph::OpId kOps[] = {
        op_id("aten.view.default"), op_id("aten._unsafe_view.default"), op_id("aten.reshape.default"),
        op_id("aten.permute.default"), op_id("aten.transpose.int"), op_id("aten.t.default"),
        op_id("aten.expand.default"), op_id("aten.unsqueeze.default"), op_id("aten.squeeze.dim"),
        op_id("aten.squeeze.dims"), op_id("aten.squeeze.default"), op_id("aten.flatten.using_ints"),
        op_id("aten.slice.Tensor"), op_id("aten.select.int"), op_id("aten.alias.default"),
        op_id("aten.contiguous.default"), op_id("aten.clone.default"), op_id("aten._to_copy.default"),
        op_id("aten.to.dtype"), op_id("aten.view_copy.default"), op_id("aten.permute_copy.default"),
        op_id("aten.expand_copy.default"), op_id("aten.unsqueeze_copy.default"), op_id("aten.slice_copy.Tensor"),
        op_id("aten.select_copy.int"), op_id("aten.squeeze_copy.dim"), op_id("aten.squeeze_copy.dims"),
        op_id("aten.transpose_copy.int"), op_id("aten.t_copy.default"), op_id("aten.alias_copy.default")};
    return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}
}  // namespace

void pass6_small_steps_to_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan) {
    if (options.strict) return;
    // Nodes computed once at load (pass 3c) cost no call anything.
    const auto at_call = [&](int i) { return static_cast<size_t>(i) >= plan.at_load.size() || !plan.at_load[i]; };
    const bool has_cpu_steps = std::any_of(plan.steps.begin(), plan.steps.end(), [&](const Step& s) {
        return s.where == Where::Cpu && std::any_of(s.nodes.begin(), s.nodes.end(), at_call);
    });
    if (!has_cpu_steps) return;
    for (auto& step : plan.steps) {
        if (step.where != Where::OpenVINO) continue;
        bool shapes_only = true, all_have_kernels = true, moves_only = true;
        int64_t elements = 0;
        for (int index : step.nodes) {
            const auto& node = graph.nodes[index];
            for_each_written(node, [&](const std::string& name) {
                const auto* value = graph.find_value(name);
                shapes_only &= value && value->kind != graph::ValueKind::Tensor;
            });
            all_have_kernels &= kernels::find_kernel(node.op) != nullptr;
            moves_only &= reshapes_or_casts(node.op);
            const int64_t touched = touched_elements(graph, node);
            elements = touched < 0 || elements < 0 ? -1 : elements + touched;
        }
        if (!all_have_kernels) continue;
        std::string reason;
        if (shapes_only) {
            reason = "shape arithmetic only: cheaper on the CPU than an OpenVINO call";
        } else if (moves_only) {
            reason = "reshapes, views or casts only, between CPU steps: cheaper on the CPU than an OpenVINO call";
        } else if (step.nodes.size() <= kSmallStepNodes && elements >= 0 && elements <= kSmallStepElements) {
            reason = "a small step (" + std::to_string(step.nodes.size()) + " nodes, " + std::to_string(elements) +
                     " elements) between CPU steps: cheaper on the CPU than an OpenVINO call";
        } else {
            continue;
        }
        step.where = Where::Cpu;
        for (int index : step.nodes) {
            plan.where[index] = Where::Cpu;
            plan.reason[index] = reason;
        }
    }
    // Neighbouring CPU steps become one.
    std::vector<Step> merged;
    for (auto& step : plan.steps) {
        if (!merged.empty() && merged.back().where == step.where) {
            merged.back().nodes.insert(merged.back().nodes.end(), step.nodes.begin(), step.nodes.end());
        } else {
            merged.push_back(std::move(step));
        }
    }
    plan.steps = std::move(merged);
}

// Pass 7: what each step reads from outside and hands on.
void pass7_step_edges(const graph::Graph& graph, const ValueSources& sources, Plan& plan) {
    std::map<std::string, size_t> step_of_value;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        for (int index : plan.steps[s].nodes) {
            for_each_written(graph.nodes[index], [&](const std::string& name) { step_of_value[name] = s; });
        }
    }
    std::vector<std::set<std::string>> handed_on(plan.steps.size());
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        auto& step = plan.steps[s];
        std::set<std::string> seen;
        for (int index : step.nodes) {
            for_each_read(graph.nodes[index], [&](const std::string& name) {
                auto producer = step_of_value.find(name);
                const bool outside = producer == step_of_value.end() ? !sources.constants.count(name) : producer->second != s;
                if (!outside || !seen.insert(name).second) return;
                step.inputs.push_back(name);
                if (producer != step_of_value.end()) handed_on[producer->second].insert(name);
            });
        }
    }
    for (const auto& out : graph.outputs) {
        for_each_value(out, [&](const std::string& name) {
            auto producer = step_of_value.find(name);
            if (producer != step_of_value.end()) handed_on[producer->second].insert(name);
        });
    }
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        // In the order the step produces them, for stable model outputs.
        for (int index : plan.steps[s].nodes) {
            for_each_written(graph.nodes[index], [&](const std::string& name) {
                if (handed_on[s].count(name)) plan.steps[s].outputs.push_back(name);
            });
        }
    }
}

Plan whole_method(const graph::Graph& graph, const ValueSources& sources, const std::set<std::string>& left_out) {
    Plan plan;
    plan.where.assign(graph.nodes.size(), Where::OpenVINO);
    plan.reason.assign(graph.nodes.size(), "");
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (left_out.count(graph.nodes[i].source_name())) plan.where[i] = Where::Cpu;
    }
    pass5_group_into_steps(graph, sources, plan);
    pass7_step_edges(graph, sources, plan);
    return plan;
}

Plan place(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported, const ValueSources& sources,
           const PlacementOptions& options) {
    Plan plan;
    plan.where.assign(graph.nodes.size(), Where::OpenVINO);
    plan.reason.assign(graph.nodes.size(), "converted by OpenVINO " + options.openvino_version);
    pass1_user_lists(graph, options, plan);
    const std::vector<Decompression> decompression = weight_decompression(graph, sources);
    pass2_openvino_support(graph, unsupported, options, plan, decompression);
    pass3_exact_wide_integers(graph, sources, options, plan);
    pass3b_all_on_cpu(graph, options, plan);
    pass3c_computed_once_at_load(graph, sources, options, decompression, plan);
    pass4_kernels_exist(graph, options, plan);
    pass5_group_into_steps(graph, sources, plan);
    pass6_small_steps_to_cpu(graph, options, plan);
    pass7_step_edges(graph, sources, plan);
    return plan;
}

}  // namespace pt2ov::partition
