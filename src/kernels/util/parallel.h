// Ranges of a loop split over the library's threads.
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

#include "kernels/tensor.h"

namespace pt2ov::kernels {

// ---- Parallel ranges -----------------------------------------------------------------------

// Loops this long or longer are split over threads; shorter ones run on the calling thread,
// where a hand-off to other threads would cost more than it saves.
inline constexpr int64_t kParallelMinElements = 65536;

// Runs body(begin, end) over ranges that together cover [0, total) once each, split over the
// threads of the library's pool (TBB's, which OpenVINO shares, when pt2ov is built with it)
// with no range shorter than `min_per_range`; on the calling thread alone when that leaves one
// range. Callers decide when a loop is worth splitting (kParallelMinElements). Safe to call
// from several threads at once. The ranges are disjoint, so a body that writes only its own
// range's outputs gives the same result however they are split. The first exception a range
// throws is rethrown here once every range has finished.
void parallel_ranges(int64_t total, int64_t min_per_range, const std::function<void(int64_t, int64_t)>& body);

}  // namespace pt2ov::kernels
