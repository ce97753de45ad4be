// Distances between rows. _cdist_forward(x1, x2, p, compute_mode): p-norm distances between
// the rows of x1 [..., P, M] and x2 [..., R, M] (batch dims broadcast), [..., P, R]; OpenVINO
// 2026.4.1 is right only for p = 2 (openvino_facts CdistOnlyEuclidean), so the others run here.
// pdist(self, p): the distances between each pair of rows i < j of a 2-d input, in row order,
// which OpenVINO has no converter for. In double, rounded once.
#include <fmt/format.h>

#include <cmath>

#include "kernels/contracts.h"
#include "kernels/layer_common.h"

namespace pt2ov::kernels {
namespace {

// How the largest difference (p = inf) treats NaN differs between PyTorch's two kernels:
// pdist's propagates it, cdist's maximum keeps the larger number and skips NaN.
enum class NanInMaximum { Skipped, Propagated };

double p_norm_distance(const double* a, const double* b, int64_t m, double p, NanInMaximum nan) {
    double total = 0;
    for (int64_t j = 0; j < m; ++j) {
        const double d = std::abs(a[j] - b[j]);
        if (p == 0) {
            // PyTorch's min(ceil(|d|), 1): a NaN difference stays NaN.
            total += std::isnan(d) ? d : (d != 0 ? 1.0 : 0.0);
        } else if (std::isinf(p)) {
            total = nan == NanInMaximum::Propagated && std::isnan(d) ? d : std::max(total, d);
        } else if (p == 1) {
            total += d;
        } else if (p == 2) {
            total += d * d;
        } else {
            total += std::pow(d, p);
        }
    }
    if (p == 0 || p == 1 || std::isinf(p)) return total;
    if (p == 2) return std::sqrt(total);
    return std::pow(total, 1.0 / p);
}

std::vector<RuntimeValue> cdist_forward(const KernelCall& call) {
    const StridedTensor& x1 = call.tensor("x1", 0);
    const StridedTensor& x2 = call.tensor("x2", 1);
    const double p = call.float_arg("p", 2, 2.0);
    if (x1.rank() < 2 || x2.rank() < 2) call.fail("cdist needs inputs of rank 2 or more");
    if (!dtype_is_floating(x1.dtype) || x1.dtype != x2.dtype) {
        call.fail("cdist needs two floating inputs of one dtype, got " + std::string(dtype_name(x1.dtype)) + " and " +
                  std::string(dtype_name(x2.dtype)));
    }
    if (!(p >= 0)) call.fail("cdist needs p >= 0");
    const int64_t rows1 = x1.sizes[x1.rank() - 2], rows2 = x2.sizes[x2.rank() - 2], m = x1.sizes.back();
    if (x2.sizes.back() != m) call.fail("cdist needs inputs with the same number of columns");
    const std::vector<int64_t> batch = broadcast_shapes(call, std::vector<int64_t>(x1.sizes.begin(), x1.sizes.end() - 2),
                                                        std::vector<int64_t>(x2.sizes.begin(), x2.sizes.end() - 2));
    auto with = [&](int64_t a, int64_t b) {
        auto sizes = batch;
        sizes.push_back(a);
        sizes.push_back(b);
        return sizes;
    };
    const auto a = dense_values<double>(broadcast_to(call, x1, with(rows1, m)));
    const auto b = dense_values<double>(broadcast_to(call, x2, with(rows2, m)));
    int64_t batches = 1;
    for (auto s : batch) batches *= s;
    std::vector<double> out(static_cast<size_t>(batches * rows1 * rows2));
    for (int64_t n = 0; n < batches; ++n) {
        for (int64_t i = 0; i < rows1; ++i) {
            for (int64_t j = 0; j < rows2; ++j) {
                out[static_cast<size_t>((n * rows1 + i) * rows2 + j)] =
                    p_norm_distance(a.data() + (n * rows1 + i) * m, b.data() + (n * rows2 + j) * m, m, p, NanInMaximum::Skipped);
            }
        }
    }
    return single(tensor_of_values<double>(out, with(rows1, rows2), call.output_meta(0).dtype));
}

std::vector<RuntimeValue> pdist(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    const double p = call.float_arg("p", 1, 2.0);
    if (self.rank() != 2) call.fail("expects a 2-d input, got shape " + shape_text(self.sizes));
    if (!dtype_is_floating(self.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(self.dtype)));
    if (!(p >= 0)) call.fail("needs p >= 0");
    const int64_t n = self.sizes[0], m = self.sizes[1];
    const auto x = dense_values<double>(self);
    std::vector<double> out;
    out.reserve(static_cast<size_t>(n > 1 ? n * (n - 1) / 2 : 0));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) {
            out.push_back(p_norm_distance(x.data() + i * m, x.data() + j * m, m, p, NanInMaximum::Propagated));
        }
    }
    return single(output_of_values<double>(call, 0, out, {static_cast<int64_t>(out.size())}, call.output_meta(0).dtype));
}

// x1 [..., P, M] and x2 [..., R, M]: [broadcast batch..., P, R].
std::optional<std::vector<ExpectedSizes>> cdist_shape(const ShapeQuery& query) {
    const auto x1 = query.sizes("x1", 0), x2 = query.sizes("x2", 1);
    if (!x1 || !x2) return std::nullopt;
    if (x1->size() < 2 || x2->size() < 2) query.contradiction("its inputs must have at least 2 dims (rows of columns)");
    const auto columns1 = x1->back(), columns2 = x2->back();
    if (columns1 && columns2 && *columns1 != *columns2) {
        query.contradiction(fmt::format("its inputs' rows have {} and {} columns", *columns1, *columns2));
    }
    ExpectedSizes out = broadcast(query, ExpectedSizes(x1->begin(), x1->end() - 2), ExpectedSizes(x2->begin(), x2->end() - 2));
    out.push_back((*x1)[x1->size() - 2]);
    out.push_back((*x2)[x2->size() - 2]);
    return std::vector<ExpectedSizes>{out};
}

// self [N, M]: one distance per pair of rows, [N (N - 1) / 2].
std::optional<std::vector<ExpectedSizes>> pdist_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    if (self->size() != 2) query.contradiction(fmt::format("its input has {} dims where pdist takes a matrix", self->size()));
    const auto rows = (*self)[0];
    return std::vector<ExpectedSizes>{{rows ? std::optional<int64_t>(*rows * (*rows - 1) / 2) : std::nullopt}};
}

PT2OV_KERNEL("aten._cdist_forward.default", cdist_forward, cdist_shape);
// The training-IR spelling, which OpenVINO has no converter for: the same arguments.
PT2OV_KERNEL("aten.cdist.default", cdist_forward, cdist_shape);
PT2OV_KERNEL("aten._pdist_forward.default", pdist, pdist_shape);
PT2OV_KERNEL("aten.pdist.default", pdist, pdist_shape);

}  // namespace
}  // namespace pt2ov::kernels
