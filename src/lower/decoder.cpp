#include "lower/decoder.h"

#include <set>

#include "common/error.h"
#include "lower/element_type.h"
#include "openvino/op/constant.hpp"

namespace pt2ov::lower {

using ov::frontend::pytorch::TorchDecoder;
namespace fe_type = ov::frontend::type;
using graph::Argument;
using ArgKind = graph::Argument::Kind;

size_t ValueIds::id_of(const std::string& value_name) {
    auto [it, inserted] = ids_.emplace(value_name, names_.size());
    if (inserted) names_.push_back(value_name);
    return it->second;
}

size_t ValueIds::fresh() {
    names_.emplace_back();
    return names_.size() - 1;
}

const std::string& ValueIds::name_of(size_t id) const {
    static const std::string none;
    return id < names_.size() ? names_[id] : none;
}

std::string fx_op_type(const std::string& target) {
    static const std::string python_operator = "_operator.";
    if (target.rfind(python_operator, 0) == 0) {
        return "<built-in function " + target.substr(python_operator.size()) + ">";
    }
    // The frontend's torch.export table has no aten.matmul; its aten.mm converter is a plain
    // MatMul, whose numpy broadcasting over every rank (1-D operands included) is torch.matmul's.
    if (target == "aten.matmul.default") return "aten.mm.default";
    // transformers' grouped product of mixture-of-experts layers is torch._grouped_mm of a 2-D
    // input, 3-D weights and offsets, without its bias and dtype (the frontend's converter makes
    // GroupedMatMul, which the CPU plugin runs as GatherMatmul; openvino_facts
    // GroupedMatMulRowsPastLastOffsetRefused and GroupedMatMulOffsetsMustRise say what it needs).
    if (target == "transformers.grouped_mm_fallback.default") return "aten._grouped_mm.default";
    // The frontend's torch.export table has no empty_like. Its values are unspecified, and pt2ov
    // makes them zeros on both engines (the CPU kernel fills zeros), so that what reads them gets
    // the same values wherever it runs (partition/int64_ranges.cpp bounds them at [0, 0]). The
    // two ops take the same arguments.
    if (target == "aten.empty_like.default") return "aten.zeros_like.default";
    return target;
}

namespace {

// What every decoder answers the same way; the FX decoder's defaults.
class BaseDecoder : public TorchDecoder {
public:
    explicit BaseDecoder(std::shared_ptr<DecoderContext> context) : context_(std::move(context)) {}

    ov::Any const_input(size_t) const override { return {}; }
    const std::vector<size_t>& inputs() const override { return input_ids_; }
    // Debug names are the value ids themselves. The frontend adds debug names to a tensor's
    // names and, when two Results read one tensor, parses its remaining name as an id: a
    // non-numeric name there fails the conversion ("Tensor name is not a number").
    const std::string& get_input_debug_name(size_t index) const override {
        debug_name_ = std::to_string(input_ids_.at(index));
        return debug_name_;
    }
    const std::string& get_input_signature_name(size_t index) const override {
        return get_input_debug_name(index);
    }
    ov::PartialShape get_input_shape(size_t index) const override {
        return rank_only_shape(context_->ids.name_of(input_ids_.at(index)));
    }
    const std::vector<size_t>& get_input_strides(size_t index) const override {
        strides_.clear();
        if (const auto* value = tensor_value(context_->ids.name_of(input_ids_.at(index)))) {
            for (const auto& stride : value->meta.strides) {
                strides_.push_back(static_cast<size_t>(stride.is_static() ? *stride.value : stride.hint));
            }
        }
        return strides_;
    }
    ov::Any get_input_type(size_t index) const override {
        return index < input_types_.size() ? input_types_[index] : ov::Any(ov::element::dynamic);
    }
    const std::string& get_output_debug_name(size_t index) const override {
        debug_name_ = std::to_string(output_ids_.at(index));
        return debug_name_;
    }
    ov::PartialShape get_output_shape(size_t index) const override {
        return rank_only_shape(context_->ids.name_of(output_ids_.at(index)));
    }
    ov::Any get_output_type(size_t index) const override {
        return value_type(context_->ids.name_of(output_ids_.at(index)));
    }
    bool input_is_none(size_t index) const override {
        return index >= inlined_.size() || (inlined_[index] && inlined_[index]->kind == ArgKind::None);
    }
    ov::OutputVector try_decode_get_attr() const override { return {}; }
    ov::OutputVector as_constant() const override { return {}; }
    const std::string& as_string() const override {
        static const std::string empty;
        return empty;
    }
    const std::string& get_schema() const override {
        static const std::string none = "NONE";
        return none;
    }
    size_t num_of_outputs() const override { return output_ids_.size(); }
    size_t output_list_size() const override { return 0; }
    const std::vector<size_t>& outputs() const override { return output_ids_; }
    size_t output(size_t index) const override { return output_ids_.at(index); }
    std::shared_ptr<ov::Node> mark_node(std::shared_ptr<ov::Node> node) const override { return node; }
    size_t get_subgraph_size() const override { return 0; }
    void visit_subgraph(std::function<void(std::shared_ptr<TorchDecoder>)>) const override {}
    std::shared_ptr<TorchDecoder> get_subgraph_decoder(size_t) const override { return nullptr; }
    bool may_produce_alias(size_t, size_t) const override { return false; }
    bool is_input_inlined(size_t index) const override {
        return index < inlined_.size() && inlined_[index] != nullptr;
    }
    std::shared_ptr<TorchDecoder> get_inlined_input_decoder(size_t index) const override;
    ov::Any get_attribute(const std::string&) const override { return {}; }
    size_t get_named_input(const std::string& name) const override {
        throw std::runtime_error("input '" + name + "' is not a node");
    }
    const std::string& decoder_type_name() const override {
        static const std::string fx = "fx";
        return fx;
    }
    ov::frontend::pytorch::DecoderRTInfo get_rt_info() const override { return {}; }
    bool has_converter() const override { return false; }
    ov::OutputVector convert(const ov::frontend::NodeContext*) const override {
        throw std::runtime_error("pt2ov decoders have no custom converters");
    }

protected:
    const graph::Value* tensor_value(const std::string& name) const {
        if (name.empty()) return nullptr;
        const auto* value = context_->graph->find_value(name);
        return value && value->kind == graph::ValueKind::Tensor ? value : nullptr;
    }
    ov::PartialShape rank_only_shape(const std::string& name) const {
        if (const auto* value = tensor_value(name)) {
            return ov::PartialShape::dynamic(static_cast<int64_t>(value->meta.rank()));
        }
        return ov::PartialShape::dynamic();
    }
    ov::Any value_type(const std::string& name) const {
        if (const auto* value = tensor_value(name)) return ov::Any(element_type(value->meta.dtype));
        return ov::Any(ov::element::dynamic);
    }
    // How the FX decoder types an argument: tensors by their dtype, Python numbers as
    // PyScalar (a bool is an int in Python, and the FX decoder checks int first), lists by
    // their first element.
    ov::Any argument_type(const Argument& arg) const {
        switch (arg.kind) {
        case ArgKind::Tensor: return value_type(arg.name);
        case ArgKind::Int:
        case ArgKind::Bool: return ov::Any(fe_type::PyScalar(ov::Any(ov::element::i64)));
        case ArgKind::Float: return ov::Any(fe_type::PyScalar(ov::Any(ov::element::f32)));
        case ArgKind::List:
            if (arg.items.empty()) return ov::Any(fe_type::List(ov::Any(ov::element::i32)));
            return ov::Any(fe_type::List(argument_type(arg.items.front())));
        default: return ov::Any(ov::element::dynamic);
        }
    }
    // Adds one positional argument: a value becomes an input id, anything else is inlined.
    void add_argument(const Argument& arg) {
        switch (arg.kind) {
        case ArgKind::Tensor:
        case ArgKind::SymInt:
        case ArgKind::SymBool:
        case ArgKind::SymFloat:
            input_ids_.push_back(context_->ids.id_of(arg.name));
            inlined_.push_back(nullptr);
            break;
        default:
            input_ids_.push_back(0);
            inlined_.push_back(std::make_shared<Argument>(arg));
        }
        input_types_.push_back(argument_type(arg));
    }

    std::shared_ptr<DecoderContext> context_;
    std::vector<size_t> input_ids_;
    std::vector<std::shared_ptr<Argument>> inlined_;  // per input; null when not inlined
    std::vector<ov::Any> input_types_;
    std::vector<size_t> output_ids_;
    mutable std::string debug_name_;
    mutable std::vector<size_t> strides_;
    mutable std::vector<std::shared_ptr<TorchDecoder>> children_;  // kept alive with us
    std::string source_;  // the IR node this decoder (or its parent node) stands for
};

bool holds_values(const Argument& arg) {
    if (arg.kind == ArgKind::List) {
        for (const auto& item : arg.items) {
            if (holds_values(item)) return true;
        }
        return false;
    }
    return arg.kind == ArgKind::Tensor || arg.kind == ArgKind::SymInt || arg.kind == ArgKind::SymBool ||
           arg.kind == ArgKind::SymFloat;
}

// A Constant from typed values. (Constant::create range-checks doubles against the element
// type and refuses ±inf for f32, which programs do pass, e.g. as a mask fill.)
template <typename T>
std::shared_ptr<ov::op::v0::Constant> typed_constant(ov::element::Type type, ov::Shape shape, const std::vector<T>& values) {
    return std::make_shared<ov::op::v0::Constant>(type, shape, values.data());
}

// A Constant for a number, a list of numbers or a string, typed as the FX decoder types them.
std::shared_ptr<ov::op::v0::Constant> constant_for(const Argument& arg) {
    switch (arg.kind) {
    case ArgKind::Bool: return typed_constant(ov::element::boolean, {}, std::vector<char>{arg.bool_value});
    case ArgKind::Int: return typed_constant(ov::element::i64, {}, std::vector<int64_t>{arg.int_value});
    case ArgKind::Float: return typed_constant(ov::element::f32, {}, std::vector<float>{static_cast<float>(arg.float_value)});
    case ArgKind::String: {
        std::vector<uint8_t> bytes(arg.string_value.begin(), arg.string_value.end());
        return typed_constant(ov::element::u8, {bytes.size()}, bytes);
    }
    case ArgKind::List: {
        ov::Shape shape{arg.items.size()};
        if (arg.items.empty()) return typed_constant(ov::element::i32, shape, std::vector<int32_t>{});
        switch (arg.items.front().kind) {
        case ArgKind::Bool: {
            std::vector<char> values;
            for (const auto& item : arg.items) values.push_back(item.bool_value);
            return typed_constant(ov::element::boolean, shape, values);
        }
        case ArgKind::Float: {
            std::vector<float> values;
            for (const auto& item : arg.items) {
                values.push_back(static_cast<float>(item.kind == ArgKind::Float ? item.float_value : item.int_value));
            }
            return typed_constant(ov::element::f32, shape, values);
        }
        case ArgKind::Int: {
            std::vector<int64_t> values;
            for (const auto& item : arg.items) values.push_back(item.int_value);
            return typed_constant(ov::element::i64, shape, values);
        }
        default: return nullptr;
        }
    }
    default: return nullptr;
    }
}

std::shared_ptr<ov::Node> tag_node(std::shared_ptr<ov::Node> node, const std::string& source, const std::string& op_type);

// A non-tensor argument standing in the node's inputs, as the FX decoder inlines it.
class InlinedDecoder : public BaseDecoder {
public:
    InlinedDecoder(std::shared_ptr<DecoderContext> context, Argument arg, std::string source)
        : BaseDecoder(std::move(context)), arg_(std::move(arg)) {
        source_ = std::move(source);
        is_list_of_values_ = arg_.kind == ArgKind::List && holds_values(arg_);
        if (is_list_of_values_) {
            for (const auto& item : arg_.items) add_argument(item);
        }
        output_ids_ = {0};
    }
    const std::string& get_op_type() const override {
        static const std::string list = "inlined.list.default";
        static const std::string constant = "inlined.constant.default";
        return is_list_of_values_ ? list : constant;
    }
    ov::OutputVector as_constant() const override {
        if (auto constant = constant_for(arg_)) return constant->outputs();
        return {};
    }
    ov::PartialShape get_output_shape(size_t) const override { return ov::PartialShape::dynamic(); }
    ov::Any get_output_type(size_t) const override { return ov::Any(ov::element::dynamic); }
    std::shared_ptr<ov::Node> mark_node(std::shared_ptr<ov::Node> node) const override {
        return tag_node(node, source_, get_op_type());
    }

private:
    Argument arg_;
    bool is_list_of_values_ = false;
};

std::shared_ptr<TorchDecoder> BaseDecoder::get_inlined_input_decoder(size_t index) const {
    if (!is_input_inlined(index)) throw std::runtime_error("input " + std::to_string(index) + " is not inlined");
    auto decoder = std::make_shared<InlinedDecoder>(context_, *inlined_[index], source_);
    children_.push_back(decoder);
    return decoder;
}

// Tags converted nodes with the IR node they came from, so support and errors can be traced
// back to the archive's node names.
std::shared_ptr<ov::Node> tag_node(std::shared_ptr<ov::Node> node, const std::string& source,
                                   const std::string& op_type) {
    std::string name = source + "/" + op_type;
    if (node->get_type_name() != std::string("FrameworkNode")) name += std::string("/") + node->get_type_name();
    node->set_friendly_name(name);
    node->get_rt_info()[kSourceNodeKey] = source;
    return node;
}

// A parameter, buffer or lifted constant: a get_attr node over the engine's memory.
class GetAttrDecoder : public BaseDecoder {
public:
    GetAttrDecoder(std::shared_ptr<DecoderContext> context, std::string value_name, const archive::StoredTensor* stored)
        : BaseDecoder(std::move(context)), value_name_(std::move(value_name)), stored_(stored) {
        output_ids_ = {context_->ids.id_of(value_name_)};
    }
    const std::string& get_op_type() const override {
        static const std::string get_attr = "get_attr";
        return get_attr;
    }
    ov::OutputVector as_constant() const override { return make_shared_constant(*stored_, context_->memory_owner)->outputs(); }
    ov::Any get_output_type(size_t) const override { return ov::Any(element_type(stored_->meta.dtype)); }
    std::shared_ptr<ov::Node> mark_node(std::shared_ptr<ov::Node> node) const override {
        return tag_node(node, value_name_, get_op_type());
    }

private:
    std::string value_name_;
    const archive::StoredTensor* stored_;
};

// One output of a multi-output node, taken from its tuple as torch.fx's getitem does.
class GetItemDecoder : public BaseDecoder {
public:
    GetItemDecoder(std::shared_ptr<DecoderContext> context, std::string source, size_t tuple_id, int64_t index,
                   const std::string& output_name)
        : BaseDecoder(std::move(context)) {
        source_ = std::move(source);
        input_ids_ = {tuple_id, 0};
        Argument index_arg;
        index_arg.kind = ArgKind::Int;
        index_arg.int_value = index;
        inlined_ = {nullptr, std::make_shared<Argument>(index_arg)};
        input_types_ = {ov::Any(ov::element::dynamic), argument_type(index_arg)};
        output_ids_ = {context_->ids.id_of(output_name)};
    }
    const std::string& get_op_type() const override {
        static const std::string getitem = "<built-in function getitem>";
        return getitem;
    }
    std::shared_ptr<ov::Node> mark_node(std::shared_ptr<ov::Node> node) const override {
        return tag_node(node, source_, get_op_type());
    }
};

// The names of a node's outputs, flattened; "" where an output is None or unused.
std::vector<std::string> output_names(const graph::Node& node) {
    std::vector<std::string> names;
    for (const auto& out : node.outputs) {
        if (out.kind == ArgKind::List) {
            for (const auto& item : out.items) names.push_back(item.kind == ArgKind::None ? "" : item.name);
        } else {
            names.push_back(out.kind == ArgKind::None ? "" : out.name);
        }
    }
    return names;
}

bool is_multi_output(const graph::Node& node) {
    return node.outputs.size() > 1 || (node.outputs.size() == 1 && node.outputs[0].kind == ArgKind::List);
}

// One node of the IR.
class NodeDecoder : public BaseDecoder {
public:
    NodeDecoder(std::shared_ptr<DecoderContext> context, const graph::Node& node, size_t tuple_id)
        : BaseDecoder(std::move(context)), node_(node), op_type_(fx_op_type(node.target)) {
        source_ = node.source_name();
        for (const auto& input : node.inputs) {
            if (!input.keyword) add_argument(input.arg);
        }
        if (is_multi_output(node)) {
            output_ids_ = {tuple_id};
            list_size_ = output_names(node).size();
        } else if (!node.outputs.empty() && node.outputs[0].kind != ArgKind::None) {
            output_ids_ = {context_->ids.id_of(node.outputs[0].name)};
        }
    }
    const std::string& get_op_type() const override { return op_type_; }
    size_t output_list_size() const override { return list_size_; }
    ov::Any get_attribute(const std::string& name) const override {
        const auto* input = node_.find_input(name);
        if (!input || !input->keyword) return {};
        const Argument& arg = input->arg;
        switch (arg.kind) {
        case ArgKind::ScalarType: return ov::Any(element_type(arg.dtype));
        case ArgKind::Device: return ov::Any(arg.string_value);
        case ArgKind::String: return ov::Any(arg.string_value);
        default: break;
        }
        if (auto constant = constant_for(arg)) return ov::Any(constant->output(0));
        // Present but not a number: the FX decoder answers "exists" this way, and a tensor
        // keyword is then fetched through get_named_input.
        return ov::Any(fe_type::PyNone());
    }
    size_t get_named_input(const std::string& name) const override {
        const auto* input = node_.find_input(name);
        if (input && input->arg.kind == ArgKind::Tensor) return context_->ids.id_of(input->arg.name);
        throw std::runtime_error("keyword argument '" + name + "' of node " + node_.name + " is not a tensor");
    }
    ov::PartialShape get_output_shape(size_t index) const override {
        return list_size_ ? ov::PartialShape::dynamic() : BaseDecoder::get_output_shape(index);
    }
    ov::Any get_output_type(size_t index) const override {
        return list_size_ ? ov::Any(ov::element::dynamic) : BaseDecoder::get_output_type(index);
    }
    std::shared_ptr<ov::Node> mark_node(std::shared_ptr<ov::Node> node) const override {
        return tag_node(node, source_, op_type_);
    }

private:
    const graph::Node& node_;
    std::string op_type_;
    size_t list_size_ = 0;
};

// The whole subgraph: Parameters for its inputs, get_attr nodes for its constants, its nodes.
class SubgraphDecoder : public BaseDecoder {
public:
    SubgraphDecoder(std::shared_ptr<DecoderContext> context, Subgraph subgraph)
        : BaseDecoder(std::move(context)), subgraph_(std::move(subgraph)) {
        for (const auto& name : subgraph_.inputs) {
            input_ids_.push_back(context_->ids.id_of(name));
            inlined_.push_back(nullptr);
        }
        for (const auto& name : subgraph_.outputs) output_ids_.push_back(context_->ids.id_of(name));
    }
    const std::string& get_op_type() const override {
        static const std::string model = "pt2ov.subgraph";
        return model;
    }
    const std::string& get_input_signature_name(size_t index) const override { return subgraph_.inputs.at(index); }
    ov::PartialShape get_input_shape(size_t index) const override { return input_shape(subgraph_.inputs.at(index)); }
    ov::Any get_input_type(size_t index) const override {
        const auto& value = context_->graph->value(subgraph_.inputs.at(index));
        if (value.kind == graph::ValueKind::Tensor) return ov::Any(element_type(value.meta.dtype));
        if (value.kind == graph::ValueKind::SymBool) return ov::Any(ov::element::boolean);
        if (value.kind == graph::ValueKind::SymFloat) return ov::Any(ov::element::f64);
        return ov::Any(ov::element::i64);
    }
    bool input_is_none(size_t) const override { return false; }
    void visit_subgraph(std::function<void(std::shared_ptr<TorchDecoder>)> visit) const override {
        for (auto& decoder : constant_decoders()) visit(decoder);
        for (int index : subgraph_.nodes) {
            const auto& node = context_->graph->nodes.at(index);
            const size_t tuple_id = is_multi_output(node) ? context_->ids.fresh() : 0;
            auto decoder = std::make_shared<NodeDecoder>(context_, node, tuple_id);
            children_.push_back(decoder);
            visit(decoder);
            if (!tuple_id) continue;
            const auto names = output_names(node);
            for (size_t i = 0; i < names.size(); ++i) {
                if (names[i].empty()) continue;
                auto getitem = std::make_shared<GetItemDecoder>(context_, node.name, tuple_id, i, names[i]);
                children_.push_back(getitem);
                visit(getitem);
            }
        }
    }

private:
    // A bounded dim where torch.export guarantees a range for a bare symbol; other symbolic
    // dims are fully dynamic. Scalars (symbolic ints) are rank 0.
    ov::PartialShape input_shape(const std::string& name) const {
        const auto& value = context_->graph->value(name);
        if (value.kind != graph::ValueKind::Tensor) return ov::PartialShape{};
        std::vector<ov::Dimension> dims;
        for (const auto& dim : value.meta.sizes) dims.push_back(dimension_for(dim, context_->graph->ranges));
        return ov::PartialShape(dims);
    }
    std::vector<std::shared_ptr<TorchDecoder>> constant_decoders() const {
        std::vector<std::shared_ptr<TorchDecoder>> decoders;
        std::set<std::string> seen(subgraph_.inputs.begin(), subgraph_.inputs.end());
        auto visit_argument = [&](const Argument& arg, auto&& self) -> void {
            if (arg.kind == ArgKind::List) {
                for (const auto& item : arg.items) self(item, self);
                return;
            }
            if (arg.kind != ArgKind::Tensor || !seen.insert(arg.name).second) return;
            auto it = context_->constants->find(arg.name);
            if (it == context_->constants->end()) return;
            decoders.push_back(std::make_shared<GetAttrDecoder>(context_, arg.name, it->second));
        };
        for (int index : subgraph_.nodes) {
            for (const auto& input : context_->graph->nodes.at(index).inputs) visit_argument(input.arg, visit_argument);
        }
        for (const auto& name : subgraph_.outputs) {
            Argument arg;
            arg.kind = ArgKind::Tensor;
            arg.name = name;
            visit_argument(arg, visit_argument);
        }
        children_.insert(children_.end(), decoders.begin(), decoders.end());
        return decoders;
    }

    Subgraph subgraph_;
};

}  // namespace

std::shared_ptr<TorchDecoder> make_subgraph_decoder(std::shared_ptr<DecoderContext> context, const Subgraph& subgraph) {
    return std::make_shared<SubgraphDecoder>(std::move(context), subgraph);
}

}  // namespace pt2ov::lower
