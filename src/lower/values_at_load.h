// Values computed once at load (compile::computed_once_at_load) entering a step's OpenVINO
// model as Constants over their memory, as weights do, instead of Parameters bound at every
// call: the plugin then prepares them once as it prepares weights (a matmul's weight packed at
// compile time, not read as an activation). With --compressed-weights, a weight's integers the
// plugin decompresses stay 4-bit where they fit, over the archive's own bytes where NNCF packed
// them two to a byte.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "graph/graph.h"
#include "lower/subgraph.h"
#include "openvino/core/model.hpp"
#include "pt2ov/dtype.h"

namespace pt2ov::lower {

// One value computed at load, dense (row-major, no gaps), kept alive by `owner`.
struct DenseValue {
    DType dtype = DType::Float32;
    std::vector<int64_t> sizes;
    const void* data = nullptr;
    std::shared_ptr<const void> owner;

    int64_t numel() const {
        int64_t n = 1;
        for (const int64_t s : sizes) n *= s;
        return n;
    }
};

// A copy of `model` whose Parameters (named by `parameters`, in the model's order) that have a
// value in `values` (same positions; nullopt: none, or one of another element type) read a
// Constant of it; `parameters` loses the names that became Constants. `graph` and `constants`
// are where NNCF's packing of a value is recognised (the nibbles of a uint8 constant, and of its
// symmetric form less 8), `archive` owns those bytes. The ops of constants the plugin would
// compute wrongly are then computed here, as for the archive's constants (constant_precompute.h).
// `model` itself when no parameter has a value.
std::shared_ptr<ov::Model> with_values_as_constants(const std::shared_ptr<ov::Model>& model,
                                                    std::vector<std::string>& parameters,
                                                    const std::vector<std::optional<DenseValue>>& values,
                                                    const graph::Graph& graph, const ConstantMap& constants,
                                                    const std::shared_ptr<const archive::Archive>& archive,
                                                    bool compressed_weights);

}  // namespace pt2ov::lower
