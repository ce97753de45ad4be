// Our implementation of OpenVINO's TorchDecoder over the IR, presenting a Subgraph the way
// OpenVINO's Python FX decoder presents a torch.fx graph, so that OpenVINO's own PyTorch
// frontend converts it (docs/ARCHITECTURE.md: conversion is OpenVINO's job).
//
// How the FX decoder presents nodes, and so how we do:
//  - value ids are small integers; 0 is reserved for "inlined" (a non-tensor argument).
//  - positional arguments are inputs(); a number, list of numbers or None is inlined and comes
//    back from get_inlined_input_decoder() as a tiny constant decoder; keyword arguments are
//    attributes (get_attribute) and never inputs.
//  - constants are get_attr nodes whose as_constant() wraps the engine's memory.
//  - a node with several outputs produces one tuple value; each output is taken by a
//    synthesized `<built-in function getitem>` node, as torch.fx graphs spell it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "lower/subgraph.h"
#include "openvino/frontend/pytorch/decoder.hpp"

namespace pt2ov::lower {

// Ids shared by every decoder of one conversion.
class ValueIds {
public:
    size_t id_of(const std::string& value_name);  // assigns on first use
    size_t fresh();                               // an id no value has (tuple values)
    // The value name behind an id, or "" for synthesized ids.
    const std::string& name_of(size_t id) const;

private:
    std::map<std::string, size_t> ids_;
    std::vector<std::string> names_{""};  // id 0 is "inlined"
};

struct DecoderContext {
    const graph::Graph* graph = nullptr;
    const ConstantMap* constants = nullptr;
    std::shared_ptr<const void> memory_owner;  // keeps the constants' memory alive
    ValueIds ids;
};

// The model-level decoder for one Subgraph. Constants of the subgraph's nodes that are in
// `constants` become get_attr nodes; every other value the nodes read must be in inputs.
std::shared_ptr<ov::frontend::pytorch::TorchDecoder> make_subgraph_decoder(
    std::shared_ptr<DecoderContext> context, const Subgraph& subgraph);

// The runtime-info key under which converted OpenVINO nodes carry the IR node's name.
inline constexpr const char* kSourceNodeKey = "pt2ov_node";

// Gives `made` (an op a rewrite of the converted model adds) the source tag of `original`, the
// op it stands for: every op names the archive node it came from, so reports and failures
// still point at the user's node.
inline void tag_like(const std::shared_ptr<ov::Node>& made, const std::shared_ptr<ov::Node>& original) {
    const auto& rt = original->get_rt_info();
    if (auto tag = rt.find(kSourceNodeKey); tag != rt.end()) made->get_rt_info()[kSourceNodeKey] = tag->second;
}

// The op type our decoder reports for a node target: "aten.clone.default" stays;
// "_operator.add" becomes "<built-in function add>" as torch.fx prints it.
std::string fx_op_type(const std::string& target);

}  // namespace pt2ov::lower
