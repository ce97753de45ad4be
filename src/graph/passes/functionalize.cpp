// Functionalization (functionalize.h): the walk over the nodes that makes every in-place op
// functional, and the buffers' mutations as outputs.
#include "graph/passes/functionalize.h"

#include <map>
#include <set>

#include "common/error.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace pt2ov::graph {
namespace functionalization {
namespace {

using Kind = Argument::Kind;

// Python's augmented operators on tensors (`b |= x`), traced as aten.__ior__ and the like, and
// their functional core-ATen forms (what run_decompositions() gives).
const std::map<std::string, std::string>& augmented_operators() {
    static const std::map<std::string, std::string> ops = {
        {"__ior__", "bitwise_or"}, {"__iand__", "bitwise_and"}, {"__ixor__", "bitwise_xor"}};
    return ops;
}

std::string functional_target(const std::string& target) {
    const std::string name = op_name(target);
    if (auto it = augmented_operators().find(name); it != augmented_operators().end()) {
        return "aten." + it->second + target.substr(5 + name.size());
    }
    const std::string functional = name.substr(0, name.size() - 1);
    return "aten." + functional + target.substr(5 + name.size());
}

// The in-place dropouts; their functional forms name the tensor `input`, not `self`.
const std::set<std::string>& dropout_ops() {
    static const std::set<std::string> ops = {"dropout_", "alpha_dropout_", "feature_dropout_",
                                              "feature_alpha_dropout_"};
    return ops;
}

// An in-place dropout with train=False: the identity.
bool is_inference_dropout(const Node& node) {
    if (!dropout_ops().count(op_name(node.target)) || !node.schema || node.arity() < 3) return false;
    const Argument& train = node.arg(2);
    return train.kind == Argument::Kind::Bool && !train.bool_value;
}

}  // namespace

std::string op_name(const std::string& target) {
    if (target.rfind("aten.", 0) != 0) return "";
    const auto first = target.find('.');
    const auto second = target.find('.', first + 1);
    return target.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

bool is_in_place(const std::string& target) {
    const std::string name = op_name(target);
    if (augmented_operators().count(name)) return true;
    return name.size() > 1 && name.back() == '_' && name.rfind("__", 0) != 0;
}

void replace_references(Argument& arg, const std::string& from, const std::string& to) {
    if (arg.kind == Kind::Tensor && arg.name == from) arg.name = to;
    for (auto& item : arg.items) replace_references(item, from, to);
}

std::string mutated_input(const Node& node) {
    for (const auto& input : node.inputs) {
        if (!input.keyword && input.arg.kind == Kind::Tensor) return input.arg.name;
    }
    return "";
}

Functionalizer::Functionalizer(Graph& graph, const std::string& where) : graph_(graph), where_(where) {
    for (size_t i = 0; i < graph_.input_specs.size(); ++i) input_index_[graph_.input_specs[i].arg.name] = i;
}

void Functionalizer::rename_after(size_t first_node, const std::string& from, const std::string& to) {
    for (size_t j = first_node; j < graph_.nodes.size(); ++j) {
        for (auto& input : graph_.nodes[j].inputs) replace_references(input.arg, from, to);
        for (auto& arg : graph_.nodes[j].resolved_inputs) replace_references(arg, from, to);
    }
    for (auto& out : graph_.outputs) replace_references(out, from, to);
    for (auto& spec : graph_.output_specs) replace_references(spec.arg, from, to);
}

void Functionalizer::drop_node(size_t i, const std::string& result, const std::string& replacement) {
    graph_.nodes.erase(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    graph_.values.erase(result);
    reindex_producers(graph_);
    rename_after(i, result, replacement);
}

void Functionalizer::record_version(const std::string& version, const std::string& previous) {
    const std::string root = root_of_.count(previous) ? root_of_[previous] : previous;
    root_of_[version] = root;
    if (input_index_.count(root)) {
        if (!latest_.count(root)) mutation_order_.push_back(root);
        latest_[root] = version;
    }
}

namespace {

size_t reads_of(const Argument& arg, const std::string& name) {
    size_t count = arg.kind == Kind::Tensor && arg.name == name ? 1 : 0;
    for (const auto& item : arg.items) count += reads_of(item, name);
    return count;
}

}  // namespace

bool Functionalizer::views_a_private_tensor(const ViewChain& chain, const std::string& written) const {
    const Value* base = graph_.find_value(chain.base);
    if (!base || base->producer < 0 || input_index_.count(chain.base) || root_of_.count(chain.base)) return false;
    std::vector<std::string> viewed = chain.bases();  // each level's input, innermost first
    viewed.push_back(written);
    for (const auto& name : viewed) {
        for (const auto& out : graph_.outputs) {
            if (reads_of(out, name)) return false;
        }
        size_t readers = 0;
        for (const Node& node : graph_.nodes) {
            for (const auto& input : node.inputs) readers += reads_of(input.arg, name);
        }
        if (readers != 1) return false;  // the next level of the chain (the in-place op for `written`)
    }
    return true;
}

void Functionalizer::run() {
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
        Node& node = graph_.nodes[i];
        if (!is_in_place(node.target)) continue;
        const std::string self = mutated_input(node);
        if (self.empty() || node.outputs.empty() || node.outputs[0].kind != Kind::Tensor) continue;
        const std::string result = node.outputs[0].name;
        const std::string node_name = node.name;
        if (is_inference_dropout(node)) {
            // dropout_(x, p, train=False) leaves x as it is: nothing is written, into a view or not
            drop_node(i, result, self);
            --i;  // the node now at i is the next one
            continue;
        }
        const ViewChain chain = view_chain_of(graph_, self);
        std::vector<Node> scatters;
        if (chain.view) {
            // a base that is the new value of a view (written through a chain before) is a view
            // still, of a tensor this chain no longer reaches
            if (!written_views_.count(self) && !new_values_of_views_.count(chain.base)) {
                scatters = scatters_for(chain, result, node_name);
            }
            if (scatters.empty() && views_a_private_tensor(chain, self)) {
                // torchao's quantized linear writes its bias into a reshape of its own product:
                // a write no one else sees is the functional op.
            } else if (scatters.empty()) {
                throw UnsupportedError(where_ + ": node " + node.name + " (" + node.target + ") writes in place into a view (" +
                                       self + ") that pt2ov cannot write back; save the program after "
                                              "ep.run_decompositions(), which makes such writes functional");
            }
        }
        if (node.op == op_id("aten.copy_.default")) {
            if (const auto last = rewrite_copy(i, self, result, chain, scatters)) {
                i = *last;
                continue;
            }
        }
        node.origin_target = node.source_target();
        node.target = functional_target(node.target);
        if (dropout_ops().count(op_name(node.origin_target))) {
            // dropout_(Tensor self, ...) is dropout(Tensor input, ...)
            for (auto& input : node.inputs) {
                if (input.name == "self") input.name = "input";
            }
        }
        resolve_node(node, where_);
        rename_after(i + 1, self, result);
        if (scatters.empty()) {
            record_version(result, self);
            continue;
        }
        // The view's new value goes back into its base; later readers of the base read that.
        written_views_.insert(result);
        if (chain.levels.size() == 1) scattered_to_[result] = {scatters.back().name, chain.key};
        insert_scatters(chain, scatters, i + 1);
        i += scatters.size();  // past the scatter nodes
    }
    add_buffer_mutations();
}

void Functionalizer::add_buffer_mutations() {
    for (const auto& root : mutation_order_) {
        const InputSpec& spec = graph_.input_specs[input_index_[root]];
        if (spec.kind != InputSpec::Kind::Buffer && spec.kind != InputSpec::Kind::UserInput) {
            throw UnsupportedError(where_ + ": the program writes in place into '" + root +
                                   "' (a parameter or constant); pt2ov never writes its weights; return the new value "
                                   "instead of writing it in place");
        }
        OutputSpec mutation;
        // A user input written in place: the caller's tensor gets the new value, as in PyTorch
        // (torch.export's USER_INPUT_MUTATION, which run_decompositions() records the same way).
        const bool user_input = spec.kind == InputSpec::Kind::UserInput;
        mutation.kind = user_input ? OutputSpec::Kind::UserInputMutation : OutputSpec::Kind::BufferMutation;
        mutation.arg = tensor_arg(latest_[root]);
        mutation.target = user_input ? root : spec.target;
        // Buffer mutations come first among outputs, as run_decompositions() orders them.
        graph_.output_specs.insert(graph_.output_specs.begin(), mutation);
        graph_.outputs.insert(graph_.outputs.begin(), mutation.arg);
    }
}

}  // namespace functionalization

void functionalize_in_place_ops(Graph& graph, const std::string& where) {
    functionalization::Functionalizer(graph, where).run();
}

}  // namespace pt2ov::graph
