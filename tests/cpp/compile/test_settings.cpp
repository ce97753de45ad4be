// compile::parse_settings: the load options checked and parsed once, where the API takes them.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "compile/settings.h"

namespace pt2ov {
namespace {

std::string refusal_of(const LoadOptions& options) {
    try {
        compile::parse_settings(options);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(Settings, DefaultsParseToTheirTypedValues) {
    const auto settings = compile::parse_settings({});
    EXPECT_EQ(settings.precision, compile::PrecisionHint::F32);
    EXPECT_EQ(settings.performance_hint, compile::PerformanceHint::Latency);
    EXPECT_TRUE(settings.cpu_device);
    EXPECT_EQ(compile::precision_name(settings.precision), "f32");
}

TEST(Settings, EveryWordParses) {
    LoadOptions options;
    options.precision = "bf16";
    options.performance_hint = "throughput";
    options.device = "GPU";
    const auto settings = compile::parse_settings(options);
    EXPECT_EQ(settings.precision, compile::PrecisionHint::BF16);
    EXPECT_EQ(settings.performance_hint, compile::PerformanceHint::Throughput);
    EXPECT_FALSE(settings.cpu_device);
    EXPECT_EQ(settings.given.device, "GPU");
    options.precision = "f16";
    EXPECT_EQ(compile::parse_settings(options).precision, compile::PrecisionHint::F16);
}

TEST(Settings, ABadValueIsOneErrorNamingIt) {
    LoadOptions precision;
    precision.precision = "fp32";
    EXPECT_NE(refusal_of(precision).find("unknown precision 'fp32'; use f32, f16 or bf16"), std::string::npos);
    LoadOptions hint;
    hint.performance_hint = "fast";
    EXPECT_NE(refusal_of(hint).find("unknown performance hint 'fast'"), std::string::npos);
    LoadOptions threads;
    threads.num_threads = -1;
    EXPECT_NE(refusal_of(threads).find("number of threads"), std::string::npos);
    LoadOptions limit;
    limit.int64_input_limit = int64_t{1} << 31;
    EXPECT_NE(refusal_of(limit).find("int64 input limit"), std::string::npos);
    LoadOptions cache;
    const auto file = std::filesystem::temp_directory_path() / "pt2ov-settings-test-file";
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    cache.cache_dir = file.string();
    EXPECT_NE(refusal_of(cache).find("exists and is not a folder"), std::string::npos);
    std::filesystem::remove(file);
}

}  // namespace
}  // namespace pt2ov
