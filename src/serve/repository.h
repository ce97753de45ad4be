// The model repository `pt2ov serve` reads: what it holds (scan_repository, no loading) and the
// loaded models requests are answered by (ModelRepository).
//
//   REPO/
//     mlp/                      a model, named after its folder
//       config.json             optional: {"name", "device", "precision", "cpu_ops", ...}
//       1/model.pt2             version 1
//       2/model.pt2             version 2 (the highest number is the default version)
//     policy/1/model.pt2
//
// REPO may also be one .pt2 file, served as version 1 of a model named after the file's stem.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pt2ov/pt2ov.h"
#include "serve/batching.h"
#include "serve/metrics.h"

namespace pt2ov::serve {

// One model as the repository describes it, before anything is loaded.
struct ModelSource {
    std::string name;
    std::string folder;                                 // the model's folder ("" for a lone .pt2)
    std::map<int64_t, std::string> versions;            // version number -> its model.pt2
    LoadOptions options;                                // the defaults, then config.json's keys
    BatchingConfig batching;                            // config.json's "dynamic_batching"
};

// Reads the repository's layout and each config.json; loads no program. Throws pt2ov::Error
// (InputError) naming the file or folder at fault: no models, a version folder without
// model.pt2, a folder that is not a version number, an unknown config key, a bad value, two
// models of one name.
std::vector<ModelSource> scan_repository(const std::string& path, const LoadOptions& defaults);

// Applies a model's config.json to `source` (its name, load options, batching); `where` names the
// file in errors. Exposed for the tests.
void apply_model_config(const nlohmann::json& config, const std::string& where, ModelSource& source);

// A loaded version of a model: its program, shared by every request to it (Program::run is
// thread-safe), and its counters.
struct Model {
    std::string name;
    std::string version;
    std::string path;
    Program program;
    ModelMetrics metrics;
    // A moving average of Program::run's time on the calls not batched (0 before the first):
    // what decides whether a REST request is light enough to answer on the event loop.
    std::atomic<uint64_t> typical_run_ns{0};
    std::unique_ptr<Batcher> batcher;  // set when config.json asks for dynamic batching; destroyed first
};

class ModelRepository {
public:
    // Loads every version of every source (Program::load) and checks its dynamic batching
    // (batching_check); the first failure throws, naming the model, the version and the file.
    static ModelRepository load(const std::vector<ModelSource>& sources);

    // The model `name` at `version` ("" for the default, the highest). RequestError (NotFound)
    // naming what exists otherwise.
    Model& find(const std::string& name, const std::string& version) const;

    // The versions of a model, lowest first, as strings; RequestError (NotFound) for an unknown name.
    std::vector<std::string> versions(const std::string& name) const;

    std::vector<LabelledMetrics> metrics() const;
    std::vector<std::string> model_names() const;

private:
    // name -> version number -> model
    std::map<std::string, std::map<int64_t, std::unique_ptr<Model>>> models_;
};

}  // namespace pt2ov::serve
