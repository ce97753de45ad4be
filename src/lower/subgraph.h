// The part of a method handed to OpenVINO as one model: which values enter it as Parameters,
// which are constants (held by the engine, wrapped without copy), which nodes it runs and
// which values leave it as Results.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "graph/graph.h"

namespace pt2ov::lower {

struct Subgraph {
    std::vector<std::string> inputs;   // values fed by the runtime, in Parameter order
    std::vector<int> nodes;            // indexes into Graph::nodes, in execution order
    std::vector<std::string> outputs;  // values read back, in Result order
    // LoadOptions::compressed_weights: a float16 weight decompression of narrow integer
    // Constants is left to the plugin (EXACTNESS.md E9), not folded at conversion.
    bool keep_weight_decompression = false;
};

// The memory behind a constant value (a parameter, buffer or lifted constant), by value name.
using ConstantMap = std::map<std::string, const archive::StoredTensor*>;

}  // namespace pt2ov::lower
