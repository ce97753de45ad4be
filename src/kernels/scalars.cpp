// Numbers in the graph: sizes read at run time (sym_size, sym_numel) and the Python
// operators torch.export records on them ("_operator.add", ...), with Python's semantics
// (floor division and modulo round toward negative infinity; bools count as ints) in int64
// and double.
#include <cmath>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

std::vector<RuntimeValue> number(Scalar s) { return {RuntimeValue::of(s)}; }

// sym_size.int(Tensor self, int dim) -> SymInt
std::vector<RuntimeValue> sym_size(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const int64_t dim = normalize_dim(call, call.int_arg("dim", 1), static_cast<int64_t>(self.rank()));
    return number(self.rank() == 0 ? int64_t{1} : self.sizes[dim]);
}

// sym_numel(Tensor self) -> SymInt
std::vector<RuntimeValue> sym_numel(const KernelCall& call) { return number(call.tensor("self", 0).numel()); }

enum class PyOp { Add, Sub, Mul, FloorDiv, Mod, TrueDiv, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or };

template <typename V>
bool compare(PyOp op, V a, V b) {
    switch (op) {
        case PyOp::Eq: return a == b;
        case PyOp::Ne: return a != b;
        case PyOp::Lt: return a < b;
        case PyOp::Le: return a <= b;
        case PyOp::Gt: return a > b;
        default: return a >= b;
    }
}

// CPython's float floor division and modulo (float_divmod).
std::pair<double, double> float_divmod(double a, double b) {
    double mod = std::fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
            div -= 1.0;
        }
    } else {
        mod = std::copysign(0.0, b);
    }
    double floored;
    if (div != 0) {
        floored = std::floor(div);
        if (div - floored > 0.5) floored += 1.0;
    } else {
        floored = std::copysign(0.0, a / b);
    }
    return {floored, mod};
}

Scalar integer_op(const KernelCall& call, PyOp op, int64_t a, int64_t b) {
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (op) {
        case PyOp::Add: return static_cast<int64_t>(ua + ub);
        case PyOp::Sub: return static_cast<int64_t>(ua - ub);
        case PyOp::Mul: return static_cast<int64_t>(ua * ub);
        case PyOp::FloorDiv:
        case PyOp::Mod: {
            if (b == 0) call.fail("ZeroDivisionError: integer division or modulo by zero");
            if (b == -1) return op == PyOp::Mod ? int64_t{0} : static_cast<int64_t>(0 - ua);
            int64_t q = a / b, r = a % b;
            if (r != 0 && ((r < 0) != (b < 0))) {
                q -= 1;
                r += b;
            }
            return op == PyOp::Mod ? r : q;
        }
        case PyOp::Pow: {
            if (b < 0) return std::pow(static_cast<double>(a), static_cast<double>(b));  // Python gives a float
            uint64_t result = 1, base = ua;
            for (auto e = ub; e; e >>= 1) {
                if (e & 1) result *= base;
                base *= base;
            }
            return static_cast<int64_t>(result);
        }
        case PyOp::And: return a & b;
        case PyOp::Or: return a | b;
        default: break;
    }
    return compare(op, a, b);
}

Scalar float_op(const KernelCall& call, PyOp op, double a, double b) {
    switch (op) {
        case PyOp::Add: return a + b;
        case PyOp::Sub: return a - b;
        case PyOp::Mul: return a * b;
        case PyOp::FloorDiv:
        case PyOp::Mod: {
            if (b == 0) call.fail("ZeroDivisionError: float division or modulo by zero");
            const auto [quotient, remainder] = float_divmod(a, b);
            return op == PyOp::Mod ? remainder : quotient;
        }
        case PyOp::Pow: return std::pow(a, b);
        case PyOp::And:
        case PyOp::Or: call.fail("& and | need ints or bools");
        default: break;
    }
    return compare(op, a, b);
}

template <PyOp op>
std::vector<RuntimeValue> python_binary(const KernelCall& call) {
    const Scalar a = call.scalar("a", 0);
    const Scalar b = call.scalar("b", 1);
    if (op == PyOp::TrueDiv) {
        if (scalar_to_double(b) == 0) call.fail("ZeroDivisionError: division by zero");
        return number(scalar_to_double(a) / scalar_to_double(b));
    }
    const bool both_bool = std::holds_alternative<bool>(a) && std::holds_alternative<bool>(b);
    if (both_bool && (op == PyOp::And || op == PyOp::Or)) {
        return number(op == PyOp::And ? (std::get<bool>(a) && std::get<bool>(b)) : (std::get<bool>(a) || std::get<bool>(b)));
    }
    if (scalar_is_floating(a) || scalar_is_floating(b)) return number(float_op(call, op, scalar_to_double(a), scalar_to_double(b)));
    return number(integer_op(call, op, scalar_to_int(a), scalar_to_int(b)));
}

// _operator.neg(a)
std::vector<RuntimeValue> python_neg(const KernelCall& call) {
    const Scalar a = call.scalar("a", 0);
    if (scalar_is_floating(a)) return number(-scalar_to_double(a));
    return number(static_cast<int64_t>(0 - static_cast<uint64_t>(scalar_to_int(a))));
}

// Shape contracts: these results are numbers, not tensors, so there are no sizes to check
// (check_shape_contract looks only at tensor outputs); sym_size's dim must be one of self's.
std::optional<std::vector<ExpectedSizes>> number_result(const ShapeQuery&) { return std::vector<ExpectedSizes>{}; }

std::optional<std::vector<ExpectedSizes>> sym_size_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    const auto dim = query.int_arg("dim", 1);
    if (self && dim) wrap_dim(query, *dim, static_cast<int64_t>(self->size()));
    return std::vector<ExpectedSizes>{};
}

PT2OV_FILE_SHAPE_CONTRACT(number_result);

PT2OV_KERNEL("aten.sym_size.int", sym_size, sym_size_shape);
PT2OV_KERNEL("aten.sym_numel.default", sym_numel);
PT2OV_KERNEL("_operator.add", python_binary<PyOp::Add>);
PT2OV_KERNEL("_operator.sub", python_binary<PyOp::Sub>);
PT2OV_KERNEL("_operator.mul", python_binary<PyOp::Mul>);
PT2OV_KERNEL("_operator.floordiv", python_binary<PyOp::FloorDiv>);
PT2OV_KERNEL("_operator.mod", python_binary<PyOp::Mod>);
PT2OV_KERNEL("_operator.truediv", python_binary<PyOp::TrueDiv>);
PT2OV_KERNEL("_operator.pow", python_binary<PyOp::Pow>);
PT2OV_KERNEL("_operator.eq", python_binary<PyOp::Eq>);
PT2OV_KERNEL("_operator.ne", python_binary<PyOp::Ne>);
PT2OV_KERNEL("_operator.lt", python_binary<PyOp::Lt>);
PT2OV_KERNEL("_operator.le", python_binary<PyOp::Le>);
PT2OV_KERNEL("_operator.gt", python_binary<PyOp::Gt>);
PT2OV_KERNEL("_operator.ge", python_binary<PyOp::Ge>);
PT2OV_KERNEL("_operator.and_", python_binary<PyOp::And>);
PT2OV_KERNEL("_operator.or_", python_binary<PyOp::Or>);
PT2OV_KERNEL("_operator.neg", python_neg);

}  // namespace
}  // namespace pt2ov::kernels
