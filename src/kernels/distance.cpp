// _cdist_forward(x1, x2, p, compute_mode): p-norm distances between the rows of x1 [..., P, M]
// and x2 [..., R, M] (batch dims broadcast), [..., P, R]. In double, rounded once. OpenVINO
// 2026.4.1 is right only for p = 2 (openvino_facts CdistOnlyEuclidean), so the others run here.
#include <cmath>

#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

double p_norm_distance(const double* a, const double* b, int64_t m, double p) {
    double total = 0;
    for (int64_t j = 0; j < m; ++j) {
        const double d = std::abs(a[j] - b[j]);
        if (p == 0) {
            total += d != 0 ? 1.0 : 0.0;
        } else if (std::isinf(p)) {
            total = std::max(total, d);
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
                    p_norm_distance(a.data() + (n * rows1 + i) * m, b.data() + (n * rows2 + j) * m, m, p);
            }
        }
    }
    return single(tensor_of_values<double>(out, with(rows1, rows2), call.output_meta(0).dtype));
}

PT2OV_KERNEL("aten._cdist_forward.default", cdist_forward);
// The training-IR spelling, which OpenVINO has no converter for: the same arguments.
PT2OV_KERNEL("aten.cdist.default", cdist_forward);

}  // namespace
}  // namespace pt2ov::kernels
