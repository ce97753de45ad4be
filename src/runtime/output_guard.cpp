#include "runtime/output_guard.h"

#include <cctype>
#include <functional>
#include <limits>
#include <span>

#include "common/error.h"
#include "common/text.h"

namespace pt2ov::runtime {

namespace {

using kernels::RuntimeValue;

// ---- Size expressions: torch.export writes a size as sympy's text of it ----

using Symbols = std::vector<int64_t>;
using Known = std::vector<char>;

struct Constant final : SizeExpression {
    int64_t value;
    explicit Constant(int64_t v) : value(v) {}
    std::optional<int64_t> evaluate(const Symbols&, const Known&) const override { return value; }
};

struct SymbolRef final : SizeExpression {
    int index;
    explicit SymbolRef(int i) : index(i) {}
    std::optional<int64_t> evaluate(const Symbols& symbols, const Known& known) const override {
        if (!known[static_cast<size_t>(index)]) return std::nullopt;
        return symbols[static_cast<size_t>(index)];
    }
};

enum class Op { Add, Sub, Mul, FloorDiv, Mod, Pow, Max, Min, Neg, TrueDiv };

int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

struct Apply final : SizeExpression {
    Op op;
    std::vector<std::shared_ptr<const SizeExpression>> args;
    Apply(Op o, std::vector<std::shared_ptr<const SizeExpression>> a) : op(o), args(std::move(a)) {}
    std::optional<int64_t> evaluate(const Symbols& symbols, const Known& known) const override {
        std::vector<int64_t> v;
        v.reserve(args.size());
        for (const auto& arg : args) {
            auto x = arg->evaluate(symbols, known);
            if (!x) return std::nullopt;
            v.push_back(*x);
        }
        // Sizes are far below 2^62: the arithmetic is checked only where it could trap.
        switch (op) {
            case Op::Add: return v[0] + v[1];
            case Op::Sub: return v[0] - v[1];
            case Op::Mul: return v[0] * v[1];
            case Op::Neg: return -v[0];
            case Op::FloorDiv:
                if (v[1] == 0) return std::nullopt;
                return floor_div(v[0], v[1]);
            case Op::Mod:
                if (v[1] == 0) return std::nullopt;
                return v[0] - floor_div(v[0], v[1]) * v[1];
            case Op::TrueDiv:  // only an exact quotient is a size
                if (v[1] == 0 || v[0] % v[1] != 0) return std::nullopt;
                return v[0] / v[1];
            case Op::Pow: {
                if (v[1] < 0 || v[1] > 62) return std::nullopt;
                int64_t result = 1;
                for (int64_t i = 0; i < v[1]; ++i) result *= v[0];
                return result;
            }
            case Op::Max: return std::max(v[0], v[1]);
            case Op::Min: return std::min(v[0], v[1]);
        }
        return std::nullopt;
    }
};

// A recursive-descent reader of the subset of sympy's text sizes use: integers, symbols,
// + - * // % ** /, parentheses, and the functions Max, Min, FloorDiv, Mod, PythonMod, CleanDiv.
// Anything else makes the whole size unreadable (nullopt), never a wrong reading.
class Reader {
public:
    Reader(const std::string& text, const std::function<int(const std::string&)>& symbol_index)
        : text_(text), symbol_index_(symbol_index) {}

    std::shared_ptr<const SizeExpression> read() {
        auto e = sum();
        skip_space();
        if (!e || pos_ != text_.size()) return nullptr;
        return e;
    }

private:
    using Ptr = std::shared_ptr<const SizeExpression>;

    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool take(std::string_view token) {
        skip_space();
        if (text_.compare(pos_, token.size(), token) != 0) return false;
        pos_ += token.size();
        return true;
    }
    static Ptr apply(Op op, Ptr a, Ptr b = nullptr) {
        if (!a || (op != Op::Neg && !b)) return nullptr;
        std::vector<Ptr> args{std::move(a)};
        if (b) args.push_back(std::move(b));
        return std::make_shared<Apply>(op, std::move(args));
    }

    Ptr sum() {
        Ptr left = product();
        while (left) {
            if (take("+")) left = apply(Op::Add, left, product());
            else if (take("-")) left = apply(Op::Sub, left, product());
            else break;
        }
        return left;
    }
    Ptr product() {
        Ptr left = unary();
        while (left) {
            skip_space();
            if (text_.compare(pos_, 2, "**") == 0) break;  // handled in power()
            if (take("//")) left = apply(Op::FloorDiv, left, unary());
            else if (take("*")) left = apply(Op::Mul, left, unary());
            else if (take("/")) left = apply(Op::TrueDiv, left, unary());
            else if (take("%")) left = apply(Op::Mod, left, unary());
            else break;
        }
        return left;
    }
    Ptr unary() {
        if (take("-")) return apply(Op::Neg, unary());
        return power();
    }
    Ptr power() {
        Ptr base = atom();
        if (base && take("**")) return apply(Op::Pow, base, unary());
        return base;
    }
    Ptr atom() {
        skip_space();
        if (pos_ >= text_.size()) return nullptr;
        if (take("(")) {
            Ptr inner = sum();
            return take(")") ? inner : nullptr;
        }
        const char c = text_[pos_];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            int64_t value = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) return nullptr;
                value = value * 10 + (text_[pos_++] - '0');
            }
            return std::make_shared<Constant>(value);
        }
        if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') return nullptr;
        std::string name;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
            name += text_[pos_++];
        }
        if (!take("(")) return std::make_shared<SymbolRef>(symbol_index_(name));
        std::vector<Ptr> args;
        if (!take(")")) {
            do {
                Ptr arg = sum();
                if (!arg) return nullptr;
                args.push_back(std::move(arg));
            } while (take(","));
            if (!take(")")) return nullptr;
        }
        return function(name, std::move(args));
    }
    static Ptr function(const std::string& name, std::vector<Ptr> args) {
        if ((name == "Max" || name == "Min") && !args.empty()) {
            Ptr result = args[0];
            for (size_t i = 1; i < args.size(); ++i) result = apply(name == "Max" ? Op::Max : Op::Min, result, args[i]);
            return result;
        }
        if (args.size() != 2) return nullptr;
        if (name == "FloorDiv") return apply(Op::FloorDiv, args[0], args[1]);
        if (name == "Mod" || name == "PythonMod") return apply(Op::Mod, args[0], args[1]);
        if (name == "CleanDiv") return apply(Op::TrueDiv, args[0], args[1]);
        return nullptr;
    }

    const std::string& text_;
    const std::function<int(const std::string&)>& symbol_index_;
    size_t pos_ = 0;
};

}  // namespace

std::shared_ptr<const SizeExpression> SizeExpression::parse(const std::string& text,
                                                            const std::function<int(const std::string&)>& symbol_index) {
    return Reader(text, symbol_index).read();
}

int OutputGuard::symbol_index(const std::string& name) {
    for (size_t i = 0; i < symbol_names_.size(); ++i) {
        if (symbol_names_[i] == name) return static_cast<int>(i);
    }
    symbol_names_.push_back(name);
    return static_cast<int>(symbol_names_.size() - 1);
}

OutputGuard::DimContract OutputGuard::dim_contract(const graph::Dim& dim) {
    DimContract contract;
    if (dim.is_static()) {
        contract.kind = DimContract::Kind::Static;
        contract.value = *dim.value;
    } else if (!dim.symbol.empty()) {
        contract.kind = DimContract::Kind::Symbol;
        contract.symbol = symbol_index(dim.symbol);
    } else if (auto expression =
                   SizeExpression::parse(dim.expr, [this](const std::string& name) { return symbol_index(name); })) {
        contract.kind = DimContract::Kind::Expression;
        contract.expression = std::move(expression);
    }
    return contract;
}

OutputGuard::Contract OutputGuard::contract_for(const std::string& value_name, const std::string& step_text) {
    const auto& graph = prepared_.graph;
    const graph::Value& value = graph.value(value_name);
    Contract contract;
    contract.slot = value.slot;
    contract.value = value_name;
    contract.step = step_text;
    if (value.producer >= 0 && static_cast<size_t>(value.producer) < graph.nodes.size()) {
        const auto& node = graph.nodes[static_cast<size_t>(value.producer)];
        contract.node = "node " + node.source_name() + " (" + node.source_target() + ")";
    } else {
        contract.node = "the program's inputs";
    }
    if (value.kind == graph::ValueKind::Tensor) {
        contract.dtype = value.meta.dtype;
        for (const auto& dim : value.meta.sizes) contract.dims.push_back(dim_contract(dim));
    } else if (value.kind == graph::ValueKind::SymInt) {
        contract.tensor = false;
        contract.dims.push_back(dim_contract(value.sym));
    } else {
        contract.slot = -1;  // a symbolic bool or float: nothing a size can say of it
    }
    return contract;
}

OutputGuard::OutputGuard(const compile::PreparedMethod& prepared, const compile::PlannedMethod& planned)
    : prepared_(prepared) {
    const auto& graph = prepared.graph;
    for (const auto& name : prepared.user_inputs) {
        std::vector<DimContract> dims;
        for (const auto& dim : graph.value(name).meta.sizes) dims.push_back(dim_contract(dim));
        input_dims_.push_back(std::move(dims));
    }
    const auto& steps = planned.plan.steps;
    step_contracts_.resize(steps.size());
    node_contracts_.resize(steps.size());
    for (size_t s = 0; s < steps.size(); ++s) {
        const bool on_cpu = steps[s].where == partition::Where::Cpu;
        const std::string step_text = "step " + std::to_string(s + 1) + (on_cpu ? " (CPU kernels)" : " (OpenVINO)");
        if (!on_cpu) {
            for (const auto& name : steps[s].outputs) {
                const auto* value = graph.find_value(name);
                if (!value || value->slot < 0) continue;
                Contract contract = contract_for(name, step_text);
                if (contract.slot >= 0) step_contracts_[s].push_back(std::move(contract));
            }
            continue;
        }
        for (int index : steps[s].nodes) {
            const auto& node = graph.nodes[static_cast<size_t>(index)];
            auto& contracts = node_contracts_[s].emplace_back();
            auto add = [&](const graph::Argument& out) {
                if (out.kind == graph::Argument::Kind::None || out.name.empty()) return;
                const auto* value = graph.find_value(out.name);
                if (!value || value->slot < 0) return;
                Contract contract = contract_for(out.name, step_text);
                // A rewrite's node carries the metadata of the archive node it stands for.
                contract.made_on_cpu = true;
                if (contract.slot >= 0) contracts.push_back(std::move(contract));
            };
            for (const auto& out : node.outputs) {
                if (out.kind == graph::Argument::Kind::List) {
                    for (const auto& item : out.items) add(item);
                } else {
                    add(out);
                }
            }
        }
    }
    // Which step makes each value: outputs name the step too.
    std::vector<std::string> step_of_slot(graph.value_count);
    for (size_t s = 0; s < steps.size(); ++s) {
        for (const auto& contract : step_contracts_[s]) step_of_slot[static_cast<size_t>(contract.slot)] = contract.step;
        for (const auto& node : node_contracts_[s]) {
            for (const auto& contract : node) step_of_slot[static_cast<size_t>(contract.slot)] = contract.step;
        }
    }
    size_t user_index = 0;
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        const auto& out = graph.outputs[i];
        const auto kind = i < graph.output_specs.size() ? graph.output_specs[i].kind : graph::OutputSpec::Kind::UserOutput;
        const bool mutation = kind == graph::OutputSpec::Kind::BufferMutation || kind == graph::OutputSpec::Kind::UserInputMutation;
        const std::string role = kind == graph::OutputSpec::Kind::BufferMutation
                                     ? "the new state of buffer '" + graph.output_specs[i].target + "'"
                                 : mutation ? "the new value of input '" + graph.output_specs[i].target + "'"
                                            : "output " + std::to_string(user_index);
        if (!mutation) ++user_index;
        if ((out.kind != graph::Argument::Kind::Tensor && out.kind != graph::Argument::Kind::SymInt) || out.name.empty() ||
            !graph.find_value(out.name)) {
            output_contracts_.emplace_back();
            continue;
        }
        const auto* value = graph.find_value(out.name);
        const std::string step = value->slot >= 0 && static_cast<size_t>(value->slot) < step_of_slot.size() &&
                                         !step_of_slot[static_cast<size_t>(value->slot)].empty()
                                     ? step_of_slot[static_cast<size_t>(value->slot)]
                                     : "the runtime";
        Contract contract = contract_for(out.name, step);
        contract.role = role;
        output_contracts_.push_back(contract.slot >= 0 ? std::optional<Contract>(std::move(contract)) : std::nullopt);
    }
    symbol_count_ = symbol_names_.size();
}

size_t OutputGuard::checked_values() const {
    size_t count = 0;
    for (const auto& step : step_contracts_) count += step.size();
    for (const auto& step : node_contracts_) {
        for (const auto& node : step) count += node.size();
    }
    for (const auto& output : output_contracts_) count += output.has_value();
    return count;
}

void OutputGuard::bind_inputs(const std::vector<Tensor>& inputs, Symbols& symbols) const {
    for (size_t i = 0; i < inputs.size() && i < input_dims_.size(); ++i) {
        const auto& shape = inputs[i].shape();
        for (size_t d = 0; d < input_dims_[i].size() && d < shape.size(); ++d) {
            const auto& dim = input_dims_[i][d];
            if (dim.kind != DimContract::Kind::Symbol) continue;
            symbols.values[static_cast<size_t>(dim.symbol)] = shape[d];
            symbols.known[static_cast<size_t>(dim.symbol)] = 1;
        }
    }
}

void OutputGuard::fail(const Contract& contract, std::string_view role, const std::string& what) const {
    if (contract.made_on_cpu) {
        throw ArchiveError(prepared_.where + ": " + contract.node + " computes '" + contract.value + "' on pt2ov's CPU kernels, which " +
                           what + ": the archive's metadata contradict its own program (a damaged or edited archive; "
                           "export the program again, and report it to pt2ov if torch.export.save wrote it as it is)");
    }
    throw InternalError(prepared_.where + ": " + std::string(role) + " '" + contract.value + "', made by " + contract.node + " in " +
                        contract.step + ", " + what +
                        "; pt2ov refused to return it (a fault of OpenVINO or of pt2ov: please report it with the archive)");
}

void OutputGuard::check(const Contract& contract, const RuntimeValue& value, std::string_view role,
                        Symbols& symbols) const {
    // A view of the sizes, no copy: this runs for every value of every call.
    std::span<const int64_t> sizes;
    int64_t number_value = 0;
    if (contract.tensor) {
        if (!value.is_tensor()) fail(contract, role, "is a number where the program has a tensor");
        const auto& tensor = value.tensor();
        if (tensor.dtype != contract.dtype) {
            fail(contract, role,
                 "is " + std::string(dtype_name(tensor.dtype)) + " where the program says " + std::string(dtype_name(contract.dtype)));
        }
        sizes = tensor.sizes;
        if (sizes.size() != contract.dims.size()) {
            fail(contract, role,
                 "has " + std::to_string(sizes.size()) + " dims " + shape_text(tensor.sizes) + " where the program says " +
                     std::to_string(contract.dims.size()));
        }
    } else {
        if (!value.is_scalar()) return;  // a size held as a tensor: nothing to compare here
        const auto* number = std::get_if<int64_t>(&value.scalar());
        if (!number) return;
        number_value = *number;
        sizes = std::span<const int64_t>(&number_value, 1);
    }
    for (size_t d = 0; d < contract.dims.size(); ++d) {
        const auto& dim = contract.dims[d];
        std::optional<int64_t> expected;
        switch (dim.kind) {
            case DimContract::Kind::Static: expected = dim.value; break;
            case DimContract::Kind::Symbol: {
                const auto index = static_cast<size_t>(dim.symbol);
                if (!symbols.known[index]) {  // met here first (a size only the data decides)
                    symbols.values[index] = sizes[d];
                    symbols.known[index] = 1;
                }
                expected = symbols.values[index];
                break;
            }
            case DimContract::Kind::Expression: expected = dim.expression->evaluate(symbols.values, symbols.known); break;
            case DimContract::Kind::Unchecked: break;
        }
        if (expected && *expected != sizes[d]) {
            std::string want = "[";
            for (size_t k = 0; k < contract.dims.size(); ++k) {
                const auto& other = contract.dims[k];
                std::optional<int64_t> size;
                if (other.kind == DimContract::Kind::Static) size = other.value;
                if (other.kind == DimContract::Kind::Symbol && symbols.known[static_cast<size_t>(other.symbol)]) {
                    size = symbols.values[static_cast<size_t>(other.symbol)];
                }
                if (other.kind == DimContract::Kind::Expression) size = other.expression->evaluate(symbols.values, symbols.known);
                want += (k ? ", " : "") + (size ? std::to_string(*size) : std::string("?"));
            }
            fail(contract, role,
                 contract.tensor ? "has shape " + shape_text({sizes.begin(), sizes.end()}) + " where the program says " + want + "]"
                                 : "is " + std::to_string(sizes[0]) + " where the program says " + want.substr(1));
        }
    }
}

void OutputGuard::check_values(const std::vector<Contract>& contracts, const std::vector<RuntimeValue>& values,
                               Symbols& symbols) const {
    for (const auto& contract : contracts) {
        const auto& value = values[static_cast<size_t>(contract.slot)];
        if (std::holds_alternative<std::monostate>(value.value)) continue;  // kept as OpenVINO state, or a constant
        check(contract, value, "the value", symbols);
    }
}

void OutputGuard::check_step(size_t step, const std::vector<RuntimeValue>& values, Symbols& symbols) const {
    check_values(step_contracts_[step], values, symbols);
}

void OutputGuard::check_node(size_t step, size_t position, const std::vector<RuntimeValue>& values, Symbols& symbols) const {
    check_values(node_contracts_[step][position], values, symbols);
}

void OutputGuard::check_output(size_t index, const RuntimeValue& value, Symbols& symbols) const {
    if (index >= output_contracts_.size() || !output_contracts_[index]) return;
    check(*output_contracts_[index], value, output_contracts_[index]->role, symbols);
}

}  // namespace pt2ov::runtime
