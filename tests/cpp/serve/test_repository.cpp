// The model repository (src/serve/repository.h): its layout and config.json read without
// loading, every mistake refused naming the file; and an inference through the server's
// request path giving what Program::run gives.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../fixtures/fixtures.h"
#include "serve/error.h"
#include "serve/inference.h"
#include "serve/repository.h"

namespace pt2ov::serve {
namespace {

namespace fs = std::filesystem;

class ServeRepository : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("pt2ov-serve-repo-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    void write(const fs::path& relative, const std::string& text) {
        fs::create_directories((root_ / relative).parent_path());
        std::ofstream(root_ / relative) << text;
    }
    void refused(const std::string& needle) {
        try {
            scan_repository(root_.string(), {});
            FAIL() << "expected the repository refused with '" << needle << "'";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    }

    fs::path root_;
};

// A config.json nested deeply, a model.pt2 that is a symbolic link loop, a version folder that
// may not be read: each an InputError naming the path (exit 2 at start), never a crash.
TEST_F(ServeRepository, FileSystemFaultsAndDeepConfigAreTheRepositorysErrors) {
    write("mlp/1/model.pt2", "x");
    write("mlp/config.json", "{\"precision\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}");
    refused("config.json: nested 1000001 deep");
    write("mlp/config.json", R"({"precision": {"a": [1, 2, 3]}})");
    refused("\"precision\" must be a string, not an object of 1 members");
    fs::remove(root_ / "mlp/config.json");
    fs::remove(root_ / "mlp/1/model.pt2");
    fs::create_symlink(root_ / "mlp/1/model.pt2", root_ / "mlp/1/model.pt2");
    refused((root_ / "mlp/1/model.pt2").string() + ": Too many levels of symbolic links");
    fs::create_symlink(root_ / "loop", root_ / "loop");
    try {
        scan_repository((root_ / "loop").string(), {});
        FAIL() << "a repository that is a symbolic link loop was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("Too many levels of symbolic links"), std::string::npos) << e.what();
    }
}

TEST_F(ServeRepository, ReadsModelsVersionsAndConfig) {
    write("mlp/1/model.pt2", "x");
    write("mlp/10/model.pt2", "x");
    write("mlp/config.json", R"({"precision": "bf16", "cpu_ops": ["aten.sin"], "int64_input_limit": 1000,
                                 "performance_hint": "throughput", "measure_placement": false,
                                 "appending_positions": "cache_position",
                                 "dynamic_batching": {"max_batch_size": 16}})");
    write("other/3/model.pt2", "x");
    write("README.md", "not a model");
    LoadOptions defaults;
    defaults.device = "CPU";
    const auto sources = scan_repository(root_.string(), defaults);
    ASSERT_EQ(sources.size(), 2u);
    EXPECT_EQ(sources[0].name, "mlp");
    ASSERT_EQ(sources[0].versions.size(), 2u);
    EXPECT_EQ(sources[0].versions.rbegin()->first, 10);
    EXPECT_EQ(sources[0].options.precision, "bf16");
    EXPECT_EQ(sources[0].options.cpu_ops, std::vector<std::string>{"aten.sin"});
    EXPECT_EQ(sources[0].options.int64_input_limit, 1000);
    EXPECT_EQ(sources[0].options.performance_hint, "throughput");
    EXPECT_FALSE(sources[0].options.measure_placement);
    EXPECT_EQ(sources[0].options.appending_positions, "cache_position");
    EXPECT_EQ(sources[0].batching.max_batch_size, 16);
    EXPECT_EQ(sources[0].batching.window_us, 500);  // the default window
    EXPECT_EQ(sources[1].batching.max_batch_size, 0);
    EXPECT_EQ(sources[1].name, "other");
    EXPECT_EQ(sources[1].options.precision, "f32");
}

TEST_F(ServeRepository, RefusesEachMistakeNamingTheFile) {
    refused("no models");
    write("m/config.json", "{}");
    refused("no version folder with a model.pt2");
    write("m/1/weights.bin", "x");
    refused("version folder without model.pt2");
    write("m/1/model.pt2", "x");
    write("m/latest/model.pt2", "x");
    refused("'latest' is not one");
    fs::remove_all(root_ / "m/latest");
    write("m/config.json", R"({"precison": "f16"})");
    refused("unknown key \"precison\"");
    write("m/config.json", R"({"performance_hint": "fast"})");
    refused("\"performance_hint\" must be one of latency, throughput");
    write("m/config.json", R"({"cpu_ops": "aten.sin"})");
    refused("\"cpu_ops\" must be a list of strings");
    write("m/config.json", R"({"name": "n/a"})");
    refused("may hold only letters");
    write("m/config.json", R"({"name": "k"})");
    write("k/1/model.pt2", "x");
    refused("a second model named 'k'");
    write("m/config.json", R"({"dynamic_batching": {"max_batch": 4}})");
    refused("unknown key \"dynamic_batching.max_batch\"");
    write("m/config.json", R"({"dynamic_batching": 4})");
    refused("\"dynamic_batching\" must be {\"max_batch_size\": N, \"window_us\": M}");
    write("m/config.json", "{oops");
    refused("not valid JSON");
}

TEST_F(ServeRepository, OnePt2FileIsVersionOneOfItsStem) {
    write("policy.pt2", "x");
    const auto sources = scan_repository((root_ / "policy.pt2").string(), {});
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].name, "policy");
    EXPECT_EQ(sources[0].versions.at(1), (root_ / "policy.pt2").string());
    EXPECT_THROW(scan_repository((root_ / "missing").string(), {}), InputError);
}

TEST_F(ServeRepository, InferenceGivesWhatProgramRunGives) {
    fs::create_directories(root_ / "tiny/1");
    fs::create_directories(root_ / "tiny/2");
    fs::copy_file(test::fixture("tiny.pt2"), root_ / "tiny/1/model.pt2");
    fs::copy_file(test::fixture("tiny.pt2"), root_ / "tiny/2/model.pt2");
    LoadOptions defaults;
    defaults.measure_placement = false;
    const auto repository = ModelRepository::load(scan_repository(root_.string(), defaults));
    Model& model = repository.find("tiny", "");
    EXPECT_EQ(model.version, "2");
    EXPECT_EQ(&repository.find("tiny", "1"), &repository.find("tiny", "1"));
    EXPECT_EQ(repository.versions("tiny"), (std::vector<std::string>{"1", "2"}));
    try {
        repository.find("tiny", "3");
        FAIL();
    } catch (const RequestError& e) {
        EXPECT_EQ(e.failure(), Failure::NotFound);
        EXPECT_NE(std::string(e.what()).find("model 'tiny' has no version '3' (its versions: 1, 2)"), std::string::npos);
    }
    EXPECT_THROW(repository.find("nope", ""), RequestError);

    const auto& info = model.program.inputs().at(0);
    Tensor x = Tensor::allocate(DType::Float32, {2});
    x.data_as<float>()[0] = 0.5f;
    x.data_as<float>()[1] = -1.25f;
    InferRequest request;
    request.inputs.push_back({info.name, DType::Float32, {2}, x});
    InferenceSlots slots(1);
    const InferResponse response = infer(model, request, slots);
    const auto expected = model.program.run({x});
    ASSERT_EQ(response.outputs.size(), expected.size());
    EXPECT_EQ(std::memcmp(response.outputs[0].tensor.data(), expected[0].data(), expected[0].byte_size()), 0);
    EXPECT_EQ(model.metrics.requests.load(), 1u);
    EXPECT_EQ(model.metrics.failures.load(), 0u);

    // A wrong shape, a wrong datatype, a missing input, an unknown one, an unknown output.
    const auto refused_request = [&](InferRequest bad, const std::string& needle) {
        try {
            infer(model, bad, slots);
            FAIL() << needle;
        } catch (const RequestError& e) {
            EXPECT_EQ(e.failure(), Failure::BadRequest);
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    InferRequest bad = request;
    bad.inputs[0].shape = {3};
    refused_request(bad, "model 'tiny' input '" + info.name + "': shape [3], but the model takes [2]");
    bad = request;
    bad.inputs[0].dtype = DType::Float64;
    refused_request(bad, "datatype FP64, but the model takes FP32");
    refused_request(InferRequest{}, "input '" + info.name + "' is missing");
    bad = request;
    bad.inputs.push_back({"extra", DType::Float32, {2}, x});
    refused_request(bad, "model 'tiny' has no input 'extra'");
    bad = request;
    bad.outputs.push_back({"nope", std::nullopt});
    refused_request(bad, "model 'tiny' has no output 'nope'");
    EXPECT_EQ(model.metrics.requests.load(), 6u);
    EXPECT_EQ(model.metrics.failures.load(), 5u);
    EXPECT_EQ(model.metrics.runs.load(), 1u);
}

TEST_F(ServeRepository, DynamicBatchingIsRefusedForAProgramWithoutADynamicBatch) {
    fs::create_directories(root_ / "tiny/1");
    fs::copy_file(test::fixture("tiny.pt2"), root_ / "tiny/1/model.pt2");
    write("tiny/config.json", R"({"measure_placement": false, "dynamic_batching": {"max_batch_size": 4}})");
    try {
        ModelRepository::load(scan_repository(root_.string(), {}));
        FAIL() << "expected dynamic batching refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("model 'tiny' version 1: dynamic_batching cannot apply:"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("has no dynamic dim 0"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace pt2ov::serve
