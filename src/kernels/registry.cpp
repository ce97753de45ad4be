// The kernel registry and KernelCall's argument access (registry.h).
#include "kernels/registry.h"

#include <map>

#include <fmt/format.h>

#include "graph/schema.h"
#include "pt2ov/error.h"

namespace pt2ov::kernels {

using graph::ArgName;
using graph::Argument;
using Kind = Argument::Kind;
using graph::kind_name;

// ---- Registry ------------------------------------------------------------------------------

namespace {

struct Registration {
    Kernel kernel = nullptr;
    ShapeContract contract = nullptr;
    std::string file;
};

// Function-local so registrations from any file's static initializers find it constructed.
// Kernels register by name (each file names the ops it serves); lookups go by id.
std::map<std::string, Registration>& kernel_table() {
    static std::map<std::string, Registration> table;
    return table;
}

std::map<std::string, ShapeContract>& file_contracts() {
    static std::map<std::string, ShapeContract> table;
    return table;
}

// Mistakes of registration (two kernels for one op, a name outside the op table). Registration
// runs in static initializers, where nothing can be thrown to a caller, so they are kept and
// reported at the first lookup.
std::vector<std::string>& registration_mistakes() {
    static std::vector<std::string> mistakes;
    return mistakes;
}

struct Bound {
    Kernel kernel = nullptr;
    ShapeContract contract = nullptr;
};

// The kernels by op id, made once at the first lookup, after every static registration: an
// exact target first, else the kernel registered for its op without overload ("aten.conv2d").
// A kernel without a contract of its own takes its file's.
const std::vector<Bound>& kernels_by_id() {
    static const std::vector<Bound> by_id = [] {
        std::vector<Bound> table(graph::op_table::kCount);
        std::vector<bool> exact(graph::op_table::kCount, false);
        for (const auto& [name, registration] : kernel_table()) {
            Bound bound{registration.kernel, registration.contract};
            if (!bound.contract) {
                const auto it = file_contracts().find(registration.file);
                if (it != file_contracts().end()) bound.contract = it->second;
            }
            if (const graph::OpId id = graph::find_op_id(name); id != graph::OpId::Unknown) {
                table[static_cast<size_t>(id)] = bound;
                exact[static_cast<size_t>(id)] = true;
                continue;
            }
            const graph::OpFamily family = graph::find_op_family(name);
            if (family.first == family.last) {
                registration_mistakes().push_back(name + " is not an op of graph/op_targets.inc");
                continue;
            }
            for (auto at = family.first; at < family.last; ++at) {
                if (!exact[at]) table[at] = bound;
            }
        }
        return table;
    }();
    const auto& mistakes = registration_mistakes();
    if (!mistakes.empty()) {
        std::string names;
        for (const auto& m : mistakes) names += (names.empty() ? "" : "; ") + m;
        throw InternalError("CPU kernel registration: " + names + " (a build mistake of pt2ov)");
    }
    return by_id;
}

}  // namespace

void register_kernel(const std::string& op, Kernel kernel, ShapeContract contract, const char* file) {
    if (!kernel_table().emplace(op, Registration{kernel, contract, file}).second) {
        registration_mistakes().push_back("two kernels for " + op);
    }
}

void register_file_shape_contract(const char* file, ShapeContract contract) {
    if (!file_contracts().emplace(file, contract).second) {
        registration_mistakes().push_back(std::string("two shape contracts for the kernels of ") + file);
    }
}

Kernel find_kernel(graph::OpId op) {
    const auto& table = kernels_by_id();
    const auto at = static_cast<size_t>(op);
    return at < table.size() ? table[at].kernel : nullptr;
}

Kernel find_kernel(std::string_view target) { return find_kernel(graph::find_op_id(target)); }

ShapeContract find_shape_contract(graph::OpId op) {
    const auto& table = kernels_by_id();
    const auto at = static_cast<size_t>(op);
    return at < table.size() ? table[at].contract : nullptr;
}

std::vector<std::string> registered_ops() {
    kernels_by_id();  // reports mistakes
    std::vector<std::string> names;
    for (const auto& [name, registration] : kernel_table()) names.push_back(name);
    return names;
}

// ---- KernelCall ----------------------------------------------------------------------------

const Argument* KernelCall::arg(ArgName name, size_t position) const {
    if (const graph::OpSchema* schema = node_.schema) {
        // The node was resolved against its schema: every argument is at its schema position,
        // defaults filled in. The name's id is checked so a kernel reading the wrong position
        // fails loudly instead of computing with another argument.
        const auto& arguments = schema->arguments;
        if (position < arguments.size() && arguments[position].name_id == name.id()) return &node_.arg(position);
        const auto at = schema->position_of(name.id());
        // Not an argument of this overload (the kernel serves several): the kernel's default.
        if (!at) return nullptr;
        // A keyword-only argument, which kernels may read by name alone (kKeywordOnly).
        if (arguments[*at].kwarg_only && position >= schema->positional_count) return &node_.arg(*at);
        throw InternalError(fmt::format("node {} ({}): the kernel reads argument '{}' at position {}, but {} has it at position {}",
                                        node_.name, node_.target, name.text(), position, schema->text, *at));
    }
    // No schema (_operator.*, dim-order copies): the stored arguments, by name, else by position.
    const auto& names = node_.unschematized_names;
    for (size_t i = 0; i < names.size() && i < node_.arity(); ++i) {
        if (names[i] == name.id()) return &node_.arg(i);
    }
    return position < node_.arity() ? &node_.arg(position) : nullptr;
}

bool KernelCall::has(ArgName name, size_t position) const {
    const Argument* a = arg(name, position);
    return a && a->kind != Kind::None;
}

namespace {

// Present and not None.
const Argument* present(const KernelCall& call, ArgName name, size_t position) {
    const Argument* a = call.arg(name, position);
    return a && a->kind != Kind::None ? a : nullptr;
}

}  // namespace

const StridedTensor& KernelCall::tensor(ArgName name, size_t position) const {
    const Argument* a = present(*this, name, position);
    if (!a) fail("argument '" + std::string(name.text()) + "' is missing");
    if (a->kind != Kind::Tensor) fail("argument '" + std::string(name.text()) + "' is " + kind_name(a->kind) + ", expected a tensor");
    return value(*a).tensor();
}

std::optional<StridedTensor> KernelCall::optional_tensor(ArgName name, size_t position) const {
    if (!present(*this, name, position)) return std::nullopt;
    return tensor(name, position);
}

std::vector<StridedTensor> KernelCall::tensors(ArgName name, size_t position) const {
    const Argument* a = present(*this, name, position);
    if (!a) fail("argument '" + std::string(name.text()) + "' is missing");
    if (a->kind != Kind::List) fail("argument '" + std::string(name.text()) + "' is " + kind_name(a->kind) + ", expected a list of tensors");
    std::vector<StridedTensor> result;
    for (const auto& item : a->items) {
        if (item.kind != Kind::Tensor) {
            fail("argument '" + std::string(name.text()) + "' holds " + kind_name(item.kind) + ", expected only tensors");
        }
        result.push_back(value(item).tensor());
    }
    return result;
}

namespace {

int64_t int_of(const KernelCall& call, const Argument& a, ArgName name) {
    switch (a.kind) {
        case Kind::Int: return a.int_value;
        case Kind::Bool: return a.bool_value ? 1 : 0;
        case Kind::SymInt:
        case Kind::SymBool: {
            const Scalar s = call.value(a).scalar();
            if (const auto* d = std::get_if<double>(&s)) {
                call.fail("argument '" + std::string(name.text()) + "' (" + a.name + ") is " + std::to_string(*d) + ", expected an int");
            }
            return std::holds_alternative<bool>(s) ? (std::get<bool>(s) ? 1 : 0) : std::get<int64_t>(s);
        }
        default: break;
    }
    call.fail("argument '" + std::string(name.text()) + "' is " + kind_name(a.kind) + ", expected an int");
}

}  // namespace

int64_t KernelCall::int_arg(ArgName name, size_t position) const {
    const Argument* a = present(*this, name, position);
    if (!a) fail("argument '" + std::string(name.text()) + "' is missing");
    return int_of(*this, *a, name);
}

int64_t KernelCall::int_arg(ArgName name, size_t position, int64_t fallback) const {
    const Argument* a = present(*this, name, position);
    return a ? int_of(*this, *a, name) : fallback;
}

std::vector<int64_t> KernelCall::ints(ArgName name, size_t position) const {
    const Argument* a = present(*this, name, position);
    if (!a) fail("argument '" + std::string(name.text()) + "' is missing");
    return ints(name, position, {});
}

std::vector<int64_t> KernelCall::ints(ArgName name, size_t position, std::vector<int64_t> fallback) const {
    const Argument* a = present(*this, name, position);
    if (!a) return fallback;
    if (a->kind != Kind::List) return {int_of(*this, *a, name)};  // int[1] arguments may be one int
    std::vector<int64_t> result;
    for (const auto& item : a->items) result.push_back(int_of(*this, item, name));
    return result;
}

double KernelCall::float_arg(ArgName name, size_t position, double fallback) const {
    const Argument* a = present(*this, name, position);
    if (!a) return fallback;
    if (a->kind == Kind::Float) return a->float_value;
    if (a->kind == Kind::SymFloat) return std::visit([](auto v) { return static_cast<double>(v); }, value(*a).scalar());
    return static_cast<double>(int_of(*this, *a, name));
}

bool KernelCall::bool_arg(ArgName name, size_t position, bool fallback) const {
    const Argument* a = present(*this, name, position);
    if (!a) return fallback;
    return int_of(*this, *a, name) != 0;
}

Scalar KernelCall::scalar(ArgName name, size_t position) const {
    const Argument* a = present(*this, name, position);
    if (!a) fail("argument '" + std::string(name.text()) + "' is missing");
    switch (a->kind) {
        case Kind::Int: return a->int_value;
        case Kind::Float: return a->float_value;
        case Kind::Bool: return a->bool_value;
        case Kind::SymInt:
        case Kind::SymFloat:
        case Kind::SymBool: return value(*a).scalar();
        default: break;
    }
    fail("argument '" + std::string(name.text()) + "' is " + kind_name(a->kind) + ", expected a number");
}

std::optional<DType> KernelCall::dtype_arg(ArgName name, size_t position) const {
    const Argument* a = present(*this, name, position);
    if (!a) return std::nullopt;
    if (a->kind == Kind::ScalarType) return a->dtype;
    if (a->kind == Kind::Unsupported) fail("argument '" + std::string(name.text()) + "' is a dtype pt2ov does not support (" + a->string_value + ")");
    fail("argument '" + std::string(name.text()) + "' is " + kind_name(a->kind) + ", expected a dtype");
}

int64_t KernelCall::memory_format(ArgName name, size_t position, int64_t fallback) const {
    const Argument* a = present(*this, name, position);
    if (!a) return fallback;
    if (a->kind == Kind::MemoryFormat || a->kind == Kind::Int) return a->int_value;
    fail("argument '" + std::string(name.text()) + "' is " + kind_name(a->kind) + ", expected a memory format");
}

const graph::TensorMeta& KernelCall::output_meta(size_t index) const {
    size_t seen = 0;
    for (const auto& out : node_.outputs) {
        const bool is_list = out.kind == Kind::List;
        const size_t count = is_list ? out.items.size() : 1;
        if (index < seen + count) {
            const Argument& item = is_list ? out.items[index - seen] : out;
            if (item.kind != Kind::Tensor) fail("output " + std::to_string(index) + " is " + kind_name(item.kind) + ", not a tensor");
            return graph_.value(item.name).meta;
        }
        seen += count;
    }
    fail("has no output " + std::to_string(index));
}

void KernelCall::fail(const std::string& message) const {
    throw UnsupportedError("node " + node_.name + " (" + node_.target + "): " + message, node_.source_name());
}

}  // namespace pt2ov::kernels
