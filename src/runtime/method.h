// One method of a .pt2 loaded for running: its IR, its constants (held once, in the archive's
// mapping), the OpenVINO model compiled from it, and the state of the buffers it mutates.
//
// Thread safety: a LoadedMethod runs one call at a time (it owns one infer request).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "graph/graph.h"
#include "lower/subgraph.h"
#include "openvino/op/constant.hpp"
#include "openvino/runtime/compiled_model.hpp"
#include "openvino/runtime/infer_request.hpp"
#include "pt2ov/pt2ov.h"

namespace pt2ov::runtime {

// Where a program output's value comes from in a call.
struct OutputSource {
    enum class Kind {
        OpenVINO,        // result `index` of the compiled model
        CopyOfInput,     // a copy of user input `index`
        CopyOfBuffer,    // a copy of the mutated buffer `name`'s value before the call
        CopyOfConstant,  // a copy of `constant`'s memory
        CopyOfOutput,    // a copy of program output `index` (one tensor returned twice)
        Number,          // a number the program returns as is
    };
    Kind kind = Kind::OpenVINO;
    size_t index = 0;
    std::string name;
    std::shared_ptr<ov::op::v0::Constant> constant;
    Tensor number;
    std::string node;  // the IR node whose output this is, for the report
};

// The read side of a program (everything but compiling), shared by inspect and load.
struct PreparedMethod {
    std::shared_ptr<const archive::Archive> archive;
    std::string method;  // as the user names it ("forward")
    std::string where;   // "model.pt2, method forward": how errors name it
    graph::Graph graph;
    std::map<std::string, archive::StoredTensor> stored;  // parameters, buffers, constants by target name
    lower::ConstantMap constants;                         // by graph value name
    std::vector<std::string> user_inputs;                 // graph value names
    std::map<std::string, std::string> mutated_buffers;   // graph input name → its stored target
    std::vector<IOInfo> input_infos;
    std::vector<IOInfo> output_infos;
    double archive_ms = 0;
};

PreparedMethod prepare_method(const std::string& path, const LoadOptions& options);

// What OpenVINO made of a whole method: the model and where every program output comes from.
struct LoweredMethod {
    std::shared_ptr<ov::Model> model;           // null when OpenVINO has nothing to compute
    std::vector<OutputSource> sources;          // per graph output (mutations, then user outputs)
    std::vector<std::string> model_inputs;      // per model Parameter: the graph value it reads
    PlacementReport report;
    double convert_ms = 0;
};

LoweredMethod lower_method(const PreparedMethod& prepared, const LoadOptions& options, bool for_inspect);

}  // namespace pt2ov::runtime
