// Builds the IR from a program JSON as torch.export's serializer writes it
// (torch/_export/serde/schema.py). Schema major version 8 is read, any minor.
#pragma once

#include <string>

#include "graph/graph.h"

namespace pt2ov::graph {

// Parses one ExportedProgram JSON. `where` names it in errors ("m.pt2: models/model.json").
// Throws ArchiveError for malformed JSON or an unknown schema major version, and
// UnsupportedError for constructs the engine does not carry (named, with the node).
Graph graph_from_json(const std::string& json_text, const std::string& where);

}  // namespace pt2ov::graph
