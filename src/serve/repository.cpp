#include "serve/repository.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <type_traits>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/text.h"
#include "pt2ov/load_options.h"
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
        throw InputError(fmt::format("{}: \"{}\" must be {}, not {}", where, key, expected, json_excerpt(value)));
    }
}

json read_json_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read it", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    // A model's config is a flat object of options and one of batching: nothing deeper is
    // meaningful, and deeper nesting is refused before anything walks it.
    constexpr size_t kConfigNesting = 8;
    if (const size_t nesting = json_nesting(text.view()); nesting > kConfigNesting) {
        throw InputError(fmt::format("{}: nested {} deep; a model's config.json is an object of options (at most {} "
                                     "deep)",
                                     path.string(), nesting, kConfigNesting));
    }
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

namespace {

// One model configuration key: how it sets the model's source from its JSON value.
struct ConfigKey {
    std::string name;
    std::function<void(const json& value, const std::string& where, ModelSource& source)> apply;
};

std::string one_of(const json& value, const std::string& key, const std::string& where,
                   const std::vector<std::string_view>& allowed) {
    auto text = config_value<std::string>(value, key, where, "a string");
    std::string listed;
    for (const auto choice : allowed) {
        if (text == choice) return text;
        listed += (listed.empty() ? "" : ", ") + std::string(choice);
    }
    throw InputError(fmt::format("{}: \"{}\" must be one of {}, not {}", where, key, listed, json_excerpt(value)));
}

// Sets the load option `row` from its config.json value, checked as the command line checks it.
void apply_load_option(const LoadOptionRow& row, const json& value, const std::string& where, LoadOptions& options) {
    const std::string key(row.name);
    std::visit(
        [&](auto field) {
            auto& target = options.*field;
            using Value = std::decay_t<decltype(target)>;
            if constexpr (std::is_same_v<Value, std::string>) {
                target = row.choices.empty() ? config_value<std::string>(value, key, where, "a string")
                                             : one_of(value, key, where, row.choices);
            } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
                target = config_value<std::vector<std::string>>(value, key, where, "a list of strings");
            } else if constexpr (std::is_same_v<Value, bool>) {
                target = config_value<bool>(value, key, where, "true or false");
            } else {
                const std::string expected = fmt::format("an integer from {} to {}", row.min, row.max);
                if (!value.is_number_integer()) {
                    throw InputError(fmt::format("{}: \"{}\" must be {}, not {}", where, key, expected, json_excerpt(value)));
                }
                // A JSON integer beyond int64 is read unsigned; compared as such, it is never cut.
                const bool fits = value.is_number_unsigned()
                                      ? value.get<uint64_t>() <= static_cast<uint64_t>(row.max) &&
                                            static_cast<int64_t>(value.get<uint64_t>()) >= row.min
                                      : value.get<int64_t>() >= row.min && value.get<int64_t>() <= row.max;
                if (!fits) {
                    throw InputError(fmt::format("{}: \"{}\" must be {}, not {}", where, key, expected, json_excerpt(value)));
                }
                target = static_cast<Value>(value.get<int64_t>());
            }
        },
        row.field);
}

void apply_batching(const json& value, const std::string& where, ModelSource& source) {
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
}

// The keys of a model's config.json: its name, every load option by its name (the table's), and
// dynamic_batching.
const std::vector<ConfigKey>& config_keys() {
    static const std::vector<ConfigKey> keys = [] {
        std::vector<ConfigKey> made{{"name", [](const json& v, const std::string& w, ModelSource& s) {
                                         s.name = config_value<std::string>(v, "name", w, "a string");
                                     }}};
        for (const auto& row : load_option_table()) {
            made.push_back({std::string(row.name), [&row](const json& v, const std::string& w, ModelSource& s) {
                                apply_load_option(row, v, w, s.options);
                            }});
        }
        made.push_back({"dynamic_batching", apply_batching});
        return made;
    }();
    return keys;
}

}  // namespace

void apply_model_config(const json& config, const std::string& where, ModelSource& source) {
    if (!config.is_object()) throw InputError(fmt::format("{}: must be a JSON object", where));
    const auto& keys = config_keys();
    for (const auto& [key, value] : config.items()) {
        const auto found = std::find_if(keys.begin(), keys.end(), [&](const ConfigKey& k) { return key == k.name; });
        if (found == keys.end()) {
            std::string names;
            for (const auto& k : keys) names += (names.empty() ? "" : ", ") + std::string(k.name);
            throw InputError(fmt::format("{}: unknown key \"{}\" (the keys: {})", where, key, names));
        }
        found->apply(value, where, source);
    }
}

namespace {

std::vector<ModelSource> scan_repository_folders(const std::string& path, const LoadOptions& defaults) {
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
        if (ec && ec != std::errc::no_such_file_or_directory) {
            throw InputError(fmt::format("{}: {}; give a model repository folder or one .pt2 file", path, ec.message()));
        }
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

}  // namespace

std::vector<ModelSource> scan_repository(const std::string& path, const LoadOptions& defaults) {
    // A file system error while reading the repository (a symbolic link loop, a folder that may
    // not be read) is the repository's fault, named by its path: exit 2, not an internal error.
    try {
        return scan_repository_folders(path, defaults);
    } catch (const fs::filesystem_error& e) {
        const std::string where = e.path1().empty() ? path : e.path1().string();
        throw InputError(fmt::format("{}: {} (while reading the model repository {}): fix or remove it", where,
                                     e.code().message(), path));
    }
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
                new Model{source.name, std::to_string(number), path, std::move(program), {}, {0}, nullptr});
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
