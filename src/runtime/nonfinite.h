// The check that sends a call with NaN or an infinity among its inputs to the CPU kernels
// (LoadOptions::nonfinite_inputs): OpenVINO's CPU plugin loses NaN through relu, exp, max and
// clamp and through the ops it fuses them into (docs/EXACTNESS.md O8), pt2ov's CPU kernels follow
// PyTorch on every value. The check reads each floating input once per call, so that finite
// calls (nearly all of them) keep OpenVINO's speed. The outputs of a stateless program are read
// the same way where that is cheap: NaN or inf made by OpenVINO from finite inputs sends the
// call to the CPU kernels too.
#pragma once

#include <vector>

#include "pt2ov/tensor.h"

namespace pt2ov::runtime {

// Whether a floating tensor (float32, float64, float16, bfloat16) holds a NaN or an infinity:
// an element whose exponent bits are all ones. Other dtypes hold none.
bool holds_nonfinite(const Tensor& tensor);

// The index of the first input that holds NaN or an infinity; -1 when none does.
int first_nonfinite(const std::vector<Tensor>& inputs);

// Whether reading `outputs` for NaN costs no more than reading the inputs did, within a margin:
// their floating elements number at most twice the inputs' elements plus 65,536. A classifier,
// a policy or a detector head qualifies; a language model's logits for a whole prompt do not.
bool cheap_to_scan(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs);

}  // namespace pt2ov::runtime
