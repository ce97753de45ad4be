#include "serve/request.h"

#include <set>

#include <fmt/format.h>

#include "common/text.h"
#include "serve/datatype.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

// The index of the input or output named `name` (the last, as names are unique), infos.size() when none.
size_t position_of(const std::vector<IOInfo>& infos, const std::string& name) {
    size_t position = infos.size();
    for (size_t i = 0; i < infos.size(); ++i) {
        if (infos[i].name == name) position = i;
    }
    return position;
}

std::vector<std::string> names_of(const std::vector<IOInfo>& infos) {
    std::vector<std::string> names;
    for (const auto& info : infos) names.push_back(info.name);
    return names;
}


void check_input(const std::string& model, const IOInfo& info, const InputTensor& input) {
    const std::string what = fmt::format("model '{}' input '{}'", model, info.name);
    if (input.dtype != info.dtype) {
        throw bad_request(fmt::format("{}: datatype {}, but the model takes {}", what, protocol_datatype(input.dtype),
                                      protocol_datatype(info.dtype)));
    }
    bool fits = input.shape.size() == info.shape.size();
    for (size_t d = 0; fits && d < info.shape.size(); ++d) {
        if (info.shape[d] >= 0) {
            fits = input.shape[d] == info.shape[d];
        } else if (d < info.dim_ranges.size()) {
            fits = input.shape[d] >= info.dim_ranges[d].first && input.shape[d] <= info.dim_ranges[d].second;
        }
    }
    if (!fits) {
        std::string ranges;
        for (size_t d = 0; d < info.shape.size(); ++d) {
            if (info.shape[d] < 0 && d < info.dim_ranges.size()) {
                ranges += fmt::format("; dim {} within [{}, {}]", d, info.dim_ranges[d].first, info.dim_ranges[d].second);
            }
        }
        throw bad_request(fmt::format("{}: shape {}, but the model takes {} (-1: any size{})", what,
                                      shape_text(input.shape), shape_text(info.shape), ranges));
    }
}

}  // namespace

std::vector<Tensor> ordered_inputs(const std::string& model, const std::vector<IOInfo>& infos,
                                   const InferRequest& request) {
    std::vector<const InputTensor*> by_position(infos.size(), nullptr);
    for (const auto& input : request.inputs) {
        const size_t position = position_of(infos, input.name);
        if (position == infos.size()) {
            throw bad_request(fmt::format("model '{}' has no input '{}' (its inputs: {})", model, input.name,
                                          fmt::join(names_of(infos), ", ")));
        }
        if (by_position[position]) {
            throw bad_request(fmt::format("model '{}' input '{}' is given twice", model, input.name));
        }
        by_position[position] = &input;
    }
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < infos.size(); ++i) {
        if (!by_position[i]) {
            throw bad_request(fmt::format("model '{}' input '{}' is missing (its inputs: {})", model, infos[i].name,
                                          fmt::join(names_of(infos), ", ")));
        }
        check_input(model, infos[i], *by_position[i]);
        tensors.push_back(by_position[i]->tensor);
    }
    return tensors;
}

std::vector<std::pair<size_t, bool>> chosen_outputs(const std::string& model, const std::vector<IOInfo>& infos,
                                                    const InferRequest& request) {
    std::vector<std::pair<size_t, bool>> chosen;
    if (request.outputs.empty()) {
        for (size_t i = 0; i < infos.size(); ++i) chosen.emplace_back(i, request.binary_outputs);
        return chosen;
    }
    std::set<std::string> seen;
    for (const auto& wanted : request.outputs) {
        const size_t position = position_of(infos, wanted.name);
        if (position == infos.size()) {
            throw bad_request(fmt::format("model '{}' has no output '{}' (its outputs: {})", model, wanted.name,
                                          fmt::join(names_of(infos), ", ")));
        }
        if (!seen.insert(wanted.name).second) {
            throw bad_request(fmt::format("model '{}' output '{}' is requested twice", model, wanted.name));
        }
        chosen.emplace_back(position, wanted.binary.value_or(request.binary_outputs));
    }
    return chosen;
}

}  // namespace pt2ov::serve
