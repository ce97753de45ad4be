// JSON read from outside (a request body, a config.json, an archive's program) is bounded before
// anything walks it: nlohmann's parser is iterative, but its dump() and any walk of ours that
// recurses would go one stack frame per level, and 100,000 '[' fit in 100 KB. Header-only, so
// that the engine, the server and the tools share it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pt2ov {

// The deepest nesting of arrays and objects in JSON `text` (0 for a scalar), read in one pass
// without recursion; brackets inside strings do not count. Malformed text is the parser's to
// refuse: this only counts.
inline size_t json_nesting(std::string_view text) {
    size_t depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        switch (c) {
            case '"': in_string = true; break;
            case '[':
            case '{':
                if (++depth > deepest) deepest = depth;
                break;
            case ']':
            case '}':
                if (depth > 0) --depth;
                break;
            default: break;
        }
    }
    return deepest;
}

// A value as an error message may quote it: bounded and without recursion. Scalars as JSON
// (a string cut to 40 characters), an array or an object by its kind and size.
inline std::string json_excerpt(const nlohmann::json& value) {
    constexpr size_t kLongest = 40;
    if (value.is_array()) return "an array of " + std::to_string(value.size());
    if (value.is_object()) return "an object of " + std::to_string(value.size()) + " members";
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (text.size() > kLongest) {
            return nlohmann::json(text.substr(0, kLongest)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                   "... (" + std::to_string(text.size()) + " characters)";
        }
    }
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace pt2ov
