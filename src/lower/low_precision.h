// A quantized program in the forms OpenVINO's CPU plugin runs on its low-precision kernels
// (EXACTNESS.md E8): each quantize-dequantize pair of graph::FakeQuantization as one
// FakeQuantize, and integer weights kept as integer Constants converted and scaled (the
// plugin's compressed-weight pattern) instead of folded into float weights.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "lower/decoder.h"
#include "lower/subgraph.h"
#include "openvino/core/model.hpp"

namespace pt2ov::lower {

struct LowPrecisionChanges {
    std::vector<std::string> fake_quantized;  // the dequantize nodes now a FakeQuantize
    size_t integer_weights_folded = 0;        // integer weights computed at load into Constants
    size_t zero_subtractions_dropped = 0;     // `w * scale - 0` become `w * scale`
};

// A per-channel pair's bounds, one per channel along its axis, come from its scales and zero
// points as `constants` stores them (a pair whose are not stored constants keeps the reference
// arithmetic). Replaces, in `model` (`step`, converted by the frontend from our decoder with `ids`), the
// dequantized value of every recorded pair whose float input and dequantized output both are
// values of the model by FakeQuantize(input): bounds (quant_min - zero_point) * scale and
// (quant_max - zero_point) * scale, in float32 as eager's dequantize computes them, and
// quant_max - quant_min + 1 levels. The decomposed pair stays for any other reader of its
// integers. Then, for the weights: every integer-to-float Convert whose input is computed from
// constants alone reads a Constant of that value instead (computed here, once, by OpenVINO's
// evaluate(), which rounds as eager does), and a Subtract of an all-zero constant from such a
// converted and scaled weight is dropped (x - 0 is x, bit for bit), so that the plugin finds its
// compressed-weight pattern Convert(Constant) -> [Subtract] -> Multiply.
LowPrecisionChanges lower_to_low_precision(ov::Model& model, const graph::Graph& graph, const ValueIds& ids,
                                           const Subgraph& step, const ConstantMap& constants);

}  // namespace pt2ov::lower
