// OpenVINO alone (no pt2ov): does RSS stay flat when one thread infers several compiled models
// one after the other, call after call, as a method of several OpenVINO steps does?
//
//   pt2ov_openvino_arenas [--models K] [--rounds N] [--callers-arena] [--threads T]
//
// K compiled models (a 3x3 convolution on 1x8x16x16 each, f32, latency hint), each round
// inferring each once on the calling thread; RSS from /proc/self/statm at round 1,000 and at the
// end. --callers-arena compiles them with EXCLUSIVE_ASYNC_REQUESTS and infers inside one
// task_arena of T threads (the plugin's inference threads by default), as pt2ov's executor
// does (openvino_facts ArenaPerCompiledModel). The growth depends on how TBB's worker threads
// are scheduled: on a busy machine it may not show; under `strace -f -o /dev/null`, which slows
// their hand-offs, it shows on every run with K >= 2 and not with K = 1.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <openvino/op/convolution.hpp>
#include <openvino/op/constant.hpp>
#include <openvino/op/parameter.hpp>
#include <openvino/openvino.hpp>
#include <vector>

#include "resident_memory.h"

namespace {

std::shared_ptr<ov::Model> convolution(int seed) {
    auto x = std::make_shared<ov::op::v0::Parameter>(ov::element::f32, ov::Shape{1, 8, 16, 16});
    std::vector<float> weights(8 * 8 * 3 * 3);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>((i * 7 + seed) % 13) / 13.0f - 0.5f;
    auto kernel = ov::op::v0::Constant::create(ov::element::f32, ov::Shape{8, 8, 3, 3}, weights);
    auto conv = std::make_shared<ov::op::v1::Convolution>(x, kernel, ov::Strides{1, 1}, ov::CoordinateDiff{1, 1},
                                                          ov::CoordinateDiff{1, 1}, ov::Strides{1, 1});
    return std::make_shared<ov::Model>(ov::OutputVector{conv->output(0)}, ov::ParameterVector{x});
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Several OpenVINO compiled models inferred in turn on one thread: RSS over many rounds"};
    int models = 3, threads = 0;
    int64_t rounds = 100000;
    bool callers_arena = false;
    app.add_option("--models", models, "Compiled models inferred in turn")->check(CLI::Range(1, 64));
    app.add_option("--rounds", rounds, "Rounds (each infers every model once)")->check(CLI::Range(int64_t{1000}, int64_t{1} << 40));
    app.add_flag("--callers-arena", callers_arena, "EXCLUSIVE_ASYNC_REQUESTS, inferring in one arena of ours");
    app.add_option("--threads", threads, "The arena's threads with --callers-arena (0: the plugin's)");
    CLI11_PARSE(app, argc, argv);

    ov::Core core;
    std::vector<ov::InferRequest> requests;
    int plugin_threads = 0;
    for (int k = 0; k < models; ++k) {
        ov::AnyMap config{ov::hint::performance_mode(ov::hint::PerformanceMode::LATENCY)};
        if (callers_arena) config.emplace("EXCLUSIVE_ASYNC_REQUESTS", true);
        auto compiled = core.compile_model(convolution(k), "CPU", config);
        plugin_threads = compiled.get_property(ov::inference_num_threads);
        requests.push_back(compiled.create_infer_request());
    }
    std::vector<float> input(8 * 16 * 16, 0.5f);
    for (auto& request : requests) request.set_input_tensor(ov::Tensor(ov::element::f32, {1, 8, 16, 16}, input.data()));

    oneapi::tbb::task_arena arena(threads > 0 ? threads : plugin_threads);
    int64_t baseline = 0;
    const auto start = std::chrono::steady_clock::now();
    auto run = [&] {
        for (int64_t round = 1; round <= rounds; ++round) {
            for (auto& request : requests) request.infer();
            if (round == 1000) baseline = resident_bytes();
        }
    };
    if (callers_arena) {
        arena.execute(run);
    } else {
        run();
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                      static_cast<double>(rounds);
    const int64_t end = resident_bytes();
    fmt::print("{} model(s), {} rounds, {}: {:.1f} us per round; RSS at round 1000 {:.3f} MB, at the end {:.3f} MB, "
               "growth {:+.3f} MB\n",
               models, rounds, callers_arena ? "caller's arena" : "an arena per model", us, baseline / 1e6, end / 1e6,
               (end - baseline) / 1e6);
    return 0;
}
