// Which node runs where, and why: the method split into steps that run one after another,
// each either one OpenVINO model or a run of CPU kernels. Written as numbered passes, a file
// each (partition/passN_*.cpp; placement.cpp runs them in order), each testable alone. Builds no OpenVINO model: support comes in as a set
// of nodes OpenVINO could not convert, learned by the lowering stage from OpenVINO itself.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/int64_ranges.h"

namespace pt2ov::partition {

struct PlacementOptions {
    std::vector<std::string> cpu_ops;    // "aten.atan.default", or "aten.atan" for every overload
    std::vector<std::string> cpu_nodes;  // node names as the archive has them
    bool strict = false;                 // refuse any CPU step
    std::string openvino_version;        // named in reasons
    // node name -> why OpenVINO could not compile the step that held it (Program::load retries)
    std::map<std::string, std::string> compile_failures;
    // node name -> how its OpenVINO step disagreed with pt2ov's CPU kernels, or crashed, when
    // verified at load (LoadOptions::verify, runtime/verify.h)
    std::map<std::string, std::string> verify_failures;
    // Non-empty: every node that has a CPU kernel runs on the CPU kernels, with this reason (a
    // small program whose placement Program::load times both ways: compile/planner.h).
    std::string all_on_cpu_reason;
    // LoadOptions::compressed_weights: the float arithmetic that decompresses an integer weight
    // stays on OpenVINO (pass 3c), which keeps the integers narrow.
    bool compressed_weights = false;
};

enum class Where { OpenVINO, Cpu };

// Elements a node reads and writes (a measure of its work), or -1 when a shape is not static.
int64_t touched_elements(const graph::Graph& graph, const graph::Node& node);

struct Step {
    Where where = Where::OpenVINO;
    std::vector<int> nodes;             // graph node indexes, in execution order
    std::vector<std::string> inputs;    // values read from earlier steps or the runtime
    std::vector<std::string> outputs;   // values later steps or the program's outputs read
};

struct Plan {
    std::vector<Where> where;          // per graph node
    std::vector<std::string> reason;   // per graph node
    // per graph node: on the CPU and reading constants only, so computed once at load (pass 3c);
    // such nodes come first, in a step of their own, and cut no OpenVINO step
    std::vector<bool> at_load;
    std::vector<Step> steps;
};

// What the runtime feeds and holds, so edges can be computed.
struct ValueSources {
    std::set<std::string> runtime_inputs;  // user inputs and mutated buffers, fed each call
    std::set<std::string> constants;       // parameters, buffers, lifted constants (memory held once)
    // int64 constants whose values do not fit in 32 bits (OpenVINO's CPU plugin would cut them).
    std::set<std::string> wide_int64_constants;
    // The smallest and largest value of every int64 constant (partition/int64_ranges.h).
    std::map<std::string, Int64Range> int64_constant_ranges;
    // Nodes OpenVINO converts to nothing: their outputs are their inputs, unchanged (learned
    // from OpenVINO's conversion).
    std::set<std::string> passthrough_nodes;
    // Nodes OpenVINO converts only to ops that move or pick values (Reshape, Concat, Gather,
    // ...): they make no value their inputs did not hold, so no 64-bit value beyond 32 bits
    // that was not already checked where it entered OpenVINO.
    std::set<std::string> moving_nodes;
};

// Places every node. `unsupported` maps node names OpenVINO could not convert to its reason.
// Throws UnsupportedError naming nodes and ops for a node neither OpenVINO nor a CPU kernel
// can run, and, in strict mode, for any node that would run on the CPU.
Plan place(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported,
           const ValueSources& sources, const PlacementOptions& options);

// Every node on OpenVINO, in one step with its edges: what the load pipeline hands OpenVINO
// to learn which nodes it supports. Empty steps for a method with no nodes. Nodes whose
// archive name is in `left_out` (whose conversion makes OpenVINO's frontend throw) are on the
// CPU instead, which cuts the method into the OpenVINO steps around them.
Plan whole_method(const graph::Graph& graph, const ValueSources& sources, const std::set<std::string>& left_out = {});

// True when `op` ("aten.atan" or "aten.atan.default") names `target`.
bool op_matches(const std::string& op, const std::string& target);

}  // namespace pt2ov::partition
