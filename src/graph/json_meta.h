// The schema's TensorMeta as JSON. The program (models/*.json) and the archive's weight and
// constant configs store the same structure, so both readers share this one parser.
// Internal to the engine: nothing in include/ sees nlohmann-json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "graph/graph.h"

namespace pt2ov::graph {

// Reads {"dtype", "sizes", "strides", "storage_offset", ...} and derives the dim order. Throws
// ArchiveError naming `where` for a malformed meta, UnsupportedError for a dtype we do not carry.
TensorMeta tensor_meta_from_json(const nlohmann::json& meta, const std::string& where);

}  // namespace pt2ov::graph
