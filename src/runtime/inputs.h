// Checking a call's inputs against the program before anything runs, so a wrong input is one
// clear error naming the input, never a crash or a garbage result.
#pragma once

#include <vector>

#include "pt2ov/tensor.h"
#include "compile/method.h"

namespace pt2ov::runtime {

using compile::PreparedMethod;

// Throws InputError naming the input (index and name) for a wrong count, dtype, rank, static
// size, a dynamic size outside the exported range, or one symbol given two different sizes.
void check_inputs(const PreparedMethod& method, const std::vector<Tensor>& inputs);

}  // namespace pt2ov::runtime
