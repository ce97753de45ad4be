// Pass 0 of the rewrites (passes.h): the error checks run_decompositions() threads through
// effect tokens. linalg.inv, linalg.cholesky, linalg.solve, linalg.lu_factor, linalg.ldl_factor
// (and what is built on them: tensorinv, tensorsolve, matrix_power with n < 0) decompose into
// their *_ex op, whose info output feeds
//   with_effects(token, aten._linalg_check_errors.default, info, api_name, is_matrix=...)
// a higher-order op torch.export orders by a token that enters as an input and leaves as an
// output. The check raises where info is non-zero; the *_ex op does the same with
// check_errors=True. So the check is folded into the op that made info, and the token, which
// then orders nothing, leaves the signature.
#include <algorithm>
#include <set>

#include "common/error.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {

using Kind = Argument::Kind;

namespace {

constexpr std::string_view kCheckErrors = "torch.ops.aten._linalg_check_errors.default";

// The ops whose info output a check may read, each with a check_errors argument.
bool is_checkable(OpId op) {
    return is_one_of(op, {op_id("aten.linalg_inv_ex.default"), op_id("aten.linalg_cholesky_ex.default"),
                          op_id("aten._linalg_solve_ex.default"), op_id("aten.linalg_solve_ex.default"),
                          op_id("aten.linalg_lu_factor_ex.default"), op_id("aten.linalg_ldl_factor_ex.default")});
}

void rename_reads(Argument& arg, const std::string& from, const std::string& to) {
    if (arg.kind == Kind::Tensor && arg.name == from) arg.name = to;
    for (auto& item : arg.items) rename_reads(item, from, to);
}

bool is_error_check(const Node& node) {
    return node.op == op_id("higher_order.with_effects") && node.inputs.size() >= 3 && node.inputs[1].arg.kind == Kind::Unsupported &&
           node.inputs[1].arg.name == kCheckErrors && node.inputs[0].arg.kind == Kind::Tensor &&
           node.inputs[2].arg.kind == Kind::Tensor && !node.outputs.empty() && node.outputs[0].kind == Kind::Tensor;
}

// Sets check_errors=True on the node that made `info`; false when no such op made it.
bool check_at_producer(Graph& graph, const std::string& info, const std::string& where) {
    const Value* value = graph.find_value(info);
    if (!value || value->producer < 0) return false;
    Node& producer = graph.nodes[static_cast<size_t>(value->producer)];
    if (!is_checkable(producer.op)) return false;
    std::erase_if(producer.inputs, [](const NamedArgument& a) { return a.name == "check_errors"; });
    Argument yes;
    yes.kind = Kind::Bool;
    yes.bool_value = true;
    producer.inputs.push_back({"check_errors", yes, true});
    resolve_node(producer, where);
    return true;
}

}  // namespace

void fold_error_checks(Graph& graph, const std::string& where) {
    std::vector<size_t> folded;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        if (!is_error_check(node) || !check_at_producer(graph, node.inputs[2].arg.name, where)) continue;
        // Whatever read the token the check left reads the token it was given.
        const std::string from = node.outputs[0].name, to = node.inputs[0].arg.name;
        for (size_t j = i + 1; j < graph.nodes.size(); ++j) {
            for (auto& input : graph.nodes[j].inputs) rename_reads(input.arg, from, to);
            for (auto& arg : graph.nodes[j].resolved_inputs) rename_reads(arg, from, to);
        }
        for (auto& output : graph.outputs) rename_reads(output, from, to);
        graph.values.erase(from);
        folded.push_back(i);
    }
    if (folded.empty()) return;
    for (size_t k = folded.size(); k-- > 0;) graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(folded[k]));
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        for (const auto& out : graph.nodes[i].outputs) {
            if (Value* value = graph.find_value(out.name)) value->producer = static_cast<int>(i);
            for (const auto& item : out.items) {
                if (Value* value = graph.find_value(item.name)) value->producer = static_cast<int>(i);
            }
        }
    }

    // A token output that is now a token input orders nothing: both leave the signature. A
    // token still read by a node (an effect not folded) keeps them, and binding refuses it.
    std::set<std::string> token_inputs;
    for (size_t i = 0; i < graph.input_specs.size(); ++i) {
        if (graph.input_specs[i].kind == InputSpec::Kind::Token) token_inputs.insert(graph.inputs[i].name);
    }
    std::set<std::string> still_read;
    for (const auto& node : graph.nodes) {
        for (const auto& input : node.inputs) {
            if (input.arg.kind == Kind::Tensor && token_inputs.count(input.arg.name)) still_read.insert(input.arg.name);
        }
    }
    std::set<std::string> dropped;
    for (size_t i = graph.output_specs.size(); i-- > 0;) {
        const std::string& name = graph.outputs[i].name;
        if (graph.output_specs[i].kind != OutputSpec::Kind::Token || !token_inputs.count(name) || still_read.count(name)) continue;
        dropped.insert(name);
        graph.output_specs.erase(graph.output_specs.begin() + static_cast<std::ptrdiff_t>(i));
        graph.outputs.erase(graph.outputs.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (size_t i = graph.input_specs.size(); i-- > 0;) {
        if (graph.input_specs[i].kind != InputSpec::Kind::Token || !dropped.count(graph.inputs[i].name)) continue;
        graph.values.erase(graph.inputs[i].name);
        graph.input_specs.erase(graph.input_specs.begin() + static_cast<std::ptrdiff_t>(i));
        graph.inputs.erase(graph.inputs.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

}  // namespace pt2ov::graph
