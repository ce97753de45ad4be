// Loss functions of the training IR, each the elementwise loss of torch._refs.nn.functional (or
// ATen's composite) followed by its reduction: 0 none, 1 mean, 2 sum.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "graph/decompose/common.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;

DType out_dtype(const Builder& b) { return b.output_meta().dtype; }

Argument ew(Builder& b, const std::string& target, std::vector<Argument> operands) {
    return elementwise(b, target, std::move(operands), out_dtype(b));
}

Argument boolean(Builder& b, const std::string& target, std::vector<Argument> operands) {
    return elementwise(b, target, std::move(operands), DType::Bool);
}

void reduce(Builder& b, const Argument& loss, int64_t reduction) {
    if (reduction == 0) return b.output_is(0, loss);
    if (reduction == 1) return b.output(0, "aten.mean.default", {loss});
    if (reduction == 2) return b.output(0, "aten.sum.default", {loss});
    b.refuse("has reduction " + std::to_string(reduction) + " (0 none, 1 mean, 2 sum)");
}

int64_t reduction_at(const Builder& b, size_t position) { return b.arg(position, "reduction").int_value; }

Argument difference(Builder& b) { return ew(b, "aten.sub.Tensor", {b.arg(0, "self"), b.arg(1, "target")}); }

void mse_loss(Builder& b) { reduce(b, ew(b, "aten.pow.Tensor_Scalar", {difference(b), int_arg(2)}), reduction_at(b, 2)); }
void l1_loss(Builder& b) { reduce(b, ew(b, "aten.abs.default", {difference(b)}), reduction_at(b, 2)); }

// |d| < beta: 0.5 d² / beta; else |d| - 0.5 beta (huber: 0.5 d²; else delta (|d| - 0.5 delta)).
void smooth_l1_loss(Builder& b, bool huber) {
    const double beta = b.arg(3, huber ? ArgName("delta") : ArgName("beta")).float_value;
    const Argument z = ew(b, "aten.abs.default", {difference(b)});
    if (!huber && beta == 0.0) return reduce(b, z, reduction_at(b, 2));
    const Argument square = ew(b, "aten.mul.Tensor", {ew(b, "aten.mul.Tensor", {z, z}), float_arg(huber ? 0.5 : 0.5 / beta)});
    Argument linear = ew(b, "aten.sub.Tensor", {z, float_arg(0.5 * beta)});
    if (huber) linear = ew(b, "aten.mul.Tensor", {linear, float_arg(beta)});
    const Argument small = boolean(b, "aten.lt.Scalar", {z, float_arg(beta)});
    reduce(b, ew(b, "aten.where.self", {small, square, linear}), reduction_at(b, 2));
}

// kl_div: target * (log target - input), with 0 where target is 0 (xlogy), or from log targets.
void kl_div(Builder& b) {
    const Argument input = b.arg(0, "self"), target = b.arg(1, "target");
    const bool log_target = b.arg(3, "log_target").bool_value;
    Argument loss;
    if (log_target) {
        loss = ew(b, "aten.mul.Tensor", {ew(b, "aten.exp.default", {target}), ew(b, "aten.sub.Tensor", {target, input})});
    } else {
        const Argument entropy = b.op("aten.xlogy.Tensor", {target, target}, contiguous_like(b.meta(target)));
        loss = ew(b, "aten.sub.Tensor", {entropy, ew(b, "aten.mul.Tensor", {target, input})});
    }
    reduce(b, loss, reduction_at(b, 2));
}

void soft_margin_loss(Builder& b) {
    const Argument product = ew(b, "aten.mul.Tensor", {ew(b, "aten.neg.default", {b.arg(1, "target")}), b.arg(0, "self")});
    reduce(b, ew(b, "aten.log1p.default", {ew(b, "aten.exp.default", {product})}), reduction_at(b, 2));
}

Argument clamp_at_zero(Builder& b, const Argument& x) { return ew(b, "aten.clamp_min.default", {x, int_arg(0)}); }

void margin_ranking_loss(Builder& b) {
    const Argument gap = ew(b, "aten.sub.Tensor", {b.arg(0, "input1"), b.arg(1, "input2")});
    const Argument scaled = ew(b, "aten.mul.Tensor", {ew(b, "aten.neg.default", {b.arg(2, "target")}), gap});
    reduce(b, clamp_at_zero(b, ew(b, "aten.add.Tensor", {scaled, b.arg(3, "margin")})), reduction_at(b, 4));
}

void hinge_embedding_loss(Builder& b) {
    const Argument x = b.arg(0, "self"), target = b.arg(1, "target");
    const Argument margin = b.arg(2, "margin");
    const Argument clamped = clamp_at_zero(b, ew(b, "aten.rsub.Scalar", {x, margin}));
    const Argument from_margin = ew(b, "aten.where.self", {boolean(b, "aten.ne.Scalar", {target, int_arg(1)}), clamped, float_arg(0.0)});
    const Argument from_self = ew(b, "aten.where.self", {boolean(b, "aten.ne.Scalar", {target, int_arg(-1)}), x, float_arg(0.0)});
    reduce(b, ew(b, "aten.add.Tensor", {from_margin, from_self}), reduction_at(b, 3));
}

void cosine_embedding_loss(Builder& b) {
    const Argument x1 = b.arg(0, "input1"), x2 = b.arg(1, "input2"), target = b.arg(2, "target");
    const int64_t dim = b.rank(x1) - 1;
    const DType dtype = out_dtype(b);
    auto summed = [&](const Argument& u, const Argument& v) {
        const Argument product = ew(b, "aten.mul.Tensor", {u, v});
        return b.op("aten.sum.dim_IntList", {product, ints_arg({dim})}, reduced_meta(b.meta(product), {dim}, false, dtype));
    };
    const double epsilon = 1e-12;
    const Argument dot = summed(x1, x2);
    const Argument m1 = ew(b, "aten.add.Tensor", {summed(x1, x1), float_arg(epsilon)});
    const Argument m2 = ew(b, "aten.add.Tensor", {summed(x2, x2), float_arg(epsilon)});
    const Argument cosine = ew(b, "aten.div.Tensor", {dot, ew(b, "aten.sqrt.default", {ew(b, "aten.mul.Tensor", {m1, m2})})});
    const Argument positive = ew(b, "aten.rsub.Scalar", {cosine, int_arg(1)});
    const Argument negative = clamp_at_zero(b, ew(b, "aten.sub.Tensor", {cosine, b.arg(3, "margin")}));
    const Argument from_positive = ew(b, "aten.where.self", {boolean(b, "aten.eq.Scalar", {target, int_arg(1)}), positive, float_arg(0.0)});
    const Argument from_negative = ew(b, "aten.where.self", {boolean(b, "aten.eq.Scalar", {target, int_arg(-1)}), negative, float_arg(0.0)});
    reduce(b, ew(b, "aten.add.Tensor", {from_positive, from_negative}), reduction_at(b, 4));
}

void poisson_nll_loss(Builder& b) {
    const Argument input = b.arg(0, "input"), target = b.arg(1, "target");
    const bool log_input = b.arg(2, "log_input").bool_value, full = b.arg(3, "full").bool_value;
    Argument loss;
    if (log_input) {
        loss = ew(b, "aten.sub.Tensor", {ew(b, "aten.exp.default", {input}), ew(b, "aten.mul.Tensor", {target, input})});
    } else {
        const Argument logged = ew(b, "aten.log.default", {ew(b, "aten.add.Tensor", {input, b.arg(4, "eps")})});
        loss = ew(b, "aten.sub.Tensor", {input, ew(b, "aten.mul.Tensor", {target, logged})});
    }
    if (full) {
        // Stirling's term, where target > 1: t log t - t + 0.5 log(2 pi t)
        const Argument tlogt = ew(b, "aten.mul.Tensor", {target, ew(b, "aten.log.default", {target})});
        const Argument half_log = ew(b, "aten.mul.Tensor", {ew(b, "aten.log.default", {ew(b, "aten.mul.Tensor", {target, float_arg(2.0 * std::numbers::pi)})}), float_arg(0.5)});
        const Argument stirling = ew(b, "aten.add.Tensor", {ew(b, "aten.sub.Tensor", {tlogt, target}), half_log});
        const Argument kept = ew(b, "aten.where.self", {boolean(b, "aten.gt.Scalar", {target, int_arg(1)}), stirling, float_arg(0.0)});
        loss = ew(b, "aten.add.Tensor", {loss, kept});
    }
    reduce(b, loss, reduction_at(b, 5));
}

Argument weighted(Builder& b, Argument loss, const Argument& weight) {
    return weight.kind == Kind::Tensor ? ew(b, "aten.mul.Tensor", {loss, weight}) : loss;
}

// (t - 1) max(log(1 - x), -100) - t max(log x, -100), as ATen clamps the logs.
void binary_cross_entropy(Builder& b) {
    const Argument x = b.arg(0, "self"), t = b.arg(1, "target");
    const Argument floor = scalar_tensor(b, -100.0, out_dtype(b));
    const Argument log_rest = ew(b, "aten.maximum.default", {ew(b, "aten.log1p.default", {ew(b, "aten.neg.default", {x})}), floor});
    const Argument log_x = ew(b, "aten.maximum.default", {ew(b, "aten.log.default", {x}), floor});
    const Argument loss = ew(b, "aten.sub.Tensor", {ew(b, "aten.mul.Tensor", {ew(b, "aten.sub.Tensor", {t, int_arg(1)}), log_rest}),
                                                     ew(b, "aten.mul.Tensor", {t, log_x})});
    reduce(b, weighted(b, loss, b.arg(2, "weight")), reduction_at(b, 3));
}

// (1 - t) x - w log(sigmoid(x)), w = (pos_weight - 1) t + 1.
void binary_cross_entropy_with_logits(Builder& b) {
    const Argument x = b.arg(0, "self"), t = b.arg(1, "target");
    const Argument pos_weight = b.arg(3, "pos_weight");
    const Argument zero = scalar_tensor(b, 0.0, out_dtype(b));
    const Argument log_sigmoid = ew(b, "aten.sub.Tensor", {ew(b, "aten.minimum.default", {x, zero}),
                                                           ew(b, "aten.log1p.default", {ew(b, "aten.exp.default", {ew(b, "aten.neg.default", {ew(b, "aten.abs.default", {x})})})})});
    Argument scaled = log_sigmoid;
    if (pos_weight.kind == Kind::Tensor) {
        const Argument w = ew(b, "aten.add.Tensor", {ew(b, "aten.mul.Tensor", {ew(b, "aten.sub.Tensor", {pos_weight, int_arg(1)}), t}), int_arg(1)});
        scaled = ew(b, "aten.mul.Tensor", {w, log_sigmoid});
    }
    const Argument loss = ew(b, "aten.sub.Tensor", {ew(b, "aten.mul.Tensor", {ew(b, "aten.rsub.Scalar", {t, int_arg(1)}), x}), scaled});
    reduce(b, weighted(b, loss, b.arg(2, "weight")), reduction_at(b, 4));
}

// nll_loss over class indices along dim 1 (dim 0 for an input of one sample): -input[target]
// times the class weight, 0 where target is ignore_index; mean divides by the weights counted.
void nll_loss_of(Builder& b, Argument logp, Argument target, const Argument& weight, int64_t reduction, const Argument& ignore_index) {
    const DType dtype = out_dtype(b);
    if (b.rank(logp) == 1) {
        logp = unsqueeze(b, logp, 0);
        target = unsqueeze(b, target, 0);
    }
    if (ignore_index.kind != Kind::Int) b.refuse("has a symbolic ignore_index");
    const Argument kept = boolean(b, "aten.ne.Scalar", {target, ignore_index});
    const Argument safe = elementwise(b, "aten.where.self", {kept, target, int_arg(0)}, b.meta(target).dtype);
    const Argument index = unsqueeze(b, safe, 1);
    const Argument picked = b.op("aten.gather.default", {logp, int_arg(1), index}, contiguous_meta(dtype, b.meta(index).sizes));
    const Argument value = squeeze_dim(b, picked, 1);
    Argument w = to_dtype(b, kept, dtype);
    if (weight.kind == Kind::Tensor) {
        const Argument class_weight = b.op("aten.index_select.default", {weight, int_arg(0), b.op("aten.view.default", {safe, ints_arg({-1})}, contiguous_meta(b.meta(safe).dtype, {Dim{}}))},
                                           contiguous_meta(dtype, {Dim{}}));
        const Argument shaped = b.op("aten.view.default", {class_weight, b.sizes(safe)}, contiguous_meta(dtype, b.meta(safe).sizes));
        w = ew(b, "aten.mul.Tensor", {w, shaped});
    }
    const Argument loss = ew(b, "aten.neg.default", {ew(b, "aten.mul.Tensor", {value, w})});
    if (reduction == 0) return b.output_is(0, loss);
    if (reduction == 2) return b.output(0, "aten.sum.default", {loss});
    if (reduction != 1) b.refuse("has reduction " + std::to_string(reduction));
    const Argument total = b.op("aten.sum.default", {loss}, contiguous_meta(dtype, {}));
    const Argument count = b.op("aten.sum.default", {w}, contiguous_meta(dtype, {}));
    b.output(0, "aten.div.Tensor", {total, count});
}

void nll_loss(Builder& b) {
    nll_loss_of(b, b.arg(0, "self"), b.arg(1, "target"), b.arg(2, "weight"), reduction_at(b, 3), b.arg(4, "ignore_index"));
}

void cross_entropy_loss(Builder& b) {
    const Argument input = b.arg(0, "self"), target = b.arg(1, "target");
    if (b.arg(5, "label_smoothing").float_value != 0.0) b.refuse("uses label smoothing");
    const int64_t class_dim = b.rank(input) == 1 ? 0 : 1;
    const Argument logp = b.op("aten._log_softmax.default", {input, int_arg(class_dim), bool_arg(false)}, contiguous_like(b.meta(input)));
    if (is_floating(b.meta(target).dtype)) {
        // class probabilities: -sum(target * log p) over classes, mean over the rest
        if (b.arg(2, "weight").kind == Kind::Tensor) b.refuse("weights class probabilities");
        const Argument product = ew(b, "aten.mul.Tensor", {logp, target});
        const Argument per_sample = ew(b, "aten.neg.default", {b.op("aten.sum.dim_IntList", {product, ints_arg({class_dim})},
                                                                      reduced_meta(b.meta(product), {class_dim}, false, out_dtype(b)))});
        return reduce(b, per_sample, reduction_at(b, 3));
    }
    nll_loss_of(b, logp, target, b.arg(2, "weight"), reduction_at(b, 3), b.arg(4, "ignore_index"));
}

void triplet_margin_loss(Builder& b) {
    const Argument anchor = b.arg(0, "anchor"), positive = b.arg(1, "positive"), negative = b.arg(2, "negative");
    const Argument p = b.arg(4, "p"), eps = b.arg(5, "eps");
    auto distance = [&](const Argument& x, const Argument& y) {
        return b.op("aten.pairwise_distance.default", {x, y, p, eps, bool_arg(false)},
                    reduced_meta(b.meta(x), {std::max<int64_t>(b.rank(x) - 1, 0)}, false, out_dtype(b)));
    };
    const Argument to_positive = distance(anchor, positive);
    Argument to_negative = distance(anchor, negative);
    if (b.arg(6, "swap").bool_value) to_negative = ew(b, "aten.minimum.default", {to_negative, distance(positive, negative)});
    const Argument gap = ew(b, "aten.add.Tensor", {ew(b, "aten.sub.Tensor", {to_positive, to_negative}), b.arg(3, "margin")});
    reduce(b, clamp_at_zero(b, gap), reduction_at(b, 7));
}

}  // namespace

PT2OV_DECOMPOSITION("aten.mse_loss.default", mse_loss);
PT2OV_DECOMPOSITION("aten.l1_loss.default", l1_loss);
PT2OV_DECOMPOSITION("aten.smooth_l1_loss.default", [](Builder& b) { smooth_l1_loss(b, false); });
PT2OV_DECOMPOSITION("aten.huber_loss.default", [](Builder& b) { smooth_l1_loss(b, true); });
PT2OV_DECOMPOSITION("aten.kl_div.default", kl_div);
PT2OV_DECOMPOSITION("aten.soft_margin_loss.default", soft_margin_loss);
PT2OV_DECOMPOSITION("aten.margin_ranking_loss.default", margin_ranking_loss);
PT2OV_DECOMPOSITION("aten.hinge_embedding_loss.default", hinge_embedding_loss);
PT2OV_DECOMPOSITION("aten.cosine_embedding_loss.default", cosine_embedding_loss);
PT2OV_DECOMPOSITION("aten.poisson_nll_loss.default", poisson_nll_loss);
PT2OV_DECOMPOSITION("aten.binary_cross_entropy.default", binary_cross_entropy);
PT2OV_DECOMPOSITION("aten.binary_cross_entropy_with_logits.default", binary_cross_entropy_with_logits);
PT2OV_DECOMPOSITION("aten.nll_loss.default", nll_loss);
PT2OV_DECOMPOSITION("aten.nll_loss_nd.default", nll_loss);
PT2OV_DECOMPOSITION("aten.cross_entropy_loss.default", cross_entropy_loss);
PT2OV_DECOMPOSITION("aten.triplet_margin_loss.default", triplet_margin_loss);

}  // namespace pt2ov::graph::decompose
