// What the load pipeline (compile/stages.h) makes of one method of a .pt2: the read side (its
// IR, its constants held once in the archive's mapping, its signature) and the plan (steps on
// OpenVINO, each one converted model, and on CPU kernels). The executor runs these; they hold
// no per-call state.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "graph/graph.h"
#include "kernels/tensor.h"
#include "lower/subgraph.h"
#include "openvino/core/model.hpp"
#include "openvino/op/constant.hpp"
#include "partition/plan.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::compile {

// The read side of a program, before any placement.
struct PreparedMethod {
    std::shared_ptr<const archive::Archive> archive;
    std::string method;  // as the user names it ("forward")
    std::string model;   // as the archive names it ("model" for torch.export.save's one program)
    std::string where;   // "model.pt2, method forward": how errors name it
    graph::Graph graph;
    std::map<std::string, archive::StoredTensor> stored;  // parameters, buffers, constants by target name
    lower::ConstantMap constants;                         // by graph value name
    std::vector<std::string> user_inputs;                 // graph value names
    std::map<std::string, std::string> mutated_buffers;   // graph input name → its stored target
    std::vector<IOInfo> input_infos;
    std::vector<IOInfo> output_infos;
    // Per symbolic dim of the user inputs: where it appears (input index, dim), so a call can
    // check that dims exported equal are given equal.
    std::map<std::string, std::vector<std::pair<size_t, size_t>>> symbol_uses;
    // LoadOptions::int64_input_limit: the bound every int64 user input's values are checked
    // against on each call, and that placement may count on; 0 when none was promised.
    int64_t int64_input_limit = 0;
    // LoadOptions::appending_positions: the user input (index) whose values each call checks
    // run on from the previous call's, and whose value tells lowering where caches are written;
    // -1 when none was promised.
    int appending_positions_input = -1;
    // LoadOptions::compressed_weights: weight decompression left to OpenVINO (lower/subgraph.h).
    bool compressed_weights = false;
    double archive_ms = 0;
};

// A value an OpenVINO step would hand back as one of its own inputs or constants, or as a
// tensor it already returns: the runtime makes it instead (openvino_facts
// ResultThatIsItsInput; docs/EXACTNESS.md).
struct Alias {
    enum class Kind { Input, Constant, SameAs };
    Kind kind = Kind::Input;
    std::string value;   // the value made
    std::string source;  // Input/SameAs: the value it repeats
    std::shared_ptr<ov::op::v0::Constant> constant;
};

struct OpenVINOStep {
    std::shared_ptr<ov::Model> model;         // null when every output is an alias
    std::vector<std::string> parameters;      // per model Parameter: the value it reads
    std::vector<std::string> results;         // per model Result: the value it gives
    std::vector<Alias> aliases;
    // The mutated buffers this step keeps as OpenVINO state (stage keep_state_in_openvino), by
    // state-dict name, which is also each ov::op::util::Variable's id: the model reads them with
    // a ReadValue (no Parameter) and writes their new value with an Assign (no Result).
    std::vector<std::string> states;
    // Those of `states` held as a state that grows by each call's positions
    // (lower/appending_cache.h), with the static cache's capacity.
    std::map<std::string, int64_t> appending_states;
};

struct PlannedMethod {
    partition::Plan plan;
    std::map<size_t, OpenVINOStep> openvino_steps;  // by plan step index
    PlacementReport report;
    double convert_ms = 0;
};

}  // namespace pt2ov::compile
