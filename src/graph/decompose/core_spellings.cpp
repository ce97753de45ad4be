// Ops of the training IR that are one core-ATen op spelled another way: each becomes that one
// node, named as the original, with the arguments the archive left at their defaults spelled
// out (the core form has no defaults to lean on) and the extra outputs the core op returns
// (statistics, indices) left unread.
#include "graph/decompose/common.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;

// The keyword arguments of `names` the archive gave the original node, kept as given.
Keywords given_keywords(const Builder& b, std::initializer_list<ArgName> names) {
    Keywords kept;
    for (const auto& input : b.node().inputs) {
        if (!input.keyword) continue;
        for (ArgName name : names) {
            if (input.name == name.text()) kept.push_back({input.name, input.arg});
        }
    }
    return kept;
}

// batch_norm in eval mode is the no-training core op. In training mode without running
// statistics (running_mean and running_var None) it updates nothing: it normalizes by the
// input's own statistics, a pure function that models compute on purpose in eval mode (BiT's
// weight standardization normalizes its convolution weights so); that is the core op
// _native_batch_norm_legit.no_stats, as run_decompositions() spells it. Training mode with
// running statistics would update them: refused.
void batch_norm(Builder& b) {
    const Argument training = b.arg(5, "training");
    if (training.kind == Kind::Bool && training.bool_value) {
        if (b.arg(3, "running_mean").kind == Kind::None && b.arg(4, "running_var").kind == Kind::None) {
            b.outputs("aten._native_batch_norm_legit.no_stats",
                      {b.arg(0, "input"), b.arg(1, "weight"), b.arg(2, "bias"), training, b.arg(6, "momentum"),
                       b.arg(7, "eps")},
                      {}, 2);
            return;
        }
        b.refuse("runs batch_norm in training mode, which updates its running statistics; export the module in eval "
                 "mode (model.eval()) before torch.export");
    }
    b.outputs("aten._native_batch_norm_legit_no_training.default",
              {b.arg(0, "input"), b.arg(1, "weight"), b.arg(2, "bias"), b.arg(3, "running_mean"), b.arg(4, "running_var"),
               b.arg(6, "momentum"), b.arg(7, "eps")},
              {}, 2);
}

void layer_norm(Builder& b) {
    b.outputs("aten.native_layer_norm.default",
              {b.arg(0, "input"), b.arg(1, "normalized_shape"), b.arg(2, "weight"), b.arg(3, "bias"), b.arg(4, "eps")}, {}, 2);
}

void dropout(Builder& b) {
    const Argument train = b.arg(2, "train");
    if (train.kind == Kind::Bool && train.bool_value) b.refuse("is a dropout in training mode; export the module in eval mode");
    b.outputs("aten.alias.default", {b.arg(0, "input")});
}

void reshape(Builder& b) { b.outputs("aten.view.default", {b.arg(0, "self"), b.arg(1, "shape")}); }

// narrow(dim, start, length) is slice(dim, start, start + length), as run_decompositions() has it;
// with symbolic arguments (or a negative start on a symbolic dim) it is left as it is.
void narrow(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument dim = b.arg(1, "dim"), start = b.arg(2, "start"), length = b.arg(3, "length");
    if (dim.kind != Kind::Int || start.kind != Kind::Int || length.kind != Kind::Int) b.decline();
    const TensorMeta& meta = b.meta(self);
    const int64_t d = b.dim(dim.int_value, static_cast<int64_t>(meta.rank()));
    int64_t first = start.int_value;
    if (first < 0) {
        if (!meta.sizes.at(static_cast<size_t>(d)).is_static()) b.decline();
        first += *meta.sizes[static_cast<size_t>(d)].value;
    }
    b.outputs("aten.slice.Tensor", {self, int_arg(d), int_arg(first), int_arg(first + length.int_value), int_arg(1)});
}

// concat and concatenate are cat under other names (torch.concat in a transformers model).
void concat(Builder& b) { b.outputs("aten.cat.default", {b.arg(0, "tensors"), b.arg(1, "dim")}); }

void contiguous(Builder& b) { b.outputs("aten.clone.default", {b.arg(0, "self")}, given_keywords(b, {"memory_format"})); }

// to.device(self, device, dtype, ...) has dtype third; to.dtype and to.dtype_layout second.
template <size_t dtype_position>
void to_copy(Builder& b) {
    Keywords keywords;
    const Argument dtype = b.arg(dtype_position, "dtype");
    if (dtype.kind == Kind::ScalarType) keywords.push_back({"dtype", dtype});
    for (auto& kept : given_keywords(b, {"memory_format"})) keywords.push_back(std::move(kept));
    b.outputs("aten._to_copy.default", {b.arg(0, "self")}, std::move(keywords));
}

void type_as(Builder& b) {
    b.outputs("aten._to_copy.default", {b.arg(0, "self")}, {{"dtype", dtype_arg(b.meta(b.arg(1, "other")).dtype)}});
}

// softmax.int with a dtype other than its input's has no core form without a cast: left to
// OpenVINO's verdict and the CPU kernel.
template <bool log>
void softmax(Builder& b) {
    const Argument self = b.arg(0, "self");
    const Argument dtype = b.arg(2, "dtype");
    if (dtype.kind == Kind::ScalarType && dtype.dtype != b.meta(self).dtype) b.decline();
    b.outputs(log ? "aten._log_softmax.default" : "aten._softmax.default", {self, b.arg(1, "dim"), bool_arg(false)});
}

// torch.matmul of two matrices is aten.mm. Other ranks (vectors, batches that broadcast) stay
// aten.matmul: aten.mm is defined on matrices only, and a step that runs on the CPU kernels (a
// call with NaN, a fact that routes the node) would refuse the vector or batch it was given.
// The OpenVINO decoder hands aten.matmul to the frontend's MatMul all the same (decoder.cpp).
void matmul(Builder& b) {
    if (b.rank(b.arg(0, "self")) != 2 || b.rank(b.arg(1, "other")) != 2) b.decline();
    b.outputs("aten.mm.default", {b.arg(0, "self"), b.arg(1, "other")});
}

void adaptive_avg_pool2d(Builder& b) {
    b.outputs("aten._adaptive_avg_pool2d.default", {b.arg(0, "self"), expand_ints(b.arg(1, "output_size"), 2)});
}

void max_pool2d(Builder& b) {
    const Argument kernel = expand_ints(b.arg(1, "kernel_size"), 2);
    Argument stride = b.arg(2, "stride");
    if (stride.kind == Kind::List && stride.items.empty()) stride = kernel;
    b.outputs("aten.max_pool2d_with_indices.default",
              {b.arg(0, "self"), kernel, expand_ints(stride, 2), expand_ints(b.arg(3, "padding"), 2),
               expand_ints(b.arg(4, "dilation"), 2), b.arg(5, "ceil_mode")},
              {}, 1);
}

// flatten is a view to the sizes with dims [start, end] as one; a symbolic size kept as it is
// is read at run time, as torch's own decomposition does.
void flatten(Builder& b) {
    const Argument self = b.arg(0, "self");
    const int64_t rank = b.rank(self);
    if (rank == 0) return b.outputs("aten.view.default", {self, ints_arg({1})});
    const int64_t start = b.dim(b.arg(1, "start_dim").int_value, rank);
    const int64_t end = b.dim(b.arg(2, "end_dim").int_value, rank);
    std::vector<Argument> sizes;
    for (int64_t d = 0; d < rank; ++d) {
        if (d > start && d <= end) continue;
        sizes.push_back(d == start ? int_arg(-1) : b.size(self, d));
    }
    b.outputs("aten.view.default", {self, list_arg(std::move(sizes), Kind::Int)});
}

// floor_divide's core form is div with rounding_mode "floor" (and OpenVINO's own floor_divide
// converter truncates negative integer quotients instead).
void floor_divide(Builder& b) {
    b.outputs("aten.div.Tensor_mode", {b.arg(0, "self"), b.arg(1, "other")}, {{"rounding_mode", string_arg("floor")}});
}

void relu6(Builder& b) { b.outputs("aten.hardtanh.default", {b.arg(0, "self"), float_arg(0.0), float_arg(6.0)}); }

// std.dim spells the correction as a bool; std.correction is the core-ATen form.
void std_dim(Builder& b) {
    const bool unbiased = b.arg(2, "unbiased").bool_value;
    b.outputs("aten.std.correction", {b.arg(0, "self"), b.arg(1, "dim")},
              {{"correction", int_arg(unbiased ? 1 : 0)}, {"keepdim", b.arg(3, "keepdim")}});
}

// where with a number: OpenVINO's where.self converter takes a number as readily as a tensor.
void where_with_number(Builder& b) {
    b.outputs("aten.where.self", {b.arg(0, "condition"), b.arg(1, "self"), b.arg(2, "other")});
}

}  // namespace

PT2OV_DECOMPOSITION("aten.batch_norm.default", batch_norm);
PT2OV_DECOMPOSITION("aten.layer_norm.default", layer_norm);
PT2OV_DECOMPOSITION("aten.dropout.default", dropout);
PT2OV_DECOMPOSITION("aten.feature_dropout.default", dropout);
PT2OV_DECOMPOSITION("aten.reshape.default", reshape);
PT2OV_DECOMPOSITION("aten.narrow.default", narrow);
PT2OV_DECOMPOSITION("aten.contiguous.default", contiguous);
PT2OV_DECOMPOSITION("aten.concat.default", concat);
PT2OV_DECOMPOSITION("aten.concatenate.default", concat);
PT2OV_DECOMPOSITION("aten.to.dtype", to_copy<1>);
PT2OV_DECOMPOSITION("aten.to.dtype_layout", to_copy<1>);
PT2OV_DECOMPOSITION("aten.to.device", to_copy<2>);
PT2OV_DECOMPOSITION("aten.type_as.default", type_as);
PT2OV_DECOMPOSITION("aten.softmax.int", softmax<false>);
PT2OV_DECOMPOSITION("aten.log_softmax.int", softmax<true>);
PT2OV_DECOMPOSITION("aten.matmul.default", matmul);
PT2OV_DECOMPOSITION("aten.adaptive_avg_pool2d.default", adaptive_avg_pool2d);
PT2OV_DECOMPOSITION("aten.max_pool2d.default", max_pool2d);
PT2OV_DECOMPOSITION("aten.flatten.using_ints", flatten);
PT2OV_DECOMPOSITION("aten.floor_divide.default", floor_divide);
PT2OV_DECOMPOSITION("aten.relu6.default", relu6);
PT2OV_DECOMPOSITION("aten.std.dim", std_dim);
PT2OV_DECOMPOSITION("aten.where.ScalarOther", where_with_number);
PT2OV_DECOMPOSITION("aten.where.ScalarSelf", where_with_number);

}  // namespace pt2ov::graph::decompose
