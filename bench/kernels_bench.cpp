// Times pt2ov's CPU kernels (src/kernels/) called as the runtime calls them: a hand-built node,
// its arguments resolved, find_kernel, the kernel run into new memory. Each case runs on 100K
// and 1M float32 elements, contiguous and strided (a transposed view, or every other column),
// and prints the median and the 10th percentile of the time per call in microseconds.
//
//   pt2ov_kernels_bench [--iterations N] [--filter SUBSTRING]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/schema.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace {

using pt2ov::DType;
using pt2ov::graph::Argument;
using pt2ov::graph::NamedArgument;
using namespace pt2ov::kernels;

pt2ov::graph::TensorMeta dense_meta(DType dtype, const std::vector<int64_t>& sizes) {
    pt2ov::graph::TensorMeta meta;
    meta.dtype = dtype;
    const auto strides = contiguous_strides(sizes);
    for (size_t d = 0; d < sizes.size(); ++d) {
        meta.sizes.push_back(pt2ov::graph::Dim{sizes[d], "", "", sizes[d]});
        meta.strides.push_back(pt2ov::graph::Dim{strides[d], "", "", strides[d]});
        meta.dim_order.push_back(static_cast<int>(d));
    }
    return meta;
}

// One node with its inputs, ready to run repeatedly.
class Case {
public:
    std::string input(const std::string& name, StridedTensor t) {
        declare(name, t.dtype, t.sizes);
        values_[name] = RuntimeValue::of(std::move(t));
        return name;
    }
    void declare(const std::string& name, DType dtype, const std::vector<int64_t>& sizes) {
        pt2ov::graph::Value v;
        v.name = name;
        v.meta = dense_meta(dtype, sizes);
        graph_.values[name] = v;
    }
    void set(const std::string& target, std::vector<NamedArgument> inputs, DType out_dtype,
             const std::vector<int64_t>& out_sizes) {
        declare("out", out_dtype, out_sizes);
        node_ = pt2ov::graph::Node{};
        node_.name = "bench";
        node_.target = target;
        node_.inputs = std::move(inputs);
        node_.outputs = {pt2ov::graph::tensor_arg("out")};
        pt2ov::graph::resolve_node(node_, "bench");
        kernel_ = find_kernel(target);
        if (!kernel_) throw std::runtime_error("no kernel for " + target);
    }
    void run() {
        KernelCall call(node_, graph_, [this](const Argument& arg) -> const RuntimeValue& { return values_.at(arg.name); });
        auto results = (*kernel_)(call);
        if (results.empty()) throw std::runtime_error("no result");
    }

private:
    pt2ov::graph::Graph graph_;
    pt2ov::graph::Node node_;
    std::map<std::string, RuntimeValue> values_;
    const Kernel* kernel_ = nullptr;
};

NamedArgument positional(const std::string& name, Argument a) { return {name, std::move(a), false}; }

StridedTensor random_floats(const std::vector<int64_t>& sizes, uint32_t seed) {
    StridedTensor t = StridedTensor::allocate(DType::Float32, sizes);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    auto* data = reinterpret_cast<float*>(t.data);
    for (int64_t i = 0; i < t.numel(); ++i) data[i] = normal(rng);
    return t;
}

StridedTensor random_bools(const std::vector<int64_t>& sizes, uint32_t seed) {
    StridedTensor t = StridedTensor::allocate(DType::Bool, sizes);
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < t.numel(); ++i) reinterpret_cast<uint8_t*>(t.data)[i] = rng() & 1;
    return t;
}

// A [rows, cols] operand: dense, or (strided) the transpose of a dense [cols, rows].
StridedTensor operand(DType dtype, int64_t rows, int64_t cols, bool strided, uint32_t seed) {
    if (!strided) return dtype == DType::Bool ? random_bools({rows, cols}, seed) : random_floats({rows, cols}, seed);
    StridedTensor t = dtype == DType::Bool ? random_bools({cols, rows}, seed) : random_floats({cols, rows}, seed);
    return t.view({rows, cols}, {1, rows});
}

double percentile(std::vector<double> samples, double q) {
    std::sort(samples.begin(), samples.end());
    return samples[std::min(samples.size() - 1, static_cast<size_t>(q * static_cast<double>(samples.size())))];
}

}  // namespace

int main(int argc, char** argv) {
    int iterations = 200;
    std::string filter;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
    }
    using pt2ov::graph::bool_arg;
    using pt2ov::graph::float_arg;
    using pt2ov::graph::ints_arg;
    using pt2ov::graph::tensor_arg;
    struct Spec {
        std::string name;
        std::function<void(Case&, int64_t rows, int64_t cols, bool strided)> build;
    };
    const std::vector<Spec> specs = {
        {"relu", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.relu.default", {positional("self", tensor_arg("x"))}, DType::Float32, {r, n});
         }},
        {"add", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("y", operand(DType::Float32, r, n, false, 2));
             c.set("aten.add.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("y"))},
                   DType::Float32, {r, n});
         }},
        {"mul_scalar", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.mul.Tensor", {positional("self", tensor_arg("x")), positional("other", float_arg(0.5))},
                   DType::Float32, {r, n});
         }},
        {"mul_row", [](Case& c, int64_t r, int64_t n, bool s) {  // a [n] row broadcast over the rows
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("y", random_floats({n}, 2));
             c.set("aten.mul.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("y"))},
                   DType::Float32, {r, n});
         }},
        {"gt", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("y", operand(DType::Float32, r, n, false, 2));
             c.set("aten.gt.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("y"))},
                   DType::Bool, {r, n});
         }},
        {"where", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("m", operand(DType::Bool, r, n, false, 3));
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("y", operand(DType::Float32, r, n, false, 2));
             c.set("aten.where.self",
                   {positional("condition", tensor_arg("m")), positional("self", tensor_arg("x")),
                    positional("other", tensor_arg("y"))},
                   DType::Float32, {r, n});
         }},
        {"masked_fill", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("m", operand(DType::Bool, r, n, false, 3));
             c.set("aten.masked_fill.Scalar",
                   {positional("self", tensor_arg("x")), positional("mask", tensor_arg("m")),
                    positional("value", float_arg(-1.0))},
                   DType::Float32, {r, n});
         }},
        {"clone", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.clone.default", {positional("self", tensor_arg("x"))}, DType::Float32, {r, n});
         }},
        {"sum_last", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.sum.dim_IntList",
                   {positional("self", tensor_arg("x")), positional("dim", ints_arg({-1})),
                    positional("keepdim", bool_arg(false))},
                   DType::Float32, {r});
         }},
        {"amax_last", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.amax.default",
                   {positional("self", tensor_arg("x")), positional("dim", ints_arg({-1})),
                    positional("keepdim", bool_arg(false))},
                   DType::Float32, {r});
         }},
    };
    std::printf("%-12s %8s %-8s %10s %10s\n", "kernel", "elements", "layout", "median_us", "p10_us");
    for (const auto& spec : specs) {
        for (int64_t rows : {100, 1000}) {
            for (bool strided : {false, true}) {
                const std::string label = spec.name + (strided ? " strided" : " dense");
                if (!filter.empty() && label.find(filter) == std::string::npos) continue;
                Case c;
                spec.build(c, rows, 1000, strided);
                const int count = rows >= 1000 ? std::max(iterations / 4, 10) : iterations;
                for (int i = 0; i < std::min(count / 10 + 1, 10); ++i) c.run();  // warm-up
                std::vector<double> samples;
                for (int i = 0; i < count; ++i) {
                    const auto start = std::chrono::steady_clock::now();
                    c.run();
                    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
                }
                std::printf("%-12s %8lld %-8s %10.1f %10.1f\n", spec.name.c_str(), static_cast<long long>(rows * 1000),
                            strided ? "strided" : "dense", percentile(samples, 0.5), percentile(samples, 0.1));
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
