// What `pt2ov bench` measures, and the timing loop bench/ shares with it: one loaded program,
// one synchronous call at a time, outputs reused from call to call (static outputs are written
// in place), warm-up calls first, then N timed calls. Per call it keeps the wall time inside
// Program::run and the time inside OpenVINO's infer() (Program::last_openvino_ns), so the
// engine's own cost per call is their difference.
//
// Thread safety: benchmark() calls Program::run, so one benchmark per Program at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov::tools {

struct BenchmarkOptions {
    int warmup = 10;       // untimed calls first (first-call allocations, caches, OpenVINO's own warm-up)
    int iterations = 100;  // timed calls
};

// Order statistics of a set of durations. Percentiles are nearest-rank: the smallest sample
// with at least p% of the samples at or below it, so every figure is a measured call.
struct LatencyStats {
    int64_t count = 0;
    double mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, min_ms = 0, max_ms = 0, stddev_ms = 0;
};
LatencyStats latency_stats(std::vector<int64_t> samples_ns);

// Calls `call` options.warmup times, then options.iterations times with each call's wall time
// (steady clock) recorded. The loop the OpenVINO-alone benchmark in bench/ uses too, so both
// sides are timed the same way.
template <typename Call>
std::vector<int64_t> time_calls(const BenchmarkOptions& options, Call&& call) {
    using Clock = std::chrono::steady_clock;
    for (int i = 0; i < options.warmup; ++i) call();
    std::vector<int64_t> samples;
    samples.reserve(options.iterations > 0 ? options.iterations : 0);
    for (int i = 0; i < options.iterations; ++i) {
        const auto start = Clock::now();
        call();
        samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    }
    return samples;
}

struct BenchmarkResult {
    std::string model;
    std::string openvino_version;
    std::string cpu_isa;  // the x86-64 level pt2ov's CPU kernels ran (PlacementReport::cpu_isa)
    int warmup = 0;
    int iterations = 0;
    // Load: the wall time of Program::load, and its parts as the program reports them.
    double load_ms = 0;
    LoadTimings load;
    // Steps of the method as placed (an edge between an OpenVINO and a CPU step costs a call).
    size_t openvino_steps = 0, cpu_steps = 0;
    size_t constant_bytes = 0, resident_bytes = 0;
    LatencyStats latency;   // wall time of Program::run
    LatencyStats openvino;  // time inside OpenVINO's infer() in the same calls
    // The engine's own cost per call: time inside Program::run minus time inside infer().
    double overhead_mean_us = 0, overhead_p50_us = 0;
    int64_t peak_rss_bytes = 0;  // of the whole process, after the timed calls
    std::vector<int64_t> samples_ns;           // each timed call, in order
    std::vector<int64_t> openvino_samples_ns;  // OpenVINO's share of each
};

// Times calls of one program on fixed inputs (read in place, never written), one call at a
// time, so a caller can interleave them with other work (bench/ alternates blocks of pt2ov and
// OpenVINO-alone calls in one process, so that both see the same machine). Static outputs live
// in caller memory for the timer's life, as a real caller keeps them; a dynamic one is an
// empty slot the engine fills every call. The program and the inputs must outlive the timer.
class CallTimer {
public:
    CallTimer(Program& program, const std::vector<Tensor>& inputs);
    void call();        // untimed (warm-up)
    void timed_call();  // recorded: wall time of Program::run and OpenVINO's share of it
    // Statistics over the timed calls, with the program's load timings, steps and constants.
    BenchmarkResult result() const;

private:
    Program& program_;
    const std::vector<Tensor>& inputs_;
    std::vector<Tensor> outputs_;
    std::vector<bool> reused_;
    std::vector<int64_t> run_ns_, openvino_ns_;
    int warmup_ = 0;
};

// Times `program` on `inputs`: options.warmup calls, then options.iterations timed calls.
BenchmarkResult benchmark(Program& program, const std::vector<Tensor>& inputs, const BenchmarkOptions& options);

// What `pt2ov bench` does: loads `model_path` (timed), reads the inputs from `inputs_npz` as
// `pt2ov run` does, and benchmarks. Throws pt2ov::Error as load and run do.
BenchmarkResult benchmark_file(const std::string& model_path, const std::string& inputs_npz,
                               const LoadOptions& load_options, const BenchmarkOptions& options);

// The process's peak resident set (VmHWM of /proc/self/status; getrusage where that is missing).
int64_t peak_rss_bytes();

// For people, and for tools (one JSON object; "samples_ns" and "openvino_samples_ns" only when asked).
std::string benchmark_text(const BenchmarkResult& result);
std::string benchmark_json(const BenchmarkResult& result, bool with_samples = false);

}  // namespace pt2ov::tools
