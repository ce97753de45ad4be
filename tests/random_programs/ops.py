"""The op table of our own generator: torch ops pt2ov claims (src/graph/op_schemas.inc, the
`PT2OV_KERNEL(` registrations in src/kernels/), each with how to draw its arguments and how to
call it.

An op is `Op(name, kinds, make, fn)`:
- `kinds`: the dtypes its first operand may have ("f" float32, "i" int32/int64, "b" bool).
- `make(r, g, x)`: given a `random.Random`, the generator context `g` (`own_gen.Gen`) and the
  reference `x` of the first operand, returns `(args, attrs)`: the references of every tensor
  operand (x first) and a dict of plain Python attributes; or None when the op does not fit x.
  Operands other than x are existing values or new leaves (inputs, parameters, buffers) that
  `g` makes. Domain limits (log of a positive value, ...) are checked on x's actual values:
  the values a program is generated with are the values it is run with.
- `fn(a, *tensors)`: the op in PyTorch, `a` the attributes (plus `a["_f"]`, the float dtype of
  the run: float32, or float64 for the conditioning screen).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

import torch
import torch.nn.functional as F


@dataclasses.dataclass(frozen=True)
class Op:
    name: str
    kinds: str
    make: Callable
    fn: Callable


OPS: dict[str, Op] = {}


def reg(name: str, kinds: str, make: Callable, fn: Callable) -> None:
    assert name not in OPS, name
    OPS[name] = Op(name, kinds, make, fn)


def kind_of(t: torch.Tensor) -> str:
    if t.dtype.is_floating_point:
        return "f"
    if t.dtype == torch.bool:
        return "b"
    return "i"


def _just(r, g, x):
    return [x], {}


# --- elementwise unary ------------------------------------------------------------------------
def _domain(pred):
    def make(r, g, x):
        v = g.val(x)
        if v.numel() == 0 or not bool(torch.as_tensor(pred(v.double())).all()):
            return None
        return [x], {}
    return make


_any = _domain(lambda v: torch.isfinite(v))
_pos = _domain(lambda v: v > 0.05)
_nonneg = _domain(lambda v: v >= 0)
_unit = _domain(lambda v: v.abs() < 0.95)
_gt1 = _domain(lambda v: v > 1.05)
_small = _domain(lambda v: v.abs() < 8)
_away0 = _domain(lambda v: v.abs() > 0.1)
_logit = _domain(lambda v: (v > 0.02) & (v < 0.98))
_not_half = _domain(lambda v: ((v - v.floor()) - 0.5).abs() > 1e-3)  # round: no ties
_not_int = _domain(lambda v: (v - v.round()).abs() > 1e-4)  # floor/ceil/trunc/frac: no edges

UNARY = {
    "abs": (torch.abs, _any), "neg": (torch.neg, _any), "exp": (torch.exp, _small),
    "expm1": (torch.expm1, _small), "exp2": (torch.exp2, _small), "log": (torch.log, _pos),
    "log1p": (torch.log1p, _domain(lambda v: v > -0.95)), "log2": (torch.log2, _pos),
    "log10": (torch.log10, _pos), "sqrt": (torch.sqrt, _nonneg), "rsqrt": (torch.rsqrt, _pos),
    "sin": (torch.sin, _any), "cos": (torch.cos, _any),
    "tan": (torch.tan, _domain(lambda v: v.abs() < 1.3)), "tanh": (torch.tanh, _any),
    "sigmoid": (torch.sigmoid, _any), "asin": (torch.asin, _unit), "acos": (torch.acos, _unit),
    "atan": (torch.atan, _any), "sinh": (torch.sinh, _small), "cosh": (torch.cosh, _small),
    "asinh": (torch.asinh, _any), "acosh": (torch.acosh, _gt1), "atanh": (torch.atanh, _unit),
    "erf": (torch.erf, _any), "erfc": (torch.erfc, _small), "erfinv": (torch.erfinv, _unit),
    "floor": (torch.floor, _not_int), "ceil": (torch.ceil, _not_int),
    "round": (torch.round, _not_half), "trunc": (torch.trunc, _not_int),
    "frac": (torch.frac, _not_int), "sign": (torch.sign, _any), "sgn": (torch.sgn, _any),
    "reciprocal": (torch.reciprocal, _away0), "square": (torch.square, _any),
    "relu": (torch.relu, _any), "relu6": (F.relu6, _any), "gelu": (F.gelu, _any),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), _any), "silu": (F.silu, _any),
    "mish": (F.mish, _any), "elu": (F.elu, _any), "selu": (F.selu, _any),
    "celu": (lambda x: F.celu(x, alpha=0.7), _any), "softplus": (F.softplus, _any),
    "softplus_beta": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), _any),
    "hardswish": (F.hardswish, _any), "hardsigmoid": (F.hardsigmoid, _any),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.7), _any),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.13), _any), "logsigmoid": (F.logsigmoid, _any),
    "softsign": (F.softsign, _any), "tanhshrink": (F.tanhshrink, _any),
    "hardshrink": (lambda x: F.hardshrink(x, 0.3), _any),
    "softshrink": (lambda x: F.softshrink(x, 0.3), _any),
    "logit": (torch.logit, _logit), "logit_eps": (lambda x: torch.logit(x, eps=0.05), _any),
    "acosh_shift": (lambda x: torch.acosh(x.abs() + 1.1), _any),
    "log_abs": (lambda x: torch.log(x.abs() + 0.5), _any),
    "sqrt_abs": (lambda x: torch.sqrt(x.abs()), _any), "digamma": (torch.digamma, _domain(lambda v: v > 0.2)),
    "lgamma": (torch.lgamma, _domain(lambda v: v > 0.2)), "i0": (torch.i0, _small),
    "sinc": (torch.sinc, _any), "deg2rad": (torch.deg2rad, _any),
    "rad2deg": (torch.rad2deg, _any), "nan_to_num": (torch.nan_to_num, _any),
    "positive": (torch.positive, _any), "signbit": (torch.signbit, _any),
    "isnan": (torch.isnan, _any), "isinf": (torch.isinf, _any),
    "isfinite": (torch.isfinite, _any), "logical_not_f": (torch.logical_not, _any),
    "pow_2": (lambda x: x ** 2, _any), "pow_3": (lambda x: torch.pow(x, 3), _small),
    "pow_half": (lambda x: torch.pow(x, 0.5), _nonneg),
    "clamp": (lambda x: torch.clamp(x, -0.4, 0.6), _any),
    "clamp_min": (lambda x: torch.clamp_min(x, 0.1), _any),
    "clamp_max": (lambda x: torch.clamp(x, max=0.2), _any),
    "special_ndtr": (torch.special.ndtr, _any), "special_erfcx": (torch.special.erfcx, _small),
    "zeros_like": (torch.zeros_like, _any), "ones_like": (torch.ones_like, _any),
    "full_like": (lambda x: torch.full_like(x, 1.5), _any),
    "clone": (torch.clone, _any), "detach": (torch.detach, _any),
}
for _n, (_f, _m) in UNARY.items():
    reg(_n, "f", _m, (lambda f: lambda a, x: f(x))(_f))

INT_UNARY = {
    "abs_int": torch.abs, "neg_int": torch.neg, "sign_int": torch.sign,
    "bitwise_not": torch.bitwise_not, "square_int": lambda x: x * x,
    "clamp_int": lambda x: torch.clamp(x, -2, 3), "logical_not_i": torch.logical_not,
}
for _n, _f in INT_UNARY.items():
    reg(_n, "i", _just, (lambda f: lambda a, x: f(x))(_f))
reg("bitwise_not_bool", "b", _just, lambda a, x: torch.bitwise_not(x))
reg("logical_not", "b", _just, lambda a, x: torch.logical_not(x))


# --- elementwise binary -----------------------------------------------------------------------
def _binary(dtype_of_other=None, other_pred=None, self_pred=None):
    """x (op) y with y an existing value or a new leaf of a broadcastable shape."""
    def make(r, g, x):
        v = g.val(x)
        if self_pred is not None and (v.numel() == 0 or not bool(self_pred(v.double()).all())):
            return None
        dt = dtype_of_other or v.dtype
        y = g.partner(x, dt, other_pred)
        if y is None:
            return None
        args = [x, y]
        if r.random() < 0.2:  # sometimes the broadcast the other way round
            args = [y, x]
            w = g.val(y)
            if self_pred is not None and not bool(self_pred(w.double()).all()):
                return None
            if other_pred is not None and not bool(other_pred(v.double()).all()):
                return None
        return args, {}
    return make


_nz = lambda v: v.abs() > 0.2  # noqa: E731
_posv = lambda v: v > 0.2  # noqa: E731

FLOAT_BINARY = {
    "add": (torch.add, None, None), "sub": (torch.sub, None, None),
    "mul": (torch.mul, None, None), "div": (torch.div, _nz, None),
    "add_alpha": (lambda x, y: torch.add(x, y, alpha=0.5), None, None),
    "sub_alpha": (lambda x, y: torch.sub(x, y, alpha=2), None, None),
    "rsub": (lambda x, y: torch.rsub(x, y), None, None),
    "maximum": (torch.maximum, None, None), "minimum": (torch.minimum, None, None),
    "fmax": (torch.fmax, None, None), "fmin": (torch.fmin, None, None),
    "atan2": (torch.atan2, _nz, None), "hypot": (torch.hypot, None, None),
    "copysign": (torch.copysign, _nz, None), "pow_tt": (torch.pow, lambda v: v.abs() < 3, _posv),
    "xlogy": (torch.xlogy, _posv, None), "logaddexp": (torch.logaddexp, None, None),
    "logaddexp2": (torch.logaddexp2, None, None),
    "eq": (torch.eq, None, None), "ne": (torch.ne, None, None), "lt": (torch.lt, None, None),
    "le": (torch.le, None, None), "gt": (torch.gt, None, None), "ge": (torch.ge, None, None),
    "lerp_s": (lambda x, y: torch.lerp(x, y, 0.3), None, None),
    "squared_diff": (lambda x, y: (x - y) ** 2, None, None),
    "fmod": (torch.fmod, _nz, None), "remainder": (torch.remainder, _nz, None),
    "div_floor": (lambda x, y: torch.div(x, y, rounding_mode="floor"), _nz, None),
    "div_trunc": (lambda x, y: torch.div(x, y, rounding_mode="trunc"), _nz, None),
}
for _n, (_f, _op, _sp) in FLOAT_BINARY.items():
    reg(_n, "f", _binary(None, _op, _sp), (lambda f: lambda a, x, y: f(x, y))(_f))

INT_BINARY = {
    "add_int": torch.add, "sub_int": torch.sub, "mul_int": torch.mul,
    "maximum_int": torch.maximum, "minimum_int": torch.minimum,
    "bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor, "eq_int": torch.eq, "lt_int": torch.lt,
    "ge_int": torch.ge, "ne_int": torch.ne,
}
for _n, _f in INT_BINARY.items():
    reg(_n, "i", _binary(), (lambda f: lambda a, x, y: f(x, y))(_f))
for _n, _f in {"floor_divide_int": torch.floor_divide, "remainder_int": torch.remainder,
               "fmod_int": torch.fmod,
               "div_trunc_int": lambda x, y: torch.div(x, y, rounding_mode="trunc"),
               "true_div_int": torch.true_divide}.items():
    reg(_n, "i", _binary(None, lambda v: v != 0), (lambda f: lambda a, x, y: f(x, y))(_f))
for _n, _f in {"logical_and": torch.logical_and, "logical_or": torch.logical_or,
               "logical_xor": torch.logical_xor, "bitwise_and_bool": torch.bitwise_and,
               "bitwise_or_bool": torch.bitwise_or, "eq_bool": torch.eq,
               "bitwise_xor_bool": torch.bitwise_xor}.items():
    reg(_n, "b", _binary(), (lambda f: lambda a, x, y: f(x, y))(_f))
# mixed dtypes: type promotion
reg("add_f_i", "f", _binary(torch.int64), lambda a, x, y: x + y)
reg("mul_f_b", "f", _binary(torch.bool), lambda a, x, y: x * y)
reg("add_i32_i64", "i", _binary(torch.int64), lambda a, x, y: x + y)
reg("mul_i_f", "i", _binary(torch.float32), lambda a, x, y: x * y)


# Tensor_Scalar and Scalar_Tensor overloads
def _scalar(pred=None, ints=False, self_pred=None):
    def make(r, g, x):
        v = g.val(x)
        if self_pred is not None and (v.numel() == 0 or not bool(self_pred(v.double()).all())):
            return None
        for _ in range(5):
            s = r.choice([-3, -2, 2, 3, 4]) if ints else r.choice(
                [-2.5, -1.5, -0.5, 0.25, 0.5, 0.75, 1.5, 2.0, 3.0])
            if pred is None or pred(s):
                return [x], {"s": s}
        return None
    return make


SCALAR_OPS = {
    "add_ts": (lambda x, s: torch.add(x, s), None, None),
    "sub_ts": (lambda x, s: x - s, None, None), "mul_ts": (lambda x, s: x * s, None, None),
    "div_ts": (lambda x, s: x / s, None, None), "rsub_st": (lambda x, s: s - x, None, None),
    "rdiv_st": (lambda x, s: s / x, None, _nz),
    "pow_ts": (lambda x, s: torch.pow(x, abs(s)), None, _posv),
    "pow_st": (lambda x, s: torch.pow(abs(s), x), None, lambda v: v.abs() < 4),
    "fmod_ts": (lambda x, s: torch.fmod(x, s), None, None),
    "remainder_ts": (lambda x, s: torch.remainder(x, s), None, None),
    "remainder_st": (lambda x, s: torch.remainder(s, x), None, _nz),
    "eq_ts": (lambda x, s: x == s, None, None), "lt_ts": (lambda x, s: x < s, None, None),
    "ge_ts": (lambda x, s: torch.ge(x, s), None, None),
    "ne_ts": (lambda x, s: torch.ne(x, s), None, None),
    "maximum_ts": (lambda x, s: torch.clamp_min(x, s), None, None),
    "masked_fill_s": (lambda x, s: x.masked_fill(x > s, -s), None, None),
    "where_scalar": (lambda x, s: torch.where(x > 0, x, s), None, None),
    "where_scalar2": (lambda x, s: torch.where(x < s, 0.0, x), None, None),
    "threshold": (lambda x, s: F.threshold(x, s, -1.0), None, None),
    "lerp_ts": (lambda x, s: torch.lerp(x, torch.zeros_like(x), s), None, None),
    "add_scalar_tensor": (lambda x, s: x + torch.tensor(s), None, None),
}
for _n, (_f, _p, _sp) in SCALAR_OPS.items():
    reg(_n, "f", _scalar(_p, False, _sp), (lambda f: lambda a, x: f(x, a["s"]))(_f))
INT_SCALAR_OPS = {
    "add_ts_int": lambda x, s: x + s, "mul_ts_int": lambda x, s: x * s,
    "sub_st_int": lambda x, s: s - x, "floor_div_ts_int": lambda x, s: x // s,
    "remainder_ts_int": lambda x, s: x % s, "div_ts_int": lambda x, s: x / s,
    "bitwise_and_ts": lambda x, s: x & s, "bitwise_or_ts": lambda x, s: torch.bitwise_or(x, s),
    "eq_ts_int": lambda x, s: x == s, "gt_ts_int": lambda x, s: x > s,
    "shift_right_ts": lambda x, s: x >> abs(s),
    "pow_ts_int": lambda x, s: torch.pow(x, abs(s)),
    "mul_int_float_s": lambda x, s: x * (s + 0.5),
}
for _n, _f in INT_SCALAR_OPS.items():
    reg(_n, "i", _scalar(None, True), (lambda f: lambda a, x: f(x, a["s"]))(_f))


# ternary
def _ternary(kind):
    def make(r, g, x):
        v = g.val(x)
        if kind == "where":
            c = g.partner(x, torch.bool)
            y = g.partner(x, v.dtype)
            return ([c, x, y], {}) if c is not None and y is not None else None
        y = g.partner(x, v.dtype)
        z = g.partner(x, v.dtype, _nz if kind == "addcdiv" else None)
        return ([x, y, z], {}) if y is not None and z is not None else None
    return make


reg("where", "fib", _ternary("where"), lambda a, c, x, y: torch.where(c, x, y))
reg("addcmul", "f", _ternary("addcmul"), lambda a, x, y, z: torch.addcmul(x, y, z, value=0.5))
reg("addcdiv", "f", _ternary("addcdiv"), lambda a, x, y, z: torch.addcdiv(x, y, z, value=0.5))
reg("lerp_tt", "f", _ternary("lerp"), lambda a, x, y, z: torch.lerp(x, y, z))
reg("clamp_tensor", "f", _ternary("clamp"), lambda a, x, y, z: torch.clamp(x, torch.minimum(y, z), torch.maximum(y, z)))


def _masked_fill(r, g, x):
    m = g.partner(x, torch.bool)
    return ([x, m], {"s": r.choice([0.0, -1.5, 2.0])}) if m is not None else None


reg("masked_fill", "f", _masked_fill, lambda a, x, m: x.masked_fill(m, a["s"]))


# casts
def _cast(to):
    return lambda a, x: x.to(a["_f"] if to == "float" else to)


reg("to_float_from_int", "ib", _just, _cast("float"))
reg("to_int64_from_bool", "b", _just, _cast(torch.int64))
reg("to_int32_from_int", "i", _just, _cast(torch.int32))
reg("to_int64_from_int", "i", _just, _cast(torch.int64))
reg("to_bool_from_int", "i", _just, _cast(torch.bool))
reg("to_bool_from_float", "f", _domain(lambda v: (v.abs() > 1e-3) | (v == 0)), _cast(torch.bool))
reg("to_int_from_float", "f", _not_int, _cast(torch.int64))
reg("to_int32_from_float", "f", _not_int, _cast(torch.int32))
reg("type_as_int", "f", _not_int, lambda a, x: x.long().type_as(x))


# --- reductions ---------------------------------------------------------------------------------
def _dims(r, v, allow_all=True):
    if v.dim() == 0:
        return None
    if allow_all and r.random() < 0.2:
        return None
    k = r.randint(1, min(2, v.dim()))
    dims = sorted(r.sample(range(v.dim()), k))
    return [d - v.dim() if r.random() < 0.3 else d for d in dims]


def _reduce(kind="dims", pred=None, need_dims=False):
    def make(r, g, x):
        v = g.val(x)
        if v.numel() == 0 or v.dim() == 0:
            return None
        if pred is not None and not bool(pred(v.double()).all()):
            return None
        a = {"keepdim": r.random() < 0.4}
        if kind in ("dims", "var"):
            a["dims"] = _dims(r, v, allow_all=not need_dims)
            if need_dims and a["dims"] is None:
                return None
        else:
            a["dim"] = r.randrange(-v.dim(), v.dim())
        if kind == "var":
            a["correction"] = r.choice([0, 1])
        return [x], a
    return make


def _kd(f):
    return lambda a, x: f(x, dim=a["dims"], keepdim=a["keepdim"]) if a["dims"] is not None else f(x)


reg("sum", "fi", _reduce(), _kd(torch.sum))
reg("mean", "f", _reduce(), _kd(torch.mean))
reg("amax", "fi", _reduce(need_dims=True), _kd(torch.amax))
reg("amin", "fi", _reduce(need_dims=True), _kd(torch.amin))
reg("std", "f", _reduce("var"), lambda a, x: torch.std(x, dim=a["dims"], correction=a["correction"], keepdim=a["keepdim"]))
reg("var", "f", _reduce("var"), lambda a, x: torch.var(x, dim=a["dims"], correction=a["correction"], keepdim=a["keepdim"]))
reg("var_mean", "f", _reduce("var"), lambda a, x: torch.var_mean(x, dim=a["dims"], correction=a["correction"], keepdim=a["keepdim"])[a["keepdim"] and 1 or 0])
reg("logsumexp", "f", _reduce(need_dims=True), _kd(torch.logsumexp))
reg("norm2", "f", _reduce(need_dims=True), lambda a, x: torch.linalg.vector_norm(x, 2, dim=a["dims"], keepdim=a["keepdim"]))
reg("norm1", "f", _reduce(need_dims=True), lambda a, x: torch.linalg.vector_norm(x, 1, dim=a["dims"], keepdim=a["keepdim"]))
reg("all", "b", _reduce("dim"), lambda a, x: torch.all(x, dim=a["dim"], keepdim=a["keepdim"]))
reg("any", "fb", _reduce("dim"), lambda a, x: torch.any(x, dim=a["dim"], keepdim=a["keepdim"]))
reg("count_nonzero", "fib", _reduce("dim"), lambda a, x: torch.count_nonzero(x, dim=a["dim"]))
reg("prod", "f", _reduce("dim", lambda v: v.abs() < 2), lambda a, x: torch.prod(x, a["dim"], keepdim=a["keepdim"]))
reg("prod_int", "i", _reduce("dim", lambda v: v.abs() < 4), lambda a, x: torch.prod(x, a["dim"], keepdim=a["keepdim"]))
reg("sum_int_all", "ib", _just, lambda a, x: torch.sum(x))
reg("mean_all", "f", _domain(lambda v: v.numel() > 0), lambda a, x: x.mean())
reg("max_all", "fi", _domain(lambda v: v.numel() > 0), lambda a, x: x.max())
reg("max_dim_values", "fi", _reduce("dim"), lambda a, x: torch.max(x, a["dim"], keepdim=a["keepdim"])[0])
reg("max_dim_indices", "f", _reduce("dim"), lambda a, x: torch.max(x, a["dim"], keepdim=a["keepdim"])[1])
reg("min_dim_values", "fi", _reduce("dim"), lambda a, x: torch.min(x, a["dim"], keepdim=a["keepdim"]).values)
reg("min_dim_indices", "f", _reduce("dim"), lambda a, x: torch.min(x, a["dim"], keepdim=a["keepdim"]).indices)
reg("argmax", "fi", _reduce("dim"), lambda a, x: torch.argmax(x, a["dim"], keepdim=a["keepdim"]))
reg("argmin", "f", _reduce("dim"), lambda a, x: torch.argmin(x, a["dim"], keepdim=a["keepdim"]))
reg("argmax_all", "f", _domain(lambda v: v.numel() > 0), lambda a, x: torch.argmax(x))
reg("cumsum", "fi", _reduce("dim"), lambda a, x: torch.cumsum(x, a["dim"]))
reg("cumprod", "f", _reduce("dim", lambda v: v.abs() < 1.5), lambda a, x: torch.cumprod(x, a["dim"]))
reg("cummax_values", "f", _reduce("dim"), lambda a, x: torch.cummax(x, a["dim"])[0])
reg("cummin_values", "f", _reduce("dim"), lambda a, x: torch.cummin(x, a["dim"]).values)
reg("logcumsumexp", "f", _reduce("dim"), lambda a, x: torch.logcumsumexp(x, a["dim"]))
reg("softmax", "f", _reduce("dim"), lambda a, x: torch.softmax(x, a["dim"]))
reg("log_softmax", "f", _reduce("dim"), lambda a, x: F.log_softmax(x, a["dim"]))
reg("softmin", "f", _reduce("dim"), lambda a, x: F.softmin(x, a["dim"]))
reg("sort_values", "fi", _reduce("dim"), lambda a, x: torch.sort(x, dim=a["dim"], descending=a["keepdim"], stable=True)[0])
reg("sort_indices_stable", "fi", _reduce("dim"), lambda a, x: torch.sort(x, dim=a["dim"], descending=a["keepdim"], stable=True)[1])
reg("argsort_stable", "f", _reduce("dim"), lambda a, x: torch.argsort(x, dim=a["dim"], stable=True))


def _topk(r, g, x):
    v = g.val(x)
    if v.dim() == 0 or v.numel() == 0:
        return None
    d = r.randrange(v.dim())
    # distinct values along the dim (ties make the indices implementation-defined)
    if torch.unique(v, dim=None).numel() != v.numel():
        return None
    return [x], {"dim": d, "k": r.randint(1, v.shape[d]), "largest": r.random() < 0.7}


reg("topk_values", "f", _topk, lambda a, x: torch.topk(x, a["k"], a["dim"], a["largest"])[0])
reg("topk_indices", "f", _topk, lambda a, x: torch.topk(x, a["k"], a["dim"], a["largest"])[1])
reg("kthvalue", "f", _topk, lambda a, x: torch.kthvalue(x, a["k"], a["dim"])[0])


# --- shape ops -----------------------------------------------------------------------------------
def _view(r, g, x):
    v = g.val(x)
    n = v.numel()
    if n == 0:
        return None
    divs = [d for d in range(1, n + 1) if n % d == 0]
    a = r.choice(divs)
    shape = [a, n // a] if r.random() < 0.6 else [n]
    if r.random() < 0.3:
        shape[0] = -1
    return [x], {"shape": shape}


reg("view", "fib", _view, lambda a, x: x.reshape(a["shape"]))
reg("view_contig", "fi", _view, lambda a, x: x.contiguous().view(a["shape"]))
reg("flatten", "fib", lambda r, g, x: ([x], {"s": r.randrange(max(g.val(x).dim(), 1))}), lambda a, x: torch.flatten(x, a["s"]))


def _perm(r, g, x):
    v = g.val(x)
    if v.dim() < 2:
        return None
    p = list(range(v.dim()))
    r.shuffle(p)
    return [x], {"p": p}


reg("permute", "fib", _perm, lambda a, x: x.permute(a["p"]))
reg("transpose", "fib", lambda r, g, x: ([x], {"d": r.sample(range(g.val(x).dim()), 2)}) if g.val(x).dim() >= 2 else None,
    lambda a, x: x.transpose(*a["d"]))
reg("movedim", "fi", lambda r, g, x: ([x], {"d": r.sample(range(g.val(x).dim()), 2)}) if g.val(x).dim() >= 2 else None,
    lambda a, x: torch.movedim(x, a["d"][0], a["d"][1]))
reg("t", "f", lambda r, g, x: ([x], {}) if g.val(x).dim() == 2 else None, lambda a, x: x.t())
reg("unsqueeze", "fib", lambda r, g, x: ([x], {"d": r.randint(-g.val(x).dim() - 1, g.val(x).dim())}) if g.val(x).dim() < 4 else None,
    lambda a, x: x.unsqueeze(a["d"]))


def _squeeze(r, g, x):
    v = g.val(x)
    ones = [i for i, s in enumerate(v.shape) if s == 1]
    if not ones:
        return None
    return [x], {"d": r.choice(ones) if r.random() < 0.7 else None}


reg("squeeze", "fib", _squeeze, lambda a, x: x.squeeze(a["d"]) if a["d"] is not None else x.squeeze())


def _expand(r, g, x):
    v = g.val(x)
    ones = [i for i, s in enumerate(v.shape) if s == 1]
    if not ones or v.dim() > 3:
        return None
    shape = [r.randint(2, 4) if s == 1 and r.random() < 0.8 else -1 for s in v.shape]
    if r.random() < 0.3:
        shape = [2] + shape
    return [x], {"shape": shape}


reg("expand", "fib", _expand, lambda a, x: x.expand(a["shape"]))


def _cat(r, g, x):
    v = g.val(x)
    if v.dim() == 0:
        return None
    d = r.randrange(v.dim())
    others = []
    for _ in range(r.randint(1, 2)):
        shape = list(v.shape)
        shape[d] = r.randint(1, 3)
        y = g.value_like(shape, v.dtype, prefer=0.4)
        others.append(y)
    return [x] + others, {"d": d - v.dim() if r.random() < 0.3 else d}


reg("cat", "fib", _cat, lambda a, *xs: torch.cat(xs, a["d"]))
reg("cat_self", "fi", lambda r, g, x: ([x], {"d": r.randrange(max(g.val(x).dim(), 1))}) if g.val(x).dim() else None,
    lambda a, x: torch.cat([x, x * 2 if x.dtype != torch.bool else x], a["d"]))


def _stack(r, g, x):
    v = g.val(x)
    y = g.value_like(list(v.shape), v.dtype, prefer=0.6)
    return [x, y], {"d": r.randint(-v.dim() - 1, v.dim())}


reg("stack", "fib", _stack, lambda a, x, y: torch.stack([x, y], a["d"]))
reg("tile", "fib", lambda r, g, x: ([x], {"reps": [r.randint(1, 3) for _ in range(r.randint(1, g.val(x).dim() + 1))]}) if g.val(x).numel() <= 64 else None,
    lambda a, x: torch.tile(x, a["reps"]))
reg("repeat", "fib", lambda r, g, x: ([x], {"reps": [r.randint(1, 2) for _ in range(g.val(x).dim() + r.randint(0, 1))]}) if g.val(x).numel() <= 64 and g.val(x).dim() else None,
    lambda a, x: x.repeat(a["reps"]))


def _dim_of(r, g, x, min_size=1):
    v = g.val(x)
    dims = [i for i, s in enumerate(v.shape) if s >= min_size]
    return r.choice(dims) if dims else None


def _unbind(r, g, x):
    d = _dim_of(r, g, x)
    if d is None:
        return None
    return [x], {"d": d, "i": r.randrange(g.val(x).shape[d])}


reg("unbind", "fib", _unbind, lambda a, x: torch.unbind(x, a["d"])[a["i"]])
reg("select", "fib", _unbind, lambda a, x: x.select(a["d"], a["i"] - x.shape[a["d"]] if a["i"] % 2 else a["i"]))
reg("chunk", "fi", lambda r, g, x: ([x], {"d": d, "c": 2}) if (d := _dim_of(r, g, x, 2)) is not None else None,
    lambda a, x: torch.chunk(x, a["c"], a["d"])[-1])
reg("split", "fi", lambda r, g, x: ([x], {"d": d, "s": 1}) if (d := _dim_of(r, g, x, 2)) is not None else None,
    lambda a, x: torch.split(x, a["s"], a["d"])[1])
reg("repeat_interleave", "fib", lambda r, g, x: ([x], {"d": d, "n": r.randint(2, 3)}) if (d := _dim_of(r, g, x)) is not None else None,
    lambda a, x: torch.repeat_interleave(x, a["n"], dim=a["d"]))
reg("flip", "fib", lambda r, g, x: ([x], {"d": _dims(r, g.val(x), False)}) if g.val(x).dim() else None,
    lambda a, x: torch.flip(x, a["d"]))
reg("roll", "fib", lambda r, g, x: ([x], {"d": d, "s": r.choice([-2, -1, 1, 2, 3])}) if (d := _dim_of(r, g, x)) is not None else None,
    lambda a, x: torch.roll(x, a["s"], a["d"]))
reg("roll_flat", "fi", lambda r, g, x: ([x], {"s": r.choice([-1, 2])}), lambda a, x: torch.roll(x, a["s"]))


def _narrow(r, g, x):
    d = _dim_of(r, g, x, 2)
    if d is None:
        return None
    n = g.val(x).shape[d]
    s = r.randrange(n - 1)
    return [x], {"d": d, "s": s, "l": r.randint(1, n - s)}


reg("narrow", "fib", _narrow, lambda a, x: torch.narrow(x, a["d"], a["s"], a["l"]))


def _slice(r, g, x):
    d = _dim_of(r, g, x, 2)
    if d is None:
        return None
    n = g.val(x).shape[d]
    return [x], {"d": d, "s": r.choice([0, 1, -n + 1]), "e": r.choice([None, n - 1, -1, n + 3]), "st": r.choice([1, 1, 2, 3])}


def _slice_fn(a, x):
    idx = [slice(None)] * x.dim()
    idx[a["d"]] = slice(a["s"], a["e"], a["st"])
    return x[tuple(idx)]


reg("slice", "fib", _slice, _slice_fn)
reg("index_int", "fib", lambda r, g, x: ([x], {"i": r.randrange(g.val(x).shape[0])}) if g.val(x).dim() and g.val(x).shape[0] else None,
    lambda a, x: x[a["i"]])
reg("index_ellipsis_none", "fi", lambda r, g, x: ([x], {}) if 1 <= g.val(x).dim() <= 3 else None, lambda a, x: x[..., None, :])
reg("tril", "fib", lambda r, g, x: ([x], {"k": r.randint(-1, 1)}) if g.val(x).dim() >= 2 else None, lambda a, x: torch.tril(x, a["k"]))
reg("triu", "fi", lambda r, g, x: ([x], {"k": r.randint(-1, 1)}) if g.val(x).dim() >= 2 else None, lambda a, x: torch.triu(x, a["k"]))
reg("diagonal", "fi", lambda r, g, x: ([x], {"o": r.randint(-1, 1)}) if g.val(x).dim() >= 2 else None, lambda a, x: torch.diagonal(x, a["o"], -2, -1))


def _pad(mode):
    def make(r, g, x):
        v = g.val(x)
        d = v.dim()
        if d == 0 or d > 4:
            return None
        if mode == "constant":
            k = r.randint(1, min(2, d))
        else:  # 2k pads need an input of k+1 or k+2 dims
            ks = [k for k in (d - 1, d - 2) if 1 <= k <= 3]
            if not ks:
                return None
            k = r.choice(ks)
        pads = []
        for i in range(k):
            size = v.shape[d - 1 - i]
            hi = size - 1 if mode == "reflect" else (size if mode == "circular" else 2)
            if hi < 0:
                return None
            pads += [r.randint(0, min(hi, 2)), r.randint(0, min(hi, 2))]
        if mode == "constant" and r.random() < 0.3 and v.shape[-1] > 1:
            pads[0] = -1
        return [x], {"p": pads, "v": r.choice([0.0, 1.5])}
    return make


reg("pad_constant", "fi", _pad("constant"), lambda a, x: F.pad(x, a["p"], value=a["v"] if x.dtype.is_floating_point else int(a["v"])))
reg("pad_reflect", "f", _pad("reflect"), lambda a, x: F.pad(x, a["p"], mode="reflect"))
reg("pad_replicate", "f", _pad("replicate"), lambda a, x: F.pad(x, a["p"], mode="replicate"))
reg("pad_circular", "f", _pad("circular"), lambda a, x: F.pad(x, a["p"], mode="circular"))


# --- indexing ---------------------------------------------------------------------------------
def _gather(r, g, x):
    v = g.val(x)
    if v.dim() == 0 or v.numel() == 0:
        return None
    d = r.randrange(v.dim())
    shape = [r.randint(1, s) for s in v.shape]
    shape[d] = r.randint(1, 4)
    idx = g.index_leaf(shape, v.shape[d])
    return [x, idx], {"d": d}


reg("gather", "fib", _gather, lambda a, x, i: torch.gather(x, a["d"], i))


def _take_along(r, g, x):
    v = g.val(x)
    if v.dim() == 0 or v.numel() == 0:
        return None
    d = r.randrange(v.dim())
    shape = list(v.shape)
    shape[d] = r.randint(1, 4)
    return [x, g.index_leaf(shape, v.shape[d])], {"d": d}


reg("take_along_dim", "fi", _take_along, lambda a, x, i: torch.take_along_dim(x, i, a["d"]))


def _index_select(r, g, x):
    v = g.val(x)
    if v.dim() == 0 or v.numel() == 0:
        return None
    d = r.randrange(v.dim())
    return [x, g.index_leaf([r.randint(1, 5)], v.shape[d])], {"d": d}


reg("index_select", "fib", _index_select, lambda a, x, i: torch.index_select(x, a["d"], i))
reg("index_tensor", "fi", _index_select, lambda a, x, i: x[(slice(None),) * a["d"] + (i,)])


def _scatter(kind):
    def make(r, g, x):
        v = g.val(x)
        if v.dim() == 0 or v.numel() == 0:
            return None
        d = r.randrange(v.dim())
        shape = [r.randint(1, s) for s in v.shape]
        if kind == "scatter":  # unique indices along d: the result is then defined
            if shape[d] > v.shape[d]:
                return None
            idx = g.perm_index_leaf(shape, d, v.shape[d])
        else:
            idx = g.index_leaf(shape, v.shape[d])
        src = g.value_like(shape, v.dtype, prefer=0.2)
        return [x, idx, src], {"d": d, "red": r.choice(["sum", "amax", "amin", "mean", "prod"])}
    return make


reg("scatter", "fi", _scatter("scatter"), lambda a, x, i, s: torch.scatter(x, a["d"], i, s))
reg("scatter_add", "fi", _scatter("add"), lambda a, x, i, s: torch.scatter_add(x, a["d"], i, s))
reg("scatter_reduce", "f", _scatter("reduce"), lambda a, x, i, s: torch.scatter_reduce(x, a["d"], i, s, a["red"], include_self=a["d"] % 2 == 0))


def _index_add(r, g, x):
    v = g.val(x)
    if v.dim() == 0 or v.numel() == 0:
        return None
    d = r.randrange(v.dim())
    n = r.randint(1, 4)
    shape = list(v.shape)
    shape[d] = n
    return [x, g.index_leaf([n], v.shape[d]), g.value_like(shape, v.dtype, prefer=0.2)], {"d": d}


reg("index_add", "fi", _index_add, lambda a, x, i, s: torch.index_add(x, a["d"], i, s))
reg("index_copy_unique", "f", lambda r, g, x: (None if (m := _index_add(r, g, x)) is None or len(set(g.val(m[0][1]).tolist())) != g.val(m[0][1]).numel() else m),
    lambda a, x, i, s: torch.index_copy(x, a["d"], i, s))


def _embedding(r, g, x):
    v = g.val(x)
    if v.dtype != torch.int64 or v.numel() == 0 or int(v.min()) < 0:
        return None
    n = int(v.max()) + 1
    w = g.leaf_new([n, r.randint(1, 5)], torch.float32, param=True)
    return [x, w], {}


reg("embedding", "i", _embedding, lambda a, i, w: F.embedding(i, w))


# --- nn layers ------------------------------------------------------------------------------------
def _conv(nd):
    def make(r, g, x):
        v = g.val(x)
        if v.dim() != nd + 2 or v.numel() == 0:
            return None
        cin = v.shape[1]
        groups = r.choice([1, 1, 1] + ([cin] if cin > 1 else []))
        cout = r.randint(1, 4) * groups
        k = [r.randint(1, 3) for _ in range(nd)]
        stride = [r.randint(1, 2) for _ in range(nd)]
        dil = [r.choice([1, 1, 2]) for _ in range(nd)]
        pad = [r.randint(0, (k[i] - 1) * dil[i] // 2 + (1 if r.random() < 0.2 else 0)) for i in range(nd)]
        for i in range(nd):
            if v.shape[2 + i] + 2 * pad[i] < dil[i] * (k[i] - 1) + 1:
                return None
        if r.random() < 0.2 and all(s == 1 for s in stride):
            pad = "same"
        w = g.leaf_new([cout, cin // groups] + k, torch.float32, param=True, scale=1 / math.sqrt(cin * math.prod(k)))
        args = [x, w]
        a = {"stride": stride, "pad": pad, "dil": dil, "groups": groups, "bias": r.random() < 0.7}
        if a["bias"]:
            args.append(g.leaf_new([cout], torch.float32, param=True, scale=0.3))
        return args, a
    return make


def _conv_fn(f):
    return lambda a, x, w, b=None: f(x, w, b, a["stride"], a["pad"], a["dil"], a["groups"])


reg("conv1d", "f", _conv(1), _conv_fn(F.conv1d))
reg("conv2d", "f", _conv(2), _conv_fn(F.conv2d))


def _conv_t(r, g, x):
    v = g.val(x)
    if v.dim() != 4 or v.numel() == 0:
        return None
    cin = v.shape[1]
    cout = r.randint(1, 3)
    k = r.randint(1, 3)
    s = r.randint(1, 2)
    p = r.randint(0, (k - 1) // 2)
    w = g.leaf_new([cin, cout, k, k], torch.float32, param=True, scale=1 / math.sqrt(cin * k * k))
    return [x, w], {"s": s, "p": p, "op": r.randint(0, s - 1)}


reg("conv_transpose2d", "f", _conv_t, lambda a, x, w: F.conv_transpose2d(x, w, None, a["s"], a["p"], a["op"]))


def _pool(nd, kind):
    def make(r, g, x):
        v = g.val(x)
        if v.dim() not in (nd + 1, nd + 2) or v.numel() == 0:
            return None
        sp = v.shape[-nd:]
        k = [r.randint(1, min(3, s)) for s in sp]
        st = [r.randint(1, 2) for _ in range(nd)]
        p = [r.randint(0, kk // 2) for kk in k]
        a = {"k": k, "s": st, "p": p, "ceil": r.random() < 0.3, "cip": r.random() < 0.5}
        if kind == "max" and r.random() < 0.3:
            a["d"] = [r.randint(1, 2) for _ in range(nd)]
            for i in range(nd):
                if (k[i] - 1) * a["d"][i] + 1 > sp[i] + 2 * p[i]:
                    return None
        return [x], a
    return make


reg("max_pool1d", "f", _pool(1, "max"), lambda a, x: F.max_pool1d(x, a["k"], a["s"], a["p"], a.get("d", 1), a["ceil"]))
reg("max_pool2d", "f", _pool(2, "max"), lambda a, x: F.max_pool2d(x, a["k"], a["s"], a["p"], a.get("d", 1), a["ceil"]))
reg("avg_pool1d", "f", _pool(1, "avg"), lambda a, x: F.avg_pool1d(x, a["k"], a["s"], a["p"], a["ceil"], a["cip"]))
reg("avg_pool2d", "f", _pool(2, "avg"), lambda a, x: F.avg_pool2d(x, a["k"], a["s"], a["p"], a["ceil"], a["cip"]))
reg("adaptive_avg_pool2d", "f", lambda r, g, x: ([x], {"o": [r.randint(1, 4), r.randint(1, 4)]}) if g.val(x).dim() in (3, 4) and g.val(x).numel() else None,
    lambda a, x: F.adaptive_avg_pool2d(x, a["o"]))
reg("adaptive_max_pool2d", "f", lambda r, g, x: ([x], {"o": [r.randint(1, 3), r.randint(1, 3)]}) if g.val(x).dim() in (3, 4) and g.val(x).numel() else None,
    lambda a, x: F.adaptive_max_pool2d(x, a["o"]))
reg("adaptive_avg_pool1d", "f", lambda r, g, x: ([x], {"o": r.randint(1, 4)}) if g.val(x).dim() in (2, 3) and g.val(x).numel() else None,
    lambda a, x: F.adaptive_avg_pool1d(x, a["o"]))


def _interp(r, g, x):
    v = g.val(x)
    nd = v.dim() - 2
    if nd not in (1, 2, 3) or v.numel() == 0:
        return None
    modes = {1: ["nearest", "nearest-exact", "linear", "area"],
             2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
             3: ["nearest", "nearest-exact", "trilinear", "area"]}[nd]
    mode = r.choice(modes)
    a = {"mode": mode}
    if r.random() < 0.5:
        a["size"] = [r.randint(2, 7) for _ in range(nd)]  # size 1 with align_corners=False: known
    else:
        a["scale"] = [r.choice([0.5, 1.5, 2.0, 3.0]) for _ in range(nd)]
        if any(int(s * f) < 1 for s, f in zip(v.shape[2:], a["scale"])):
            return None
        if mode not in ("nearest", "area") and any(int(s * f) == 1 for s, f in zip(v.shape[2:], a["scale"])):
            return None
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        a["ac"] = r.random() < 0.4
    return [x], a


def _interp_fn(a, x):
    kw = {"mode": a["mode"]}
    if "ac" in a:
        kw["align_corners"] = a["ac"]
    if "size" in a:
        return F.interpolate(x, size=a["size"], **kw)
    return F.interpolate(x, scale_factor=a["scale"], **kw)


reg("interpolate", "f", _interp, _interp_fn)


def _norm(kind):
    def make(r, g, x):
        v = g.val(x)
        if v.numel() == 0:
            return None
        if kind == "batch":
            if v.dim() not in (2, 3, 4):
                return None
            c = v.shape[1]
            return [x, g.leaf_new([c], torch.float32, param=False, scale=0.3),
                    g.leaf_new([c], torch.float32, param=False, fill="pos"),
                    g.leaf_new([c], torch.float32, param=True, fill="pos"),
                    g.leaf_new([c], torch.float32, param=True, scale=0.3)], {}
        if kind == "layer":
            if v.dim() == 0:
                return None
            k = r.randint(1, min(2, v.dim()))
            shape = list(v.shape[-k:])
            if math.prod(shape) < 2:
                return None
            if r.random() < 0.3:
                return [x], {"shape": shape}
            return [x, g.leaf_new(shape, torch.float32, param=True, fill="pos"),
                    g.leaf_new(shape, torch.float32, param=True, scale=0.3)], {"shape": shape}
        if kind in ("group", "instance"):
            if v.dim() < 3:
                return None
            c = v.shape[1]
            if math.prod(v.shape[2:]) < 2:
                return None
            gs = [d for d in range(1, c + 1) if c % d == 0]
            return [x, g.leaf_new([c], torch.float32, param=True, fill="pos"),
                    g.leaf_new([c], torch.float32, param=True, scale=0.3)], {"g": r.choice(gs)}
        if kind == "rms":
            shape = list(v.shape[-1:])
            if v.dim() == 0:
                return None
            return [x, g.leaf_new(shape, torch.float32, param=True, fill="pos")], {"shape": shape}
    return make


reg("batch_norm", "f", _norm("batch"), lambda a, x, m, var, w, b: F.batch_norm(x, m, var, w, b, False, 0.1, 1e-5))
reg("layer_norm", "f", _norm("layer"), lambda a, x, w=None, b=None: F.layer_norm(x, a["shape"], w, b))
reg("group_norm", "f", _norm("group"), lambda a, x, w, b: F.group_norm(x, a["g"], w, b))
reg("instance_norm", "f", _norm("instance"), lambda a, x, w, b: F.instance_norm(x, weight=w, bias=b))
reg("rms_norm", "f", _norm("rms"), lambda a, x, w: F.rms_norm(x, a["shape"], w, eps=1e-6))


def _prelu(r, g, x):
    v = g.val(x)
    if v.dim() == 0:  # known: PReLU of a 0-d tensor
        return None
    n = v.shape[1] if v.dim() >= 2 and r.random() < 0.6 else 1
    return [x, g.leaf_new([n], torch.float32, param=True, scale=0.3)], {}


reg("prelu", "f", _prelu, lambda a, x, w: F.prelu(x, w))
reg("normalize", "f", lambda r, g, x: ([x], {"d": r.randrange(g.val(x).dim())}) if g.val(x).dim() else None,
    lambda a, x: F.normalize(x, dim=a["d"]))
reg("dropout_eval", "f", _just, lambda a, x: F.dropout(x, 0.3, training=False))
reg("glu", "f", lambda r, g, x: ([x], {"d": d}) if (d := next((i for i, s in enumerate(g.val(x).shape) if s % 2 == 0), None)) is not None else None,
    lambda a, x: F.glu(x, a["d"]))
reg("pixel_shuffle", "f", lambda r, g, x: ([x], {}) if g.val(x).dim() == 4 and g.val(x).shape[1] % 4 == 0 else None,
    lambda a, x: F.pixel_shuffle(x, 2))
reg("pixel_unshuffle", "f", lambda r, g, x: ([x], {}) if g.val(x).dim() == 4 and g.val(x).shape[2] % 2 == 0 and g.val(x).shape[3] % 2 == 0 else None,
    lambda a, x: F.pixel_unshuffle(x, 2))
reg("channel_shuffle", "f", lambda r, g, x: ([x], {}) if g.val(x).dim() == 4 and g.val(x).shape[1] % 2 == 0 else None,
    lambda a, x: F.channel_shuffle(x, 2))


# --- matmul family ---------------------------------------------------------------------------------
def _linear(r, g, x):
    v = g.val(x)
    if v.dim() == 0 or v.numel() == 0:
        return None
    k = v.shape[-1]
    n = r.randint(1, 6)
    args = [x, g.leaf_new([n, k], torch.float32, param=True, scale=1 / math.sqrt(k))]
    if r.random() < 0.7:
        args.append(g.leaf_new([n], torch.float32, param=True, scale=0.3))
    return args, {}


reg("linear", "f", _linear, lambda a, x, w, b=None: F.linear(x, w, b))


def _matmul(kind):
    def make(r, g, x):
        v = g.val(x)
        if v.numel() == 0:
            return None
        if kind == "matmul":
            if v.dim() == 0:
                return None
            k = v.shape[-1]
            shape = [k] if r.random() < 0.2 else [k, r.randint(1, 5)]
            if v.dim() >= 3 and r.random() < 0.4:
                shape = [v.shape[-3], k, r.randint(1, 4)] if r.random() < 0.5 else [1, k, r.randint(1, 4)]
            return [x, g.value_like(shape, v.dtype, prefer=0.5)], {}
        if kind == "mm":
            if v.dim() != 2:
                return None
            return [x, g.value_like([v.shape[1], r.randint(1, 5)], v.dtype, prefer=0.5)], {}
        if kind == "bmm":
            if v.dim() != 3:
                return None
            return [x, g.value_like([v.shape[0], v.shape[2], r.randint(1, 4)], v.dtype, prefer=0.5)], {}
        if kind == "addmm":
            if v.dim() != 2:
                return None
            n = r.randint(1, 4)
            return [g.value_like([n], v.dtype, prefer=0.3), x, g.value_like([v.shape[1], n], v.dtype, prefer=0.3)], {}
        if kind == "baddbmm":
            if v.dim() != 3:
                return None
            n = r.randint(1, 4)
            return [g.value_like([1, v.shape[1], n], v.dtype, prefer=0.3), x,
                    g.value_like([v.shape[0], v.shape[2], n], v.dtype, prefer=0.3)], {}
        if kind == "outer":
            if v.dim() != 1:
                return None
            return [x, g.value_like([r.randint(1, 5)], v.dtype, prefer=0.4)], {}
        if kind == "dot":
            if v.dim() != 1:
                return None
            return [x, g.value_like(list(v.shape), v.dtype, prefer=0.5)], {}
    return make


reg("matmul", "f", _matmul("matmul"), lambda a, x, y: torch.matmul(x, y))
reg("mm", "f", _matmul("mm"), lambda a, x, y: torch.mm(x, y))
reg("bmm", "f", _matmul("bmm"), lambda a, x, y: torch.bmm(x, y))
reg("addmm", "f", _matmul("addmm"), lambda a, c, x, y: torch.addmm(c, x, y, beta=0.5, alpha=1.5))
reg("baddbmm", "f", _matmul("baddbmm"), lambda a, c, x, y: torch.baddbmm(c, x, y))
reg("outer", "f", _matmul("outer"), lambda a, x, y: torch.outer(x, y))
reg("dot", "f", _matmul("dot"), lambda a, x, y: torch.dot(x, y))
reg("matmul_int", "i", _matmul("matmul"), lambda a, x, y: torch.matmul(x, y))


def _einsum(r, g, x):
    v = g.val(x)
    d = v.dim()
    pats = []
    if d == 2:
        pats += [("ij->ji", None), ("ij->i", None), ("ij,jk->ik", lambda s: [s[1], r.randint(1, 4)]),
                 ("ij,ij->ij", lambda s: list(s)), ("ij,kj->ik", lambda s: [r.randint(1, 4), s[1]])]
    if d == 3:
        pats += [("bij,bjk->bik", lambda s: [s[0], s[2], r.randint(1, 4)]), ("bij->bji", None),
                 ("bij,j->bi", lambda s: [s[2]])]
    if d == 4:
        pats += [("bhqd,bhkd->bhqk", lambda s: [s[0], s[1], r.randint(1, 4), s[3]]),
                 ("bhqk,bhkd->bhqd", lambda s: [s[0], s[1], s[3], r.randint(1, 4)])]
    if d == 1:
        pats += [("i,j->ij", lambda s: [r.randint(1, 4)]), ("i,i->", lambda s: list(s))]
    if not pats:
        return None
    p, shape_of = r.choice(pats)
    args = [x] if shape_of is None else [x, g.value_like(shape_of(v.shape), v.dtype, prefer=0.4)]
    return args, {"eq": p}


reg("einsum", "f", _einsum, lambda a, *xs: torch.einsum(a["eq"], *xs))
