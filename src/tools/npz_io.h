// The .npz side of a call, as `pt2ov run` does it: arrays to program inputs (by position or by
// name, bf16 from float32) and program outputs back to arrays.
#pragma once

#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov::tools {

// Reads `path` and orders its arrays as the program's inputs: arr_0, arr_1, ... by position,
// or arrays named after the inputs. Throws InputError naming the file and the array for a
// key that is neither, a missing input, or a dtype other than the input's.
std::vector<Tensor> read_inputs(const std::string& path, const std::vector<IOInfo>& inputs);

// Writes the outputs as arr_0, arr_1, ... (bf16 as float32).
void write_outputs(const std::string& path, const std::vector<Tensor>& outputs);

}  // namespace pt2ov::tools
