#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "openvino/core/node.hpp"
#include "openvino/op/constant.hpp"

namespace pt2ov::lower {

// The values of a converted model that constants alone decide, computed here: a Constant, a
// ShapeOf of a static shape, or an op whose inputs are all such values and whose own
// constant_fold computes it. The rewrites of a converted model ask it whether an input they
// depend on (a weight's integers, a normalization's axes) is known before the plugin sees the
// model. One folder remembers what it folded, so asking about many values of one model folds
// each op once.
class ConstantFolder {
public:
    // `max_depth` bounds how many ops above the value asked about are looked at: a rewrite
    // that asks about every op of a large model wants the answer for short chains only (a
    // normalization's axes are a few ops of constants), not a walk to the model's inputs per
    // question.
    explicit ConstantFolder(size_t max_depth = SIZE_MAX) : max_depth_(max_depth) {}

    // `output`'s value, or null where it depends on a Parameter, a dynamic shape, an op
    // OpenVINO cannot fold, or ops deeper than `max_depth`.
    std::shared_ptr<ov::op::v0::Constant> value_of(const ov::Output<ov::Node>& output);

private:
    // Null where not known; `cut` set where the answer was cut short by the depth (not
    // remembered: the same op asked about nearer the top may fold).
    std::shared_ptr<ov::op::v0::Constant> value_of(const ov::Output<ov::Node>& output, size_t depth, bool& cut);

    size_t max_depth_;
    // Each op asked about and answered in full: its folded outputs, or none where it does not
    // fold.
    std::map<const ov::Node*, ov::OutputVector> folded_;
};

// One question, with a folder of its own.
std::shared_ptr<ov::op::v0::Constant> constant_value(const ov::Output<ov::Node>& output, size_t max_depth = SIZE_MAX);

}  // namespace pt2ov::lower
