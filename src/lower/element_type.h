// Translations between the IR's types and OpenVINO's.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "archive/archive.h"
#include "graph/graph.h"
#include "openvino/core/partial_shape.hpp"
#include "openvino/core/type/element_type.hpp"
#include "openvino/op/constant.hpp"

namespace pt2ov::lower {

ov::element::Type element_type(DType dtype);

// Throws UnsupportedError for OpenVINO types with no PyTorch counterpart we carry.
DType dtype_from_element(const ov::element::Type& type);

// A static dim as is; a bare symbol as the range torch.export guarantees; otherwise dynamic.
ov::Dimension dimension_for(const graph::Dim& dim, const std::map<std::string, graph::SymbolRange>& ranges);

// A Constant over the stored tensor's memory, without a copy when the tensor is contiguous
// (the usual case); `owner` keeps that memory alive for as long as OpenVINO holds the node.
std::shared_ptr<ov::op::v0::Constant> make_shared_constant(const archive::StoredTensor& stored,
                                                           std::shared_ptr<const void> owner);

// True when the strides are the contiguous ones for the sizes (size-1 dims ignored).
bool is_contiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

}  // namespace pt2ov::lower
