#include "tools/npz_io.h"

#include <algorithm>
#include <map>

#include "pt2ov/error.h"
#include "tools/npz.h"

namespace pt2ov::tools {

std::vector<Tensor> read_inputs(const std::string& path, const std::vector<IOInfo>& inputs) {
    auto arrays = read_npz(path);
    std::map<std::string, size_t> input_by_name;
    for (size_t i = 0; i < inputs.size(); ++i) input_by_name[inputs[i].name] = i;

    std::vector<Tensor> ordered(inputs.size());
    std::vector<bool> given(inputs.size(), false);
    for (auto& array : arrays) {
        size_t index = inputs.size();
        if (auto it = input_by_name.find(array.name); it != input_by_name.end()) {
            index = it->second;
        } else if (array.name.rfind("arr_", 0) == 0 && array.name.size() > 4 &&
                   array.name.find_first_not_of("0123456789", 4) == std::string::npos) {
            index = std::stoul(array.name.substr(4));
        }
        if (index >= inputs.size()) {
            std::string names;
            for (const auto& info : inputs) names += (names.empty() ? "" : ", ") + info.name;
            throw InputError(path + ": array '" + array.name + "' is not an input of the program, which takes " +
                             std::to_string(inputs.size()) + " input(s): arr_0..arr_" + std::to_string(inputs.size() - 1) +
                             " by position, or by name: " + names);
        }
        if (given[index]) throw InputError(path + ": input " + std::to_string(index) + " ('" + inputs[index].name + "') is given twice");
        given[index] = true;
        Tensor tensor = std::move(array.tensor);
        if (inputs[index].dtype == DType::BFloat16 && tensor.dtype() == DType::Float32) {
            tensor = bfloat16_from_float32(tensor);
        }
        ordered[index] = std::move(tensor);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!given[i]) {
            throw InputError(path + ": input " + std::to_string(i) + " ('" + inputs[i].name + "') is missing; the program takes " +
                             std::to_string(inputs.size()) + " input(s), the file holds " + std::to_string(arrays.size()));
        }
    }
    return ordered;
}

void write_outputs(const std::string& path, const std::vector<Tensor>& outputs) {
    std::vector<NamedArray> arrays;
    for (size_t i = 0; i < outputs.size(); ++i) {
        arrays.push_back({"arr_" + std::to_string(i), outputs[i]});
    }
    write_npz(path, arrays);
}

void write_inputs(const std::string& path, const std::vector<Tensor>& inputs, const std::vector<IOInfo>& infos) {
    std::vector<NamedArray> arrays;
    for (size_t i = 0; i < inputs.size() && i < infos.size(); ++i) arrays.push_back({infos[i].name, inputs[i]});
    write_npz(path, arrays);
}

void load_state(const std::string& path, Program& program) {
    const auto names = program.state_names();
    for (auto& array : read_npz(path)) {
        if (std::find(names.begin(), names.end(), array.name) == names.end()) {
            std::string known;
            for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
            throw InputError(path + ": array '" + array.name + "' is not a buffer the program mutates (" +
                             (known.empty() ? std::string("it mutates none") : "its state: " + known) + ")");
        }
        Tensor tensor = std::move(array.tensor);
        if (program.read_state(array.name).dtype() == DType::BFloat16 && tensor.dtype() == DType::Float32) {
            tensor = bfloat16_from_float32(tensor);
        }
        try {
            program.write_state(array.name, tensor);
        } catch (const InputError& e) {
            throw InputError(path + ": array '" + array.name + "': " + e.what());
        }
    }
}

void save_state(const std::string& path, const Program& program) {
    std::vector<NamedArray> arrays;
    for (const auto& name : program.state_names()) arrays.push_back({name, program.read_state(name)});
    write_npz(path, arrays);
}

}  // namespace pt2ov::tools
