// The C++ side of bench/compare: times programs in this process and prints one JSON object.
//
//   pt2ov_bench_runner pair     MODEL.pt2 MODEL.xml IN.npz [--cpu-op OP ...] [--threads N]
//                               [--iterations N] [--warmup N] [--rounds R]
//   pt2ov_bench_runner pt2ov    MODEL.pt2 IN.npz [--cpu-op OP ...] [--iterations N] [--warmup N]
//   pt2ov_bench_runner openvino MODEL.xml [MODEL2.xml ...] IN.npz [--threads N] [--iterations N]
//                               [--warmup N] [--rounds R]
//   pt2ov_bench_runner dump     MODEL.pt2 DIR [--cpu-op OP ...]
//
// pt2ov: the program through pt2ov's C++ API (Program::load, run into reused outputs), timed
// by the tools' CallTimer, the loop `pt2ov bench` uses.
// openvino: the IR that OpenVINO's Python convert_model made of the same program, compiled
// with the hints pt2ov's load leaves in force (f32, latency, one request; the given threads),
// one synchronous request, inputs bound in place, outputs left in the request's memory: the
// limit pt2ov is held to.
// dump: writes the OpenVINO models pt2ov compiles for MODEL.pt2 as IR, DIR/step<N>.xml (N as
// `pt2ov inspect` numbers the steps), to set beside OpenVINO's own conversion when pt2ov's
// time inside infer() differs from OpenVINO alone's (benchmark_app -pc shows where).
// pair: both in one process, after their warm-ups, in alternating blocks of calls (R rounds of
// N/R calls each side; by default R = N, one call each in turn, the first side swapping every
// round), so that a machine whose load drifts (other builds, other tests) weighs on both sides
// alike; the ratio of the two is what the 1.03x target is about.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <openvino/openvino.hpp>

#include "pt2ov/pt2ov.h"
#include "tools/benchmark.h"
#include "tools/npz.h"
#include "tools/npz_io.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace rt = pt2ov::tools;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

nlohmann::json stats_json(const rt::LatencyStats& s) {
    return {{"count", s.count},   {"mean_ms", s.mean_ms}, {"p50_ms", s.p50_ms}, {"p90_ms", s.p90_ms},
            {"p99_ms", s.p99_ms}, {"min_ms", s.min_ms},   {"max_ms", s.max_ms}, {"stddev_ms", s.stddev_ms}};
}

// --no-measure-placement: pt2ov's placement rules alone (a small program is otherwise timed at
// load on OpenVINO and on the CPU kernels, the faster kept).
bool measure_placement = true;

int run_pt2ov(const std::string& model, const std::string& inputs, const std::vector<std::string>& cpu_ops,
              const rt::BenchmarkOptions& loop) {
    pt2ov::LoadOptions options;
    options.cpu_ops = cpu_ops;
    options.measure_placement = measure_placement;
    const auto result = rt::benchmark_file(model, inputs, options, loop);
    std::cout << rt::benchmark_json(result, /*with_samples=*/true) << "\n";
    return 0;
}

ov::element::Type element_type(pt2ov::DType dtype) {
    switch (dtype) {
    case pt2ov::DType::Bool: return ov::element::boolean;
    case pt2ov::DType::UInt8: return ov::element::u8;
    case pt2ov::DType::Int8: return ov::element::i8;
    case pt2ov::DType::Int16: return ov::element::i16;
    case pt2ov::DType::UInt16: return ov::element::u16;
    case pt2ov::DType::Int32: return ov::element::i32;
    case pt2ov::DType::Int64: return ov::element::i64;
    case pt2ov::DType::Float16: return ov::element::f16;
    case pt2ov::DType::BFloat16: return ov::element::bf16;
    case pt2ov::DType::Float32: return ov::element::f32;
    case pt2ov::DType::Float64: return ov::element::f64;
    }
    throw std::runtime_error("unknown dtype");
}

// OpenVINO alone: one compiled IR and one request, inputs bound once.
struct OpenVINOAlone {
    ov::Core core;
    ov::CompiledModel compiled;
    ov::InferRequest request;
    std::vector<rt::NamedArray> arrays;
    double read_ms = 0, compile_ms = 0;
    std::vector<int64_t> samples;
    int warmup = 0;

    OpenVINOAlone(const std::string& model_xml, const std::string& inputs_npz, int threads) {
        auto start = Clock::now();
        auto model = core.read_model(model_xml);
        read_ms = ms_since(start);
        ov::AnyMap config{ov::hint::inference_precision(ov::element::f32),
                          ov::hint::performance_mode(ov::hint::PerformanceMode::LATENCY), ov::hint::num_requests(1)};
        if (threads > 0) config.emplace(ov::inference_num_threads(threads));
        start = Clock::now();
        compiled = core.compile_model(model, "CPU", config);
        request = compiled.create_infer_request();
        compile_ms = ms_since(start);
        // arr_0, arr_1, ... are the program's user inputs in order, as for pt2ov.
        arrays = rt::read_npz(inputs_npz);
        if (arrays.size() != compiled.inputs().size()) {
            throw std::runtime_error(fmt::format("{}: {} arrays for a model of {} inputs", inputs_npz, arrays.size(),
                                                 compiled.inputs().size()));
        }
        for (size_t i = 0; i < arrays.size(); ++i) {
            const auto& t = arrays[i].tensor;
            request.set_input_tensor(i, ov::Tensor(element_type(t.dtype()), ov::Shape(t.shape().begin(), t.shape().end()), t.data()));
        }
    }
    void call() {
        request.infer();
        ++warmup;
    }
    void timed_call() {
        const auto start = Clock::now();
        request.infer();
        samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    }
    nlohmann::json json(const std::string& model_xml) const {
        nlohmann::json out{
            {"model", model_xml},
            {"openvino_version", ov::get_openvino_version().buildNumber},
            {"warmup", warmup},
            {"iterations", samples.size()},
            {"load_ms", {{"total", read_ms + compile_ms}, {"read_ir", read_ms}, {"compile", compile_ms}}},
            {"latency", stats_json(rt::latency_stats(samples))},
            {"samples_ns", samples},
        };
        // What the compiled model ended up with, to show that both sides ran alike.
        for (const char* name : {"INFERENCE_NUM_THREADS", "NUM_STREAMS", "PERFORMANCE_HINT", "INFERENCE_PRECISION_HINT"}) {
            out["properties"][name] = compiled.get_property(name).as<std::string>();
        }
        return out;
    }
};

// Several IRs on the same inputs (e.g. pt2ov's step as `dump` wrote it, and OpenVINO's own
// conversion), interleaved in rounds as `pair` does.
int run_openvino(const std::vector<std::string>& models_xml, const std::string& inputs_npz, int threads,
                 const rt::BenchmarkOptions& loop, int rounds) {
    std::vector<std::unique_ptr<OpenVINOAlone>> sides;
    for (const auto& xml : models_xml) {
        sides.push_back(std::make_unique<OpenVINOAlone>(xml, inputs_npz, threads));
        for (int i = 0; i < loop.warmup; ++i) sides.back()->call();
    }
    rounds = rounds <= 0 ? loop.iterations : std::min(rounds, loop.iterations);
    for (int r = 0; r < rounds; ++r) {
        const int block = loop.iterations / rounds + (r < loop.iterations % rounds ? 1 : 0);
        for (auto& side : sides) {
            for (int i = 0; i < block; ++i) side->timed_call();
        }
    }
    nlohmann::json out;
    if (sides.size() == 1) {
        out = sides[0]->json(models_xml[0]);
        out["peak_rss_bytes"] = rt::peak_rss_bytes();
    } else {
        out = nlohmann::json::array();
        for (size_t i = 0; i < sides.size(); ++i) out.push_back(sides[i]->json(models_xml[i]));
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}

// Each side's failure is recorded as its "error" and the other side still runs.
int run_pair(const std::string& model_pt2, const std::string& model_xml, const std::string& inputs_npz,
             const std::vector<std::string>& cpu_ops, int threads, const rt::BenchmarkOptions& loop, int rounds) {
    nlohmann::json out;
    std::optional<pt2ov::Program> program;
    std::vector<pt2ov::Tensor> inputs;
    std::optional<rt::CallTimer> timer;
    double load_ms = 0;
    try {
        pt2ov::LoadOptions options;
        options.cpu_ops = cpu_ops;
        options.measure_placement = measure_placement;
    options.measure_placement = measure_placement;
        const auto start = Clock::now();
        program.emplace(pt2ov::Program::load(model_pt2, options));
        load_ms = ms_since(start);
        inputs = rt::read_inputs(inputs_npz, program->inputs());
        timer.emplace(*program, inputs);
        for (int i = 0; i < loop.warmup; ++i) timer->call();
        // pt2ov's process before OpenVINO alone is loaded beside it.
        out["pt2ov_peak_rss_bytes"] = rt::peak_rss_bytes();
    } catch (const std::exception& e) {
        out["pt2ov"] = {{"error", e.what()}};
        timer.reset();
    }
    std::optional<OpenVINOAlone> alone;
    try {
        alone.emplace(model_xml, inputs_npz, threads);
        for (int i = 0; i < loop.warmup; ++i) alone->call();
    } catch (const std::exception& e) {
        out["openvino"] = {{"error", e.what()}};
        alone.reset();
    }
    rounds = rounds <= 0 ? loop.iterations : std::min(rounds, loop.iterations);
    for (int r = 0; r < rounds; ++r) {
        const int block = loop.iterations / rounds + (r < loop.iterations % rounds ? 1 : 0);
        auto pt2ov_block = [&] {
            try {
                if (timer) for (int i = 0; i < block; ++i) timer->timed_call();
            } catch (const std::exception& e) {
                out["pt2ov"] = {{"error", e.what()}};
                timer.reset();
            }
        };
        auto openvino_block = [&] {
            if (alone) for (int i = 0; i < block; ++i) alone->timed_call();
        };
        // Who goes first swaps every round: a call right after the other side's pays for it alike.
        if (r % 2 == 0) {
            pt2ov_block();
            openvino_block();
        } else {
            openvino_block();
            pt2ov_block();
        }
    }
    if (timer) {
        auto result = timer->result();
        result.model = model_pt2;
        result.load_ms = load_ms;
        out["pt2ov"] = nlohmann::json::parse(rt::benchmark_json(result, /*with_samples=*/true));
    }
    if (alone) out["openvino"] = alone->json(model_xml);
    out["rounds"] = rounds;
    std::cout << out.dump(2) << "\n";
    return 0;
}

// The per-call cost of the non-finite check (LoadOptions::nonfinite_inputs): the same program
// loaded twice, checked ("exact") and not ("openvino"), called in turn on the same finite
// inputs, blocks of calls alternating and who goes first swapping every round.
int run_nonfinite_check(const std::string& model_pt2, const std::string& inputs_npz, const rt::BenchmarkOptions& loop,
                        int rounds) {
    struct Side {
        std::string mode;
        std::optional<pt2ov::Program> program;
        std::vector<pt2ov::Tensor> inputs;
        std::optional<rt::CallTimer> timer;
    };
    std::vector<Side> sides(2);
    sides[0].mode = "exact";
    sides[1].mode = "openvino";
    for (auto& side : sides) {
        pt2ov::LoadOptions options;
        options.measure_placement = measure_placement;
        options.nonfinite_inputs = side.mode;
        side.program.emplace(pt2ov::Program::load(model_pt2, options));
        side.inputs = rt::read_inputs(inputs_npz, side.program->inputs());
        side.timer.emplace(*side.program, side.inputs);
        for (int i = 0; i < loop.warmup; ++i) side.timer->call();
    }
    rounds = rounds <= 0 ? loop.iterations : std::min(rounds, loop.iterations);
    for (int r = 0; r < rounds; ++r) {
        const int block = loop.iterations / rounds + (r < loop.iterations % rounds ? 1 : 0);
        for (size_t k = 0; k < sides.size(); ++k) {
            auto& side = sides[(k + static_cast<size_t>(r)) % sides.size()];
            for (int i = 0; i < block; ++i) side.timer->timed_call();
        }
    }
    nlohmann::json out{{"model", model_pt2}, {"rounds", rounds}};
    for (auto& side : sides) {
        auto result = side.timer->result();
        result.model = model_pt2;
        out[side.mode] = nlohmann::json::parse(rt::benchmark_json(result, /*with_samples=*/false));
    }
    out["check_us_p50"] = (out["exact"]["latency"]["p50_ms"].get<double>() - out["openvino"]["latency"]["p50_ms"].get<double>()) * 1000.0;
    std::cout << out.dump(2) << "\n";
    return 0;
}

int run_dump(const std::string& model, const std::string& directory, const std::vector<std::string>& cpu_ops) {
    pt2ov::LoadOptions options;
    options.cpu_ops = cpu_ops;
    options.measure_placement = measure_placement;
    const auto written = pt2ov::Program::write_openvino_models(model, directory, options);
    std::cout << nlohmann::json{{"written", written}}.dump(2) << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench/compare's C++ runner: time programs in process, print JSON"};
    app.require_subcommand(1);
    rt::BenchmarkOptions loop;
    std::string model, model_xml, inputs;
    std::vector<std::string> cpu_ops;
    int threads = 0, rounds = 0;  // 0: one call per block
    auto add_loop = [&](CLI::App* command) {
        command->add_option("--iterations", loop.iterations, "Timed calls (each side)")->check(CLI::Range(1, 1000000000));
        command->add_option("--warmup", loop.warmup, "Untimed calls first (each side)")->check(CLI::Range(0, 1000000000));
    };
    auto* pair_command = app.add_subcommand("pair", "pt2ov and OpenVINO alone, interleaved in this process");
    pair_command->add_option("model", model, "The .pt2")->required();
    pair_command->add_option("ir", model_xml, "OpenVINO's IR (.xml) of the same program")->required();
    pair_command->add_option("inputs", inputs, "Inputs (.npz, arr_0, arr_1, ...)")->required();
    pair_command->add_flag("!--no-measure-placement", measure_placement, "pt2ov only: the placement rules alone");
    pair_command->add_option("--cpu-op", cpu_ops, "pt2ov only: keep this op on the CPU");
    pair_command->add_option("--threads", threads, "OpenVINO alone's inference_num_threads (0: its default)");
    pair_command->add_option("--rounds", rounds, "Alternations of the two sides")->check(CLI::Range(0, 1000000000));
    add_loop(pair_command);
    auto* pt2ov_command = app.add_subcommand("pt2ov", "pt2ov's C++ API on a .pt2");
    pt2ov_command->add_option("model", model)->required();
    pt2ov_command->add_option("inputs", inputs)->required();
    pt2ov_command->add_flag("!--no-measure-placement", measure_placement, "pt2ov only: the placement rules alone");
    pt2ov_command->add_option("--cpu-op", cpu_ops);
    add_loop(pt2ov_command);
    auto* openvino_command = app.add_subcommand("openvino", "OpenVINO alone on an IR (.xml)");
    std::vector<std::string> models_xml;
    openvino_command->add_option("models", models_xml, "IR(s), then the inputs (.npz)")->required()->expected(2, 1000);
    openvino_command->add_option("--rounds", rounds, "Alternations of several IRs")->check(CLI::Range(0, 1000000000));
    openvino_command->add_option("--threads", threads, "inference_num_threads (0: OpenVINO's default)");
    add_loop(openvino_command);
    std::string directory;
    auto* dump_command = app.add_subcommand("dump", "Write the OpenVINO models pt2ov compiles as IR");
    dump_command->add_option("model", model)->required();
    dump_command->add_option("directory", directory)->required();
    dump_command->add_flag("!--no-measure-placement", measure_placement, "pt2ov only: the placement rules alone");
    dump_command->add_option("--cpu-op", cpu_ops);
    auto* nonfinite_command = app.add_subcommand(
        "nonfinite-check", "pt2ov with and without the per-call NaN/inf check, interleaved in this process");
    nonfinite_command->add_option("model", model, "The .pt2")->required();
    nonfinite_command->add_option("inputs", inputs, "Inputs (.npz, arr_0, arr_1, ...), finite")->required();
    nonfinite_command->add_flag("!--no-measure-placement", measure_placement, "the placement rules alone");
    nonfinite_command->add_option("--rounds", rounds, "Alternations of the two sides")->check(CLI::Range(0, 1000000000));
    add_loop(nonfinite_command);
    CLI11_PARSE(app, argc, argv);
    try {
        if (*pair_command) return run_pair(model, model_xml, inputs, cpu_ops, threads, loop, rounds);
        if (*pt2ov_command) return run_pt2ov(model, inputs, cpu_ops, loop);
        if (*dump_command) return run_dump(model, directory, cpu_ops);
        if (*nonfinite_command) return run_nonfinite_check(model, inputs, loop, rounds);
        inputs = models_xml.back();
        models_xml.pop_back();
        return run_openvino(models_xml, inputs, threads, loop, rounds);
    } catch (const std::exception& e) {
        // One line for bench/compare to put in the table and results.json.
        std::cout << nlohmann::json{{"error", e.what()}}.dump() << "\n";
        return 3;
    }
}
