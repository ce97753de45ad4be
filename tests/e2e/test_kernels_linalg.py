"""The linear algebra CPU kernels (src/kernels/linalg_*.cpp) end to end, against PyTorch eager.

Each family runs as exported and decomposed, in float32 and float64, batched, with inputs made
non-contiguous inside the program (transposes and slices kept on the CPU). Outputs LAPACK
determines uniquely are compared: factors with partial pivoting or Householder signs, pivots
and info (int32), solves, inverses, determinants, singular values and eigenvalues, and what is
built on them. Singular and non-positive-definite inputs: the *_ex ops return LAPACK's info,
the plain ops raise naming the node. Singular vectors and eigenvectors are not unique, and a
program reading them is refused (test_vectors_are_refused).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from conftest import describe, run_cli
from test_kernels import Family, Lambda, MODES, sample, check_family, exported_families  # noqa: F401
from tests.models.compare import to_numpy

L = torch.linalg
VIEWS = ("aten.transpose", "aten.permute", "aten.slice")
VIEWS_ABSENT = {"exported": ("aten.permute",), "decomposed": ("aten.transpose",)}


def matrices(dtype, shape, seed, *, low=-2.0, high=2.0):
    return sample(dtype, shape, seed, specials=False, low=low, high=high)


def positive_definite(dtype, shape, seed):
    a = matrices(torch.float64, shape, seed)
    n = shape[-1]
    return (a @ a.mT + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def well_conditioned(dtype, shape, seed):
    n = shape[-1]
    return (matrices(torch.float64, shape, seed) + 3 * torch.eye(n, dtype=torch.float64)).to(dtype)


def absent(exported=(), decomposed=()):
    return {"exported": tuple(exported) + VIEWS_ABSENT["exported"], "decomposed": tuple(decomposed) + VIEWS_ABSENT["decomposed"]}


# --- Cholesky ---------------------------------------------------------------------------------
def cholesky_program(spd64, spd32, not_pd, rhs):
    lower, info = L.cholesky_ex(spd64)
    upper = L.cholesky_ex(spd64.transpose(-1, -2), upper=True).L
    failed = L.cholesky_ex(not_pd).info
    old = torch.cholesky(spd32[:, :3, :3])
    return (lower, info, upper, failed, old, torch.cholesky(spd32, upper=True),
            torch.cholesky_solve(rhs, lower), torch.cholesky_solve(rhs.transpose(-1, -2)[..., :2], upper.transpose(-1, -2).transpose(-1, -2), upper=True),
            torch.cholesky_inverse(lower), torch.cholesky_inverse(upper, upper=True))


def cholesky_inputs():
    not_pd = torch.tensor([[[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [[4.0, 0, 0], [0, 1, 0], [0, 0, -1]]])
    return (positive_definite(torch.float64, (2, 3, 3), 1), positive_definite(torch.float32, (2, 4, 4), 2), not_pd,
            matrices(torch.float64, (2, 3, 3), 3))


# --- LU ---------------------------------------------------------------------------------------
def lu_program(square, wide, tall, singular, rhs):
    lu, pivots, info = L.lu_factor_ex(square.transpose(-1, -2))
    p, l, u = L.lu(wide)
    p2, l2, u2 = L.lu(tall[:, ::2])
    lu_s, piv_s, info_s = L.lu_factor_ex(singular)
    unpacked = torch.lu_unpack(lu, pivots)
    data_only = torch.lu_unpack(lu, pivots, unpack_pivots=False)[1:]
    return (lu, pivots, info, p, l, u, p2, l2, u2, lu_s, piv_s, info_s, *unpacked, *data_only,
            L.lu_solve(lu, pivots, rhs), L.lu_solve(lu, pivots, rhs.transpose(-1, -2), left=False),
            L.lu_solve(lu, pivots, rhs, adjoint=True), torch.lu_solve(rhs, lu, pivots),
            *torch.lu(square), *torch.lu(singular, get_infos=True))


def lu_inputs(dtype=torch.float64):
    singular = torch.tensor([[[0.0, 0.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]], dtype=dtype)
    return (matrices(dtype, (2, 4, 4), 4), matrices(dtype, (3, 5), 5), matrices(dtype, (2, 10, 3), 6), singular,
            matrices(dtype, (2, 4, 2), 7))


LU_OPS = ("aten.linalg_lu_factor_ex", "aten.linalg_lu", "aten.lu_unpack", "aten.linalg_lu_solve", "aten.lu_solve",
          "aten._lu_with_info")


# --- solve, inverse, determinants -------------------------------------------------------------
def solve_program(a, singular, rhs, vector):
    x, info = L.solve_ex(a, rhs)
    inverse, inverse_info = L.inv_ex(a.transpose(-1, -2))
    return (x, info, L.solve_ex(a, vector).result, L.solve_ex(a[0], rhs.transpose(-1, -2), left=False).result,
            L.solve_ex(a[:1], rhs).result, L.solve_ex(singular, rhs[:, :2, :]).info,
            inverse, inverse_info, L.inv_ex(singular).info,
            L.det(a), L.det(a.transpose(-1, -2)), L.det(singular), *L.slogdet(a), *L.slogdet(singular), torch.logdet(a),
            torch.logdet(-a[:, :1, :1]))


def solve_inputs(dtype=torch.float64):
    singular = torch.tensor([[[0.0, 0.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]], dtype=dtype)
    return (well_conditioned(dtype, (2, 4, 4), 8), singular, matrices(dtype, (2, 4, 4), 9), matrices(dtype, (2, 4), 10))


SOLVE_OPS = ("aten.linalg_solve_ex", "aten._linalg_solve_ex", "aten.linalg_inv_ex", "aten.linalg_det", "aten._linalg_det",
             "aten.linalg_slogdet", "aten._linalg_slogdet", "aten.logdet")
SOLVE_ABSENT = absent(("aten._linalg_solve_ex", "aten._linalg_det", "aten._linalg_slogdet"),
                      ("aten.linalg_solve_ex", "aten.linalg_det", "aten.linalg_slogdet", "aten.logdet"))


# --- triangular -------------------------------------------------------------------------------
def triangular_program(a, b):
    return (*torch.triangular_solve(b, a), *torch.triangular_solve(b, a.transpose(-1, -2), upper=False, transpose=True),
            torch.triangular_solve(b[0], a, unitriangular=True).solution,
            L.solve_triangular(a, b, upper=True), L.solve_triangular(a.transpose(-1, -2), b, upper=False, unitriangular=True),
            L.solve_triangular(a, b.transpose(-1, -2), upper=True, left=False),
            torch.triangular_solve(b[:, :3, :], a[:, :3, :3]).solution)


# --- QR ---------------------------------------------------------------------------------------
def qr_program(tall, wide, c):
    reflectors, tau = torch.geqrf(tall)
    return (*L.qr(tall), *L.qr(tall.transpose(-1, -2), mode="complete"), L.qr(wide, mode="r")[1], *torch.qr(wide[..., ::2]),
            *torch.qr(tall, some=False), reflectors, tau, L.householder_product(reflectors, tau),
            L.householder_product(reflectors, tau[..., :2]),
            torch.ormqr(reflectors, tau, c), torch.ormqr(reflectors, tau, c, transpose=True),
            torch.ormqr(reflectors, tau, c.transpose(-1, -2), left=False), torch.ormqr(reflectors, tau, c.transpose(-1, -2), left=False, transpose=True))


QR_OPS = ("aten.linalg_qr", "aten.qr", "aten.geqrf", "aten.linalg_householder_product", "aten.ormqr")


# --- spectral ---------------------------------------------------------------------------------
def spectral_program(a, spd, singular):
    return (L.svdvals(a), L.svdvals(a.transpose(-1, -2)), L.svdvals(a[:, ::2]), L.svd(a)[1], torch.svd(a, compute_uv=False)[1], L.eigvalsh(spd),
            L.eigvalsh(spd.transpose(-1, -2), UPLO="U"), L.eigh(spd)[0], L.pinv(a), L.pinv(a.transpose(-1, -2)), L.pinv(spd, hermitian=True),
            L.pinv(singular), L.pinv(a, atol=0.5), L.pinv(a, rtol=0.3), torch.pinverse(singular, rcond=1e-3),
            L.matrix_rank(a), L.matrix_rank(singular), L.matrix_rank(spd, hermitian=True), L.matrix_rank(a, atol=1.0, rtol=0.1),
            L.cond(spd), L.cond(spd, -2), L.cond(spd, 1), L.cond(spd, float("-inf")), L.cond(spd, "fro"), L.cond(spd, "nuc"),
            L.matrix_norm(a), L.matrix_norm(a, "nuc"), L.matrix_norm(a, 2), L.matrix_norm(a, -2), L.matrix_norm(a, 1),
            L.matrix_norm(a, float("inf")), L.matrix_norm(a, -1, dim=(0, 2)), L.matrix_norm(a, float("-inf"), keepdim=True),
            torch.norm(a, p="nuc", dim=(1, 2)))


def spectral_inputs(dtype=torch.float64):
    singular = torch.tensor([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]], dtype=dtype).expand(2, 3, 3).clone()
    return (matrices(dtype, (2, 4, 3), 11), positive_definite(dtype, (2, 3, 3), 12), singular)


SPECTRAL_OPS = ("aten.linalg_svdvals", "aten.linalg_svd", "aten.svd", "aten._linalg_svd", "aten.linalg_eigvalsh", "aten.linalg_eigh",
                "aten._linalg_eigh", "aten.linalg_pinv", "aten.pinverse", "aten.linalg_matrix_rank", "aten.linalg_cond",
                "aten.linalg_matrix_norm")
SPECTRAL_ABSENT = absent(("aten._linalg_svd", "aten._linalg_eigh"),
                         ("aten.linalg_svdvals", "aten.linalg_svd", "aten.svd", "aten.linalg_eigvalsh", "aten.linalg_eigh",
                          "aten.pinverse", "aten.linalg_matrix_rank", "aten.linalg_cond", "aten.linalg_matrix_norm"))


# --- matrix functions and products ------------------------------------------------------------
def misc_program(a, b, v, ints):
    return (L.matrix_exp(a), torch.matrix_exp(a.transpose(-1, -2) * 3), L.matrix_power(a, 0), L.matrix_power(a, 1), L.matrix_power(a.transpose(-1, -2), 5),
            L.matrix_power(ints, 3), L.matrix_power(ints, 0),
            L.multi_dot([a[0], b, b.transpose(-1, -2)]), L.multi_dot([v, b, b.transpose(-1, -2), v]), L.multi_dot([v, a[1]]), L.multi_dot([a[0], b, v[:2]]))


def misc_inputs(dtype=torch.float64):
    ints = torch.tensor([[[2**20, 3], [-7, 2**21]], [[1, -1], [5, 0]]], dtype=torch.int64)
    return (well_conditioned(dtype, (2, 3, 3), 13), matrices(dtype, (3, 2), 14), matrices(dtype, (3,), 15), ints)


MISC_OPS = ("aten.linalg_matrix_exp", "aten.matrix_exp", "aten.linalg_matrix_power", "aten.linalg_multi_dot")
MISC_ABSENT = absent((), ("aten.matrix_exp", "aten.linalg_matrix_power", "aten.linalg_multi_dot"))


# --- the raising forms (decomposed: _ex ops checked through effect tokens) -----------------------
def checked_program(spd, a, rhs, t4):
    return (L.cholesky(spd), L.cholesky(spd, upper=True), L.inv(a), L.solve(a, rhs), *L.lu_factor(a),
            L.tensorinv(t4, ind=2), L.tensorsolve(t4, rhs[0, :, :1].reshape(2, 2)),
            L.tensorsolve(t4.permute(2, 0, 1, 3), rhs[0, :, :1].reshape(2, 2), dims=(0,)), L.matrix_power(a, -2))


def checked_inputs(dtype=torch.float64):
    return (positive_definite(dtype, (2, 3, 3), 16), well_conditioned(dtype, (2, 4, 4), 17), matrices(dtype, (2, 4, 2), 18),
            well_conditioned(dtype, (4, 4), 19).reshape(2, 2, 2, 2))


CHECKED_OPS = ("aten.linalg_cholesky", "aten.linalg_inv", "aten.linalg_solve", "aten.linalg_lu_factor", "aten.linalg_tensorinv",
               "aten.linalg_tensorsolve", "aten.linalg_matrix_power")
# Decomposed, each checked op is its *_ex op with the check threaded through an effect token.
CHECKED_EX_OPS = ("aten.linalg_cholesky_ex", "aten.linalg_inv_ex", "aten._linalg_solve_ex", "aten.linalg_lu_factor_ex")


# --- LDL --------------------------------------------------------------------------------------
def ldl_program(sym, singular, rhs):
    ld, pivots, info = L.ldl_factor_ex(sym)
    ld_t, pivots_t = L.ldl_factor(sym.transpose(-1, -2), hermitian=True)
    return (ld, pivots, info, L.ldl_solve(ld, pivots, rhs), ld_t, pivots_t, L.ldl_solve(ld_t, pivots_t, rhs[0, :, :1]),
            *L.ldl_factor_ex(singular)[1:])


def ldl_inputs(dtype=torch.float64):
    a = matrices(torch.float64, (3, 5, 5), 25)
    sym = a + a.mT
    sym[:, range(5), range(5)] *= 0.05  # small diagonals: 2x2 pivots
    return sym.to(dtype), torch.zeros(2, 3, 3, dtype=dtype), matrices(dtype, (3, 5, 2), 26)


LDL_OPS = ("aten.linalg_ldl_factor_ex", "aten.linalg_ldl_factor", "aten.linalg_ldl_solve")


# --- edge values: empty batches and matrices, NaN ------------------------------------------------
def edge_program(empty_batch, empty_matrix, nan_matrix, wide_empty):
    return (L.det(empty_batch), L.inv_ex(empty_batch)[0], L.cholesky_ex(empty_matrix)[1], L.det(empty_matrix),
            *L.slogdet(empty_matrix), L.lu_factor_ex(empty_batch)[0], *L.qr(wide_empty), L.svdvals(wide_empty),
            L.pinv(wide_empty), L.matrix_rank(wide_empty), L.det(nan_matrix), L.solve_ex(nan_matrix, nan_matrix[:, :, :1])[0],
            L.lu_factor_ex(nan_matrix)[0], L.matrix_norm(nan_matrix),
            L.solve_ex(nan_matrix[1:], nan_matrix[1:, :, :0])[0], L.lu_solve(*L.lu_factor(nan_matrix[1:]), nan_matrix[1:, :, :0]))


def edge_inputs(dtype=torch.float64):
    nan_matrix = well_conditioned(dtype, (2, 3, 3), 27)
    nan_matrix[0, 1, 1] = float("nan")
    return (torch.zeros(0, 3, 3, dtype=dtype), torch.zeros(2, 0, 0, dtype=dtype), nan_matrix, torch.zeros(0, 4, dtype=dtype))


EDGE_OPS = ("aten.linalg_det", "aten._linalg_det", "aten.linalg_inv_ex", "aten.linalg_cholesky_ex", "aten.linalg_slogdet",
            "aten._linalg_slogdet", "aten.linalg_lu_factor_ex", "aten.linalg_qr", "aten.linalg_pinv", "aten.linalg_lu_solve")


def per_dtype(inputs_fn):
    return lambda dtype: (lambda: inputs_fn(dtype))


FAMILIES = []
for dtype in (torch.float32, torch.float64):
    tag = str(dtype).removeprefix("torch.")
    FAMILIES += [
        Family(f"cholesky_{tag}", lambda: Lambda(cholesky_program),
               (lambda d: lambda: tuple(t.to(d) for t in cholesky_inputs()))(dtype),
               ("aten.linalg_cholesky_ex", "aten.cholesky", "aten.cholesky_solve", "aten.cholesky_inverse") + VIEWS,
               absent=absent()),
        Family(f"lu_{tag}", lambda: Lambda(lu_program), per_dtype(lu_inputs)(dtype), LU_OPS + VIEWS,
               absent=absent((), ("aten._lu_with_info", "aten.lu_solve"))),
        Family(f"solve_{tag}", lambda: Lambda(solve_program), per_dtype(solve_inputs)(dtype), SOLVE_OPS + VIEWS,
               absent=SOLVE_ABSENT),
        Family(f"triangular_{tag}", lambda: Lambda(triangular_program),
               (lambda d: lambda: (well_conditioned(d, (2, 4, 4), 20), matrices(d, (2, 4, 4), 21)))(dtype),
               ("aten.triangular_solve", "aten.linalg_solve_triangular") + VIEWS, absent=absent()),
        Family(f"qr_{tag}", lambda: Lambda(qr_program),
               (lambda d: lambda: (matrices(d, (2, 5, 3), 22), matrices(d, (3, 6), 23), matrices(d, (2, 5, 4), 24)))(dtype),
               QR_OPS + VIEWS, absent=absent((), ("aten.qr",))),
        Family(f"spectral_{tag}", lambda: Lambda(spectral_program), per_dtype(spectral_inputs)(dtype), SPECTRAL_OPS + VIEWS,
               absent=SPECTRAL_ABSENT),
        Family(f"misc_{tag}", lambda: Lambda(misc_program), per_dtype(misc_inputs)(dtype), MISC_OPS + VIEWS, absent=MISC_ABSENT),
        Family(f"ldl_{tag}", lambda: Lambda(ldl_program), per_dtype(ldl_inputs)(dtype), LDL_OPS + VIEWS,
               absent=absent((), ("aten.linalg_ldl_factor",))),
        Family(f"edge_{tag}", lambda: Lambda(edge_program), per_dtype(edge_inputs)(dtype), EDGE_OPS,
               absent={"exported": ("aten._linalg_det", "aten._linalg_slogdet"),
                       "decomposed": ("aten.linalg_det", "aten.linalg_slogdet")}),
        Family(f"checked_{tag}", lambda: Lambda(checked_program), per_dtype(checked_inputs)(dtype), CHECKED_OPS + CHECKED_EX_OPS,
               absent={"exported": CHECKED_EX_OPS, "decomposed": CHECKED_OPS}),
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_linalg_family(family, mode, exported_families, tmp_path):
    if mode not in family.modes:
        pytest.skip(f"{family.name} runs only {family.modes}")
    check_family(family, mode, exported_families, tmp_path)


# --- errors -----------------------------------------------------------------------------------
SINGULAR = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
NOT_PD = torch.tensor([[1.0, 2.0], [2.0, 1.0]])

ERROR_CASES = [
    ("cholesky_not_pd", lambda a: L.cholesky(a), NOT_PD, "the leading minor of order 2 is not positive-definite"),
    ("old_cholesky_not_pd", lambda a: torch.cholesky(a), NOT_PD, "not positive-definite"),
    ("cholesky_ex_checked", lambda a: L.cholesky_ex(a, check_errors=True).L, NOT_PD, "not positive-definite"),
    ("inv_singular", lambda a: L.inv(a), SINGULAR, "The diagonal element 2 is zero"),
    ("tensorinv_singular", lambda a: L.tensorinv(a.reshape(2, 2), ind=1), SINGULAR, "is zero"),
    ("negative_power_singular", lambda a: L.matrix_power(a, -1), SINGULAR, "is zero"),
    ("solve_singular", lambda a: L.solve(a, a[0]), SINGULAR, "input matrix is singular"),
    ("lu_factor_singular", lambda a: L.lu_factor(a)[0], SINGULAR, "U[2,2] is zero"),
    ("cholesky_inverse_singular", lambda a: torch.cholesky_inverse(a), torch.tensor([[1.0, 0.0], [1.0, 0.0]]),
     "The diagonal element 2 is zero"),
    ("svd_nonfinite", lambda a: L.svdvals(a), torch.tensor([[1.0, float("nan")], [0.0, 1.0]]), "non-finite"),
]


def run_failing(tmp_path, name, fn, inputs, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(Lambda(fn), inputs)
        if mode == "decomposed":
            ep = ep.run_decompositions()
    path = tmp_path / f"{name}.pt2"
    torch.export.save(ep, str(path))
    np.savez(tmp_path / "in.npz", *[to_numpy(t) for t in inputs])
    return run_cli(["run", path, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn,matrix,message", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_linalg_errors_name_the_node(name, fn, matrix, message, mode, tmp_path):
    with pytest.raises(Exception, match=".*"):
        fn(matrix)  # eager raises too
    proc = run_failing(tmp_path, name, fn, (matrix,), mode)
    assert proc.returncode == 2, describe(proc)
    assert message in proc.stderr, describe(proc)
    assert "node " in proc.stderr, describe(proc)


VECTOR_CASES = [
    ("svd_u", lambda a: L.svd(a)[0]),
    ("svd_vh", lambda a: L.svd(a, full_matrices=False)[2]),
    ("old_svd_v", lambda a: torch.svd(a)[2]),
    ("eigh_vectors", lambda a: L.eigh(a)[1]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,fn", VECTOR_CASES, ids=[c[0] for c in VECTOR_CASES])
def test_vectors_are_refused(name, fn, mode, tmp_path):
    proc = run_failing(tmp_path, name, fn, (positive_definite(torch.float32, (3, 3), 30),), mode)
    assert proc.returncode == 2, describe(proc)
    assert "not unique" in proc.stderr, describe(proc)
