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

// `pt2ov run --inputs-out`: writes a call's inputs as the call left them (an input the program
// writes in place holds its new value), each named after its input, so the file can be the next
// --inputs (bf16 as float32).
void write_inputs(const std::string& path, const std::vector<Tensor>& inputs, const std::vector<IOInfo>& infos);

// `pt2ov run --state-in`: sets the program's mutated buffers from the arrays of `path`, each
// named by its buffer's state-dict name (a bf16 buffer from float32, exactly); buffers not in
// the file keep their values. Throws InputError naming the file and the array for a name that
// is not a mutated buffer or a value of another dtype or shape.
void load_state(const std::string& path, Program& program);

// `pt2ov run --state-out`: writes every mutated buffer's current state, named by its buffer
// (bf16 as float32).
void save_state(const std::string& path, const Program& program);

}  // namespace pt2ov::tools
