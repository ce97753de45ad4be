// libFuzzer target: an .npz as bytes, through `pt2ov run`'s input reader (libzip, the .npy
// headers, dtypes, Fortran order, compressed entries) and the bf16-from-float32 check.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"
#include "tools/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pt2ov;
    fuzz::MemoryFile file(data, size);
    fuzz::expect_clean_refusal([&] {
        for (const auto& array : tools::read_npz(file.path())) {
            if (array.tensor.dtype() != DType::Float32) continue;
            fuzz::expect_clean_refusal([&] { (void)tools::bfloat16_from_float32(array.tensor); });
        }
    });
    return 0;
}
