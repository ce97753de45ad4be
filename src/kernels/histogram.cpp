// Histograms: histc, histogram (a bin count or bin edges), histogramdd and the three ops its
// core-ATen form is made of (_histogramdd_bin_edges, _histogramdd_from_bin_cts,
// _histogramdd_from_bin_tensors). As PyTorch's CPU kernel: an element outside the outer edges
// or NaN is skipped, the last bin includes its right edge, counts and weights are summed in the
// input's dtype. Edges made from a bin count are equal steps (linspace in the input's dtype);
// an element is placed by division there (histogram and histogramdd then look at the
// neighbouring edges, histc does not), and by binary search among given edges.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

enum class Placement { BinarySearch, Division, DivisionThenNeighbours };

// Where the optional arguments of each op sit in its schema.
struct HistogramArgs {
    size_t range, weight, density;
};
constexpr HistogramArgs kKeywordArgs{kKeywordOnly, kKeywordOnly, kKeywordOnly};
constexpr HistogramArgs kHistogramddArgs{2, 3, 4};

// A value of T's compute type rounded to T (c10::Half arithmetic rounds every operation).
template <typename T>
compute_t<T> round_to(compute_t<T> v) {
    if constexpr (is_reduced_float_v<T>) {
        return cast<T>(v);
    } else {
        return v;
    }
}

// The input as M points of D coordinates, and one weight per point (or none).
template <typename T>
struct Points {
    std::vector<compute_t<T>> coordinates;  // M * D, row-major
    std::vector<compute_t<T>> weights;      // M, or empty
    int64_t dims = 1;
    int64_t count() const { return static_cast<int64_t>(coordinates.size()) / std::max<int64_t>(dims, 1); }
};

template <typename T>
std::vector<compute_t<T>> values_of(const StridedTensor& t) {
    std::vector<compute_t<T>> values;
    for (int64_t offset : byte_offsets(t.sizes, t.strides, t.element_size())) values.push_back(load<T>(t.data + offset));
    return values;
}

// The histogram of `points` over `edges` (one list per coordinate), row-major over the bins.
template <typename T>
std::vector<compute_t<T>> count_points(const KernelCall& call, const Points<T>& points,
                                       const std::vector<std::vector<compute_t<T>>>& edges, Placement placement) {
    using V = compute_t<T>;
    const auto dims = static_cast<size_t>(points.dims);
    std::vector<int64_t> strides(dims, 1);
    int64_t total = 1;
    for (size_t d = dims; d-- > 0;) {
        strides[d] = total;
        total *= static_cast<int64_t>(edges[d].size()) - 1;
    }
    std::vector<V> hist(static_cast<size_t>(std::max<int64_t>(total, 0)), V(0));
    for (int64_t i = 0; i < points.count(); ++i) {
        int64_t index = 0;
        bool skip = false;
        for (size_t d = 0; d < dims && !skip; ++d) {
            const V value = points.coordinates[static_cast<size_t>(i) * dims + d];
            const auto& e = edges[d];
            const auto n = static_cast<int64_t>(e.size());
            const V left = e.front(), right = e.back();
            if (!(value >= left && value <= right)) {
                skip = true;
                break;
            }
            int64_t pos;
            if (placement == Placement::BinarySearch) {
                pos = std::upper_bound(e.begin(), e.end(), value) - e.begin() - 1;
            } else {
                const V scaled = round_to<T>(round_to<T>(value - left) * round_to<T>(static_cast<V>(n - 1)));
                const V quotient = round_to<T>(scaled / round_to<T>(right - left));
                // A range wider than T holds (right - left overflows) makes this inf / inf:
                // converting NaN to int64 is undefined and gave an index far outside the bins.
                // PyTorch's own edges are NaN there (its linspace overflows too).
                if (!(quotient >= V(0) && quotient < static_cast<V>(n))) {
                    call.fail("cannot place " + std::to_string(static_cast<double>(value)) + " among the bins of [" +
                              std::to_string(static_cast<double>(left)) + ", " + std::to_string(static_cast<double>(right)) +
                              "]: the range's width overflows " + std::string(dtype_name(call.tensor("self", 0).dtype)));
                }
                pos = static_cast<int64_t>(quotient);
                if (placement == Placement::DivisionThenNeighbours) {
                    const int64_t low = std::max<int64_t>(0, pos - 1), high = std::min<int64_t>(pos + 2, n);
                    pos = std::upper_bound(e.begin() + low, e.begin() + high, value) - e.begin() - 1;
                }
            }
            if (pos == n - 1) pos -= 1;
            // Every path above lands in [0, n - 2] for n >= 2 edges (given edges are checked to
            // be at least two); checked anyway, as the index writes into hist.
            if (pos < 0 || pos > n - 2) call.fail("internal: bin " + std::to_string(pos) + " is outside the " + std::to_string(n - 1) + " bins");
            index += strides[d] * pos;
        }
        if (skip) continue;
        const V weight = points.weights.empty() ? V(1) : points.weights[static_cast<size_t>(i)];
        hist[static_cast<size_t>(index)] = round_to<T>(hist[static_cast<size_t>(index)] + weight);
    }
    return hist;
}

// density=True: divided by the total, then by each bin's width in every coordinate.
template <typename T>
void to_density(std::vector<compute_t<T>>& hist, const std::vector<std::vector<compute_t<T>>>& edges) {
    using V = compute_t<T>;
    double sum = 0;
    for (V v : hist) sum += static_cast<double>(v);
    const V total = cast<T>(sum);
    for (V& v : hist) v = round_to<T>(v / total);
    int64_t inner = 1;
    for (size_t d = edges.size(); d-- > 0;) {
        const auto bins = static_cast<int64_t>(edges[d].size()) - 1;
        for (size_t k = 0; k < hist.size(); ++k) {
            const auto bin = static_cast<size_t>((static_cast<int64_t>(k) / inner) % bins);
            hist[k] = round_to<T>(hist[k] / round_to<T>(edges[d][bin + 1] - edges[d][bin]));
        }
        inner *= bins;
    }
}

// linspace(left, right, bins + 1) in T, as PyTorch's CPU kernel counts it: up from left for
// the first half, down from right for the second.
template <typename T>
std::vector<compute_t<T>> equal_edges(double left, double right, int64_t bins) {
    using V = compute_t<T>;
    if (bins >= (int64_t{1} << 40)) throw UnsupportedError("histogram of " + std::to_string(bins) + " bins is larger than pt2ov computes");
    const int64_t steps = bins + 1;
    const V first = cast<T>(left), last = cast<T>(right);
    const V step = round_to<T>(round_to<T>(last - first) / static_cast<V>(steps - 1));
    std::vector<V> edges(static_cast<size_t>(steps));
    for (int64_t i = 0; i < steps; ++i) {
        edges[static_cast<size_t>(i)] = i < steps / 2 ? round_to<T>(first + round_to<T>(step * static_cast<V>(i)))
                                                      : round_to<T>(last - round_to<T>(step * static_cast<V>(steps - i - 1)));
    }
    return edges;
}

std::optional<std::vector<double>> range_of(const KernelCall& call, size_t position) {
    const auto* a = call.arg("range", position);
    if (!a || a->kind == graph::Argument::Kind::None) return std::nullopt;
    if (a->kind != graph::Argument::Kind::List) call.fail("range must be a list of floats");
    std::vector<double> values;
    for (const auto& item : a->items) {
        if (item.kind == graph::Argument::Kind::Float) values.push_back(item.float_value);
        else if (item.kind == graph::Argument::Kind::Int) values.push_back(static_cast<double>(item.int_value));
        else call.fail("range must be a list of floats");
    }
    return values;
}

// The outer edges of each coordinate: `range` when given, else the points' min and max ([0, 1]
// without points); an empty range widened by 0.5 on each side (numpy's rule).
template <typename T>
std::vector<std::pair<double, double>> outer_edges(const KernelCall& call, const Points<T>& points,
                                                   const std::optional<std::vector<double>>& range) {
    const auto dims = static_cast<size_t>(points.dims);
    std::vector<std::pair<double, double>> outer(dims, {0.0, 1.0});
    if (range) {
        if (range->size() != 2 * dims) {
            call.fail("range needs " + std::to_string(2 * dims) + " values (a min and a max per coordinate), got " +
                      std::to_string(range->size()));
        }
        for (size_t d = 0; d < dims; ++d) outer[d] = {(*range)[2 * d], (*range)[2 * d + 1]};
    } else if (points.count() > 0) {
        for (size_t d = 0; d < dims; ++d) {
            double low = std::numeric_limits<double>::infinity(), high = -low;
            bool nan = false;
            for (int64_t i = 0; i < points.count(); ++i) {
                const double v = static_cast<double>(points.coordinates[static_cast<size_t>(i) * dims + d]);
                nan |= std::isnan(v);
                low = std::min(low, v);
                high = std::max(high, v);
            }
            outer[d] = nan ? std::pair{std::nan(""), std::nan("")} : std::pair{low, high};
        }
    }
    for (size_t d = 0; d < dims; ++d) {
        auto& [left, right] = outer[d];
        if (!std::isfinite(left) || !std::isfinite(right)) {
            call.fail("the range of coordinate " + std::to_string(d) + " [" + std::to_string(left) + ", " +
                      std::to_string(right) + "] is not finite");
        }
        if (left > right) call.fail("min should not exceed max for coordinate " + std::to_string(d));
        if (left == right) {
            left -= 0.5;
            right += 0.5;
        }
    }
    return outer;
}

void check_floating(const KernelCall& call, const StridedTensor& self, bool reduced_allowed) {
    const bool ok = self.dtype == DType::Float32 || self.dtype == DType::Float64 ||
                    (reduced_allowed && dtype_is_reduced_float(self.dtype));
    if (!ok) call.fail("needs a floating input, got " + std::string(dtype_name(self.dtype)));
}

// The points of a histogramdd input ([..., D]: D coordinates each) or of a histogram input
// (every element one point of one coordinate), with their weights.
template <typename T>
Points<T> points_of(const KernelCall& call, const StridedTensor& self, bool one_coordinate, size_t weight_position) {
    Points<T> points;
    if (!one_coordinate && self.rank() < 2) call.fail("histogramdd needs an input of at least 2 dims ([points, coordinates])");
    points.dims = one_coordinate ? 1 : self.sizes.back();
    if (points.dims == 0) call.fail("histogramdd needs at least one coordinate");
    points.coordinates = values_of<T>(self);
    if (auto weight = call.optional_tensor("weight", weight_position)) {
        if (weight->dtype != self.dtype) call.fail("the weight must have the input's dtype");
        std::vector<int64_t> expected = self.sizes;
        if (!one_coordinate) expected.pop_back();
        if (one_coordinate ? weight->numel() != self.numel() : weight->sizes != expected) {
            call.fail("the weight's shape " + shape_text(weight->sizes) + " does not fit the input's " + shape_text(self.sizes));
        }
        points.weights = values_of<T>(*weight);
    }
    return points;
}

template <typename T>
StridedTensor tensor_from(const KernelCall& call, size_t index, const std::vector<compute_t<T>>& values,
                          std::vector<int64_t> sizes, DType dtype) {
    StridedTensor out = allocate_output(call, index, sizes, dtype);
    const auto offsets = byte_offsets(out.sizes, out.strides, out.element_size());
    for (size_t i = 0; i < offsets.size(); ++i) store<T>(out.data + offsets[i], values[i]);
    return out;
}

std::vector<int64_t> bin_counts_of(const KernelCall& call, int64_t dims) {
    std::vector<int64_t> bins = call.ints("bins", 1);
    if (bins.size() == 1 && dims > 1) bins.assign(static_cast<size_t>(dims), bins[0]);  // histogramdd.int_bins
    if (static_cast<int64_t>(bins.size()) != dims) {
        call.fail("needs one bin count per coordinate (" + std::to_string(dims) + "), got " + std::to_string(bins.size()));
    }
    for (int64_t b : bins) {
        if (b <= 0) call.fail("bin counts must be positive, got " + std::to_string(b));
    }
    return bins;
}

// Edges from bin counts (histogram.bin_ct, histogramdd with int bins, _histogramdd_bin_edges).
template <typename T>
std::vector<std::vector<compute_t<T>>> edges_from_counts(const KernelCall& call, const Points<T>& points,
                                                         const std::vector<int64_t>& bins, size_t range_position) {
    const auto outer = outer_edges(call, points, range_of(call, range_position));
    std::vector<std::vector<compute_t<T>>> edges;
    for (size_t d = 0; d < bins.size(); ++d) edges.push_back(equal_edges<T>(outer[d].first, outer[d].second, bins[d]));
    return edges;
}

// Given edges (histogram.bins_tensor, histogramdd with a list of tensors).
template <typename T>
std::vector<std::vector<compute_t<T>>> edges_from_tensors(const KernelCall& call, const std::vector<StridedTensor>& bins,
                                                          const StridedTensor& self, int64_t dims) {
    if (static_cast<int64_t>(bins.size()) != dims) {
        call.fail("needs one bin tensor per coordinate (" + std::to_string(dims) + "), got " + std::to_string(bins.size()));
    }
    std::vector<std::vector<compute_t<T>>> edges;
    for (const auto& b : bins) {
        if (b.dtype != self.dtype) call.fail("the bin edges must have the input's dtype");
        if (b.rank() != 1) call.fail("bin edges must be a 1-d tensor, got shape " + shape_text(b.sizes));
        // One edge is no bin: the last-bin rule below would move its one position to bin -1.
        if (b.numel() < 2) {
            call.fail("bins must be > 0, but got " + std::to_string(std::max<int64_t>(b.numel() - 1, 0)) + " for dimension " +
                      std::to_string(edges.size()));
        }
        edges.push_back(values_of<T>(b));
    }
    return edges;
}

std::vector<int64_t> hist_sizes(const auto& edges) {
    std::vector<int64_t> sizes;
    for (const auto& e : edges) sizes.push_back(static_cast<int64_t>(e.size()) - 1);
    return sizes;
}

// histc(self, bins=100, min=0, max=0): a float input's histogram over [min, max] (the input's
// min and max when they are equal, widened by 1 when those are equal too).
std::vector<RuntimeValue> histc(const KernelCall& call) {
    const StridedTensor& self = call.tensor("self", 0);
    check_floating(call, self, true);
    const int64_t bins = call.int_arg("bins", 1, 100);
    if (bins <= 0) call.fail("bins must be > 0, got " + std::to_string(bins));
    double left = call.has("min", 2) ? scalar_to_double(call.scalar("min", 2)) : 0.0;
    double right = call.has("max", 3) ? scalar_to_double(call.scalar("max", 3)) : 0.0;
    return visit_floating(self.dtype, [&]<typename T>() {
        Points<T> points;
        points.coordinates = values_of<T>(self);
        if (left == right && !points.coordinates.empty()) {
            left = std::numeric_limits<double>::infinity();
            right = -left;
            for (auto v : points.coordinates) {
                const auto x = static_cast<double>(v);
                left = std::isnan(x) || std::isnan(left) ? std::nan("") : std::min(left, x);
                right = std::isnan(x) || std::isnan(right) ? std::nan("") : std::max(right, x);
            }
        }
        if (left == right) {
            left -= 1;
            right += 1;
        }
        if (!std::isfinite(left) || !std::isfinite(right)) {
            call.fail("the range [" + std::to_string(left) + ", " + std::to_string(right) + "] is not finite");
        }
        if (!(left < right)) call.fail("max must be larger than min");
        // Division alone reads only the outer edges, which are left and right exactly.
        const std::vector<std::vector<compute_t<T>>> edges{equal_edges<T>(left, right, bins)};
        std::vector<compute_t<T>> hist = count_points(call, points, edges, Placement::Division);
        return single(tensor_from<T>(call, 0, hist, {bins}, self.dtype));
    });
}

// histogram.bin_ct(self, bins=100, *, range=None, weight=None, density=False) -> (hist, bin_edges)
// histogram.bins_tensor(self, bins, *, weight=None, density=False) -> (hist, bin_edges)
std::vector<RuntimeValue> histogram(const KernelCall& call, bool bin_tensor) {
    const StridedTensor& self = call.tensor("self", 0);
    check_floating(call, self, false);
    const bool density = call.bool_arg("density", kKeywordOnly, false);
    if (!bin_tensor && call.int_arg("bins", 1, 100) <= 0) call.fail("bins must be > 0");
    return visit_floating(self.dtype, [&]<typename T>() {
        const Points<T> points = points_of<T>(call, self, true, kKeywordOnly);
        const auto edges = bin_tensor ? edges_from_tensors<T>(call, {call.tensor("bins", 1)}, self, 1)
                                      : edges_from_counts<T>(call, points, {call.int_arg("bins", 1, 100)}, kKeywordOnly);
        auto hist = count_points(call, points, edges, bin_tensor ? Placement::BinarySearch : Placement::DivisionThenNeighbours);
        if (density) to_density<T>(hist, edges);
        return std::vector<RuntimeValue>{RuntimeValue::of(tensor_from<T>(call, 0, hist, hist_sizes(edges), self.dtype)),
                                         RuntimeValue::of(tensor_from<T>(call, 1, edges[0], {static_cast<int64_t>(edges[0].size())}, self.dtype))};
    });
}

// histogramdd (int[] bins, int bins or Tensor[] bins) -> (hist, bin_edges), and its core-ATen
// parts: _histogramdd_bin_edges -> bin_edges, _histogramdd_from_bin_cts and
// _histogramdd_from_bin_tensors -> hist.
enum class Histogramdd { Full, EdgesOnly, HistOnly };

std::vector<RuntimeValue> histogramdd(const KernelCall& call, HistogramArgs at, Histogramdd part) {
    const StridedTensor& self = call.tensor("self", 0);
    check_floating(call, self, false);
    const auto* bins_arg = call.arg("bins", 1);
    const bool bin_tensors = bins_arg && bins_arg->kind == graph::Argument::Kind::List && !bins_arg->items.empty() &&
                             bins_arg->items[0].kind == graph::Argument::Kind::Tensor;
    const bool density = call.bool_arg("density", at.density, false);
    return visit_floating(self.dtype, [&]<typename T>() {
        const Points<T> points = points_of<T>(call, self, false, at.weight);
        const auto edges = bin_tensors ? edges_from_tensors<T>(call, call.tensors("bins", 1), self, points.dims)
                                       : edges_from_counts<T>(call, points, bin_counts_of(call, points.dims), at.range);
        std::vector<RuntimeValue> outs;
        if (part != Histogramdd::EdgesOnly) {
            auto hist = count_points(call, points, edges, bin_tensors ? Placement::BinarySearch : Placement::DivisionThenNeighbours);
            if (density) to_density<T>(hist, edges);
            outs.push_back(RuntimeValue::of(tensor_from<T>(call, 0, hist, hist_sizes(edges), self.dtype)));
        }
        if (part != Histogramdd::HistOnly) {
            const size_t first = part == Histogramdd::Full ? 1 : 0;
            for (size_t d = 0; d < edges.size(); ++d) {
                outs.push_back(RuntimeValue::of(
                    tensor_from<T>(call, first + d, edges[d], {static_cast<int64_t>(edges[d].size())}, self.dtype)));
            }
        }
        return outs;
    });
}

// ---- shape contracts -----------------------------------------------------------------------
// The sizes follow from the bins alone (counts, or the lengths of edge tensors), never from the
// data: a hist of one size per bin in each dim, and each dim's edges, one more than its bins.

void check_bin_count(const ShapeQuery& query, int64_t bins) {
    if (bins < 1) query.contradiction(fmt::format("its bin count {} is not positive", bins));
}

std::optional<std::vector<ExpectedSizes>> histc_shape(const ShapeQuery& query) {
    const auto bins = query.int_arg("bins", 1);
    if (!bins) return std::nullopt;
    check_bin_count(query, *bins);
    return std::vector<ExpectedSizes>{{*bins}};
}

// Each dim's bin count, from `bins` as int[] (one per dim), int (every dim's) or Tensor[] (1-d
// edges: one bin fewer than edges); `dims` the input's innermost size (nullopt when symbolic). A
// count is nullopt where an edge tensor's length is symbolic; no counts at all when unknown.
std::optional<ExpectedSizes> bins_per_dim(const ShapeQuery& query, std::optional<int64_t> dims) {
    if (const auto edges = query.tensor_list_sizes("bins", 1)) {
        if (dims && static_cast<int64_t>(edges->size()) != *dims) {
            query.contradiction(fmt::format("it gives {} bin tensors for {} dims", edges->size(), *dims));
        }
        ExpectedSizes counts;
        for (const auto& e : *edges) {
            if (e.size() != 1) query.contradiction(fmt::format("its bin tensors must be 1-d, not of {} dims", e.size()));
            counts.push_back(e[0] ? std::optional<int64_t>(*e[0] - 1) : std::nullopt);
        }
        return counts;
    }
    if (const auto edges = query.sizes("bins", 1)) {  // histogram.bins_tensor: one dim
        if (edges->size() != 1) query.contradiction(fmt::format("its bin tensor must be 1-d, not of {} dims", edges->size()));
        return ExpectedSizes{(*edges)[0] ? std::optional<int64_t>(*(*edges)[0] - 1) : std::nullopt};
    }
    const graph::Argument& bins = query.node().arg(1);
    const auto counts = query.ints("bins", 1);
    if (!counts) return std::nullopt;
    for (int64_t b : *counts) check_bin_count(query, b);
    if (bins.kind == graph::Argument::Kind::Int) {  // histogramdd.int_bins, histogram.bin_ct
        if (!dims) return std::nullopt;
        return ExpectedSizes(static_cast<size_t>(*dims), (*counts)[0]);
    }
    if (dims && static_cast<int64_t>(counts->size()) != *dims) {
        query.contradiction(fmt::format("it gives {} bin counts for {} dims", counts->size(), *dims));
    }
    return ExpectedSizes(counts->begin(), counts->end());
}

std::vector<ExpectedSizes> edges_of(const ExpectedSizes& counts) {
    std::vector<ExpectedSizes> edges;
    for (const auto& c : counts) edges.push_back({c ? std::optional<int64_t>(*c + 1) : std::nullopt});
    return edges;
}

// histogram: a 1-d histogram of every element, (hist, bin_edges).
std::optional<std::vector<ExpectedSizes>> histogram_shape(const ShapeQuery& query) {
    const auto counts = bins_per_dim(query, 1);
    if (!counts) return std::nullopt;
    return std::vector<ExpectedSizes>{*counts, edges_of(*counts)[0]};
}

// histogramdd and its parts over an input [..., D] of at least 2 dims: hist [bins...] then each
// dim's edges (as a list); _histogramdd_bin_edges the edges, the _from_ ops the hist.
template <Histogramdd kPart>
std::optional<std::vector<ExpectedSizes>> histogramdd_shape(const ShapeQuery& query) {
    const auto self = query.sizes("self", 0);
    if (!self) return std::nullopt;
    if (self->size() < 2) query.contradiction(fmt::format("its input has {} dims where histogramdd takes at least 2", self->size()));
    const auto counts = bins_per_dim(query, self->back());
    if (!counts) return std::nullopt;
    std::vector<ExpectedSizes> out;
    if (kPart != Histogramdd::EdgesOnly) out.push_back(*counts);
    if (kPart != Histogramdd::HistOnly) {
        for (auto& edges : edges_of(*counts)) out.push_back(std::move(edges));
    }
    if (out.empty()) return std::nullopt;  // the edges of no dims
    return out;
}

PT2OV_KERNEL("aten.histc.default", histc, histc_shape);
PT2OV_KERNEL("aten.histogram.bin_ct", [](const KernelCall& c) { return histogram(c, false); }, histogram_shape);
PT2OV_KERNEL("aten.histogram.bins_tensor", [](const KernelCall& c) { return histogram(c, true); }, histogram_shape);
PT2OV_KERNEL("aten.histogramdd.default", [](const KernelCall& c) { return histogramdd(c, kHistogramddArgs, Histogramdd::Full); },
             histogramdd_shape<Histogramdd::Full>);
PT2OV_KERNEL("aten.histogramdd.int_bins", [](const KernelCall& c) { return histogramdd(c, kHistogramddArgs, Histogramdd::Full); },
             histogramdd_shape<Histogramdd::Full>);
PT2OV_KERNEL("aten.histogramdd.TensorList_bins",
             [](const KernelCall& c) { return histogramdd(c, kHistogramddArgs, Histogramdd::Full); },
             histogramdd_shape<Histogramdd::Full>);
PT2OV_KERNEL("aten._histogramdd_bin_edges.default",
             [](const KernelCall& c) { return histogramdd(c, kKeywordArgs, Histogramdd::EdgesOnly); },
             histogramdd_shape<Histogramdd::EdgesOnly>);
PT2OV_KERNEL("aten._histogramdd_from_bin_cts.default",
             [](const KernelCall& c) { return histogramdd(c, kKeywordArgs, Histogramdd::HistOnly); },
             histogramdd_shape<Histogramdd::HistOnly>);
PT2OV_KERNEL("aten._histogramdd_from_bin_tensors.default",
             [](const KernelCall& c) { return histogramdd(c, kKeywordArgs, Histogramdd::HistOnly); },
             histogramdd_shape<Histogramdd::HistOnly>);

}  // namespace
}  // namespace pt2ov::kernels
