// The report formatting and the benchmark statistics (src/tools/report.h, benchmark.h): the
// JSON shapes `pt2ov inspect --json` and `pt2ov bench --json` print, and nearest-rank
// percentiles.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tools/benchmark.h"
#include "tools/report.h"

namespace {

using pt2ov::PlacementReport;
using pt2ov::tools::latency_stats;

PlacementReport two_step_report() {
    PlacementReport report;
    report.method = "forward";
    report.openvino_version = "2026.4.1-test";
    report.cpu_isa = "x86-64-v3";
    report.steps = {{"openvino", {{"linear", "aten.linear.default", "converted by OpenVINO"}}},
                    {"cpu", {{"atan", "aten.atan.default", "--cpu-op aten.atan"}, {"clone", "aten.clone.default", "copy"}}}};
    report.constant_count = 2;
    report.constant_bytes = 4096;
    report.resident_bytes = 4096;
    report.state = {{"count", pt2ov::DType::Float32, {}, "openvino", 1, "add_",
                     "two buffers held by pt2ov, used in turn"},
                    {"cache", pt2ov::DType::BFloat16, {4, 2}, "cpu", 2, "index_copy_", "a new tensor per call"}};
    return report;
}

TEST(ToolsReport, StateIsListedPerMethod) {
    const auto json = nlohmann::json::parse(pt2ov::tools::report_json({two_step_report()}));
    const auto& state = json.at("methods").at("forward").at("state");
    ASSERT_EQ(state.size(), 2u);
    EXPECT_EQ(state[0]["name"], "count");
    EXPECT_EQ(state[0]["dtype"], "float32");
    EXPECT_EQ(state[0]["shape"], nlohmann::json::array());
    EXPECT_EQ(state[0]["update"], "openvino");
    EXPECT_EQ(state[0]["step"], 1);
    EXPECT_EQ(state[0]["node"], "add_");
    EXPECT_EQ(state[0]["carried"], "two buffers held by pt2ov, used in turn");
    EXPECT_EQ(state[1]["shape"], (nlohmann::json{4, 2}));
    EXPECT_EQ(state[1]["dtype"], "bfloat16");
    const std::string text = pt2ov::tools::report_text({two_step_report()});
    EXPECT_NE(text.find("state count: float32 (), updated on openvino (step 1) by add_; two buffers held by pt2ov, used in turn"),
              std::string::npos) << text;
    EXPECT_NE(text.find("state cache: bfloat16 (4, 2), updated on cpu (step 2) by index_copy_; a new tensor per call"),
              std::string::npos) << text;
}

TEST(ToolsReport, JsonHasTheShapeInspectPrints) {
    const auto json = nlohmann::json::parse(pt2ov::tools::report_json({two_step_report()}));
    const auto& method = json.at("methods").at("forward");
    ASSERT_EQ(method.at("steps").size(), 2u);
    EXPECT_EQ(method["steps"][0]["kind"], "openvino");
    EXPECT_EQ(method["steps"][1]["kind"], "cpu");
    EXPECT_EQ(method["steps"][1]["nodes"][0]["name"], "atan");
    EXPECT_EQ(method["steps"][1]["nodes"][0]["target"], "aten.atan.default");
    EXPECT_EQ(method["steps"][1]["nodes"][0]["reason"], "--cpu-op aten.atan");
    EXPECT_EQ(method["constants"]["count"], 2);
    EXPECT_EQ(method["constants"]["bytes"], 4096);
    EXPECT_EQ(method["constants"]["resident_bytes"], 4096);
    EXPECT_EQ(method["openvino_version"], "2026.4.1-test");
    EXPECT_EQ(method["cpu_isa"], "x86-64-v3");
}

TEST(ToolsReport, TextCountsNodesAndSteps) {
    const std::string text = pt2ov::tools::report_text({two_step_report()});
    EXPECT_NE(text.find("method forward: 3 node(s) in 2 step(s), support decided by OpenVINO 2026.4.1-test"),
              std::string::npos) << text;
    EXPECT_NE(text.find("step 2: cpu (2 node(s))"), std::string::npos) << text;
    EXPECT_NE(text.find("constants: 2 tensor(s), 4096 bytes, 4096 bytes resident"), std::string::npos) << text;
    EXPECT_NE(text.find("CPU kernels: x86-64-v3"), std::string::npos) << text;
}

TEST(ToolsBenchmark, PercentilesAreNearestRankMeasuredSamples) {
    std::vector<int64_t> samples;
    for (int64_t i = 100; i >= 1; --i) samples.push_back(i * 1'000'000);  // 1..100 ms, unsorted
    const auto stats = latency_stats(samples);
    EXPECT_EQ(stats.count, 100);
    EXPECT_DOUBLE_EQ(stats.p50_ms, 50);
    EXPECT_DOUBLE_EQ(stats.p90_ms, 90);
    EXPECT_DOUBLE_EQ(stats.p99_ms, 99);
    EXPECT_DOUBLE_EQ(stats.min_ms, 1);
    EXPECT_DOUBLE_EQ(stats.max_ms, 100);
    EXPECT_DOUBLE_EQ(stats.mean_ms, 50.5);

    const auto three = latency_stats({3'000'000, 1'000'000, 2'000'000});
    EXPECT_DOUBLE_EQ(three.p50_ms, 2);  // rank ceil(1.5) = 2
    EXPECT_DOUBLE_EQ(three.p99_ms, 3);
    EXPECT_EQ(latency_stats({}).count, 0);
}

TEST(ToolsBenchmark, TimeCallsWarmsUpThenRecordsEachCall) {
    int calls = 0;
    const auto samples = pt2ov::tools::time_calls({/*warmup=*/3, /*iterations=*/5}, [&] { ++calls; });
    EXPECT_EQ(calls, 8);
    EXPECT_EQ(samples.size(), 5u);
}

TEST(ToolsBenchmark, JsonSamplesOnlyWhenAsked) {
    pt2ov::tools::BenchmarkResult result;
    result.model = "m.pt2";
    result.cpu_isa = "baseline";
    result.samples_ns = {1, 2};
    result.openvino_samples_ns = {1, 1};
    const auto plain = nlohmann::json::parse(pt2ov::tools::benchmark_json(result));
    EXPECT_EQ(plain["model"], "m.pt2");
    EXPECT_EQ(plain["cpu_isa"], "baseline");
    EXPECT_FALSE(plain.contains("samples_ns"));
    for (const char* key : {"latency", "openvino", "load_ms", "steps", "constants", "overhead_us", "peak_rss_bytes"}) {
        EXPECT_TRUE(plain.contains(key)) << key;
    }
    const auto with = nlohmann::json::parse(pt2ov::tools::benchmark_json(result, /*with_samples=*/true));
    EXPECT_EQ(with["samples_ns"], (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(with["openvino_samples_ns"], (std::vector<int64_t>{1, 1}));
}

}  // namespace
