// The load pipeline, one named stage a function, in the order compile.cpp runs them:
//
//   read → check → rewrite → bind signature → number values   (PreparedMethod: the read side)
//   → learn support → place ⇄ convert → take out aliases → report   (PlannedMethod)
//
// Each stage takes what the earlier ones made and returns (or fills in) its own part, so a
// unit test can run a stage alone on a small program. No stage holds per-call state.
#pragma once

#include <set>

#include <map>
#include <memory>
#include <string>

#include "compile/method.h"
#include "lower/convert.h"
#include "partition/plan.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::compile {

// Stage read: the archive opened (mapped once) and the method's program parsed into the IR.
// Throws InputError for a method the archive does not hold (naming the ones it does).
PreparedMethod read(const std::string& path, const std::string& method);

// Stage check: every node against the op schemas of the pinned PyTorch (graph/schema.h):
// unknown, missing or ill-kinded arguments and wrong output counts are refused naming the
// node, the argument and the schema; each node's arguments are resolved to schema positions
// with defaults filled in, read through Node::arg.
void check(PreparedMethod& method);

// Stage rewrite: assertions dropped, in-place ops made functional, training-IR ops lowered
// to core ATen (graph/passes/passes.h, one pass per file, in the order of its table).
void rewrite(PreparedMethod& method);

// Stage bind signature: user inputs, parameters, buffers, lifted constants and mutated
// buffers matched with the archive's weights; the inputs' and outputs' descriptions. Refuses,
// with a message, programs that write a caller's input, return training outputs, or take
// custom objects or effect tokens.
void bind_signature(PreparedMethod& method);

// Stage learn support: the whole method converted partially by OpenVINO's frontend. A node
// it leaves unconverted runs elsewhere; what it converts to nothing, or only to value-moving
// ops, is recorded for placement. The conversion is kept: when placement puts every node in
// one OpenVINO step, it is that step's model.
struct Support {
    std::map<std::string, std::string> unsupported;  // node (archive name) → OpenVINO's reason
    partition::ValueSources sources;
    // every node on OpenVINO, one step (empty for a method with no nodes); when a frontend pass
    // threw on some node, those nodes are on the CPU and whole_conversion has no model
    partition::Plan whole;
    lower::Conversion whole_conversion;
};
Support learn_support(const PreparedMethod& method);

// Stages place and convert, repeated until they agree: placement (partition::place), then
// each OpenVINO step converted; a node that fails to convert in its step's context (inputs
// typed differently at a step edge) is added to the unsupported ones and placement runs
// again. Throws Error when that does not settle.
struct Placement {
    partition::Plan plan;
    std::map<size_t, lower::Conversion> conversions;  // by plan step index, OpenVINO steps only
};
Placement place_and_convert(const PreparedMethod& method, Support& support,
                            const partition::PlacementOptions& options);

// Stage take out aliases: every result of a converted step that is one of its own inputs or
// constants, or repeats another result's tensor, leaves the model; the runtime makes it.
OpenVINOStep take_out_aliases(std::shared_ptr<ov::Model> model, const partition::Step& step);

// Stage keep state in OpenVINO: a mutated buffer that one OpenVINO step both reads and
// updates, whose old and new values nothing else reads (no other step, no user output, no
// value the runtime makes from them), and whose dtype OpenVINO's CPU plugin holds as state
// (not int64 nor float64: it refuses to), becomes state of that step's model: a ReadValue
// replaces its Parameter and an Assign of the new value replaces its Result. The state then
// stays in the step's infer request from call to call (runtime/executor.h).
void keep_state_in_openvino(const PreparedMethod& method, const partition::Plan& plan,
                            std::map<size_t, OpenVINOStep>& openvino_steps);

// Stage append to caches (under LoadOptions::appending_positions): in each step holding
// state, the static caches written at the promised positions become states that grow by each
// call's positions (lower/appending_cache.h); OpenVINOStep::appending_states names them.
void append_to_caches(const PreparedMethod& method, std::map<size_t, OpenVINOStep>& openvino_steps);

// Which user input LoadOptions::appending_positions names: a rank-1 int64 input of a program
// that mutates buffers, or an InputError saying what it is instead.
int appending_positions_input(const PreparedMethod& method, const std::string& name);

// Stage report: every node with its step and the reason it runs there, in execution order,
// and the constants' memory.
// The nodes of CPU steps that read nothing but constants (parameters, buffers never mutated,
// lifted constants) and the values of other such nodes, by index into the graph's nodes: the
// executor computes each once, at load, and every call reads its value (a weight NNCF or
// torchao unpacks and dequantizes in the program is unpacked once).
std::set<int> computed_once_at_load(const PreparedMethod& method, const partition::Plan& plan);

PlacementReport report(const PreparedMethod& method, const partition::Plan& plan,
                       const std::map<size_t, OpenVINOStep>& openvino_steps);

}  // namespace pt2ov::compile
