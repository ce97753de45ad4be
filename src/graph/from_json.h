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

// The nodes are in an order that runs: every value a node or a graph output reads is a graph
// input or made by an earlier node, and every value is made once and has an entry in the value
// tables. So the graph is a DAG and its stored order a topological one. graph_from_json runs
// this; throws ArchiveError naming the node and value.
void check_values_defined_before_use(const Graph& graph);

}  // namespace pt2ov::graph
