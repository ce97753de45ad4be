// One Subgraph → one ov::Model, through OpenVINO's own PyTorch frontend fed by our decoder.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lower/subgraph.h"
#include "openvino/core/model.hpp"

namespace pt2ov::lower {

// A node OpenVINO's frontend left unconverted, and what it said.
struct UnconvertedNode {
    std::string node;    // the IR node's name
    std::string target;  // its op
    std::string reason;  // the frontend's exception, or "no converter"
};

struct Conversion {
    std::shared_ptr<ov::Model> model;       // Parameters named after subgraph inputs
    std::vector<UnconvertedNode> unconverted;  // empty when fully converted
    // IR nodes (by archive name) for which OpenVINO made at least one op. A converted node
    // missing here passes its input through unchanged (a copy or view turned into nothing).
    std::set<std::string> nodes_with_ops;
    // The OpenVINO op types made for each IR node (by archive name).
    std::map<std::string, std::set<std::string>> op_types_by_node;
};

// Converts `subgraph` (partially: unsupported nodes stay as framework nodes and are listed).
// `memory_owner` keeps the constants' memory alive as long as the model holds it.
Conversion convert_subgraph(const graph::Graph& graph, const Subgraph& subgraph, const ConstantMap& constants,
                            std::shared_ptr<const void> memory_owner);

// The version of the OpenVINO runtime in use ("2026.4.1-...").
std::string openvino_runtime_version();

}  // namespace pt2ov::lower
