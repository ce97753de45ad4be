// The --cache-dir entries of placement timing and verification (runtime/placement_timing.h): one
// entry per archive and every option that changes the plan timed or verified, so that a result
// made under other options is never followed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "runtime/placement_timing.h"

namespace pt2ov::runtime {
namespace {

namespace fs = std::filesystem;

class CacheFile : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = fs::temp_directory_path() / ("pt2ov-cache-file-" + std::to_string(::getpid()));
        fs::create_directories(folder_);
        archive_ = (folder_ / "m.pt2").string();
        std::ofstream(archive_) << "archive bytes";
        options_.cache_dir = (folder_ / "cache").string();
    }
    void TearDown() override { fs::remove_all(folder_); }

    fs::path folder_;
    std::string archive_;
    LoadOptions options_;
};

TEST_F(CacheFile, EveryOptionThatChangesThePlanIsAnotherEntry) {
    const std::string base = cache_file(archive_, options_, "placement");
    ASSERT_FALSE(base.empty());
    EXPECT_EQ(cache_file(archive_, options_, "placement"), base);
    EXPECT_NE(cache_file(archive_, options_, "verify"), base);
    const std::vector<std::pair<std::string, std::function<void(LoadOptions&)>>> changes = {
        {"appending_positions", [](LoadOptions& o) { o.appending_positions = "cache_position"; }},
        {"precision", [](LoadOptions& o) { o.precision = "bf16"; }},
        {"num_threads", [](LoadOptions& o) { o.num_threads = 1; }},
        {"int64_input_limit", [](LoadOptions& o) { o.int64_input_limit = 1000; }},
        {"compressed_weights", [](LoadOptions& o) { o.compressed_weights = true; }},
        {"cpu_ops", [](LoadOptions& o) { o.cpu_ops = {"aten.sin.default"}; }},
        {"performance_hint", [](LoadOptions& o) { o.performance_hint = "throughput"; }},
    };
    for (const auto& [name, change] : changes) {
        LoadOptions changed = options_;
        change(changed);
        EXPECT_NE(cache_file(archive_, changed, "placement"), base) << name << " does not change the entry";
    }
    std::ofstream(archive_) << "other bytes";
    EXPECT_NE(cache_file(archive_, options_, "placement"), base) << "another archive";
    options_.cache_dir.clear();
    EXPECT_TRUE(cache_file(archive_, options_, "placement").empty());
}

}  // namespace
}  // namespace pt2ov::runtime
