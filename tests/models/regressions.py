"""Smallest programs of bugs found in the engine, kept forever (docs/EXTENDING.md, "Habits").

Each case says in its notes what went wrong before it was fixed.
"""
import torch
from torch import nn
from torch.nn import functional as F
from torch.export import Dim

from tests.models import ModelCase, register


class ScalarTensorNegInf(nn.Module):
    def forward(self, x):
        return x + torch.ops.aten.scalar_tensor.default(float("-inf"), dtype=torch.float32), x.masked_fill(x > 0, float("-inf"))


def _neg_inf_inputs(variant):
    torch.manual_seed(300 + variant)
    return (torch.randn((2, 5)[variant], 3),)


register(
    ModelCase(
        name="scalar_tensor_neg_inf",
        make_module=lambda: ScalarTensorNegInf().eval(),
        make_inputs=_neg_inf_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="A -inf number argument: OpenVINO's Constant::create range-checks doubles and refused "
        "-inf for f32, so the inlined constant became a framework node and compiling failed.",
    )
)


class ViewsOfInputReturned(nn.Module):
    def forward(self, x):
        return x.view(x.shape[0], 3), x.to(torch.float32), x.reshape(-1).reshape(x.shape[0], 3), torch.sin(x)


def _views_inputs(variant):
    torch.manual_seed(310 + variant)
    return (torch.randn((2, 4)[variant], 3),)


register(
    ModelCase(
        name="views_of_input_returned",
        make_module=lambda: ViewsOfInputReturned().eval(),
        make_inputs=_views_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        exact_outputs=(0, 1, 2),
        notes="Views of the input returned: the model handed to OpenVINO computes them (Reshape, "
        "Convert), but compiling may fold them into the input, which the CPU plugin then hands "
        "back stale; the engine checks the compiled model too.",
    )
)


class IntFloorDivInt32(nn.Module):
    def forward(self, i):
        return torch.div(i, 3, rounding_mode="floor"), i // 4, i % 3


def _int32_inputs(variant):
    b = (2, 3)[variant]
    return (torch.arange(-8 * b, 8 * b, dtype=torch.int32).reshape(b, 16),)


register(
    ModelCase(
        name="int32_floor_div",
        make_module=lambda: IntFloorDivInt32().eval(),
        make_inputs=_int32_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="Floor division and remainder of negative int32 values (round toward -inf): "
        "OpenVINO 2026.4.1's CPU plugin truncated -9 // 4 to -2; integer division now runs on "
        "the CPU kernels.",
    )
)


class WritesIntoBufferViews(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(3, 4, 5))

    def forward(self, x, idx):
        self.cache[0].index_copy_(0, idx, x)  # a write into select(cache, 0, 0)
        self.cache[:, 1:3].add_(1.0)  # a write into slice(cache, 1, 1, 3)
        return self.cache * 2, x.sum()


def _views_write_inputs(variant):
    torch.manual_seed(320 + variant)
    return (torch.randn(2, 5), torch.tensor([3, 1]) if variant == 0 else torch.tensor([0, 2]))


register(
    ModelCase(
        name="writes_into_buffer_views",
        make_module=lambda: WritesIntoBufferViews().eval(),
        make_inputs=_views_write_inputs,
        notes="In-place writes into a select and a slice of a buffer, as a KV cache does: the "
        "training-IR archive keeps them in place; pt2ov refused them until writes into "
        "select/slice views were scattered back into the buffer (select_scatter, slice_scatter).",
    )
)


# ---------------------------------------------------------------------------------------------
class ZeroDimCounter(nn.Module):
    """The running counter of issue 12: a 0-d float buffer updated with += and returned cloned."""

    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count += x.sum()
        return self.count.clone()


register(
    ModelCase(
        name="zero_dim_counter",
        make_module=lambda: ZeroDimCounter().eval(),
        make_inputs=lambda variant: (torch.ones(3) * (1 + variant),),
        expect_exact=True,
        notes="As exported, torch leaves add_ and copy_(b_count, add_) with no buffer mutation in the "
        "signature; pt2ov's functionalization made copy_ a functional aten.copy, which OpenVINO converts "
        "to Broadcast(src, ShapeOf(dst)); on a 0-d tensor that Broadcast kills the CPU plugin's "
        "compile_model (docs/EXACTNESS.md O9). copy_ now gives src itself, as PyTorch's does.",
    )
)


# ---------------------------------------------------------------------------------------------
class SliceSetitemAdd(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.zeros(3, 4))

    def forward(self, x):
        self.b[:, 1:3] += x
        return self.b.clone()


register(
    ModelCase(
        name="buffer_slice_setitem_add",
        make_module=lambda: SliceSetitemAdd().eval(),
        make_inputs=lambda variant: (torch.arange(6.0).reshape(3, 2) + variant,),
        expect_exact=True,
        notes="`self.b[:, 1:3] += x` as exported: add_ on the slice, then copy_ of its result into the "
        "same slice. Both were scattered back, and OpenVINO's frontend failed on the second "
        "slice_scatter (ReversepropResolver); the copy_ that writes back what was just written is "
        "now dropped.",
    )
)


class NarrowInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.ones(4, 3))

    def forward(self, x):
        self.b.narrow(0, 1, 2).mul_(x)
        return self.b.clone()


register(
    ModelCase(
        name="buffer_narrow_in_place",
        make_module=lambda: NarrowInPlace().eval(),
        make_inputs=lambda variant: (torch.full((2, 3), 2.0 + variant),),
        expect_exact=True,
        notes="An in-place op on narrow() of a buffer, as exported, was refused (narrow was not "
        "written back), and narrow itself had neither an OpenVINO converter nor a kernel; it is "
        "written back with slice_scatter and lowered to slice, as run_decompositions() does.",
    )
)


class AugmentedOr(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(5, dtype=torch.bool))

    def forward(self, x):
        self.seen |= x
        return self.seen.clone()


register(
    ModelCase(
        name="buffer_augmented_or",
        make_module=lambda: AugmentedOr().eval(),
        make_inputs=lambda variant: (torch.tensor([True, False, False, True, False]) if variant == 0
                                     else torch.tensor([False, True, False, False, False]),),
        notes="`self.seen |= x` is traced as aten.__ior__.Tensor, which the functionalization did not "
        "count as in place: it had no converter and no kernel, and the buffer never changed. It is "
        "now bitwise_or, as run_decompositions() gives.",
    )
)


class ConstantOverReduction(nn.Module):
    """Weight norm over the middle dim spelled out: a constant divided by reductions."""

    def forward(self, x):
        norm = torch.linalg.vector_norm(x, 2, [0, 2], keepdim=True)
        return (x * (torch.ones(1, 3, 1) / norm), torch.full((1, 3, 1), 2.0) / x.sum([0, 2], keepdim=True),
                torch.ones(1, 3, 1) / torch.linalg.vector_norm(x, 2, [2], keepdim=True), torch._weight_norm(x, torch.ones(1, 3, 1), 1))


register(
    ModelCase(
        name="constant_over_reduction",
        make_module=lambda: ConstantOverReduction().eval(),
        make_inputs=lambda variant: (torch.randn(2 + variant, 3, 6, generator=torch.Generator().manual_seed(40 + variant)),),
        notes="OpenVINO's CPU plugin computes a constant divided by a reduction the other way round "
        "(openvino_facts ConstantOverReductionReversed): every output came back wrong with exit 0. "
        "Such divisions run on pt2ov's CPU kernel.",
    )
)


class MatMulToScalar(nn.Module):
    def forward(self, m):
        return torch.mm(m, m.T).view([]) + 1, torch.inner(m[0], m[0])


register(
    ModelCase(
        name="matmul_view_to_scalar",
        make_module=lambda: MatMulToScalar().eval(),
        make_inputs=lambda variant: (torch.randn(1, 5, generator=torch.Generator().manual_seed(50 + variant)),),
        notes="A matmul reshaped to 0-d killed the process in OpenVINO's compile_model "
        "(openvino_facts MatMulViewToScalarCrashes); the view runs on pt2ov's CPU kernel.",
    )
)


class ReductionOverConstant(nn.Module):
    """A mean over the middle dim spelled as a sum divided by its count, as model code writes it."""

    def forward(self, x):
        return x.sum(1) / 4, x.sum(1, keepdim=True) / 2, x.amax((1, 2)) / 3, x.mean(1) / 0.5, x[:, :1].sum(2) / 2


register(
    ModelCase(
        name="reduction_over_constant",
        make_module=lambda: ReductionOverConstant().eval(),
        make_inputs=lambda variant: (torch.randn(2 + variant, 4, 5, generator=torch.Generator().manual_seed(50 + variant)),),
        notes="OpenVINO's CPU plugin fills every slice after the first of dim 0 with zeros when a reduction over "
        "dim 1 of a 3-d tensor is divided by a constant (openvino_facts ReductionOverConstantHalfZero): found in "
        "the trapezoid decomposition, wrong values with exit 0. Such divisions run on pt2ov's CPU kernel.",
    )
)


class NanOrderings(nn.Module):
    """Sorts, argsorts and buckets of rows with NaN and ties."""

    def forward(self, x, boundaries):
        values, indices = torch.sort(x, dim=1, stable=True)
        return (values, indices, torch.argsort(x, dim=1, descending=True, stable=True), torch.msort(x),
                torch.bucketize(x, boundaries), torch.bucketize(x, boundaries, right=True))


def _nan_ordering_inputs(variant):
    g = torch.Generator().manual_seed(60 + variant)
    x = torch.randint(-2, 3, (3 + variant, 7), generator=g).float()
    x[0, 1] = x[1, 4] = x[2, 0] = float("nan")
    x[1, 2] = -float("inf")
    return x, torch.tensor([-1.5, 0.0, 1.0])


register(
    ModelCase(
        name="nan_orderings",
        make_module=lambda: NanOrderings().eval(),
        make_inputs=_nan_ordering_inputs,
        expect_exact=True,
        notes="OpenVINO's TopK does not sort NaN last nor keep PyTorch's order of ties (openvino_facts "
        "SortOrderNotPyTorchs), and its Bucketize puts NaN in bucket 0 (BucketizeNanFirst): wrong values and "
        "indices with exit 0. These run on pt2ov's CPU kernels.",
    )
)


class CeilModeAvgPool(nn.Module):
    """Ceil-mode average pools whose last window runs past the padded input."""

    def forward(self, x):
        return (nn.functional.avg_pool2d(x, (1, 3), (1, 2), (0, 1), ceil_mode=True),
                nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                nn.functional.avg_pool1d(x[0], 3, 2, 1, ceil_mode=True))


register(
    ModelCase(
        name="ceil_mode_avg_pool",
        make_module=lambda: CeilModeAvgPool().eval(),
        make_inputs=lambda variant: (torch.randn(1, 2, 5 + variant, 6, generator=torch.Generator().manual_seed(70 + variant)),),
        notes="OpenVINO divides a ceil-mode window that runs past input plus padding by the whole kernel size "
        "(openvino_facts AvgPoolCeilPaddedDivisor): wrong values with exit 0. Such pools run on pt2ov's CPU kernel.",
    )
)


class EmptyContraction(nn.Module):
    """Linear layers and products over a dim of size 0: PyTorch sums nothing and gives zeros (or the bias)."""

    def __init__(self):
        super().__init__()
        self.empty_in = nn.Linear(0, 3)
        self.right = nn.Parameter(torch.randn(0, 5, generator=torch.Generator().manual_seed(61)))

    def forward(self, x, y):
        return self.empty_in(x), x @ self.right, torch.mm(y, y.T[:, :0]), torch.bmm(x[None], self.right[None]) + y.sum()


register(
    ModelCase(
        name="matmul_over_empty_dim",
        make_module=lambda: EmptyContraction().eval(),
        make_inputs=lambda variant: (
            torch.randn(2, 0),
            torch.randn(4, 3, generator=torch.Generator().manual_seed(60 + variant)),
        ),
        notes="OpenVINO's MatMul over an empty contraction dim with a constant operand returned uninitialised "
        "memory, exit 0, and with no constant operand did not compile (openvino_facts MatMulOfEmptyUninitialised); "
        "such products run on pt2ov's CPU kernels.",
    )
)


class AbsOfArange(nn.Module):
    """abs of an arange that crosses zero, as a reflection pad's index arithmetic makes it."""

    def forward(self, x):
        return x + torch.arange(-3.0, 3.0).abs(), torch.arange(-2, 4).view(2, 3).abs() * 2


register(
    ModelCase(
        name="abs_of_arange",
        make_module=lambda: AbsOfArange().eval(),
        make_inputs=lambda variant: (torch.randn(6, generator=torch.Generator().manual_seed(70 + variant)),),
        notes="OpenVINO's CPU plugin dropped an Abs of a Range (openvino_facts AbsOfRangeDropped): wrong "
        "values with exit 0; the abs runs on pt2ov's CPU kernel.",
        exact_outputs=(1,),
    )
)


class TakeAlongDimBuffer(nn.Module):
    """take_along_dim with int64 index buffers: the issue's [3, 2], and indices broadcast as [1, 2]
    and [3, 1], negative and past the end (with a dim PyTorch takes them modulo its size), and the
    flattened form (no dim: no wrapping)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([[0, 3], [1, 2], [2, 0]]))
        self.register_buffer("wrapping", torch.tensor([[-1, 5], [0, -4], [7, -2]]))
        self.register_buffer("row", torch.tensor([[1, -1]]))
        self.register_buffer("column", torch.tensor([[0], [3], [-4]]))
        self.register_buffer("flat", torch.tensor([[11, 0], [7, 5]]))

    def forward(self, x):
        return (torch.take_along_dim(x, self.idx, 1), torch.take_along_dim(x, self.wrapping, 1),
                torch.take_along_dim(x, self.row, 1), torch.take_along_dim(x, self.column, 1),
                torch.take_along_dim(x, self.flat), torch.take_along_dim(x, self.column, 0))


register(
    ModelCase(
        name="take_along_dim_buffer_index",
        make_module=lambda: TakeAlongDimBuffer().eval(),
        make_inputs=lambda variant: (torch.randn(3, 4, generator=torch.Generator().manual_seed(80 + variant)),),
        expect_exact=True,
        notes="The take_along_dim kernel wrapped the indices in place, through contiguous_as, which returns an "
        "int64 row-major index itself: a module's buffer lives in the archive's read-only mapping, so every run "
        "on the CPU kernels (forced, or the timed placement of a small program) died of SIGSEGV. The wrapped "
        "indices now go to new memory.",
    )
)


class PReLUShapes(nn.Module):
    """nn.PReLU of a 0-d input, and per-channel PReLU of [N, C], [N, C, H, W] and a 1-d input."""

    def __init__(self):
        super().__init__()
        generator = torch.Generator().manual_seed(90)
        self.single = nn.PReLU()
        self.channels = nn.PReLU(num_parameters=3)
        self.image_channels = nn.PReLU(num_parameters=3)
        for prelu in (self.single, self.channels, self.image_channels):
            prelu.weight.data = torch.rand(prelu.weight.shape, generator=generator) - 0.5

    def forward(self, scalar, nc, nchw, vector):
        return (self.single(scalar), self.single(vector), self.channels(nc), self.image_channels(nchw),
                self.single(nchw), torch.ops.aten.prelu.default(scalar, self.single.weight.reshape(())))


def _prelu_inputs(variant):
    generator = torch.Generator().manual_seed(91 + variant)
    return (torch.tensor(-1.5 if variant == 0 else 2.0), torch.randn(4, 3, generator=generator),
            torch.randn(2, 3, 4, 5, generator=generator), torch.randn(7, generator=generator))


register(
    ModelCase(
        name="prelu_shapes",
        make_module=lambda: PReLUShapes().eval(),
        make_inputs=_prelu_inputs,
        notes="nn.PReLU() of a 0-d tensor returned shape [1] instead of []: the prelu decomposition multiplied "
        "the 0-d input by the [1] weight. It now views the weight as ATen's prelu does (the input's rank, its "
        "values along dim 1), so a 0-d input takes a 0-d weight.",
    )
)


class EinsumScoresReused(nn.Module):
    """Attention scores by einsum, returned and fed to a second einsum."""

    def forward(self, q, k):
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)
        return scores, torch.einsum("bhqk,bhkd->bhqd", scores.softmax(-1), k)


register(
    ModelCase(
        name="einsum_scores_reused",
        make_module=lambda: EinsumScoresReused().eval(),
        make_inputs=lambda variant: (
            torch.randn(2, 3, 4, 6, generator=torch.Generator().manual_seed(80 + variant)),
            torch.randn(2, 3, 4, 6, generator=torch.Generator().manual_seed(90 + variant)),
        ),
        notes="As exported (einsum decomposed by pt2ov into views and batched products, all on one OpenVINO "
        "step), the scores came back with their batched product's shape (6, 4, 4) instead of (2, 3, 4, 4), "
        "exit 0: OpenVINO's frontend gave the Result of the view the MatMul's shape (plain openvino.convert_model "
        "does the same on the view-softmax-view spelling). A converted Result whose shape is not PyTorch's now "
        "sends its node to the CPU kernels at load (compile/stages.cpp).",
    )
)


class MatmulOfBroadcastBatches(nn.Module):
    """Random programs own 120674 (run 13), reduced: torch.matmul of [6, 2, 3] and [1, 3, 4]
    broadcasts the batch dim. pt2ov spells it as mm for OpenVINO, and the shape contract of mm
    (two matrices) refused the broadcast as a contradiction of pt2ov's own rewrite (exit 3)."""

    def forward(self, x, y, v):
        return torch.matmul(x, y), torch.matmul(v, y), torch.matmul(x, y[0])


def _matmul_of_broadcast_batches_inputs(variant):
    g = torch.Generator().manual_seed(120674 + variant)
    return torch.randn(6, 2, 3, generator=g), torch.randn(1, 3, 4, generator=g), torch.randn(3, generator=g)


register(
    ModelCase(
        name="matmul_of_broadcast_batches",
        make_module=lambda: MatmulOfBroadcastBatches().eval(),
        make_inputs=_matmul_of_broadcast_batches_inputs,
        notes="torch.matmul with broadcast batch dims and 1-d operands, spelled as mm before conversion: its shape "
        "contract must leave anything but two matrices to the kernel (random programs own 120674).",
    )
)


class FoldedInt8Weight(nn.Module):
    """PT2E's convert_pt2e with fold_quantize=True (its default), reduced: an int8 weight folded
    into the program and dequantized per channel, uint8 activations quantized and dequantized per
    tensor around a linear layer."""

    def __init__(self):
        super().__init__()
        import torch.ao.quantization.fx._decomposed  # noqa: F401  registers torch.ops.quantized_decomposed
        g = torch.Generator().manual_seed(2600)
        self.register_buffer("weight", torch.randint(-128, 128, (12, 8), generator=g, dtype=torch.int8))
        self.register_buffer("scales", torch.rand(12, generator=g) * 0.01 + 0.001)
        self.register_buffer("zero_points", torch.zeros(12, dtype=torch.int64))

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        xq = qd.quantize_per_tensor(x, 0.0171, 147, 0, 255, torch.uint8)
        xd = qd.dequantize_per_tensor(xq, 0.0171, 147, 0, 255, torch.uint8)
        w = qd.dequantize_per_channel(self.weight, self.scales, self.zero_points, 0, -128, 127, torch.int8)
        return torch.nn.functional.linear(xd, w), w, xq


def _folded_int8_weight_inputs(variant):
    g = torch.Generator().manual_seed(2601 + variant)
    return (torch.randn((3, 6)[variant], 8, generator=g) * 2,)


register(
    ModelCase(
        name="folded_int8_weight",
        make_module=lambda: FoldedInt8Weight().eval(),
        make_inputs=_folded_int8_weight_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        exact_outputs=(1, 2),
        notes="OpenVINO's frontend passes quantized_decomposed.dequantize_per_channel through unchanged, so "
        "the folded int8 weight reached the linear layer as integers (an internal error, caught by the "
        "output guard); the quantization ops are now decomposed into the ATen ops of their reference "
        "implementations before placement, and the dequantized weight and quantized input are eager's "
        "bit for bit.",
    )
)


class SolveWithEmptyRightHandSide(nn.Module):
    def forward(self, a, b):
        lu, pivots = torch.linalg.lu_factor(a)
        return (torch.linalg.solve(a, b[..., :0]), torch.linalg.lu_solve(lu, pivots, b[..., :0]),
                torch.linalg.lu_solve(lu, pivots, b[..., :0], adjoint=True), torch.linalg.solve(a, b))


def _solve_with_empty_rhs_inputs(variant):
    g = torch.Generator().manual_seed(2611 + variant)
    n = (3, 4)[variant]
    return (torch.randn(2, n, n, generator=g, dtype=torch.float64) + 3 * torch.eye(n, dtype=torch.float64),
            torch.randn(2, n, 2, generator=g, dtype=torch.float64))


register(
    ModelCase(
        name="solve_with_empty_right_hand_side",
        make_module=lambda: SolveWithEmptyRightHandSide().eval(),
        make_inputs=_solve_with_empty_rhs_inputs,
        notes="A right-hand side with no columns: the LU kernels swapped rows of an empty matrix by its "
        "pivots, which offsets Eigen's null data pointer (undefined behaviour, found by the kernel fuzzer "
        "under UBSan); an empty right-hand side now returns before the row swaps.",
    )
)


class LeftPaddedAttention(nn.Module):
    """Two attention layers under a causal mask and a padding mask, as transformers builds them for
    a left-padded batch: the padded positions' query rows keep no key. OpenVINO's attention gave
    NaN for such a row where PyTorch gives 0, and the second layer spread it to every position
    (35 decoder-LM families returned all-NaN logits, exit 0). Once with a boolean mask, once with
    an additive one (0 / -inf), once grouped-query (enable_gqa)."""

    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads, self.width = heads, dim // heads
        self.qkv1 = nn.Linear(dim, 3 * dim)
        self.qkv2 = nn.Linear(dim, 3 * dim)
        self.kv3 = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def _split(self, x, layer):
        b, t, _ = x.shape
        return [p.view(b, t, self.heads, self.width).transpose(1, 2) for p in layer(x).chunk(3, dim=-1)]

    def forward(self, x, attention_mask):
        b, t, d = x.shape
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        keep = causal[None, None] & attention_mask.bool()[:, None, None, :]
        q, k, v = self._split(x, self.qkv1)
        h = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        h = h.transpose(1, 2).reshape(b, t, d) + x
        additive = torch.zeros(keep.shape, dtype=x.dtype).masked_fill(~keep, float("-inf"))
        q, k, v = self._split(h, self.qkv2)
        h2 = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=additive)
        h2 = h2.transpose(1, 2).reshape(b, t, d) + h
        k3, v3 = self.kv3(h2).view(b, t, 2, 8).transpose(1, 2).chunk(2, dim=-1)  # 2 key/value heads of 4
        q3 = h2.view(b, t, 4, 4).transpose(1, 2)
        h3 = nn.functional.scaled_dot_product_attention(q3, k3.contiguous(), v3.contiguous(), attn_mask=keep, enable_gqa=True)
        return self.out(h3.transpose(1, 2).reshape(b, t, d) + h2)


def _left_padded_attention_inputs(variant):
    torch.manual_seed(960 + variant)
    b, t = ((2, 6), (3, 5))[variant]
    mask = torch.ones(b, t, dtype=torch.int64)
    mask[0, :3] = 0  # three pad tokens on the left
    if variant == 1:
        mask[1, :1] = 0
        mask[2, :] = 0  # a whole padded sequence in the batch
    return (torch.randn(b, t, 16), mask)


_PADDED_BATCH, _PADDED_SEQ = Dim("batch", min=1, max=8), Dim("seq", min=2, max=32)


def _make_left_padded_attention():
    torch.manual_seed(961)
    return LeftPaddedAttention().eval()


register(
    ModelCase(
        name="sdpa_left_padded_mask",
        make_module=_make_left_padded_attention,
        make_inputs=_left_padded_attention_inputs,
        dynamic_shapes=({0: _PADDED_BATCH, 1: _PADDED_SEQ}, {0: _PADDED_BATCH, 1: _PADDED_SEQ}),
        notes="Attention masks of a left-padded batch (and a whole padded sequence) blank the pad "
        "positions' query rows: OpenVINO's attention gave NaN there (PyTorch 0), spread by the next "
        "layer to every position (AttentionMaskedRowsNaN).",
    )
)


# ConstantOverFusedOpReversed (issue 43): a constant (a buffer, made a Constant at load) divided by
# the result of an op the CPU plugin gives post-ops to came back divided the other way round.


class ConstantOverInstanceNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.tensor([0.990]))
        self.register_buffer("b", torch.tensor([-0.955]))
        self.register_buffer("c", torch.tensor([[[-1.0756]]]))

    def forward(self, x):
        return self.c / (nn.functional.instance_norm(x, weight=self.w, bias=self.b, eps=1e-3) + 5.0)


def _constant_over_instance_norm_inputs(variant):
    torch.manual_seed(970 + variant)
    return (torch.randn((3, 2)[variant], 1, 5),)


register(
    ModelCase(
        name="constant_over_instance_norm",
        make_module=lambda: ConstantOverInstanceNorm().eval(),
        make_inputs=_constant_over_instance_norm_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="c / (instance_norm(x, w, b) + 5) with buffers came back as (instance_norm(x, w, b) + 5) / c, "
        "5.2 off, exit 0: the plugin fused the Divide into the MVN as a post-op, the wrong way round, once "
        "the load made the buffer c a Constant (ConstantOverFusedOpReversed).",
    )
)


class ConstantOverConvolutions(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.transposed = nn.ConvTranspose2d(4, 4, 3)
        self.register_buffer("c", torch.tensor([1.7, -0.6, 2.3, 0.9]).view(1, 4, 1, 1))
        self.register_buffer("d", torch.tensor(-1.3))

    def forward(self, x):
        return self.c / (torch.relu(self.conv(x)) + 1.0), self.d / (self.transposed(x) + 10.0)


def _constant_over_convolutions_inputs(variant):
    torch.manual_seed(972 + variant)
    return (torch.randn((2, 3)[variant], 4, 6, 6),)


def _make_constant_over_convolutions():
    torch.manual_seed(971)
    return ConstantOverConvolutions().eval()


register(
    ModelCase(
        name="constant_over_convolutions",
        make_module=_make_constant_over_convolutions,
        make_inputs=_constant_over_convolutions_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="A buffer of one value a channel divided by relu(conv2d(x)) + 1, and a 0-d one by "
        "conv_transpose2d(x) + 10, came back as the divisor divided by the buffer: the plugin fused the "
        "Divide into the convolution, the wrong way round (ConstantOverFusedOpReversed).",
    )
)


class ConstantOverMatmuls(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.register_buffer("c", torch.tensor(1.7))
        self.register_buffer("d", torch.tensor(-0.8))

    def forward(self, x):
        return self.c / (torch.relu(self.fc(x)) + 1.0), self.d / (torch.relu(x @ x.transpose(-1, -2)) + 1.0)


def _constant_over_matmuls_inputs(variant):
    torch.manual_seed(974 + variant)
    return (torch.randn((2, 3)[variant], 4, 6),)


def _make_constant_over_matmuls():
    torch.manual_seed(973)
    return ConstantOverMatmuls().eval()


register(
    ModelCase(
        name="constant_over_matmuls",
        make_module=_make_constant_over_matmuls,
        make_inputs=_constant_over_matmuls_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="0-d buffers divided by a linear's or a matmul's result (after relu and + 1) came back as the "
        "result divided by the buffer: the plugin fused the Divide into the FullyConnected or MatMul, the "
        "wrong way round (ConstantOverFusedOpReversed).",
    )
)


class ConstantOverInterpolate(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("c", torch.tensor(1.7))

    def forward(self, x):
        return self.c / (nn.functional.interpolate(x, scale_factor=2, mode="bilinear").abs() + 1.0)


def _constant_over_interpolate_inputs(variant):
    torch.manual_seed(976 + variant)
    return (torch.randn((2, 3)[variant], 4, 5, 5),)


register(
    ModelCase(
        name="constant_over_interpolate",
        make_module=lambda: ConstantOverInterpolate().eval(),
        make_inputs=_constant_over_interpolate_inputs,
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="A 0-d buffer divided by a bilinear upsampling's result (after abs and + 1) came back as the "
        "result divided by the buffer: the plugin fused the Divide into the Interpolate, the wrong way "
        "round (ConstantOverFusedOpReversed).",
    )
)


# --- found by structured inputs (issue 43: tests/models/structured_inputs.py) -------------------


class Int32ReductionsBeyondFloat(nn.Module):
    """max, min and sum of int32 values beyond 2**24: OpenVINO's CPU plugin reduces int32 in
    float32."""

    def forward(self, x):
        return x.amax(1), x.amin(1), x.sum(1), x.max(1).values, x.amax(0)


def _int32_reductions_inputs(variant):
    edge = 2**31 - 2
    return (torch.tensor([[16777217, 3, -5], [edge, 1, -edge], [-edge + variant, 7, 2**24 + 3]], dtype=torch.int32),)


register(
    ModelCase(
        name="int32_reductions_beyond_float",
        make_module=lambda: Int32ReductionsBeyondFloat().eval(),
        make_inputs=_int32_reductions_inputs,
        notes="amax/amin/max.dim/sum of int32 [3, 3] came back rounded to float32 by OpenVINO 2026.4.1's CPU "
        "plugin, exit 0 (OpenVINO alone too): amax(1) of 16777217 gave 16777216, of 2147483646 -2147483648, "
        "sum(1) of [2147483646, 1, -2147483646] 0 (PyTorch 1); an int32 at the int32 edge "
        "(found by the int_edge structured inputs: integer_reduce_of_rank_three, reduce_then_arithmetic). "
        "The CPU kernels are right (--cpu-op); int64 is right.",
    )
)


class VarianceOfTinyValues(nn.Module):
    """var and std with more correction than samples of values near 1e-30: eager sums the squared
    deviations in double (positive, so the division by max(0, N - c) = 0 gives inf); float32
    squares underflow to 0 and 0 / 0 is NaN."""

    def forward(self, x):
        return torch.var(x, 1, correction=8), torch.std(x, 1, correction=8)


def _variance_of_tiny_values_inputs(variant):
    return (torch.tensor([[1.0, 1.2, 1.4, 1.1, 1.3, 1.25], [-1.0, 2.0, 1.5, -0.5, 0.25, 1.0 + variant]]) * 1e-30,)


register(
    ModelCase(
        name="variance_of_tiny_values",
        make_module=lambda: VarianceOfTinyValues().eval(),
        make_inputs=_variance_of_tiny_values_inputs,
        notes="var/std(x, 1, correction=8) of 6 values near 1e-30: PyTorch inf, pt2ov NaN, exit 0, both forms "
        "(pt2ov's decomposition of a correction other than 0 and 1 summed float32 squares, which underflow; "
        "PyTorch's CPU var/std accumulate float32 in double). The same root: x.std(1) of these values is 1.4e-31 "
        "in eager and was 0 through OpenVINO (x / x.std() inf). Found by the `small` structured inputs "
        "(var_std_correction, constant_over_full_reduction). Now every var/std/var_mean is pt2ov's decomposition "
        "of the values scaled by their largest magnitude (graph/decompose/reductions.cpp).",
    )
)


class VarianceOfLargeValues(nn.Module):
    """std and var_mean of values near 1e19, whose float32 squares overflow (own seed 140892:
    std of squares; 141139: std of a gelu of large values)."""

    def forward(self, x):
        v, m = torch.var_mean(x, 1)
        return x.std(1), v, m, torch.std(x, (0, 1), correction=0)


register(
    ModelCase(
        name="variance_of_large_values",
        make_module=lambda: VarianceOfLargeValues().eval(),
        make_inputs=lambda variant: (torch.tensor([[1.0, -2.0, 1.5, 3.0], [2.5 + variant, 0.5, -1.0, 4.0]]) * 6e18,),
        notes="std/var_mean of values near 1e19: their float32 squares overflow, so OpenVINO's conversion (and "
        "pt2ov's earlier decomposition) gave inf where PyTorch, accumulating in double, gives 4.1e19; exit 0, both "
        "forms. Found by the `large` structured inputs (own seeds 140892, 141139).",
    )
)


class GeluOfInfinity(nn.Module):
    def forward(self, x, y):
        return F.gelu(x), F.gelu(x, approximate="tanh"), F.gelu(y.t())  # a transposed view: eager's scalar loop


register(
    ModelCase(
        name="gelu_of_infinity",
        make_module=lambda: GeluOfInfinity().eval(),
        make_inputs=lambda variant: (torch.tensor([float("inf"), float("-inf"), 2e38, 1.7e38, -3e38, 1.0 + variant, -0.5]),
                                     torch.tensor([[float("inf"), 1.0, -2.0], [0.5, float("inf"), 3e38 + variant]])),
        notes="gelu of +inf in a tensor of more than one element: PyTorch's vectorized float32 kernel, on a CPU with AVX-512, gives NaN "
        "(and rounds x * (1 + erf) before halving, so 2e38 overflows to inf); pt2ov's CPU kernel, where a call "
        "with inf runs, gave inf and 2e38, exit 0. Found by the `nonfinite` structured inputs (NNSmith seeds "
        "140185, 140651: a gelu then abs; 144948: a gelu of a transposed view, which eager walks in its scalar loop, +inf). "
        "The tanh form gives +inf for +inf in both.",
    )
)


class CdistZeroNormOfNan(nn.Module):
    def forward(self, a, b):
        return torch.cdist(a, b, p=0)


register(
    ModelCase(
        name="cdist_zero_norm_of_nan",
        make_module=lambda: CdistZeroNormOfNan().eval(),
        make_inputs=lambda variant: (torch.tensor([[[float("nan"), 1.0], [0.0, float("inf")], [2.0 + variant, 1.0]]]),
                                     torch.tensor([[[1.0, 1.0], [0.0, 2.0]]])),
        notes="cdist(a, b, p=0) where a holds NaN: PyTorch NaN for every distance to that row, pt2ov's CPU kernel "
        "(where a call with NaN or inf runs) counted the other coordinates (1, 2), exit 0. Found by the "
        "`nonfinite` structured inputs (cdist_norms).",
    )
)


class VarMeanOfInfiniteRows(nn.Module):
    def forward(self, x):
        return torch.var_mean(x, 1, correction=2), torch.std_mean(x, 1, correction=2)


register(
    ModelCase(
        name="var_mean_of_infinite_rows",
        make_module=lambda: VarMeanOfInfiniteRows().eval(),
        make_inputs=lambda variant: (torch.tensor([[1.0, float("inf"), 2.0, 3.0], [1.0, 2.0, 5.0 + variant, float("-inf")],
                                                   [0.5, 1.5, 2.5, 3.5]]),),
        notes="var_mean/std_mean(x, 1, correction=2) of a row [1, inf, 2, 3]: PyTorch's mean is NaN (its Welford "
        "update after the inf subtracts inf from inf), pt2ov's was inf, exit 0, on the CPU kernels a call with "
        "NaN or inf runs on (the row [1, 2, 5, -inf] ends with the inf: -inf in both). Found by the `nonfinite` "
        "structured inputs (var_std_correction_f16). pt2ov's var_mean now makes the mean NaN where a non-finite "
        "value is not the last element.",
    )
)


class RemainderOfLargeFloats(nn.Module):
    def forward(self, x):
        return torch.remainder(x, 3.0), x % -2.5


register(
    ModelCase(
        name="remainder_of_large_floats",
        make_module=lambda: RemainderOfLargeFloats().eval(),
        make_inputs=lambda variant: (torch.tensor([1.094e18, -1.3423e18, 2.0**40, 1e8 + 8, 16777221.0, 123456.75, -7.5 - variant,
                                                   3.0e7 + 0.5]),),
        notes="remainder of float32 values beyond 2**24 by a number, on OpenVINO 2026.4.1 (FloorMod; OpenVINO alone "
        "too): remainder(1.094e18, 3) gave -6.87e10, remainder(2**40, 3) 0 (PyTorch 1, an exact fmod), exit 0; "
        "fmod is already routed (FmodOfConstantDrifts). Found by the `large` structured inputs of random programs "
        "(own seeds 138, 106).",
    )
)



class ConcatUnderOtherNames(nn.Module):
    """torch.concat and torch.concatenate, cat under other names: the exported form keeps them, and
    pt2ov refused them (no converter, no CPU kernel); phimoe of transformers uses torch.concat."""

    def forward(self, a, b):
        return torch.concat([a, b], dim=1), torch.concatenate((b, a)), torch.concat([a.t(), b.t()], -1)


register(
    ModelCase(
        name="concat_under_other_names",
        make_module=lambda: ConcatUnderOtherNames().eval(),
        make_inputs=lambda variant: (torch.randn(3, 4 + variant), torch.randn(3, 4 + variant)),
        notes="aten.concat and aten.concatenate as exported were refused: now spelt as cat before conversion.",
    )
)


class NormOverUnitDims(nn.Module):
    """linalg.vector_norm over dims of size 1 (own seed 142720: a norm of one selected value of
    1e36): ATen gives |x| without squaring, OpenVINO's ReduceL2 sqrt(x * x), inf for 1e36."""

    def forward(self, x, y):
        return (torch.linalg.vector_norm(x, 2, 0), torch.linalg.vector_norm(x, 3, 0, keepdim=True),
                torch.linalg.vector_norm(x, 0, 0), torch.linalg.vector_norm(y), torch.norm(x, dim=0),
                torch.linalg.vector_norm(x, 2, 0, dtype=torch.float64))


register(
    ModelCase(
        name="norm_over_unit_dims",
        make_module=lambda: NormOverUnitDims().eval(),
        make_inputs=lambda variant: (torch.tensor([[1e36, -1e-30, 0.0, -3.0 - variant]]), torch.full((1, 1), 1e36)),
        notes="vector_norm of 1e36 over a dim of size 1: PyTorch 1e36 (|x|), pt2ov inf (OpenVINO squares it), "
        "1e-30 gave 0; exit 0. Found by the `large` structured inputs (own seed 142720).",
    )
)


class MaxOfTiedValues(nn.Module):
    """max.dim and min.dim over the last dim of rows with tied extremes (own seed 143730: max of a
    triu of a constant, 16 columns; and integer-valued scores, as quantized or masked logits
    give)."""

    def forward(self, x, scores):
        t = torch.triu(x * 1.0, 1)
        values, indices = torch.max(t, -1)
        low_values, low_indices = torch.min(-t, -1, keepdim=True)
        return values, indices, low_values, low_indices, torch.max(scores * 1.0, -1)[1], torch.max(scores * 1.0, 1)[1]


register(
    ModelCase(
        name="max_of_tied_values",
        make_module=lambda: MaxOfTiedValues().eval(),
        make_inputs=lambda variant: (torch.full((2, 16 + variant), 0.75),
                                     torch.randint(0, 3, (3, 5, 40), generator=torch.Generator().manual_seed(variant)).float()),
        notes="max.dim/min.dim indices over the last dim with tied values, 16 or more of them: OpenVINO's conversion "
        "gave index 4 or 16 where PyTorch gives the first tie (1, 2), exit 0, OpenVINO alone too; pt2ov computes "
        "them as amax/amin beside argmax/argmin, which OpenVINO gets right. Found by the `constant` structured "
        "inputs (own seed 143730).",
    )
)


class UnitAveragePoolReadTwice(nn.Module):
    """A 1x1 avg_pool2d (an identity) read by an expand into a pad and by another op (NNSmith seed
    146168, on random normal inputs): OpenVINO's CPU plugin gave the pad values 0.42 off."""

    def forward(self, x):
        a = F.avg_pool2d(x.sum(-1, keepdim=True), [1, 1], [1, 1])
        return F.pad(a.expand(4, 6, 4, 1), [0, 0, 1, 1], "constant", 0.5), a * 2, F.pad(a.expand(4, 6, 4, 1), [0, 0, 1, 1], "reflect")


register(
    ModelCase(
        name="unit_average_pool_read_twice",
        make_module=lambda: UnitAveragePoolReadTwice().eval(),
        make_inputs=lambda variant: (torch.randn(4, 6, 1, 5, generator=torch.Generator().manual_seed(146168 + variant)),),
        notes="avg_pool2d(kernel 1, stride 1) read by expand-then-pad and by a multiply: the pad came back wrong "
        "(11 off for values near 1), exit 0, OpenVINO's CPU plugin; found on the random normal inputs of NNSmith "
        "seed 146168. pt2ov makes a unit average pool a clone (graph/canonical_forms.cpp).",
    )
)


class InstanceNormOfConstantRows(nn.Module):
    """instance_norm of rows that are one value (zero variance): PyTorch returns the bias exactly.
    Found by random programs run 19 (own seed 157652, the `constant` domain)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([1.3644111]))
        self.bias = nn.Parameter(torch.tensor([-0.08283993]))

    def forward(self, x):
        return nn.functional.instance_norm(x, weight=self.weight, bias=self.bias)


register(
    ModelCase(
        name="instance_norm_of_constant_rows",
        make_module=lambda: InstanceNormOfConstantRows().eval(),
        make_inputs=lambda variant: (torch.full(((3, 2)[variant], 1, 6, 5), 0.75 + variant),),
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        notes="Rows of 30 equal values (0.75): eager gives the bias, -0.0828399; pt2ov's step, one MVN node, gave "
        "-0.0828657 (3e-4 relative, exit 0): the mean of the row leaves a residue of about 6e-8 that 1/sqrt(eps) "
        "multiplies. MeanOfEqualValuesRounded's workaround (each row shifted by its first element) was written "
        "for layer_norm's MVN, whose axes are constants; instance_norm's arrive as a Range up to the rank "
        "(ShapeOf of ShapeOf), which it could not fold, so it left this MVN alone. It folds static shapes now.",
    )
)
