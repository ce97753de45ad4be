// Shape contracts (contracts.h): the query over recorded metadata, the shared contracts, and the
// check at load.
#include "kernels/contracts.h"

#include <fmt/format.h>

#include "graph/schema.h"
#include "pt2ov/error.h"

namespace pt2ov::kernels {

using graph::Argument;
using Kind = Argument::Kind;

namespace {

ExpectedSizes expected_of(const graph::TensorMeta& meta) {
    ExpectedSizes sizes;
    for (const auto& d : meta.sizes) sizes.push_back(d.value);
    return sizes;
}

std::string text_of(const ExpectedSizes& sizes) {
    std::string text = "[";
    for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + (sizes[i] ? std::to_string(*sizes[i]) : "?");
    return text + "]";
}

// Thrown by ShapeQuery::contradiction, and turned into the node's ArchiveError by the check.
struct Contradiction {
    std::string what;
};

}  // namespace

const Argument* ShapeQuery::argument(ArgName name, size_t position) const {
    if (const graph::OpSchema* schema = node_.schema) {
        const auto at = position < schema->arguments.size() && schema->arguments[position].name_id == name.id()
                            ? std::optional<size_t>(position)
                            : schema->position_of(name.id());
        if (!at) return nullptr;
        const Argument& arg = node_.arg(*at);
        return arg.kind == Kind::None ? nullptr : &arg;
    }
    return position < node_.arity() && node_.arg(position).kind != Kind::None ? &node_.arg(position) : nullptr;
}

std::optional<ExpectedSizes> ShapeQuery::sizes(ArgName name, size_t position) const {
    const Argument* arg = argument(name, position);
    if (!arg || arg->kind != Kind::Tensor) return std::nullopt;
    const graph::Value* value = graph_.find_value(arg->name);
    if (!value || value->kind != graph::ValueKind::Tensor) return std::nullopt;
    return expected_of(value->meta);
}

std::vector<ExpectedSizes> ShapeQuery::tensor_sizes() const {
    std::vector<ExpectedSizes> all;
    for (size_t i = 0; i < node_.arity(); ++i) {
        if (node_.schema && node_.schema->arguments[i].name_id == ArgName("out").id()) continue;
        const Argument& arg = node_.arg(i);
        if (arg.kind != Kind::Tensor) continue;
        const graph::Value* value = graph_.find_value(arg.name);
        if (value && value->kind == graph::ValueKind::Tensor) all.push_back(expected_of(value->meta));
    }
    return all;
}

std::optional<std::vector<ExpectedSizes>> ShapeQuery::tensor_list_sizes(ArgName name, size_t position) const {
    const Argument* arg = argument(name, position);
    if (!arg || arg->kind != Kind::List) return std::nullopt;
    std::vector<ExpectedSizes> all;
    for (const auto& item : arg->items) {
        if (item.kind != Kind::Tensor) return std::nullopt;
        const graph::Value* value = graph_.find_value(item.name);
        if (!value || value->kind != graph::ValueKind::Tensor) return std::nullopt;
        all.push_back(expected_of(value->meta));
    }
    return all;
}

std::optional<int64_t> ShapeQuery::int_arg(ArgName name, size_t position) const {
    const Argument* arg = argument(name, position);
    if (!arg) return std::nullopt;
    if (arg->kind == Kind::Int) return arg->int_value;
    if (arg->kind == Kind::Bool) return arg->bool_value ? 1 : 0;
    return std::nullopt;
}

std::optional<std::vector<int64_t>> ShapeQuery::ints(ArgName name, size_t position) const {
    const Argument* arg = argument(name, position);
    if (!arg) return std::nullopt;
    if (arg->kind == Kind::Int) return std::vector<int64_t>{arg->int_value};
    if (arg->kind != Kind::List) return std::nullopt;
    std::vector<int64_t> values;
    for (const auto& item : arg->items) {
        if (item.kind != Kind::Int) return std::nullopt;
        values.push_back(item.int_value);
    }
    return values;
}

void ShapeQuery::contradiction(const std::string& what) const { throw Contradiction{what}; }

ExpectedSizes broadcast(const ShapeQuery& query, const ExpectedSizes& a, const ExpectedSizes& b) {
    const size_t rank = std::max(a.size(), b.size());
    ExpectedSizes out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const auto& x = i + a.size() >= rank ? a[i + a.size() - rank] : std::optional<int64_t>(1);
        const auto& y = i + b.size() >= rank ? b[i + b.size() - rank] : std::optional<int64_t>(1);
        if (x && y) {
            if (*x != *y && *x != 1 && *y != 1) {
                query.contradiction("its arguments' sizes " + text_of(a) + " and " + text_of(b) + " do not broadcast");
            }
            out[i] = *x == 1 ? *y : *x;
        } else if (x && *x != 1) {
            out[i] = x;  // the symbolic one is 1 or the same
        } else if (y && *y != 1) {
            out[i] = y;
        }  // else: unknown
    }
    return out;
}

std::optional<std::vector<ExpectedSizes>> elementwise_shape(const ShapeQuery& query) {
    const auto all = query.tensor_sizes();
    if (all.empty()) return std::nullopt;
    ExpectedSizes result = all[0];
    for (size_t i = 1; i < all.size(); ++i) result = broadcast(query, result, all[i]);
    return std::vector<ExpectedSizes>{result};
}

std::optional<std::vector<ExpectedSizes>> same_as_self(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    return std::vector<ExpectedSizes>{*self};
}

std::optional<std::vector<ExpectedSizes>> reduced_self(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size());
    const bool has_dim = query.node().schema && query.node().schema->position_of(ArgName("dim").id()).has_value();
    std::vector<int64_t> dims;
    if (has_dim) {
        const auto given = query.ints("dim", 1);
        if (!given && query.int_arg("dim", 1) == std::nullopt) {
            // None (every dim) unless the argument is there but symbolic
            const graph::OpSchema& schema = *query.node().schema;
            const auto at = schema.position_of(ArgName("dim").id());
            if (query.node().arg(*at).kind != Kind::None) return std::nullopt;
        }
        if (given) dims = *given;
    }
    const bool keepdim = query.int_arg("keepdim", 2).value_or(0) != 0;
    std::vector<bool> reduced(self->size(), dims.empty());
    for (int64_t d : dims) {
        const int64_t bound = std::max<int64_t>(rank, 1);
        if (d < -bound || d >= bound) query.contradiction(fmt::format("dim {} is out of range for rank {}", d, rank));
        if (rank > 0) reduced[static_cast<size_t>(d < 0 ? d + rank : d)] = true;
    }
    ExpectedSizes out;
    for (size_t d = 0; d < self->size(); ++d) {
        if (!reduced[d]) out.push_back((*self)[d]);
        else if (keepdim) out.push_back(1);
    }
    return std::vector<ExpectedSizes>{out};
}

namespace {

// `d` in [0, rank) from PyTorch's [-rank, rank) (rank 0 takes -1 and 0 as 0).
int64_t wrapped_dim(const ShapeQuery& query, int64_t d, int64_t rank) {
    const int64_t bound = std::max<int64_t>(rank, 1);
    if (d < -bound || d >= bound) query.contradiction(fmt::format("dim {} is out of range for rank {}", d, rank));
    return d < 0 ? d + bound : d;
}

// Two sizes that must be equal (an inner product's, a concatenation's other dims).
void same_size(const ShapeQuery& query, const std::optional<int64_t>& a, const std::optional<int64_t>& b,
               const std::string& what) {
    if (a && b && *a != *b) query.contradiction(fmt::format("{}: {} and {} differ", what, *a, *b));
}

std::optional<std::vector<ExpectedSizes>> one(ExpectedSizes sizes) { return std::vector<ExpectedSizes>{std::move(sizes)}; }

}  // namespace

std::optional<std::vector<ExpectedSizes>> matrix_product_shape(const ShapeQuery& query) {
    const graph::OpId op = query.node().op;
    if (op == graph::op_id("aten.linear.default")) {
        const auto input = query.sizes("input", 0), weight = query.sizes("weight", 1);
        if (!input || !weight || input->empty() || weight->size() != 2) return std::nullopt;
        same_size(query, input->back(), (*weight)[1], "the input's last size and the weight's columns");
        ExpectedSizes out = *input;
        out.back() = (*weight)[0];
        return one(out);
    }
    const bool addmm = op == graph::op_id("aten.addmm.default");
    const auto a = addmm ? query.sizes("mat1", 1) : query.sizes("self", 0);
    const auto b = addmm ? query.sizes("mat2", 2) : query.sizes("mat2", 1);
    // mm and addmm of matrices, bmm of batches of them.
    const size_t rank = op == graph::op_id("aten.bmm.default") ? 3 : 2;
    if (!a || !b || a->size() != rank || b->size() != rank) return std::nullopt;
    same_size(query, (*a)[rank - 1], (*b)[rank - 2], "the inner sizes of the product");
    ExpectedSizes out = *a;
    out[rank - 1] = (*b)[rank - 1];
    if (rank == 3) same_size(query, (*a)[0], (*b)[0], "the batch sizes of the product");
    return one(out);
}

std::optional<std::vector<ExpectedSizes>> concatenated_shape(const ShapeQuery& query) {
    const auto all = query.tensor_list_sizes("tensors", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!all || !dim) return std::nullopt;
    std::optional<ExpectedSizes> out;
    for (const auto& sizes : *all) {
        if (sizes.size() == 1 && sizes[0] == 0) continue;  // a legacy empty tensor takes no part
        if (!out) {
            out = sizes;
            (*out)[static_cast<size_t>(wrapped_dim(query, *dim, static_cast<int64_t>(sizes.size())))] = 0;
        }
        if (sizes.size() != out->size()) query.contradiction("it concatenates tensors of different ranks");
        const auto d = static_cast<size_t>(wrapped_dim(query, *dim, static_cast<int64_t>(sizes.size())));
        for (size_t k = 0; k < sizes.size(); ++k) {
            if (k == d) {
                (*out)[k] = (*out)[k] && sizes[k] ? std::optional<int64_t>(*(*out)[k] + *sizes[k]) : std::nullopt;
            } else {
                same_size(query, (*out)[k], sizes[k], "the sizes of dim " + std::to_string(k) + " it concatenates");
            }
        }
    }
    if (!out) return std::nullopt;
    return one(*out);
}

std::optional<std::vector<ExpectedSizes>> stacked_shape(const ShapeQuery& query) {
    const auto all = query.tensor_list_sizes("tensors", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!all || all->empty() || !dim) return std::nullopt;
    ExpectedSizes common = (*all)[0];
    for (const auto& sizes : *all) {
        if (sizes.size() != common.size()) query.contradiction("it stacks tensors of different ranks");
        for (size_t k = 0; k < sizes.size(); ++k) same_size(query, common[k], sizes[k], "the sizes it stacks");
    }
    const int64_t d = wrapped_dim(query, *dim, static_cast<int64_t>(common.size()) + 1);
    common.insert(common.begin() + d, static_cast<int64_t>(all->size()));
    return one(common);
}

std::optional<std::vector<ExpectedSizes>> permuted_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dims = query.ints("dims", 1);
    if (!self || !dims) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size());
    if (static_cast<int64_t>(dims->size()) != rank) query.contradiction("it permutes a different number of dims");
    ExpectedSizes out;
    std::vector<bool> seen(self->size(), false);
    for (int64_t d : *dims) {
        const auto at = static_cast<size_t>(wrapped_dim(query, d, rank));
        if (rank > 0 && seen[at]) query.contradiction("it names dim " + std::to_string(d) + " twice");
        if (rank > 0) seen[at] = true;
        if (rank > 0) out.push_back((*self)[at]);
    }
    return one(out);
}

std::optional<std::vector<ExpectedSizes>> transposed_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    const auto rank = static_cast<int64_t>(self->size());
    if (query.node().op == graph::op_id("aten.t.default") || query.node().op == graph::op_id("aten.t_copy.default")) {
        if (rank > 2) query.contradiction("it transposes a tensor of rank " + std::to_string(rank) + " as a matrix");
        if (rank == 2) std::swap((*self)[0], (*self)[1]);
        return one(*self);
    }
    const auto a = query.int_arg("dim0", 1), b = query.int_arg("dim1", 2);
    if (!a || !b) return std::nullopt;
    if (rank == 0) return one(*self);
    std::swap((*self)[static_cast<size_t>(wrapped_dim(query, *a, rank))], (*self)[static_cast<size_t>(wrapped_dim(query, *b, rank))]);
    return one(*self);
}

std::optional<std::vector<ExpectedSizes>> unsqueezed_shape(const ShapeQuery& query) {
    auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (!self || !dim) return std::nullopt;
    const int64_t d = wrapped_dim(query, *dim, static_cast<int64_t>(self->size()) + 1);
    self->insert(self->begin() + d, 1);
    return one(*self);
}

std::optional<std::vector<ExpectedSizes>> reshaped_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto size = query.node().schema && query.node().schema->position_of(ArgName("shape").id()) ? query.ints("shape", 1)
                                                                                                        : query.ints("size", 1);
    if (!self || !size) return std::nullopt;
    std::optional<int64_t> count = 1;
    for (const auto& d : *self) count = count && d ? std::optional<int64_t>(*count * *d) : std::nullopt;
    ExpectedSizes out;
    int64_t known = 1;
    std::optional<size_t> inferred;
    for (size_t k = 0; k < size->size(); ++k) {
        const int64_t s = (*size)[k];
        if (s == -1) {
            if (inferred) query.contradiction("its size has two -1");
            inferred = k;
            out.push_back(std::nullopt);
        } else {
            if (s < 0) query.contradiction("its size has " + std::to_string(s));
            known *= s;
            out.push_back(s);
        }
    }
    if (inferred && count && known > 0) {
        if (*count % known != 0) query.contradiction(fmt::format("{} elements do not divide into rows of {}", *count, known));
        out[*inferred] = *count / known;
    } else if (!inferred && count && *count != known) {
        query.contradiction(fmt::format("it views {} elements as {}", *count, known));
    }
    return one(out);
}

std::optional<std::vector<ExpectedSizes>> expanded_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto size = query.ints("size", 1);
    if (!self || !size) return std::nullopt;
    if (size->size() < self->size()) query.contradiction("it expands to fewer dims than it has");
    ExpectedSizes out;
    const size_t lead = size->size() - self->size();
    for (size_t k = 0; k < size->size(); ++k) {
        const int64_t s = (*size)[k];
        const std::optional<int64_t> have = k < lead ? std::optional<int64_t>(1) : (*self)[k - lead];
        if (s == -1) {
            if (k < lead) query.contradiction("it keeps (-1) a dim it adds");
            out.push_back(have);
            continue;
        }
        if (have && *have != 1 && *have != s) query.contradiction(fmt::format("it expands a size {} to {}", *have, s));
        out.push_back(s);
    }
    return one(out);
}

void check_shape_contract(const graph::Node& node, const graph::Graph& graph, const std::string& where) {
    const ShapeContract contract = find_shape_contract(node.op);
    if (!contract) return;
    const ShapeQuery query(node, graph);
    const auto fail = [&](const std::string& what) {
        throw ArchiveError(fmt::format("{}: node {} ({}) {}: the archive's metadata contradict its own program (a damaged or "
                                       "edited archive; re-export it)",
                                       where, node.name, node.target, what),
                           node.source_name());
    };
    std::optional<std::vector<ExpectedSizes>> expected;
    try {
        expected = contract(query);
    } catch (const Contradiction& c) {
        fail(c.what);
    }
    if (!expected || expected->empty()) return;
    size_t index = 0;
    const auto check_output = [&](const Argument& out) {
        const size_t k = index++;
        if (out.kind != Kind::Tensor) return;
        const graph::Value* value = graph.find_value(out.name);
        if (!value || value->kind != graph::ValueKind::Tensor) return;
        const ExpectedSizes& want = (*expected)[std::min(k, expected->size() - 1)];
        const ExpectedSizes got = expected_of(value->meta);
        bool agree = got.size() == want.size();
        for (size_t d = 0; agree && d < got.size(); ++d) agree = !got[d] || !want[d] || *got[d] == *want[d];
        if (!agree) {
            fail(fmt::format("records '{}' as {} where its arguments make it {}", out.name, text_of(got), text_of(want)));
        }
    };
    for (const auto& out : node.outputs) {
        if (out.kind == Kind::List) {
            for (const auto& item : out.items) check_output(item);
        } else {
            check_output(out);
        }
    }
}

// Helpers for the contracts of indexing, factory and view kernels.
int64_t wrap_dim(const ShapeQuery& query, int64_t d, int64_t rank) { return wrapped_dim(query, d, rank); }

std::optional<DType> tensor_dtype(const ShapeQuery& query, const Argument& arg) {
    if (arg.kind != Kind::Tensor) return std::nullopt;
    const graph::Value* value = query.graph().find_value(arg.name);
    if (!value || value->kind != graph::ValueKind::Tensor) return std::nullopt;
    return value->meta.dtype;
}

std::optional<ExpectedSizes> size_list(const ShapeQuery& query, ArgName name) {
    const graph::Node& node = query.node();
    const auto at = node.schema ? node.schema->position_of(name.id()) : std::nullopt;
    if (!at) return std::nullopt;
    const Argument& arg = node.arg(*at);
    if (arg.kind == Kind::Int) return ExpectedSizes{arg.int_value};
    if (arg.kind == Kind::SymInt) return ExpectedSizes{std::nullopt};
    if (arg.kind != Kind::List) return std::nullopt;
    ExpectedSizes sizes;
    for (const auto& item : arg.items) {
        if (item.kind == Kind::Int) sizes.push_back(item.int_value);
        else if (item.kind == Kind::SymInt) sizes.push_back(std::nullopt);
        else return std::nullopt;
    }
    return sizes;
}

std::optional<int64_t> element_count(const ExpectedSizes& sizes) {
    int64_t count = 1;
    for (const auto& d : sizes) {
        if (!d || __builtin_mul_overflow(count, *d, &count)) return std::nullopt;
    }
    return count;
}

ExpectedSizes without_dim(ExpectedSizes sizes, int64_t d) {
    if (d < static_cast<int64_t>(sizes.size())) sizes.erase(sizes.begin() + d);
    return sizes;
}

std::optional<ExpectedSizes> indexed_sizes(const ShapeQuery& query, const ExpectedSizes& self, ArgName indices) {
    const graph::Node& node = query.node();
    const auto at = node.schema ? node.schema->position_of(indices.id()) : std::nullopt;
    if (!at || node.arg(*at).kind != Kind::List) return std::nullopt;
    std::optional<ExpectedSizes> index;  // the indices broadcast together
    size_t dim = 0, first = 0, last = 0;
    bool adjacent = true;
    std::vector<bool> indexed(self.size(), false);
    for (const Argument& item : node.arg(*at).items) {
        if (item.kind == Kind::None) {
            ++dim;
            continue;
        }
        const auto dtype = tensor_dtype(query, item);
        const graph::Value* value = dtype ? query.graph().find_value(item.name) : nullptr;
        if (!value) return std::nullopt;
        const bool mask = *dtype == DType::Bool || *dtype == DType::UInt8;
        const size_t consumed = mask ? value->meta.rank() : 1;
        if (mask && consumed == 0) return std::nullopt;  // a 0-d mask adds a dim of its own
        if (dim + consumed > self.size()) {
            query.contradiction(fmt::format("it indexes more dims than its tensor's {}", self.size()));
        }
        ExpectedSizes sizes = mask ? ExpectedSizes{std::nullopt} : expected_of(value->meta);
        if (!index) {
            first = dim;
        } else if (dim != last + 1) {
            adjacent = false;
        }
        index = index ? broadcast(query, *index, sizes) : sizes;
        for (size_t k = 0; k < consumed; ++k) indexed[dim + k] = true;
        dim += consumed;
        last = dim - 1;
    }
    if (dim > self.size()) query.contradiction(fmt::format("it indexes more dims than its tensor's {}", self.size()));
    if (!index) return self;
    ExpectedSizes out;
    if (adjacent) out.insert(out.end(), self.begin(), self.begin() + static_cast<std::ptrdiff_t>(first));
    out.insert(out.end(), index->begin(), index->end());
    for (size_t d = adjacent ? first : 0; d < self.size(); ++d) {
        if (!indexed[d]) out.push_back(self[d]);
    }
    return out;
}

std::optional<std::vector<int64_t>> ints_per_dim(const ShapeQuery& query, ArgName name, size_t position, size_t count) {
    auto values = query.ints(name, position);
    if (!values) return std::nullopt;
    if (values->size() == 1) values->resize(count, values->front());
    if (values->size() != count) return std::nullopt;
    return values;
}

std::optional<int64_t> sliding_window_size(const ShapeQuery& query, std::optional<int64_t> input, int64_t kernel, int64_t stride,
                                           int64_t padding, int64_t dilation) {
    if (kernel < 1 || stride < 1 || dilation < 1) {
        query.contradiction(fmt::format("its kernel size {}, stride {} and dilation {} must all be positive", kernel, stride, dilation));
    }
    if (!input) return std::nullopt;
    const int64_t span = *input + 2 * padding - dilation * (kernel - 1) - 1;
    return (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
}

void require_same_size(const ShapeQuery& query, const std::optional<int64_t>& a, const std::optional<int64_t>& b,
                       const std::string& what) {
    same_size(query, a, b, what);
}

std::optional<ExpectedSizes> matrix_sizes(const ShapeQuery& query, ArgName name, size_t position, bool square) {
    auto sizes = query.sizes(name, position);
    if (!sizes) return std::nullopt;
    if (sizes->size() < 2) {
        query.contradiction(fmt::format("its '{}' of sizes {} is not a matrix or a batch of matrices", name.text(), text_of(*sizes)));
    }
    if (square) same_size(query, sizes->end()[-2], sizes->back(), fmt::format("its '{}' must be square, but its rows and columns", name.text()));
    return sizes;
}

ExpectedSizes leading(const ExpectedSizes& sizes, size_t count) {
    return ExpectedSizes(sizes.begin(), sizes.end() - static_cast<std::ptrdiff_t>(std::min(count, sizes.size())));
}

ExpectedSizes with_broadcast_batch(const ShapeQuery& query, const ExpectedSizes& sizes, const ExpectedSizes& other) {
    ExpectedSizes out = broadcast(query, leading(sizes, 2), leading(other, 2));
    out.insert(out.end(), sizes.end() - std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(sizes.size())), sizes.end());
    return out;
}

std::optional<int64_t> smaller(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
    if (a && b) return std::min(*a, *b);
    if ((a && *a == 0) || (b && *b == 0)) return 0;
    return std::nullopt;
}

}  // namespace pt2ov::kernels
