#include "tools/benchmark.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "tools/npz_io.h"

namespace pt2ov::tools {

namespace {

using Clock = std::chrono::steady_clock;

double to_ms(double ns) { return ns / 1e6; }

// Nearest rank: the sample at rank ceil(p/100 * n), 1-based.
int64_t percentile(const std::vector<int64_t>& sorted, double p) {
    const auto n = static_cast<double>(sorted.size());
    const auto rank = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n)));
    return sorted[std::min(rank, sorted.size()) - 1];
}

bool is_static(const IOInfo& info) {
    return std::none_of(info.shape.begin(), info.shape.end(), [](int64_t d) { return d < 0; });
}

}  // namespace

LatencyStats latency_stats(std::vector<int64_t> samples_ns) {
    LatencyStats stats;
    if (samples_ns.empty()) return stats;
    std::sort(samples_ns.begin(), samples_ns.end());
    const double n = static_cast<double>(samples_ns.size());
    const double mean = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) / n;
    double squares = 0;
    for (int64_t s : samples_ns) squares += (s - mean) * (s - mean);
    stats.count = static_cast<int64_t>(samples_ns.size());
    stats.mean_ms = to_ms(mean);
    stats.p50_ms = to_ms(percentile(samples_ns, 50));
    stats.p90_ms = to_ms(percentile(samples_ns, 90));
    stats.p99_ms = to_ms(percentile(samples_ns, 99));
    stats.min_ms = to_ms(samples_ns.front());
    stats.max_ms = to_ms(samples_ns.back());
    stats.stddev_ms = to_ms(std::sqrt(squares / n));
    return stats;
}

int64_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // "VmHWM:   1234 kB"
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

CallTimer::CallTimer(Program& program, const std::vector<Tensor>& inputs) : program_(program), inputs_(inputs) {
    const auto& infos = program.outputs();
    outputs_.resize(infos.size());
    reused_.resize(infos.size());
    for (size_t i = 0; i < infos.size(); ++i) {
        reused_[i] = is_static(infos[i]);
        if (reused_[i]) outputs_[i] = Tensor::allocate(infos[i].dtype, infos[i].shape);
    }
}

void CallTimer::call() {
    for (size_t i = 0; i < outputs_.size(); ++i) {
        if (!reused_[i]) outputs_[i] = Tensor();
    }
    program_.run(inputs_, outputs_);
    ++warmup_;
}

void CallTimer::timed_call() {
    for (size_t i = 0; i < outputs_.size(); ++i) {
        if (!reused_[i]) outputs_[i] = Tensor();
    }
    const auto start = Clock::now();
    program_.run(inputs_, outputs_);
    run_ns_.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    openvino_ns_.push_back(program_.last_openvino_ns());
}

BenchmarkResult CallTimer::result() const {
    BenchmarkResult result;
    result.warmup = warmup_;
    result.iterations = static_cast<int>(run_ns_.size());
    const auto& report = program_.report();
    result.openvino_version = report.openvino_version;
    result.cpu_isa = report.cpu_isa;
    for (const auto& step : report.steps) ++(step.kind == "openvino" ? result.openvino_steps : result.cpu_steps);
    result.constant_bytes = report.constant_bytes;
    result.resident_bytes = report.resident_bytes;
    result.load = program_.timings();
    result.latency = latency_stats(run_ns_);
    result.openvino = latency_stats(openvino_ns_);
    std::vector<int64_t> overhead_ns(run_ns_.size());
    for (size_t i = 0; i < run_ns_.size(); ++i) overhead_ns[i] = run_ns_[i] - openvino_ns_[i];
    const auto overhead = latency_stats(overhead_ns);
    result.overhead_mean_us = overhead.mean_ms * 1e3;
    result.overhead_p50_us = overhead.p50_ms * 1e3;
    result.samples_ns = run_ns_;
    result.openvino_samples_ns = openvino_ns_;
    result.peak_rss_bytes = peak_rss_bytes();
    return result;
}

BenchmarkResult benchmark(Program& program, const std::vector<Tensor>& inputs, const BenchmarkOptions& options) {
    CallTimer timer(program, inputs);
    for (int i = 0; i < options.warmup; ++i) timer.call();
    for (int i = 0; i < options.iterations; ++i) timer.timed_call();
    return timer.result();
}

BenchmarkResult benchmark_file(const std::string& model_path, const std::string& inputs_npz,
                               const LoadOptions& load_options, const BenchmarkOptions& options) {
    if (options.iterations < 1 || options.warmup < 0) {
        throw InputError(fmt::format("--iterations must be at least 1 and --warmup at least 0 (got {} and {})",
                                     options.iterations, options.warmup));
    }
    const auto start = Clock::now();
    Program program = Program::load(model_path, load_options);
    const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const auto inputs = read_inputs(inputs_npz, program.inputs());
    BenchmarkResult result = benchmark(program, inputs, options);
    result.model = model_path;
    result.load_ms = load_ms;
    return result;
}

std::string benchmark_text(const BenchmarkResult& r) {
    auto row = [](const char* name, const LatencyStats& s) {
        return fmt::format("{:<10} p50 {:.3f} ms  p90 {:.3f} ms  p99 {:.3f} ms  mean {:.3f} ms  (min {:.3f}, max {:.3f})\n",
                           name, s.p50_ms, s.p90_ms, s.p99_ms, s.mean_ms, s.min_ms, s.max_ms);
    };
    const double resident = r.constant_bytes ? static_cast<double>(r.resident_bytes) / r.constant_bytes : 1.0;
    std::string text = fmt::format("{}: {} OpenVINO step(s), {} CPU step(s), OpenVINO {}, CPU kernels {}\n", r.model,
                                   r.openvino_steps, r.cpu_steps, r.openvino_version, r.cpu_isa);
    text += fmt::format("{:<10} {:.1f} ms (archive {:.1f} ms, conversion {:.1f} ms, compile {:.1f} ms)\n", "load", r.load_ms,
                        r.load.archive_ms, r.load.convert_ms, r.load.compile_ms);
    text += fmt::format("{:<10} {} timed call(s) after {} warm-up call(s), one synchronous request\n", "calls", r.iterations,
                        r.warmup);
    text += row("latency", r.latency);
    text += row("openvino", r.openvino);
    text += fmt::format("{:<10} mean {:.2f} us, p50 {:.2f} us per call (time in Program::run minus time in OpenVINO's infer())\n",
                        "overhead", r.overhead_mean_us, r.overhead_p50_us);
    text += fmt::format("{:<10} {} bytes, {} resident ({:.2f}x)\n", "constants", r.constant_bytes, r.resident_bytes, resident);
    text += fmt::format("{:<10} {:.1f} MiB\n", "peak RSS", r.peak_rss_bytes / (1024.0 * 1024.0));
    return text;
}

std::string benchmark_json(const BenchmarkResult& r, bool with_samples) {
    auto stats = [](const LatencyStats& s) {
        return nlohmann::json{{"count", s.count}, {"mean_ms", s.mean_ms}, {"p50_ms", s.p50_ms}, {"p90_ms", s.p90_ms},
                              {"p99_ms", s.p99_ms},  {"min_ms", s.min_ms},   {"max_ms", s.max_ms}, {"stddev_ms", s.stddev_ms}};
    };
    nlohmann::json json{
        {"model", r.model},
        {"openvino_version", r.openvino_version},
        {"cpu_isa", r.cpu_isa},
        {"warmup", r.warmup},
        {"iterations", r.iterations},
        {"load_ms", {{"total", r.load_ms}, {"archive", r.load.archive_ms}, {"convert", r.load.convert_ms}, {"compile", r.load.compile_ms}}},
        {"steps", {{"openvino", r.openvino_steps}, {"cpu", r.cpu_steps}}},
        {"constants", {{"bytes", r.constant_bytes}, {"resident_bytes", r.resident_bytes}}},
        {"latency", stats(r.latency)},
        {"openvino", stats(r.openvino)},
        {"overhead_us", {{"mean", r.overhead_mean_us}, {"p50", r.overhead_p50_us}}},
        {"peak_rss_bytes", r.peak_rss_bytes},
    };
    if (with_samples) {
        json["samples_ns"] = r.samples_ns;
        json["openvino_samples_ns"] = r.openvino_samples_ns;
    }
    return json.dump(2);
}

}  // namespace pt2ov::tools
