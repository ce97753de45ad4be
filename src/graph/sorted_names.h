// The search both generated name tables share (op_id.h, arg_name.h): each is a sorted array of
// string_views whose positions are ids, searched at compile time and at run time alike.
#pragma once

#include <cstddef>
#include <string_view>

namespace pt2ov::graph {

// The first position of `table[0, count)` whose name is not less than `name`.
constexpr size_t sorted_lower_bound(const std::string_view* table, size_t count, std::string_view name) {
    size_t low = 0, high = count;
    while (low < high) {
        const size_t mid = (low + high) / 2;
        if (table[mid] < name) low = mid + 1;
        else high = mid;
    }
    return low;
}

}  // namespace pt2ov::graph
