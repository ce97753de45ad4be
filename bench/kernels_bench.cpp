// Times pt2ov's CPU kernels (src/kernels/) called as the runtime calls them: a hand-built node,
// its arguments resolved, find_kernel, the kernel run into new memory. Each case runs on float32
// [rows, cols] operands (by default 100x1000 and 1000x1000), contiguous and strided (a
// transposed view), and prints the median and the 10th percentile of the time per call in
// microseconds. Ops that are not elementwise derive their other operands from [rows, cols]:
// reductions and softmax work over the last dim (or everything), matrix products give a
// [rows, cols] result with an inner dim of min(cols, 256), gathers and scatters index the rows
// (index_select) or the last dim, sort and topk (k = 16) work along the last dim; convolutions
// read a [1, 64, h, h] input of about rows * cols elements.
// bench/kernels_vs_eager.py builds the same shapes in PyTorch eager and runs both.
//
//   pt2ov_kernels_bench [--iterations N] [--filter SUBSTRING] [--ops NAME,NAME]
//                       [--shapes 8x128,64x1024] [--layouts dense,strided] [--tsv]
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
        set(target, std::move(inputs), {{out_dtype, out_sizes}});
    }
    // Several outputs (sort, topk): out0, out1, ...
    void set(const std::string& target, std::vector<NamedArgument> inputs,
             const std::vector<std::pair<DType, std::vector<int64_t>>>& outs) {
        node_ = pt2ov::graph::Node{};
        for (size_t i = 0; i < outs.size(); ++i) {
            const std::string name = outs.size() == 1 ? "out" : "out" + std::to_string(i);
            declare(name, outs[i].first, outs[i].second);
            node_.outputs.push_back(pt2ov::graph::tensor_arg(name));
        }
        node_.name = "bench";
        node_.target = target;
        node_.inputs = std::move(inputs);
        pt2ov::graph::resolve_node(node_, "bench");
        kernel_ = find_kernel(node_.op);
        if (!kernel_) throw std::runtime_error("no kernel for " + target);
    }
    void run() {
        const auto lookup = [this](const Argument& arg) -> const RuntimeValue& { return values_.at(arg.name); };
        KernelCall call(node_, graph_, lookup);
        auto results = kernel_(call);
        if (results.empty()) throw std::runtime_error("no result");
    }

private:
    pt2ov::graph::Graph graph_;
    pt2ov::graph::Node node_;
    std::map<std::string, RuntimeValue> values_;
    Kernel kernel_ = nullptr;
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

// int64 values uniform in [0, bound).
StridedTensor random_indices(const std::vector<int64_t>& sizes, int64_t bound, uint32_t seed) {
    StridedTensor t = StridedTensor::allocate(DType::Int64, sizes);
    std::mt19937_64 rng(seed);
    auto* data = reinterpret_cast<int64_t*>(t.data);
    for (int64_t i = 0; i < t.numel(); ++i) data[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(bound));
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

// The side h of a convolution's [1, 64, h, h] input of about rows * cols elements.
int64_t conv_side(int64_t rows, int64_t cols) {
    int64_t side = 1;
    while ((side + 1) * (side + 1) * 64 <= rows * cols) ++side;
    return side;
}

// A [1, 64, side, side] input, contiguous or stored channels-last.
StridedTensor conv_input(int64_t side, bool channels_last) {
    if (!channels_last) return random_floats({1, 64, side, side}, 1);
    return random_floats({1, side, side, 64}, 1).view({1, 64, side, side}, {side * side * 64, 1, side * 64, 64});
}

std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) items.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

double percentile(std::vector<double> samples, double q) {
    std::sort(samples.begin(), samples.end());
    return samples[std::min(samples.size() - 1, static_cast<size_t>(q * static_cast<double>(samples.size())))];
}

}  // namespace

int main(int argc, char** argv) {
    int iterations = 200;
    std::string filter;
    std::vector<std::string> ops;
    std::vector<std::pair<int64_t, int64_t>> shapes = {{100, 1000}, {1000, 1000}};
    std::vector<bool> layouts = {false, true};
    bool tsv = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else if (!std::strcmp(argv[i], "--ops") && i + 1 < argc) ops = split(argv[++i]);
        else if (!std::strcmp(argv[i], "--tsv")) tsv = true;
        else if (!std::strcmp(argv[i], "--shapes") && i + 1 < argc) {
            shapes.clear();
            for (const auto& shape : split(argv[++i])) {
                const auto x = shape.find('x');
                shapes.emplace_back(std::stoll(shape.substr(0, x)), std::stoll(shape.substr(x + 1)));
            }
        } else if (!std::strcmp(argv[i], "--layouts") && i + 1 < argc) {
            layouts.clear();
            for (const auto& layout : split(argv[++i])) layouts.push_back(layout == "strided");
        } else {
            std::fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    using pt2ov::graph::bool_arg;
    using pt2ov::graph::float_arg;
    using pt2ov::graph::int_arg;
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
        {"mul", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("y", operand(DType::Float32, r, n, false, 2));
             c.set("aten.mul.Tensor", {positional("self", tensor_arg("x")), positional("other", tensor_arg("y"))},
                   DType::Float32, {r, n});
         }},
        {"exp", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.exp.default", {positional("self", tensor_arg("x"))}, DType::Float32, {r, n});
         }},
        {"sigmoid", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.sigmoid.default", {positional("self", tensor_arg("x"))}, DType::Float32, {r, n});
         }},
        {"tanh", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.tanh.default", {positional("self", tensor_arg("x"))}, DType::Float32, {r, n});
         }},
        {"sum_all", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.sum.default", {positional("self", tensor_arg("x"))}, DType::Float32, {});
         }},
        {"mean_last", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.mean.dim",
                   {positional("self", tensor_arg("x")), positional("dim", ints_arg({-1})),
                    positional("keepdim", bool_arg(false))},
                   DType::Float32, {r});
         }},
        {"mean_all", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.mean.default", {positional("self", tensor_arg("x"))}, DType::Float32, {});
         }},
        {"amax_all", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.amax.default",
                   {positional("self", tensor_arg("x")), positional("dim", ints_arg({})),
                    positional("keepdim", bool_arg(false))},
                   DType::Float32, {});
         }},
        {"softmax_last", [](Case& c, int64_t r, int64_t n, bool s) {
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten._softmax.default",
                   {positional("self", tensor_arg("x")), positional("dim", int_arg(-1)),
                    positional("half_to_float", bool_arg(false))},
                   DType::Float32, {r, n});
         }},
        {"mm", [](Case& c, int64_t r, int64_t n, bool s) {  // [r, k] @ [k, n], k = min(n, 256)
             const int64_t k = std::min<int64_t>(n, 256);
             c.input("a", operand(DType::Float32, r, k, s, 1));
             c.input("b", operand(DType::Float32, k, n, false, 2));
             c.set("aten.mm.default", {positional("self", tensor_arg("a")), positional("mat2", tensor_arg("b"))},
                   DType::Float32, {r, n});
         }},
        {"addmm", [](Case& c, int64_t r, int64_t n, bool s) {  // [n] + [r, k] @ [k, n]
             const int64_t k = std::min<int64_t>(n, 256);
             c.input("bias", random_floats({n}, 3));
             c.input("a", operand(DType::Float32, r, k, s, 1));
             c.input("b", operand(DType::Float32, k, n, false, 2));
             c.set("aten.addmm.default",
                   {positional("self", tensor_arg("bias")), positional("mat1", tensor_arg("a")),
                    positional("mat2", tensor_arg("b"))},
                   DType::Float32, {r, n});
         }},
        {"linear", [](Case& c, int64_t r, int64_t n, bool s) {  // [r, k] @ [n, k]^T + [n]
             const int64_t k = std::min<int64_t>(n, 256);
             c.input("x", operand(DType::Float32, r, k, s, 1));
             c.input("w", random_floats({n, k}, 2));
             c.input("bias", random_floats({n}, 3));
             c.set("aten.linear.default",
                   {positional("input", tensor_arg("x")), positional("weight", tensor_arg("w")),
                    positional("bias", tensor_arg("bias"))},
                   DType::Float32, {r, n});
         }},
        {"index_select", [](Case& c, int64_t r, int64_t n, bool s) {  // r rows picked at random
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("i", random_indices({r}, r, 4));
             c.set("aten.index_select.default",
                   {positional("self", tensor_arg("x")), positional("dim", int_arg(0)), positional("index", tensor_arg("i"))},
                   DType::Float32, {r, n});
         }},
        {"gather", [](Case& c, int64_t r, int64_t n, bool s) {  // along the last dim
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("i", random_indices({r, n}, n, 4));
             c.set("aten.gather.default",
                   {positional("self", tensor_arg("x")), positional("dim", int_arg(-1)), positional("index", tensor_arg("i"))},
                   DType::Float32, {r, n});
         }},
        {"scatter_add", [](Case& c, int64_t r, int64_t n, bool s) {  // along the last dim
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.input("i", random_indices({r, n}, n, 4));
             c.input("src", random_floats({r, n}, 2));
             c.set("aten.scatter_add.default",
                   {positional("self", tensor_arg("x")), positional("dim", int_arg(-1)), positional("index", tensor_arg("i")),
                    positional("src", tensor_arg("src"))},
                   DType::Float32, {r, n});
         }},
        {"sort", [](Case& c, int64_t r, int64_t n, bool s) {  // along the last dim
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.sort.default",
                   {positional("self", tensor_arg("x")), positional("dim", int_arg(-1)),
                    positional("descending", bool_arg(false))},
                   {{DType::Float32, {r, n}}, {DType::Int64, {r, n}}});
         }},
        {"topk", [](Case& c, int64_t r, int64_t n, bool s) {  // the 16 largest along the last dim
             c.input("x", operand(DType::Float32, r, n, s, 1));
             c.set("aten.topk.default",
                   {positional("self", tensor_arg("x")), positional("k", int_arg(16)), positional("dim", int_arg(-1))},
                   {{DType::Float32, {r, 16}}, {DType::Int64, {r, 16}}});
         }},
    };
    // Convolutions read a [1, 64, h, h] input of rows * cols elements (h * h = rows * cols / 64:
    // 4x4, 32x32, 128x128 at 1K, 64K, 1M), as a network's layers do: a 3x3 convolution to 64
    // channels, a 1x1 one, a depthwise 3x3 one, and a transposed 4x4 one of stride 2 to 32 channels
    // (twice the side). Strided: the input stored channels-last.
    auto convolution = [](Case& c, int64_t r, int64_t n, bool s, std::vector<int64_t> weight, int64_t stride, int64_t padding,
                          int64_t groups, bool transposed) {
        const int64_t side = conv_side(r, n);
        c.input("x", conv_input(side, s));
        c.input("w", random_floats(weight, 2));
        const int64_t out_channels = transposed ? weight[1] * groups : weight[0];
        c.input("bias", random_floats({out_channels}, 3));
        const int64_t out_side = transposed ? (side - 1) * stride - 2 * padding + weight[2] : (side + 2 * padding - weight[2]) / stride + 1;
        c.set("aten.convolution.default",
              {positional("input", tensor_arg("x")), positional("weight", tensor_arg("w")), positional("bias", tensor_arg("bias")),
               positional("stride", ints_arg({stride, stride})), positional("padding", ints_arg({padding, padding})),
               positional("dilation", ints_arg({1, 1})), positional("transposed", bool_arg(transposed)),
               positional("output_padding", ints_arg({0, 0})), positional("groups", int_arg(groups))},
              DType::Float32, {1, out_channels, out_side, out_side});
    };
    const std::vector<Spec> conv_specs = {
        {"conv3x3", [&](Case& c, int64_t r, int64_t n, bool s) { convolution(c, r, n, s, {64, 64, 3, 3}, 1, 1, 1, false); }},
        {"conv1x1", [&](Case& c, int64_t r, int64_t n, bool s) { convolution(c, r, n, s, {64, 64, 1, 1}, 1, 0, 1, false); }},
        {"conv_depthwise", [&](Case& c, int64_t r, int64_t n, bool s) { convolution(c, r, n, s, {64, 1, 3, 3}, 1, 1, 64, false); }},
        {"conv_transpose", [&](Case& c, int64_t r, int64_t n, bool s) { convolution(c, r, n, s, {64, 32, 4, 4}, 2, 1, 1, true); }},
    };
    std::vector<Spec> all_specs = specs;
    all_specs.insert(all_specs.end(), conv_specs.begin(), conv_specs.end());
    if (tsv) std::printf("op\trows\tcols\tlayout\tmedian_us\tp10_us\tcalls\n");
    else std::printf("%-12s %8s %-10s %-8s %10s %10s\n", "kernel", "elements", "shape", "layout", "median_us", "p10_us");
    for (const auto& spec : all_specs) {
        if (!ops.empty() && std::find(ops.begin(), ops.end(), spec.name) == ops.end()) continue;
        for (const auto& [rows, cols] : shapes) {
            for (bool strided : layouts) {
                const std::string label = spec.name + (strided ? " strided" : " dense");
                if (!filter.empty() && label.find(filter) == std::string::npos) continue;
                Case c;
                spec.build(c, rows, cols, strided);
                // About the same time per case whatever its size: more calls for small ones.
                const int64_t elements = rows * cols;
                const int count = static_cast<int>(std::clamp<int64_t>(iterations * 1000000 / std::max<int64_t>(elements, 1) / 4,
                                                                       std::max(iterations / 4, 10), iterations * 20));
                for (int i = 0; i < std::min(count / 10 + 1, 10); ++i) c.run();  // warm-up
                std::vector<double> samples;
                for (int i = 0; i < count; ++i) {
                    const auto start = std::chrono::steady_clock::now();
                    c.run();
                    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
                }
                const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
                if (tsv) {
                    std::printf("%s\t%lld\t%lld\t%s\t%.2f\t%.2f\t%d\n", spec.name.c_str(), static_cast<long long>(rows),
                                static_cast<long long>(cols), strided ? "strided" : "dense", percentile(samples, 0.5),
                                percentile(samples, 0.1), count);
                } else {
                    std::printf("%-12s %8lld %-10s %-8s %10.1f %10.1f\n", spec.name.c_str(), static_cast<long long>(elements),
                                shape.c_str(), strided ? "strided" : "dense", percentile(samples, 0.5), percentile(samples, 0.1));
                }
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
