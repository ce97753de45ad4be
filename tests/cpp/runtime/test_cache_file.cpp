// The --cache-dir entries of placement timing and verification (runtime/placement_timing.h): one
// entry per archive and every option that changes the plan timed or verified, so that a result
// made under other options is never followed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>

#include "pt2ov/load_options.h"
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


// `options` with `row` set to another value than its default.
LoadOptions with_another_value(LoadOptions options, const LoadOptionRow& row) {
    std::visit(
        [&](auto field) {
            auto& value = options.*field;
            using Value = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<Value, std::string>) {
                value = row.choices.empty() ? value + "-other" : std::string(row.choices.back() == value ? row.choices.front() : row.choices.back());
            } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
                value.push_back("aten.sin.default");
            } else if constexpr (std::is_same_v<Value, bool>) {
                value = !value;
            } else {
                value = value == row.max ? row.min : static_cast<Value>(row.min + 1);
            }
        },
        row.field);
    return options;
}

// The key follows the load option table: an option marked there as changing the plan is
// another entry, any other option the same entry (the cache folder aside, which is where the
// entry is).
TEST_F(CacheFile, TheKeyFollowsTheLoadOptionTable) {
    const std::string base = cache_file(archive_, options_, "placement");
    for (const auto& row : load_option_table()) {
        if (row.name == "cache_dir") continue;
        const LoadOptions changed = with_another_value(options_, row);
        EXPECT_NE(load_option_text(changed, row), load_option_text(options_, row)) << row.name;
        if (row.changes_plan) {
            EXPECT_NE(cache_file(archive_, changed, "placement"), base) << row.name << " does not change the entry";
        } else {
            EXPECT_EQ(cache_file(archive_, changed, "placement"), base) << row.name << " changes the entry";
        }
    }
}

}  // namespace
}  // namespace pt2ov::runtime
