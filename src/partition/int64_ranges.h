// Bounds of int64 values known at load, so that index arithmetic on small numbers (positions
// from arange, relative offsets, table indices) can stay on OpenVINO: its CPU plugin computes
// int64 in 32 bits, which is exact for every value, intermediate and result that fits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "graph/graph.h"

namespace pt2ov::partition {

struct Int64Range {
    int64_t min = 0;
    int64_t max = 0;
};

// Bounds of int64 tensor values, by value name. A value missing has no known bound (a user
// input, a value made by an op the analysis does not follow, or one that may leave int64).
class Int64Ranges {
public:
    // `constants` are the bounds of the program's int64 constants (from their stored values).
    Int64Ranges(const graph::Graph& graph, std::map<std::string, Int64Range> constants);

    std::optional<Int64Range> of(const std::string& value) const;

    // The bound of a node's argument: a number, a symbolic int within its exported range, a bool
    // tensor ([0, 1]) or an int64 tensor with a known bound; nullopt otherwise.
    std::optional<Int64Range> bound(const graph::Argument& arg) const;

    // True when every int64 tensor `node` reads or writes has a bound within 32 bits, and it
    // reads or writes no float64 tensor: OpenVINO's 32-bit computation of it is exact.
    bool fits_in_32_bits(const graph::Node& node) const;

private:
    void follow(const graph::Node& node);
    std::optional<Int64Range> integer_bound(const graph::Argument& arg) const;
    const graph::Graph& graph_;
    std::map<std::string, Int64Range> ranges_;
};

}  // namespace pt2ov::partition
