// Mutated buffers kept as OpenVINO state (ReadValue/Assign in the step's infer request): the
// report says so, every call returns the same bytes as with the state carried by pt2ov
// (LoadOptions::openvino_state = false), and read_state, write_state and reset_state see and
// set the state the calls use. Buffers OpenVINO cannot hold (int64) stay carried by pt2ov.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "../fixtures/fixtures.h"
#include "pt2ov/pt2ov.h"

namespace {

using namespace pt2ov;

std::string state_fixture(const std::string& name) {
    static const std::filesystem::path dir = test::cached_script_output(
        "tests/cpp/runtime/make_openvino_state_fixtures.py", "pt2ov-openvino-state-", "ready", "the OpenVINO state archives");
    return (dir / name).string();
}

LoadOptions with_openvino_state(bool on) {
    LoadOptions options;
    options.openvino_state = on;
    return options;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
           (a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0);
}

template <typename T>
Tensor filled(DType dtype, std::vector<int64_t> shape, std::vector<T> values) {
    Tensor t = Tensor::allocate(dtype, std::move(shape));
    EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
    std::memcpy(t.data(), values.data(), t.byte_size());
    return t;
}

const PlacementReport::State& state_named(const Program& program, const std::string& name) {
    for (const auto& state : program.report().state) {
        if (state.name == name) return state;
    }
    throw std::runtime_error("no state " + name + " in the report");
}

bool carried_by_openvino(const Program& program, const std::string& name) {
    return state_named(program, name).carried.find("OpenVINO state (ReadValue/Assign)") != std::string::npos;
}

// Runs the same calls on `on` and `off`, comparing every output and every buffer's state after
// each call, bit for bit.
void expect_same_calls(Program& on, Program& off, const std::vector<std::vector<Tensor>>& calls, const std::string& when) {
    for (size_t c = 0; c < calls.size(); ++c) {
        const auto got = on.run(calls[c]);
        const auto want = off.run(calls[c]);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same_bytes(got[i], want[i])) << when << ", call " << c << ", output " << i;
        for (const auto& name : off.state_names()) {
            EXPECT_TRUE(same_bytes(on.read_state(name), off.read_state(name))) << when << ", call " << c << ", state " << name;
        }
    }
}

std::vector<std::vector<Tensor>> cache_calls() {
    std::vector<std::vector<Tensor>> calls;
    for (int c = 0; c < 6; ++c) {
        const float base = 0.1f * static_cast<float>(c) - 0.35f;
        calls.push_back({filled<float>(DType::Float32, {1, 4}, {base, base * 3, -base / 7, 1e-7f + base}),
                         filled<int64_t>(DType::Int64, {1}, {(c * 3) % 8})});
    }
    return calls;
}

TEST(OpenVINOState, CounterAndCacheAreOpenVINOStateAndGiveTheSameValues) {
    const std::string path = state_fixture("counter_and_cache.pt2");
    Program on = Program::load(path, with_openvino_state(true));
    Program off = Program::load(path, with_openvino_state(false));
    ASSERT_EQ(on.state_names(), off.state_names());
    ASSERT_EQ(on.state_names().size(), 2u);
    for (const char* name : {"count", "cache"}) {
        EXPECT_TRUE(carried_by_openvino(on, name)) << state_named(on, name).carried;
        EXPECT_EQ(state_named(on, name).update, "openvino");
        EXPECT_FALSE(carried_by_openvino(off, name)) << state_named(off, name).carried;
    }
    EXPECT_EQ(on.read_state("count").shape(), std::vector<int64_t>{});  // 0-d
    EXPECT_TRUE(same_bytes(on.read_state("cache"), off.read_state("cache")));
    expect_same_calls(on, off, cache_calls(), "from load");

    // write_state: the next calls start from the value written; it is copied, so changing the
    // caller's tensor afterwards changes nothing.
    Tensor count = filled<float>(DType::Float32, {}, {41.5f});
    Tensor cache = Tensor::allocate(DType::Float32, {8, 4});
    for (int64_t i = 0; i < cache.numel(); ++i) cache.data_as<float>()[i] = 0.25f * static_cast<float>(i) - 3;
    for (Program* program : {&on, &off}) {
        program->write_state("count", count);
        program->write_state("cache", cache);
    }
    EXPECT_TRUE(same_bytes(on.read_state("count"), count));
    EXPECT_TRUE(same_bytes(on.read_state("cache"), cache));
    *count.data_as<float>() = -1000;
    cache.data_as<float>()[5] = 1e30f;
    expect_same_calls(on, off, cache_calls(), "after write_state");
    EXPECT_FLOAT_EQ(*on.read_state("count").data_as<float>(), 41.5f + 6);

    // reset_state: back to the archive's zeros.
    on.reset_state();
    off.reset_state();
    EXPECT_EQ(*on.read_state("count").data_as<float>(), 0.0f);
    EXPECT_TRUE(same_bytes(on.read_state("cache"), Program::load(path, with_openvino_state(false)).read_state("cache")));
    expect_same_calls(on, off, cache_calls(), "after reset_state");

    EXPECT_THROW(on.write_state("count", Tensor::allocate(DType::Float32, {1})), InputError);
    EXPECT_THROW(on.write_state("cache", Tensor::allocate(DType::Float64, {8, 4})), InputError);
    EXPECT_THROW(on.read_state("nope"), InputError);
}

// A stacked cache runs as one buffer per layer (graph/split_buffers.cpp), each part OpenVINO
// state or carried by pt2ov; either way the calls and the whole buffer read back are the same
// bytes, and write_state and reset_state of the stacked name set every layer.
TEST(OpenVINOState, SplitStackedCacheGivesTheSameValues) {
    const std::string path = state_fixture("stacked_cache.pt2");
    Program on = Program::load(path, with_openvino_state(true));
    Program off = Program::load(path, with_openvino_state(false));
    ASSERT_EQ(on.state_names(), std::vector<std::string>{"cache"});
    ASSERT_EQ(off.state_names(), std::vector<std::string>{"cache"});
    for (Program* program : {&on, &off}) {
        EXPECT_EQ(state_named(*program, "cache").split_into, 2u);
        EXPECT_EQ(state_named(*program, "cache").shape, (std::vector<int64_t>{2, 8, 4}));
    }
    EXPECT_TRUE(carried_by_openvino(on, "cache")) << state_named(on, "cache").carried;
    EXPECT_FALSE(carried_by_openvino(off, "cache")) << state_named(off, "cache").carried;
    expect_same_calls(on, off, cache_calls(), "from load");

    Tensor cache = Tensor::allocate(DType::Float32, {2, 8, 4});
    for (int64_t i = 0; i < cache.numel(); ++i) cache.data_as<float>()[i] = 0.125f * static_cast<float>(i) - 5;
    for (Program* program : {&on, &off}) program->write_state("cache", cache);
    EXPECT_TRUE(same_bytes(on.read_state("cache"), cache));
    EXPECT_TRUE(same_bytes(off.read_state("cache"), cache));
    expect_same_calls(on, off, cache_calls(), "after write_state");

    on.reset_state();
    off.reset_state();
    const Tensor zeros = Tensor::allocate(DType::Float32, {2, 8, 4});
    EXPECT_TRUE(same_bytes(on.read_state("cache"), zeros));
    EXPECT_TRUE(same_bytes(off.read_state("cache"), zeros));
    expect_same_calls(on, off, cache_calls(), "after reset_state");
    EXPECT_THROW(on.write_state("cache", Tensor::allocate(DType::Float32, {8, 4})), InputError);
    EXPECT_THROW(on.read_state("cache[0]"), InputError);
}

TEST(OpenVINOState, Int32CounterIsOpenVINOState) {
    const std::string path = state_fixture("int32_counter.pt2");
    Program on = Program::load(path, with_openvino_state(true));
    Program off = Program::load(path, with_openvino_state(false));
    EXPECT_TRUE(carried_by_openvino(on, "count")) << state_named(on, "count").carried;
    std::vector<std::vector<Tensor>> calls;
    for (int c = 0; c < 4; ++c) calls.push_back({filled<int32_t>(DType::Int32, {3}, {c, -c, 1 << 20})});
    expect_same_calls(on, off, calls, "from load");
    // Near the int32 limit: both wrap as PyTorch's int32 does.
    for (Program* program : {&on, &off}) program->write_state("count", filled<int32_t>(DType::Int32, {}, {2147483647 - 4}));
    expect_same_calls(on, off, calls, "near the int32 limit");
}

TEST(OpenVINOState, StepWhoseOnlyResultIsTheState) {
    const std::string path = state_fixture("only_state.pt2");
    Program on = Program::load(path, with_openvino_state(true));
    Program off = Program::load(path, with_openvino_state(false));
    std::vector<std::vector<Tensor>> calls;
    for (int c = 0; c < 4; ++c) calls.push_back({filled<float>(DType::Float32, {4}, {0.5f * c, -1.0f, 3e-8f, 7.0f / (c + 1)})});
    expect_same_calls(on, off, calls, "from load");
    if (state_named(on, "total").update == "openvino") EXPECT_TRUE(carried_by_openvino(on, "total")) << state_named(on, "total").carried;
}

// OpenVINO's CPU plugin refuses int64 state (set_state: "does not support i64"): such a
// buffer stays carried by pt2ov, whichever side computes it.
TEST(OpenVINOState, Int64BuffersStayCarriedByPt2ov) {
    {
        const std::string path = state_fixture("int64_counter.pt2");
        Program on = Program::load(path, with_openvino_state(true));
        Program off = Program::load(path, with_openvino_state(false));
        EXPECT_FALSE(carried_by_openvino(on, "count")) << state_named(on, "count").carried;
        std::vector<std::vector<Tensor>> calls;
        for (int c = 0; c < 4; ++c) calls.push_back({filled<int64_t>(DType::Int64, {3}, {c, -c, 1 << 20})});
        expect_same_calls(on, off, calls, "int64 counter");
    }
    {
        const std::string path = state_fixture("int64_cache.pt2");
        Program on = Program::load(path, with_openvino_state(true));
        Program off = Program::load(path, with_openvino_state(false));
        EXPECT_FALSE(carried_by_openvino(on, "ids")) << state_named(on, "ids").carried;
        std::vector<std::vector<Tensor>> calls;
        for (int c = 0; c < 4; ++c) {
            calls.push_back({filled<int64_t>(DType::Int64, {1}, {100 + c}), filled<int64_t>(DType::Int64, {1}, {(c * 5) % 6})});
        }
        expect_same_calls(on, off, calls, "int64 cache");
    }
}

// A program that returns its buffer's new value (self.total += x; return self.total), called
// with the caller's output tensors, the same ones call after call: the output is the caller's
// memory and the state is not (E2). Scribbling on the output between calls changes nothing.
TEST(OpenVINOState, StateReturnedIntoTheCallersOutputIsNotTheCallersMemory) {
    for (const bool openvino_state : {true, false}) {
        SCOPED_TRACE(openvino_state ? "OpenVINO state" : "carried by pt2ov");
        {
            Program program = Program::load(state_fixture("returns_float_state.pt2"), with_openvino_state(openvino_state));
            std::vector<Tensor> outputs{Tensor::allocate(DType::Float32, {4})};
            std::vector<float> want(4, 0.0f);
            for (int c = 0; c < 4; ++c) {
                const std::vector<float> x{0.5f * c, -1.0f, 3e-8f, 7.0f / (c + 1)};
                for (size_t i = 0; i < 4; ++i) want[i] += x[i];
                const void* given = outputs[0].data();
                program.run({filled<float>(DType::Float32, {4}, x)}, outputs);
                EXPECT_EQ(outputs[0].data(), given);
                EXPECT_EQ(std::memcmp(outputs[0].data(), want.data(), 16), 0) << "call " << c;
                std::fill_n(outputs[0].data_as<float>(), 4, 1e6f);  // the caller reuses its memory
                const Tensor state = program.read_state("total");
                EXPECT_EQ(std::memcmp(state.data(), want.data(), 16), 0) << "call " << c;
            }
        }
        {
            Program program = Program::load(state_fixture("returns_int64_state.pt2"), with_openvino_state(openvino_state));
            std::vector<Tensor> outputs{Tensor::allocate(DType::Int64, {})};
            int64_t want = 0;
            for (int64_t c = 1; c <= 4; ++c) {
                want += c * 1000;
                program.run({filled<int64_t>(DType::Int64, {}, {c * 1000})}, outputs);
                EXPECT_EQ(*outputs[0].data_as<int64_t>(), want) << "call " << c;
                *outputs[0].data_as<int64_t>() = -7;
                EXPECT_EQ(*program.read_state("total").data_as<int64_t>(), want) << "call " << c;
            }
        }
    }
}

// Calls from several threads serialize on the one context holding the state: each call's
// count is another, and the state ends at the number of calls.
TEST(OpenVINOState, ConcurrentCallsCountEveryCallOnce) {
    Program program = Program::load(state_fixture("counter_and_cache.pt2"));
    ASSERT_TRUE(carried_by_openvino(program, "count"));
    constexpr int kThreads = 4, kCalls = 100;
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < kCalls; ++i) {
                try {
                    program.run({filled<float>(DType::Float32, {1, 4}, {0, 0, 0, 0}), filled<int64_t>(DType::Int64, {1}, {0})});
                    (void)program.read_state("count");
                } catch (const std::exception&) {
                    ++errors;
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_EQ(*program.read_state("count").data_as<float>(), static_cast<float>(kThreads * kCalls));
}

}  // namespace
