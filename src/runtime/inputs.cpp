#include "runtime/inputs.h"


#include "common/error.h"
#include "common/text.h"

namespace pt2ov::runtime {

namespace {

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

// The promise of LoadOptions::int64_input_limit, kept: placement ran int64 arithmetic on this
// input in 32 bits, exact only within the limit.
void check_within_limit(const PreparedMethod& method, const Tensor& input, const std::string& who) {
    const auto* values = static_cast<const int64_t*>(input.data());
    const int64_t limit = method.int64_input_limit;
    const size_t count = static_cast<size_t>(input.numel());
    for (size_t k = 0; k < count; ++k) {
        if (values[k] >= -limit && values[k] <= limit) continue;
        throw InputError(method.where + ": " + who + " holds " + std::to_string(values[k]) + " at flat index " +
                         std::to_string(k) + ", beyond the int64 input limit " + std::to_string(limit) +
                         " the program was loaded with; load it with a larger limit, or with none (0), for such values");
    }
}

}  // namespace

void check_inputs(const PreparedMethod& method, const std::vector<Tensor>& inputs) {
    const auto& infos = method.input_infos;
    if (inputs.size() != infos.size()) {
        throw InputError(method.where + ": " + std::to_string(inputs.size()) + " inputs given, the program takes " +
                         std::to_string(infos.size()));
    }
    // Messages are built only on failure: this runs on every call.
    auto who = [&](size_t i) { return "input " + std::to_string(i) + " ('" + infos[i].name + "')"; };
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& info = infos[i];
        const auto& input = inputs[i];
        if (input.dtype() != info.dtype) {
            throw InputError(method.where + ": " + who(i) + " is " + std::string(dtype_name(input.dtype())) +
                             ", the program takes " + std::string(dtype_name(info.dtype)));
        }
        bool shape_fits = input.rank() == info.shape.size();
        for (size_t d = 0; shape_fits && d < info.shape.size(); ++d) {
            const auto [min, max] = info.dim_ranges[d];
            shape_fits = input.shape()[d] >= min && input.shape()[d] <= max;
        }
        if (!shape_fits) {
            throw InputError(method.where + ": " + who(i) + " has shape " + shape_text(input.shape()) +
                             ", the program takes " + expected_shape_text(info) +
                             (input.rank() == info.shape.size() ? " (dynamic dims within the exported range)" : ""));
        }
        if (input.numel() > 0 && input.data() == nullptr) throw InputError(method.where + ": " + who(i) + " has no data");
        if (method.int64_input_limit > 0 && info.dtype == DType::Int64) check_within_limit(method, input, who(i));
    }
    // One symbol, one size: the dims torch.export proved equal must be given equal.
    for (const auto& [symbol, uses] : method.symbol_uses) {
        const auto& [first_input, first_dim] = uses.front();
        const int64_t size = inputs[first_input].shape()[first_dim];
        for (const auto& [input, dim] : uses) {
            if (inputs[input].shape()[dim] == size) continue;
            throw InputError(method.where + ": " + who(input) + " dim " + std::to_string(dim) + " is " +
                             std::to_string(inputs[input].shape()[dim]) + " but " + who(first_input) + " dim " +
                             std::to_string(first_dim) + " is " + std::to_string(size) +
                             "; the program was exported with both equal");
        }
    }
}

}  // namespace pt2ov::runtime
