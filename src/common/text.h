// Text helpers shared by the engine, the command line and the Python module. Header-only, so
// the tools around the engine (which use the public API only) may include it too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pt2ov {

// A message on one line (OpenVINO's own errors span several): runs of whitespace become one
// space, none at either end. Errors on the command line and in Python, and a plugin's words in
// a node's reason, are given so.
inline std::string one_line(const std::string& message) {
    std::string line;
    bool space = false;
    for (char c : message) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = !line.empty();
            continue;
        }
        if (space) line += ' ';
        space = false;
        line += c;
    }
    return line;
}

// A shape or sizes as every message gives them: "[2, 3]", "[]" for a 0-d tensor.
inline std::string shape_text(const std::vector<int64_t>& sizes) {
    std::string text = "[";
    for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
    return text + "]";
}

// The items of `text` between `separator`s, empty ones included ("" is one empty item, "a,"
// two).
inline std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> items;
    for (size_t start = 0;;) {
        const size_t end = std::min(text.find(separator, start), text.size());
        items.emplace_back(text.substr(start, end - start));
        if (end == text.size()) return items;
        start = end + 1;
    }
}

}  // namespace pt2ov
