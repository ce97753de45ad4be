// Elementwise ops of the training IR: activations (softplus, selu, log_sigmoid, the shrinks,
// threshold, prelu), other names of core ops (subtract, divide, arccos, ...), and composite
// math (xlogy, sinc, lerp, float_power, logaddexp2, addcdiv, nan_to_num, ...), each as
// torch._refs computes it, with the result dtype torch.export recorded for the node.
#include <cmath>
#include <limits>
#include <numbers>

#include "common/error.h"
#include "graph/decompose/common.h"
#include "graph/schema.h"

namespace pt2ov::graph::decompose {
namespace {

using Kind = Argument::Kind;

DType out_dtype(const Builder& b) { return b.output_meta().dtype; }

Argument compare(Builder& b, const std::string& target, Argument x, Argument y) {
    return elementwise(b, target, {std::move(x), std::move(y)}, DType::Bool);
}

// The same op under its other name: each argument of `target`'s schema is taken by name from the
// node's, trailing ones the node left at their default left out.
Decomposition renamed(std::string target) {
    return [target](Builder& b) {
        const Node& node = b.node();
        const OpSchema* to = find_schema(target);
        if (!to || !node.schema) throw InternalError("renaming " + node.target + " to " + target + ": no schema");
        std::vector<Argument> positional;
        Keywords keywords;
        size_t last_given = 0;
        for (size_t i = 0; i < to->arguments.size(); ++i) {
            const auto& want = to->arguments[i];
            const auto from = node.schema->position_of(want.name);
            if (!from) {
                if (want.required()) throw InternalError("renaming " + node.target + " to " + target + ": no argument " + want.name);
                if (i < to->positional_count) positional.push_back(*want.default_value);
                continue;
            }
            const bool given = node.find_input(want.name) != nullptr || want.required();
            if (i < to->positional_count) {
                positional.push_back(node.arg(*from));
                if (given) last_given = positional.size();
            } else if (given) {
                keywords.push_back({want.name, node.arg(*from)});
            }
        }
        positional.resize(last_given);
        b.output(0, target, std::move(positional), std::move(keywords));
    };
}

void softplus(Builder& b) {
    const Argument x = b.arg(0, "self");
    const double beta = number(b, b.arg(1, "beta")), threshold = number(b, b.arg(2, "threshold"));
    const DType dtype = out_dtype(b);
    const Argument scaled = beta == 1.0 ? x : elementwise(b, "aten.mul.Tensor", {x, float_arg(beta)}, dtype);
    Argument soft = elementwise(b, "aten.log1p.default", {elementwise(b, "aten.exp.default", {scaled}, dtype)}, dtype);
    if (beta != 1.0) soft = elementwise(b, "aten.div.Tensor", {soft, float_arg(beta)}, dtype);
    const Argument large = compare(b, "aten.gt.Scalar", scaled, float_arg(threshold));
    b.output(0, "aten.where.self", {large, x, soft});
}

// mish(x) = x * tanh(softplus(x)), as run_decompositions() writes it (softplus's threshold 20:
// x itself above it). OpenVINO's own Mish flushes its negative tail to zero (openvino_facts
// MishNegativeTailFlushed); these ops compute PyTorch's values.
void mish(Builder& b) {
    const Argument x = b.arg(0, "self");
    const DType dtype = out_dtype(b);
    const Argument soft = elementwise(b, "aten.log1p.default", {elementwise(b, "aten.exp.default", {x}, dtype)}, dtype);
    const Argument large = compare(b, "aten.gt.Scalar", x, int_arg(20));
    const Argument softplus_of_x = elementwise(b, "aten.where.self", {large, x, soft}, dtype);
    b.output(0, "aten.mul.Tensor", {x, elementwise(b, "aten.tanh.default", {softplus_of_x}, dtype)});
}

void selu(Builder& b) {
    b.output(0, "aten.elu.default",
             {b.arg(0, "self"), float_arg(1.6732632423543772848170429916717), float_arg(1.0507009873554804934193349852946), int_arg(1)});
}

// celu(x, alpha) is elu(x, alpha, scale 1, input_scale 1 / alpha), as PyTorch defines it: one
// op whose exp(x) - 1 near zero pt2ov keeps exact (ExpMinusOneCancelsNearZero).
void celu(Builder& b) {
    const Argument alpha = b.arg(1, "alpha");
    double a = 1.0;
    if (alpha.kind == Argument::Kind::Float) a = alpha.float_value;
    else if (alpha.kind == Argument::Kind::Int) a = static_cast<double>(alpha.int_value);
    else if (alpha.kind != Argument::Kind::None) b.decline();
    if (a == 0.0) b.decline();  // PyTorch refuses it; left to the op's own error
    b.output(0, "aten.elu.default", {b.arg(0, "self"), float_arg(a), int_arg(1), float_arg(1.0 / a)});
}

// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|.
void log_sigmoid(Builder& b) {
    const Argument x = b.arg(0, "self");
    const DType dtype = out_dtype(b);
    const Argument zero = scalar_tensor(b, 0.0, dtype);
    const Argument low = elementwise(b, "aten.minimum.default", {x, zero}, dtype);
    const Argument decay = elementwise(b, "aten.exp.default", {elementwise(b, "aten.neg.default", {elementwise(b, "aten.abs.default", {x}, dtype)}, dtype)}, dtype);
    b.output(0, "aten.sub.Tensor", {low, elementwise(b, "aten.log1p.default", {decay}, dtype)});
}

void hardshrink(Builder& b) {
    const Argument x = b.arg(0, "self");
    const double lambd = number(b, b.arg(1, "lambd"));
    const Argument inside = compare(b, "aten.le.Scalar", elementwise(b, "aten.abs.default", {x}, out_dtype(b)), float_arg(lambd));
    b.output(0, "aten.where.self", {inside, float_arg(0.0), x});
}

// x - l above l, x + l below -l, x * 0 between (so NaN stays NaN, as PyTorch's kernel has it).
void softshrink(Builder& b) {
    const Argument x = b.arg(0, "self");
    const double lambd = number(b, b.arg(1, "lambd"));
    const DType dtype = out_dtype(b);
    const Argument above = compare(b, "aten.gt.Scalar", x, float_arg(lambd));
    const Argument below = compare(b, "aten.lt.Scalar", x, float_arg(-lambd));
    const Argument zeroed = elementwise(b, "aten.mul.Tensor", {x, float_arg(0.0)}, dtype);
    const Argument low = elementwise(b, "aten.where.self", {below, elementwise(b, "aten.add.Tensor", {x, float_arg(lambd)}, dtype), zeroed}, dtype);
    b.output(0, "aten.where.self", {above, elementwise(b, "aten.sub.Tensor", {x, float_arg(lambd)}, dtype), low});
}

void threshold(Builder& b) {
    const Argument x = b.arg(0, "self");
    const Argument at_most = compare(b, "aten.le.Scalar", x, b.arg(1, "threshold"));
    b.output(0, "aten.where.self", {at_most, b.arg(2, "value"), x});
}

// prelu: x where x > 0, else weight * x, one weight per channel (dim 1) or one for all.
// As ATen's prelu, a weight of another rank than x is viewed as x's rank with its values along
// dim 1 (all 1s but that dim), so the result has x's shape: a 0-d x takes its one weight as a
// 0-d tensor (broadcasting a [1] weight against it made the result [1], not []).
void prelu(Builder& b) {
    const Argument x = b.arg(0, "self");
    Argument weight = b.arg(1, "weight");
    const auto& wm = b.meta(weight);
    const int64_t rank = b.rank(x);
    if (wm.rank() > 1) b.refuse("prelu needs a 0-d or 1-d weight, got " + std::to_string(wm.rank()) + " dims");
    if (static_cast<int64_t>(wm.rank()) != rank) {
        if (!wm.all_static()) b.refuse("needs a weight of static size");
        const int64_t count = wm.rank() == 0 ? 1 : wm.static_sizes()[0];
        if (count != 1 && rank < 2) b.refuse("a weight of " + std::to_string(count) + " values needs an input with a channel dim (dim 1)");
        std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
        if (rank >= 2) shape[1] = count;
        std::vector<Dim> dims;
        for (int64_t s : shape) dims.push_back(static_dim(s));
        weight = b.op("aten.view.default", {weight, ints_arg(shape)}, contiguous_meta(wm.dtype, dims));
    }
    const DType dtype = out_dtype(b);
    const Argument positive = compare(b, "aten.gt.Scalar", x, int_arg(0));
    b.output(0, "aten.where.self", {positive, x, elementwise(b, "aten.mul.Tensor", {x, weight}, dtype)});
}

void logit(Builder& b) {
    const DType dtype = out_dtype(b);
    Argument x = to_dtype(b, b.arg(0, "self"), dtype);
    const Argument eps = b.arg(1, "eps");
    if (eps.kind != Kind::None) {
        const double e = number(b, eps);
        x = b.op("aten.clamp.default", {x, float_arg(e), float_arg(1.0 - e)}, b.meta(x));
    }
    const Argument rest = elementwise(b, "aten.rsub.Scalar", {x, int_arg(1)}, dtype);
    b.output(0, "aten.log.default", {elementwise(b, "aten.div.Tensor", {x, rest}, dtype)});
}

void scaled_by(Builder& b, double factor) {
    const Argument x = to_dtype(b, b.arg(0, "self"), out_dtype(b));
    b.output(0, "aten.mul.Tensor", {x, float_arg(factor)});
}

double largest(const Builder& b, DType dtype) {
    switch (dtype) {
        case DType::Float16: return 65504.0;
        case DType::BFloat16: return 3.3895313892515355e38;
        case DType::Float32: return std::numeric_limits<float>::max();
        case DType::Float64: return std::numeric_limits<double>::max();
        default: b.refuse("has no largest value for this dtype");
    }
}

void nan_to_num(Builder& b) {
    const Argument x = b.arg(0, "self");
    const DType dtype = b.meta(x).dtype;
    if (!is_floating(dtype)) return b.output(0, "aten.clone.default", {x});
    auto given = [&](size_t position, ArgName name, double fallback) {
        const Argument& a = b.arg(position, name);
        return a.kind == Kind::None ? fallback : number(b, a);
    };
    const double nan = given(1, "nan", 0.0), posinf = given(2, "posinf", largest(b, dtype)),
                 neginf = given(3, "neginf", -largest(b, dtype));
    const double inf = std::numeric_limits<double>::infinity();
    Argument result = elementwise(b, "aten.where.self", {elementwise(b, "aten.isnan.default", {x}, DType::Bool), float_arg(nan), x}, dtype);
    result = elementwise(b, "aten.where.self", {compare(b, "aten.eq.Scalar", x, float_arg(-inf)), float_arg(neginf), result}, dtype);
    b.output(0, "aten.where.self", {compare(b, "aten.eq.Scalar", x, float_arg(inf)), float_arg(posinf), result});
}

void square(Builder& b) { b.output(0, "aten.pow.Tensor_Scalar", {b.arg(0, "self"), int_arg(2)}); }

// x * log(y), 0 where x == 0, NaN where y is NaN (xlog1py: log1p).
void x_log(Builder& b, const char* log) {
    const DType dtype = out_dtype(b);
    const Argument x = to_dtype(b, b.arg(0, "self"), dtype);
    const Argument y = to_dtype(b, b.arg(1, "other"), dtype);
    const Argument product = elementwise(b, "aten.mul.Tensor", {x, elementwise(b, log, {y}, dtype)}, dtype);
    const Argument zeroed = elementwise(b, "aten.where.self", {compare(b, "aten.eq.Scalar", x, int_arg(0)), float_arg(0.0), product}, dtype);
    const Argument nan_y = elementwise(b, "aten.isnan.default", {y}, DType::Bool);
    b.output(0, "aten.where.self", {nan_y, float_arg(std::numeric_limits<double>::quiet_NaN()), zeroed});
}

void sinc(Builder& b) {
    const DType dtype = out_dtype(b);
    const Argument x = elementwise(b, "aten.mul.Tensor", {to_dtype(b, b.arg(0, "self"), dtype), float_arg(std::numbers::pi)}, dtype);
    const Argument ratio = elementwise(b, "aten.div.Tensor", {elementwise(b, "aten.sin.default", {x}, dtype), x}, dtype);
    b.output(0, "aten.where.self", {compare(b, "aten.eq.Scalar", x, int_arg(0)), float_arg(1.0), ratio});
}

// lerp as torch._refs computes it: from the nearer end, for accuracy near weight 0 and 1.
void lerp_scalar(Builder& b) {
    const Argument start = b.arg(0, "self"), end = b.arg(1, "end");
    const double w = number(b, b.arg(2, "weight"));
    const DType dtype = out_dtype(b);
    const Argument span = elementwise(b, "aten.sub.Tensor", {end, start}, dtype);
    const bool from_end = std::abs(w) >= 0.5;
    const Argument scaled = elementwise(b, "aten.mul.Tensor", {span, float_arg(from_end ? w - 1.0 : w)}, dtype);
    b.output(0, "aten.add.Tensor", {scaled, from_end ? end : start});
}

void lerp_tensor(Builder& b) {
    const Argument start = b.arg(0, "self"), end = b.arg(1, "end"), weight = b.arg(2, "weight");
    const DType dtype = out_dtype(b);
    const Argument from_end = compare(b, "aten.ge.Scalar", elementwise(b, "aten.abs.default", {weight}, dtype), float_arg(0.5));
    const Argument coefficient = elementwise(b, "aten.where.self", {from_end, elementwise(b, "aten.sub.Tensor", {weight, int_arg(1)}, dtype), weight}, dtype);
    const Argument base = elementwise(b, "aten.where.self", {from_end, end, start}, dtype);
    const Argument span = elementwise(b, "aten.sub.Tensor", {end, start}, dtype);
    b.output(0, "aten.add.Tensor", {elementwise(b, "aten.mul.Tensor", {coefficient, span}, dtype), base});
}

// float_power computes in float64.
void float_power(Builder& b) {
    const Argument self = b.arg(0, "self"), exponent = b.arg(1, "exponent");
    const DType dtype = out_dtype(b);
    if (self.kind == Kind::Tensor && exponent.kind == Kind::Tensor) {
        return b.output(0, "aten.pow.Tensor_Tensor", {to_dtype(b, self, dtype), to_dtype(b, exponent, dtype)});
    }
    if (self.kind == Kind::Tensor) return b.output(0, "aten.pow.Tensor_Scalar", {to_dtype(b, self, dtype), float_arg(number(b, exponent))});
    b.output(0, "aten.pow.Tensor_Tensor", {scalar_tensor(b, number(b, self), dtype), to_dtype(b, exponent, dtype)});
}

void logaddexp2(Builder& b) {
    const Argument x = b.arg(0, "self"), y = b.arg(1, "other");
    const DType dtype = out_dtype(b);
    const Argument mask = compare(b, "aten.ge.Tensor", x, y);
    const Argument high = elementwise(b, "aten.where.self", {mask, x, y}, dtype);
    const Argument low = elementwise(b, "aten.where.self", {mask, y, x}, dtype);
    const Argument both_inf = elementwise(b, "aten.logical_and.default",
                                          {elementwise(b, "aten.isinf.default", {x}, DType::Bool), compare(b, "aten.eq.Tensor", x, y)}, DType::Bool);
    const Argument tail = elementwise(b, "aten.log1p.default", {elementwise(b, "aten.exp.default", {elementwise(b, "aten.mul.Tensor", {elementwise(b, "aten.sub.Tensor", {low, high}, dtype), float_arg(std::log(2.0))}, dtype)}, dtype)}, dtype);
    const Argument result = elementwise(b, "aten.add.Tensor", {high, elementwise(b, "aten.mul.Tensor", {tail, float_arg(1.0 / std::log(2.0))}, dtype)}, dtype);
    b.output(0, "aten.where.self", {both_inf, x, result});
}

void addcdiv(Builder& b) {
    const DType dtype = out_dtype(b);
    const Argument self = b.arg(0, "self"), t1 = b.arg(1, "tensor1"), t2 = b.arg(2, "tensor2");
    const Argument value = b.arg(3, "value");
    const Argument scaled = elementwise(b, "aten.mul.Tensor", {t1, value}, dtype);
    b.output(0, "aten.add.Tensor", {self, elementwise(b, "aten.div.Tensor", {scaled, t2}, dtype)});
}

void sign_of(Builder& b) { b.output(0, "aten.sign.default", {b.arg(0, "self")}); }

}  // namespace

PT2OV_DECOMPOSITION("aten.softplus.default", softplus);
PT2OV_DECOMPOSITION("aten.selu.default", selu);
PT2OV_DECOMPOSITION("aten.celu.default", celu);
PT2OV_DECOMPOSITION("aten.mish.default", mish);
PT2OV_DECOMPOSITION("aten.log_sigmoid.default", log_sigmoid);
PT2OV_DECOMPOSITION("aten.hardshrink.default", hardshrink);
PT2OV_DECOMPOSITION("aten.softshrink.default", softshrink);
PT2OV_DECOMPOSITION("aten.threshold.default", threshold);
PT2OV_DECOMPOSITION("aten.prelu.default", prelu);
PT2OV_DECOMPOSITION("aten.logit.default", logit);
PT2OV_DECOMPOSITION("aten.special_logit.default", logit);
PT2OV_DECOMPOSITION("aten.deg2rad.default", [](Builder& b) { scaled_by(b, std::numbers::pi / 180.0); });
PT2OV_DECOMPOSITION("aten.rad2deg.default", [](Builder& b) { scaled_by(b, 180.0 / std::numbers::pi); });
PT2OV_DECOMPOSITION("aten.nan_to_num.default", nan_to_num);
PT2OV_DECOMPOSITION("aten.square.default", square);
PT2OV_DECOMPOSITION("aten.xlogy.Tensor", [](Builder& b) { x_log(b, "aten.log.default"); });
PT2OV_DECOMPOSITION("aten.special_xlogy.default", [](Builder& b) { x_log(b, "aten.log.default"); });
PT2OV_DECOMPOSITION("aten.special_xlog1py.default", [](Builder& b) { x_log(b, "aten.log1p.default"); });
PT2OV_DECOMPOSITION("aten.sinc.default", sinc);
PT2OV_DECOMPOSITION("aten.special_sinc.default", sinc);
PT2OV_DECOMPOSITION("aten.sgn.default", sign_of);
PT2OV_DECOMPOSITION("aten.lerp.Scalar", lerp_scalar);
PT2OV_DECOMPOSITION("aten.lerp.Tensor", lerp_tensor);
PT2OV_DECOMPOSITION("aten.float_power.Tensor_Tensor", float_power);
PT2OV_DECOMPOSITION("aten.float_power.Tensor_Scalar", float_power);
PT2OV_DECOMPOSITION("aten.float_power.Scalar", float_power);
PT2OV_DECOMPOSITION("aten.logaddexp2.default", logaddexp2);
PT2OV_DECOMPOSITION("aten.addcdiv.default", addcdiv);

// Other names of core-ATen ops.
PT2OV_DECOMPOSITION("aten.subtract.Tensor", renamed("aten.sub.Tensor"));
PT2OV_DECOMPOSITION("aten.subtract.Scalar", renamed("aten.sub.Tensor"));
PT2OV_DECOMPOSITION("aten.multiply.Tensor", renamed("aten.mul.Tensor"));
PT2OV_DECOMPOSITION("aten.multiply.Scalar", renamed("aten.mul.Tensor"));
PT2OV_DECOMPOSITION("aten.divide.Tensor", renamed("aten.div.Tensor"));
PT2OV_DECOMPOSITION("aten.divide.Scalar", renamed("aten.div.Tensor"));
PT2OV_DECOMPOSITION("aten.divide.Tensor_mode", renamed("aten.div.Tensor_mode"));
PT2OV_DECOMPOSITION("aten.true_divide.Tensor", renamed("aten.div.Tensor"));
PT2OV_DECOMPOSITION("aten.true_divide.Scalar", renamed("aten.div.Tensor"));
PT2OV_DECOMPOSITION("aten.negative.default", renamed("aten.neg.default"));
PT2OV_DECOMPOSITION("aten.absolute.default", renamed("aten.abs.default"));
PT2OV_DECOMPOSITION("aten.fix.default", renamed("aten.trunc.default"));
PT2OV_DECOMPOSITION("aten.arccos.default", renamed("aten.acos.default"));
PT2OV_DECOMPOSITION("aten.arcsin.default", renamed("aten.asin.default"));
PT2OV_DECOMPOSITION("aten.arctan.default", renamed("aten.atan.default"));
PT2OV_DECOMPOSITION("aten.arccosh.default", renamed("aten.acosh.default"));
PT2OV_DECOMPOSITION("aten.arcsinh.default", renamed("aten.asinh.default"));
PT2OV_DECOMPOSITION("aten.arctanh.default", renamed("aten.atanh.default"));
PT2OV_DECOMPOSITION("aten.arctan2.default", renamed("aten.atan2.default"));
PT2OV_DECOMPOSITION("aten.clip.default", renamed("aten.clamp.default"));
PT2OV_DECOMPOSITION("aten.clip.Tensor", renamed("aten.clamp.Tensor"));
PT2OV_DECOMPOSITION("aten.greater.Tensor", renamed("aten.gt.Tensor"));
PT2OV_DECOMPOSITION("aten.greater.Scalar", renamed("aten.gt.Scalar"));
PT2OV_DECOMPOSITION("aten.greater_equal.Tensor", renamed("aten.ge.Tensor"));
PT2OV_DECOMPOSITION("aten.greater_equal.Scalar", renamed("aten.ge.Scalar"));
PT2OV_DECOMPOSITION("aten.less.Tensor", renamed("aten.lt.Tensor"));
PT2OV_DECOMPOSITION("aten.less.Scalar", renamed("aten.lt.Scalar"));
PT2OV_DECOMPOSITION("aten.less_equal.Tensor", renamed("aten.le.Tensor"));
PT2OV_DECOMPOSITION("aten.less_equal.Scalar", renamed("aten.le.Scalar"));
PT2OV_DECOMPOSITION("aten.not_equal.Tensor", renamed("aten.ne.Tensor"));
PT2OV_DECOMPOSITION("aten.not_equal.Scalar", renamed("aten.ne.Scalar"));
PT2OV_DECOMPOSITION("aten.max.other", renamed("aten.maximum.default"));
PT2OV_DECOMPOSITION("aten.min.other", renamed("aten.minimum.default"));
PT2OV_DECOMPOSITION("aten.special_expit.default", renamed("aten.sigmoid.default"));
PT2OV_DECOMPOSITION("aten.special_exp2.default", renamed("aten.exp2.default"));
PT2OV_DECOMPOSITION("aten.special_expm1.default", renamed("aten.expm1.default"));
PT2OV_DECOMPOSITION("aten.special_log1p.default", renamed("aten.log1p.default"));
PT2OV_DECOMPOSITION("aten.special_erf.default", renamed("aten.erf.default"));
PT2OV_DECOMPOSITION("aten.special_erfc.default", renamed("aten.erfc.default"));
PT2OV_DECOMPOSITION("aten.special_erfinv.default", renamed("aten.erfinv.default"));
PT2OV_DECOMPOSITION("aten.special_round.default", renamed("aten.round.decimals"));
PT2OV_DECOMPOSITION("aten.special_psi.default", renamed("aten.digamma.default"));
PT2OV_DECOMPOSITION("aten.special_digamma.default", renamed("aten.digamma.default"));
PT2OV_DECOMPOSITION("aten.special_gammaln.default", renamed("aten.lgamma.default"));
PT2OV_DECOMPOSITION("aten.special_i0.default", renamed("aten.i0.default"));

}  // namespace pt2ov::graph::decompose
