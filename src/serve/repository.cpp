#include "serve/repository.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "serve/error.h"

namespace pt2ov::serve {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Names travel in URL paths (/v2/models/{name}) and Prometheus labels: kept to a safe alphabet.
bool is_valid_model_name(const std::string& name) {
    if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

std::optional<int64_t> version_number(const std::string& text) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
    return value;
}

template <typename T>
T config_value(const json& value, const std::string& key, const std::string& where, const char* expected) {
    try {
        return value.get<T>();
    } catch (const json::exception&) {
        throw InputError(fmt::format("{}: \"{}\" must be {}, not {}", where, key, expected, value.dump()));
    }
}

json read_json_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read it", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    try {
        return json::parse(text.str());
    } catch (const json::exception& e) {
        throw InputError(fmt::format("{}: not valid JSON ({})", path.string(), one_line(e.what())));
    }
}

ModelSource scan_model_folder(const fs::path& folder, const LoadOptions& defaults) {
    ModelSource source;
    source.name = folder.filename().string();
    source.folder = folder.string();
    source.options = defaults;
    const fs::path config = folder / "config.json";
    if (fs::exists(config)) apply_model_config(read_json_file(config), config.string(), source);
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (!entry.is_directory()) continue;
        const std::string version = entry.path().filename().string();
        if (version.starts_with('.')) continue;
        const auto number = version_number(version);
        if (!number) {
            throw InputError(fmt::format("{}: a model folder holds version folders named by numbers (1/model.pt2, "
                                         "2/model.pt2, ...); '{}' is not one: rename or remove it",
                                         folder.string(), version));
        }
        const fs::path program = entry.path() / "model.pt2";
        if (!fs::is_regular_file(program)) {
            throw InputError(fmt::format("{}: version folder without model.pt2 (expected {})", entry.path().string(),
                                         program.string()));
        }
        if (!source.versions.emplace(*number, program.string()).second) {
            throw InputError(fmt::format("{}: version {} appears twice (as '{}' and another spelling)", folder.string(),
                                         *number, version));
        }
    }
    if (source.versions.empty()) {
        throw InputError(fmt::format("{}: no version folder with a model.pt2 (expected {})", folder.string(),
                                     (folder / "1" / "model.pt2").string()));
    }
    if (!is_valid_model_name(source.name)) {
        throw InputError(fmt::format("{}: model name '{}' may hold only letters, digits, '_', '-' and '.'",
                                     folder.string(), source.name));
    }
    return source;
}

}  // namespace

void apply_model_config(const json& config, const std::string& where, ModelSource& source) {
    if (!config.is_object()) throw InputError(fmt::format("{}: must be a JSON object", where));
    std::string& name = source.name;
    LoadOptions& options = source.options;
    for (const auto& [key, value] : config.items()) {
        if (key == "name") {
            name = config_value<std::string>(value, key, where, "a string");
        } else if (key == "device") {
            options.device = config_value<std::string>(value, key, where, "a string");
        } else if (key == "precision") {
            options.precision = config_value<std::string>(value, key, where, "a string");
            if (options.precision != "f32" && options.precision != "f16" && options.precision != "bf16") {
                throw InputError(fmt::format("{}: \"precision\" must be f32, f16 or bf16, not {}", where, value.dump()));
            }
        } else if (key == "method") {
            options.method = config_value<std::string>(value, key, where, "a string");
        } else if (key == "cache_dir") {
            options.cache_dir = config_value<std::string>(value, key, where, "a string");
        } else if (key == "cpu_ops") {
            options.cpu_ops = config_value<std::vector<std::string>>(value, key, where, "a list of strings");
        } else if (key == "cpu_nodes") {
            options.cpu_nodes = config_value<std::vector<std::string>>(value, key, where, "a list of strings");
        } else if (key == "strict") {
            options.strict = config_value<bool>(value, key, where, "true or false");
        } else if (key == "num_threads") {
            options.num_threads = config_value<int>(value, key, where, "an integer");
        } else if (key == "performance_hint") {
            options.performance_hint = config_value<std::string>(value, key, where, "a string");
            if (options.performance_hint != "latency" && options.performance_hint != "throughput") {
                throw InputError(fmt::format("{}: \"performance_hint\" must be latency or throughput, not {}", where,
                                             value.dump()));
            }
        } else if (key == "int64_input_limit") {
            options.int64_input_limit = config_value<int64_t>(value, key, where, "an integer");
        } else if (key == "openvino_state") {
            options.openvino_state = config_value<bool>(value, key, where, "true or false");
        } else if (key == "measure_placement") {
            options.measure_placement = config_value<bool>(value, key, where, "true or false");
        } else if (key == "verify") {
            options.verify = config_value<bool>(value, key, where, "true or false");
        } else if (key == "quantized_reference") {
            options.quantized_reference = config_value<bool>(value, key, where, "true or false");
        } else if (key == "compressed_weights") {
            options.compressed_weights = config_value<bool>(value, key, where, "true or false");
        } else if (key == "dynamic_batching") {
            const char* expected = "{\"max_batch_size\": N, \"window_us\": M}";
            if (!value.is_object()) throw InputError(fmt::format("{}: \"dynamic_batching\" must be {}", where, expected));
            source.batching = {8, 500};
            for (const auto& [field, number] : value.items()) {
                if (field == "max_batch_size") {
                    source.batching.max_batch_size = config_value<int64_t>(number, "dynamic_batching.max_batch_size", where, "an integer");
                } else if (field == "window_us") {
                    source.batching.window_us = config_value<int64_t>(number, "dynamic_batching.window_us", where, "an integer");
                } else {
                    throw InputError(fmt::format("{}: unknown key \"dynamic_batching.{}\" (it takes {})", where, field, expected));
                }
            }
        } else {
            throw InputError(fmt::format(
                "{}: unknown key \"{}\" (the keys: name, device, precision, method, cache_dir, cpu_ops, cpu_nodes, "
                "strict, num_threads, performance_hint, int64_input_limit, openvino_state, measure_placement, "
                "verify, quantized_reference, compressed_weights, dynamic_batching)",
                where, key));
        }
    }
}

std::vector<ModelSource> scan_repository(const std::string& path, const LoadOptions& defaults) {
    const fs::path root(path);
    std::error_code ec;
    if (fs::is_regular_file(root, ec)) {
        if (root.extension() != ".pt2") {
            throw InputError(fmt::format("{}: give a model repository folder or one .pt2 file", path));
        }
        ModelSource source;
        source.name = root.stem().string();
        source.options = defaults;
        source.versions.emplace(1, path);
        if (!is_valid_model_name(source.name)) {
            throw InputError(fmt::format("{}: model name '{}' (the file's stem) may hold only letters, digits, '_', "
                                         "'-' and '.': rename the file",
                                         path, source.name));
        }
        return {source};
    }
    if (!fs::is_directory(root, ec)) {
        throw InputError(fmt::format("{}: no such model repository folder or .pt2 file", path));
    }
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(root)) {
        if (entry.is_directory() && !entry.path().filename().string().starts_with('.')) folders.push_back(entry.path());
    }
    std::sort(folders.begin(), folders.end());
    std::vector<ModelSource> sources;
    std::set<std::string> names;
    for (const auto& folder : folders) {
        sources.push_back(scan_model_folder(folder, defaults));
        if (!names.insert(sources.back().name).second) {
            throw InputError(fmt::format("{}: a second model named '{}' (config.json's \"name\" or the folder's)",
                                         folder.string(), sources.back().name));
        }
    }
    if (sources.empty()) {
        throw InputError(fmt::format("{}: no models (expected one folder per model, each holding 1/model.pt2)", path));
    }
    return sources;
}

ModelRepository ModelRepository::load(const std::vector<ModelSource>& sources) {
    ModelRepository repository;
    for (const auto& source : sources) {
        for (const auto& [number, path] : source.versions) {
            Program program = [&] {
                try {
                    return Program::load(path, source.options);
                } catch (const InternalError&) {
                    throw;
                } catch (const Error& e) {
                    throw InputError(fmt::format("model '{}' version {} ({}): {}", source.name, number, path, e.what()));
                }
            }();
            auto model = std::unique_ptr<Model>(
                new Model{source.name, std::to_string(number), path, std::move(program), {}, nullptr});
            if (source.batching.max_batch_size > 0) {
                batching_check(fmt::format("model '{}' version {}", source.name, number), model->program, source.batching);
                model->batcher = std::make_unique<Batcher>(model->program, source.batching, model->metrics.runs);
            }
            repository.models_[source.name].emplace(number, std::move(model));
        }
    }
    return repository;
}

Model& ModelRepository::find(const std::string& name, const std::string& version) const {
    const auto model = models_.find(name);
    if (model == models_.end()) {
        throw RequestError(Failure::NotFound, fmt::format("unknown model '{}' (this server has: {})", name,
                                                          fmt::join(model_names(), ", ")));
    }
    if (version.empty()) return *model->second.rbegin()->second;
    const auto number = version_number(version);
    const auto found = number ? model->second.find(*number) : model->second.end();
    if (found == model->second.end()) {
        throw RequestError(Failure::NotFound, fmt::format("model '{}' has no version '{}' (its versions: {})", name,
                                                          version, fmt::join(versions(name), ", ")));
    }
    return *found->second;
}

std::vector<std::string> ModelRepository::versions(const std::string& name) const {
    const auto model = models_.find(name);
    if (model == models_.end()) {
        throw RequestError(Failure::NotFound, fmt::format("unknown model '{}' (this server has: {})", name,
                                                          fmt::join(model_names(), ", ")));
    }
    std::vector<std::string> out;
    for (const auto& [number, loaded] : model->second) out.push_back(loaded->version);
    return out;
}

std::vector<LabelledMetrics> ModelRepository::metrics() const {
    std::vector<LabelledMetrics> out;
    for (const auto& [name, versions] : models_) {
        for (const auto& [number, model] : versions) out.push_back({name, model->version, &model->metrics});
    }
    return out;
}

std::vector<std::string> ModelRepository::model_names() const {
    std::vector<std::string> out;
    for (const auto& [name, versions] : models_) out.push_back(name);
    return out;
}

}  // namespace pt2ov::serve
