// numpy's .npz files: how `pt2ov run` receives inputs and hands back outputs (README.md, "The
// command line"). An .npz is a zip of .npy entries; libzip does the zip, the tiny .npy header
// is ours. Part of the tools library (pt2ov_tools), not of libpt2ov: it uses the public API only. numpy has no bfloat16, so a bf16 tensor travels as a float32 array holding exactly
// the bf16 values; the helpers at the bottom convert both ways.
//
// Thread safety: the functions share no state; call them from any thread.
#pragma once

#include <string>
#include <vector>

#include "pt2ov/tensor.h"

namespace pt2ov::tools {

// One array of an .npz: its name without the ".npy" suffix ("arr_0", "image", ...).
struct NamedArray {
    std::string name;
    Tensor tensor;
};

// Reads every array of `path` into tensors that own their (C-order) memory.
//
// Order: np.savez(path, *inputs) names arrays arr_0, arr_1, ...; those come first, sorted by
// their number (arr_9 before arr_10, whatever the zip order), then every other array in
// archive order.
//
// Accepted dtypes: bool, uint8, int8, int16, uint16, int32, int64, float16, float32, float64,
// little-endian. Fortran-order arrays are copied to C order; 0-d arrays have rank 0; entries
// compressed by np.savez_compressed are fine.
//
// Throws InputError naming the file (and the array, where one is concerned) for a missing or
// unreadable file, one that is not a zip, a truncated or damaged zip, a .npy header that does
// not parse or does not match its data, or an array of another dtype.
std::vector<NamedArray> read_npz(const std::string& path);

// Writes `arrays` to `path` as uncompressed "<name>.npy" entries that np.load reads back.
// bfloat16 tensors are written as float32 arrays (exact). The file appears whole or not at all:
// it is written under a temporary name in the same folder and then renamed over `path`.
// Throws Error naming the path when it cannot be written, or for duplicate or empty names.
void write_npz(const std::string& path, const std::vector<NamedArray>& arrays);

// A bf16 program input arrives as a float32 array. Every float32 must be a bf16 value exactly
// (low 16 bits zero; kept bit for bit, NaN payloads included), or a NaN (which becomes bf16's
// quiet NaN, sign kept): silently rounding would hand the program other numbers than the user
// meant. Throws InputError at the first float that is not, or for a tensor that is not float32.
Tensor bfloat16_from_float32(const Tensor& float32_tensor);

// The other way, for outputs: exact for every bf16 value (its bits become the float's top 16).
Tensor float32_from_bfloat16(const Tensor& bfloat16_tensor);

}  // namespace pt2ov::tools
