// What a kernel reads and returns beside tensors: the keyword-only position, memory formats,
// and one output as most kernels return it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace pt2ov::kernels {

// ---- Arguments -----------------------------------------------------------------------------

// The position to pass for keyword-only schema arguments: never a positional one.
inline constexpr size_t kKeywordOnly = 1000;

// MemoryFormat as the archive numbers it (torch/_export/serde/schema.py).
inline constexpr int64_t kContiguousFormat = 1;
inline constexpr int64_t kChannelsLast = 2;
inline constexpr int64_t kChannelsLast3d = 3;
inline constexpr int64_t kPreserveFormat = 4;

// One output, as most kernels return.
inline std::vector<RuntimeValue> single(StridedTensor t) { return {RuntimeValue::of(std::move(t))}; }

}  // namespace pt2ov::kernels
