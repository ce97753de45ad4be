// Endurance: does memory stay flat over many calls of one loaded program?
//
//   pt2ov_endurance MODEL.pt2 IN.npz [--cpu-op OP ...] [--calls N] [--baseline-call N]
//                   [--outputs fresh|reused] [--samples K] [--json] [--smaps-dir DIR]
//                   [--threads N] [--hint latency|throughput]
//
// Loads the program, runs N calls on the same inputs and reads the resident set size from
// /proc/self/statm at the baseline call (1,000 by default: by then OpenVINO's and the
// allocator's one-time growth is over), at K evenly spaced calls after it, and at the end.
// Prints those and the growth per call from the baseline to the end. `fresh` outputs (the
// default) let every call allocate its outputs, as Program::run(inputs) and the Python module
// do; `reused` hands the same output tensors back each time, as `pt2ov bench` does.
// --smaps-dir copies /proc/self/smaps at each reading into DIR/smaps_CALL.txt, to tell which
// mappings grew (bench/smaps_diff.py compares two).
// Exits 1 when the growth from the baseline to the end exceeds --limit-bytes (if given).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <malloc.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"
#include "resident_memory.h"
#include "tools/npz_io.h"

namespace {

// What malloc has handed out and not had back (all arenas, mmapped blocks included): a leak
// grows it; fragmentation, or memory freed but kept by the allocator, grows RSS alone.
int64_t heap_in_use_bytes() {
    const struct mallinfo2 info = mallinfo2();
    return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

struct Sample {
    int64_t call;
    int64_t rss;
    int64_t heap;
};

std::string smaps_dir;

Sample sample_at(int64_t call) {
    if (!smaps_dir.empty()) {
        std::ifstream smaps("/proc/self/smaps");
        std::ofstream copy(smaps_dir + "/smaps_" + std::to_string(call) + ".txt");
        copy << smaps.rdbuf();
    }
    return {call, resident_bytes(), heap_in_use_bytes()};
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Run one program many times and watch its resident memory"};
    std::string model, inputs_npz, outputs_mode = "fresh";
    std::vector<std::string> cpu_ops;
    int64_t calls = 100000, baseline_call = 1000, limit_bytes = -1;
    int samples = 10, threads = 0;
    std::string hint = "latency";
    bool json = false, malloc_report = false;
    app.add_option("model", model, "The .pt2")->required();
    app.add_option("inputs", inputs_npz, "Inputs (.npz, arr_0, arr_1, ...)")->required();
    app.add_option("--cpu-op", cpu_ops, "Keep this op on the CPU kernels");
    app.add_option("--calls", calls, "Calls in all")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    app.add_option("--baseline-call", baseline_call, "The call whose RSS growth is measured from")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    app.add_option("--outputs", outputs_mode, "fresh: new outputs each call; reused: the same ones")
        ->check(CLI::IsMember({"fresh", "reused"}));
    app.add_option("--samples", samples, "RSS readings between the baseline and the end")->check(CLI::Range(0, 1000));
    app.add_option("--limit-bytes", limit_bytes, "Fail (exit 1) when RSS grows more than this after the baseline");
    app.add_flag("--json", json, "One JSON object instead of text");
    app.add_option("--threads", threads, "OpenVINO's inference threads (0: its default)");
    app.add_option("--hint", hint, "OpenVINO's performance hint")->check(CLI::IsMember({"latency", "throughput"}));
    app.add_option("--smaps-dir", smaps_dir, "Copy /proc/self/smaps into this folder at each reading");
    app.add_flag("--malloc-stats", malloc_report, "glibc's malloc_stats() per arena on stderr, at the baseline and the end");
    CLI11_PARSE(app, argc, argv);
    if (baseline_call > calls) baseline_call = calls;

    try {
        pt2ov::LoadOptions options;
        options.cpu_ops = cpu_ops;
        // Each program is meant to run as placed (OpenVINO only, CPU only, mixed); timed
        // placement could move a small one wholly to the CPU kernels.
        options.measure_placement = false;
        options.num_threads = threads;
        options.performance_hint = hint;
        const int64_t rss_before_load = resident_bytes();
        auto program = pt2ov::Program::load(model, options);
        const auto inputs = pt2ov::tools::read_inputs(inputs_npz, program.inputs());
        const int64_t rss_loaded = resident_bytes();
        const bool reuse = outputs_mode == "reused";

        std::vector<Sample> readings;
        const int64_t span = calls - baseline_call;
        int next_sample = 1;
        std::vector<pt2ov::Tensor> outputs;
        const auto start = std::chrono::steady_clock::now();
        for (int64_t call = 1; call <= calls; ++call) {
            if (!reuse) outputs.clear();
            program.run(inputs, outputs);
            if (call == baseline_call) {
                readings.push_back(sample_at(call));
                if (malloc_report) malloc_stats();
            } else if (call > baseline_call && next_sample <= samples &&
                       call - baseline_call == span * next_sample / (samples + 1)) {
                readings.push_back(sample_at(call));
                ++next_sample;
            }
        }
        const double mean_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / calls;
        readings.push_back(sample_at(calls));
        if (malloc_report) malloc_stats();
        const Sample& base = readings.front();
        const Sample& end = readings.back();
        const int64_t growth = end.rss - base.rss;
        const int64_t heap_growth = end.heap - base.heap;
        const double per_call = end.call > base.call ? static_cast<double>(growth) / static_cast<double>(end.call - base.call) : 0.0;

        if (json) {
            nlohmann::json out{{"model", model},
                               {"cpu_ops", cpu_ops},
                               {"outputs", outputs_mode},
                               {"calls", calls},
                               {"rss_before_load_bytes", rss_before_load},
                               {"rss_loaded_bytes", rss_loaded},
                               {"baseline_call", base.call},
                               {"rss_baseline_bytes", base.rss},
                               {"rss_end_bytes", end.rss},
                               {"growth_bytes", growth},
                               {"growth_per_call_bytes", per_call},
                               {"heap_in_use_growth_bytes", heap_growth},
                               {"mean_call_us", mean_us}};
            for (const auto& r : readings) out["readings"].push_back({{"call", r.call}, {"rss_bytes", r.rss}, {"heap_in_use_bytes", r.heap}});
            std::cout << out.dump(2) << "\n";
        } else {
            std::cout << fmt::format("{} ({} outputs{}{})\n", model, outputs_mode, cpu_ops.empty() ? "" : ", cpu ops ",
                                     fmt::join(cpu_ops, ","));
            std::cout << fmt::format("  loaded        RSS {:10.3f} MB; {:.2f} us per call on average\n", rss_loaded / 1e6, mean_us);
            for (const auto& r : readings) {
                std::cout << fmt::format("  call {:8}: RSS {:10.3f} MB, heap in use {:10.3f} MB\n", r.call, r.rss / 1e6,
                                         r.heap / 1e6);
            }
            std::cout << fmt::format("  growth from call {} to {}: RSS {:+.3f} MB ({:+.2f} bytes per call), heap in use {:+} bytes\n",
                                     base.call, end.call, growth / 1e6, per_call, heap_growth);
        }
        if (limit_bytes >= 0 && (growth > limit_bytes || growth < -limit_bytes)) {
            std::cerr << fmt::format("{}: RSS moved {} bytes after call {}, beyond the limit of {}\n", model, growth,
                                     base.call, limit_bytes);
            return 1;
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "pt2ov_endurance: " << e.what() << "\n";
        return 3;
    }
}
