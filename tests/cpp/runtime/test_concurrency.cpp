// One Program shared by several threads: every concurrent call returns exactly what the same
// call returns alone, on OpenVINO-only, mixed OpenVINO/CPU and CPU-only programs; a program
// with state serializes its calls, so a counter counts every call once.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../fixtures/fixtures.h"
#include "pt2ov/pt2ov.h"

namespace {

using namespace pt2ov;

constexpr int kThreads = 4;
constexpr int kCallsPerThread = 300;

// The archives of make_concurrency_fixtures.py, made once and cached in the temp folder under a
// name derived from the script's text (fixtures.h cached_script_output).
std::string concurrency_fixture(const std::string& name) {
    static const std::filesystem::path dir = test::cached_script_output(
        "tests/cpp/runtime/make_concurrency_fixtures.py", "pt2ov-concurrency-", "ready", "the concurrency archives");
    return (dir / name).string();
}

Tensor random_floats(std::vector<int64_t> shape, std::mt19937& rng) {
    Tensor t = Tensor::allocate(DType::Float32, std::move(shape));
    std::normal_distribution<float> normal;
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = normal(rng);
    return t;
}

Tensor random_mask(std::vector<int64_t> shape, std::mt19937& rng) {
    Tensor t = Tensor::allocate(DType::Bool, std::move(shape));
    std::bernoulli_distribution coin(0.5);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<bool>()[i] = coin(rng);
    return t;
}

// What a call returned, compared bit for bit.
struct Result {
    DType dtype;
    std::vector<int64_t> shape;
    std::vector<std::byte> bytes;
    bool operator==(const Result&) const = default;
};

std::vector<Result> results_of(const std::vector<Tensor>& outputs) {
    std::vector<Result> results;
    for (const auto& t : outputs) {
        const auto* data = static_cast<const std::byte*>(t.data());
        results.push_back({t.dtype(), t.shape(), std::vector<std::byte>(data, data + t.byte_size())});
    }
    return results;
}

// Runs `program` on every input set alone, then kThreads threads × kCallsPerThread calls over
// the same sets at once; every concurrent result must equal the lone one. With
// `caller_outputs`, every other call writes into output tensors the caller gives.
void expect_concurrent_calls_match_lone_calls(Program& program, const std::vector<std::vector<Tensor>>& input_sets,
                                              bool caller_outputs = false) {
    std::vector<std::vector<Result>> expected;
    for (const auto& inputs : input_sets) expected.push_back(results_of(program.run(inputs)));

    std::atomic<int> mismatches{0}, errors{0}, calls{0};
    std::mutex first_failure_mutex;
    std::string first_failure;
    auto note = [&](const std::string& what) {
        std::lock_guard lock(first_failure_mutex);
        if (first_failure.empty()) first_failure = what;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kCallsPerThread; ++i) {
                const size_t set = (static_cast<size_t>(t) * 7 + static_cast<size_t>(i) * 3) % input_sets.size();
                try {
                    std::vector<Tensor> outputs;
                    if (caller_outputs && i % 2) {
                        for (const auto& want : expected[set]) outputs.push_back(Tensor::allocate(want.dtype, want.shape));
                        program.run(input_sets[set], outputs);
                    } else {
                        outputs = program.run(input_sets[set]);
                    }
                    if (results_of(outputs) != expected[set]) {
                        ++mismatches;
                        note("thread " + std::to_string(t) + " call " + std::to_string(i) + " on input set " +
                             std::to_string(set) + " differs from the lone call");
                    }
                } catch (const std::exception& e) {
                    ++errors;
                    note(e.what());
                }
                ++calls;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(calls.load(), kThreads * kCallsPerThread);
    EXPECT_EQ(mismatches.load(), 0) << first_failure;
    EXPECT_EQ(errors.load(), 0) << first_failure;
}

std::set<std::string> step_kinds(const Program& program) {
    std::set<std::string> kinds;
    for (const auto& step : program.report().steps) kinds.insert(step.kind);
    return kinds;
}

// The where/masked_fill program's inputs over several batch sizes (its batch is dynamic).
std::vector<std::vector<Tensor>> where_inputs() {
    std::mt19937 rng(7);
    std::vector<std::vector<Tensor>> sets;
    for (int64_t batch : {1, 2, 3, 5, 8, 13, 16, 4}) {
        sets.push_back({random_floats({batch, 6}, rng), random_floats({batch, 6}, rng), random_mask({batch, 6}, rng)});
    }
    return sets;
}

// The MLP is small enough that load would time it on the CPU kernels too (measure_placement)
// and might keep them: these tests are about OpenVINO steps shared by threads.
LoadOptions on_openvino() {
    LoadOptions options;
    options.measure_placement = false;
    return options;
}

TEST(Concurrency, OpenVINOOnlyProgram) {
    Program program = Program::load(concurrency_fixture("mlp.pt2"), on_openvino());
    ASSERT_EQ(step_kinds(program), std::set<std::string>{"openvino"});
    std::mt19937 rng(1);
    std::vector<std::vector<Tensor>> sets;
    for (int i = 0; i < 8; ++i) sets.push_back({random_floats({8, 32}, rng)});
    expect_concurrent_calls_match_lone_calls(program, sets, /*caller_outputs=*/true);
    EXPECT_GT(program.last_openvino_ns(), 0);
}

// Under the throughput hint OpenVINO runs concurrent calls on parallel streams: still the lone
// calls' results.
TEST(Concurrency, OpenVINOOnlyProgramUnderTheThroughputHint) {
    LoadOptions options = on_openvino();
    options.performance_hint = "throughput";
    Program program = Program::load(concurrency_fixture("mlp.pt2"), options);
    ASSERT_EQ(step_kinds(program), std::set<std::string>{"openvino"});
    std::mt19937 rng(2);
    std::vector<std::vector<Tensor>> sets;
    for (int i = 0; i < 8; ++i) sets.push_back({random_floats({8, 32}, rng)});
    expect_concurrent_calls_match_lone_calls(program, sets, /*caller_outputs=*/false);
}

TEST(Concurrency, AnUnknownPerformanceHintIsAnOptionError) {
    LoadOptions options;
    options.performance_hint = "fastest";
    EXPECT_THROW(Program::load(concurrency_fixture("mlp.pt2"), options), OptionError);
}

TEST(Concurrency, MixedOpenVINOAndCpuProgram) {
    LoadOptions options;
    options.cpu_ops = {"aten.masked_fill"};
    Program program = Program::load(concurrency_fixture("where_masked_fill.pt2"), options);
    ASSERT_EQ(step_kinds(program), (std::set<std::string>{"cpu", "openvino"}));
    expect_concurrent_calls_match_lone_calls(program, where_inputs());
}

TEST(Concurrency, CpuOnlyProgram) {
    const std::string path = concurrency_fixture("where_masked_fill.pt2");
    LoadOptions options;
    for (const auto& step : Program::inspect(path).steps) {
        for (const auto& node : step.nodes) options.cpu_ops.push_back(node.target);
    }
    Program program = Program::load(path, options);
    ASSERT_EQ(step_kinds(program), std::set<std::string>{"cpu"});
    expect_concurrent_calls_match_lone_calls(program, where_inputs());
}

// count.add_(1) then (x + count, count): calls are serialized, so the counts the calls return
// are 1..1200, each once, and the final state is 1200; a reader of the state meanwhile sees it
// only grow.
// The counter's value, int64 or float32 (exact to far beyond the counts here).
int64_t count_of(const Tensor& t) {
    return t.dtype() == DType::Int64 ? *t.data_as<int64_t>() : static_cast<int64_t>(*t.data_as<float>());
}

void expect_counter_counts_every_call(const std::string& archive, const std::string& update_on) {
    Program program = Program::load(concurrency_fixture(archive));
    ASSERT_EQ(program.state_names(), std::vector<std::string>{"count"});
    ASSERT_EQ(program.report().state.at(0).update, update_on);

    std::mutex counts_mutex;
    std::vector<int64_t> counts;
    std::atomic<int> errors{0}, wrong_sums{0};
    std::atomic<bool> done{false};
    std::string first_failure;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937 rng(100 + t);
            for (int i = 0; i < kCallsPerThread; ++i) {
                try {
                    const Tensor x = random_floats({3}, rng);
                    const auto outputs = program.run({x});
                    const int64_t count = count_of(outputs.at(1));
                    for (int k = 0; k < 3; ++k) {
                        const float want = x.data_as<float>()[k] + static_cast<float>(count);
                        if (std::memcmp(&outputs[0].data_as<float>()[k], &want, sizeof want) != 0) ++wrong_sums;
                    }
                    std::lock_guard lock(counts_mutex);
                    counts.push_back(count);
                } catch (const std::exception& e) {
                    std::lock_guard lock(counts_mutex);
                    ++errors;
                    if (first_failure.empty()) first_failure = e.what();
                }
            }
        });
    }
    std::atomic<int> went_back{0};
    std::thread reader([&] {
        int64_t last = 0;
        while (!done) {
            const int64_t now = count_of(program.read_state("count"));
            if (now < last || now > kThreads * kCallsPerThread) ++went_back;
            last = now;
        }
    });
    for (auto& thread : threads) thread.join();
    done = true;
    reader.join();

    EXPECT_EQ(errors.load(), 0) << first_failure;
    EXPECT_EQ(wrong_sums.load(), 0);
    EXPECT_EQ(went_back.load(), 0);
    std::sort(counts.begin(), counts.end());
    std::vector<int64_t> every_count(kThreads * kCallsPerThread);
    for (size_t i = 0; i < every_count.size(); ++i) every_count[i] = static_cast<int64_t>(i) + 1;
    EXPECT_EQ(counts, every_count);
    EXPECT_EQ(count_of(program.read_state("count")), kThreads * kCallsPerThread);
    program.reset_state();
    EXPECT_EQ(count_of(program.read_state("count")), 0);
}

TEST(Concurrency, StatefulProgramSerializesItsCallsOnOpenVINO) {
    expect_counter_counts_every_call("float_counter.pt2", "openvino");
}

TEST(Concurrency, StatefulProgramSerializesItsCallsOnTheCpu) { expect_counter_counts_every_call("counter.pt2", "cpu"); }

}  // namespace
