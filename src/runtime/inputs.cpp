#include "runtime/inputs.h"

#include <map>

#include "common/error.h"

namespace pt2ov::runtime {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

std::string expected_shape_text(const IOInfo& info) {
    std::string text = "[";
    for (size_t i = 0; i < info.shape.size(); ++i) {
        if (i) text += ", ";
        if (info.shape[i] >= 0) {
            text += std::to_string(info.shape[i]);
        } else {
            const auto [min, max] = info.dim_ranges[i];
            text += std::to_string(min) + ".." + (max == std::numeric_limits<int64_t>::max() ? "inf" : std::to_string(max));
        }
    }
    return text + "]";
}

}  // namespace

void check_inputs(const PreparedMethod& method, const std::vector<Tensor>& inputs) {
    const auto& infos = method.input_infos;
    if (inputs.size() != infos.size()) {
        throw InputError(method.where + ": " + std::to_string(inputs.size()) + " inputs given, the program takes " +
                         std::to_string(infos.size()));
    }
    std::map<std::string, std::pair<int64_t, std::string>> symbol_sizes;  // symbol → size, who set it
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& info = infos[i];
        const auto& input = inputs[i];
        const std::string who = "input " + std::to_string(i) + " ('" + info.name + "')";
        if (input.dtype() != info.dtype) {
            throw InputError(method.where + ": " + who + " is " + std::string(dtype_name(input.dtype())) +
                             ", the program takes " + std::string(dtype_name(info.dtype)));
        }
        const bool shape_fits = input.rank() == info.shape.size() && [&] {
            for (size_t d = 0; d < info.shape.size(); ++d) {
                const auto [min, max] = info.dim_ranges[d];
                if (input.shape()[d] < min || input.shape()[d] > max) return false;
            }
            return true;
        }();
        if (!shape_fits) {
            throw InputError(method.where + ": " + who + " has shape " + shape_text(input.shape()) +
                             ", the program takes " + expected_shape_text(info) +
                             (input.rank() == info.shape.size() ? " (dynamic dims within the exported range)" : ""));
        }
        if (input.numel() > 0 && input.data() == nullptr) {
            throw InputError(method.where + ": " + who + " has no data");
        }
        const auto& meta = method.graph.value(info.name).meta;
        for (size_t d = 0; d < meta.sizes.size(); ++d) {
            const auto& symbol = meta.sizes[d].symbol;
            if (symbol.empty()) continue;
            auto [it, first] = symbol_sizes.emplace(symbol, std::make_pair(input.shape()[d], who + " dim " + std::to_string(d)));
            if (!first && it->second.first != input.shape()[d]) {
                throw InputError(method.where + ": " + who + " dim " + std::to_string(d) + " is " +
                                 std::to_string(input.shape()[d]) + " but " + it->second.second + " is " +
                                 std::to_string(it->second.first) + "; the program was exported with both equal");
            }
        }
    }
}

}  // namespace pt2ov::runtime
