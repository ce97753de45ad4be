#include "runtime/placement_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "common/error.h"
#include "compile/compile.h"
#include "lower/convert.h"
#include "pt2ov/load_options.h"

namespace pt2ov::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// The budget: a few warm-up calls per side, then rounds of kCallsPerRound calls per side, the
// side that goes first swapping every round (a machine whose load drifts weighs on both), until
// kBudget has passed after at least kMinRounds rounds or kMaxRounds rounds are done.
constexpr int kWarmupCalls = 5;
constexpr int kCallsPerRound = 10;
constexpr int kMinRounds = 3;
constexpr int kMaxRounds = 40;
constexpr auto kBudget = std::chrono::milliseconds(30);
std::vector<Tensor> zero_inputs(const PreparedMethod& prepared) {
    std::vector<Tensor> inputs;
    for (const auto& info : prepared.input_infos) {
        auto tensor = Tensor::allocate(info.dtype, info.shape);
        std::memset(tensor.data(), 0, tensor.byte_size());
        inputs.push_back(std::move(tensor));
    }
    return inputs;
}

double median(std::vector<double> samples) {
    if (samples.empty()) return 0;
    const size_t middle = samples.size() / 2;
    std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(middle), samples.end());
    return samples[middle];
}

// 64-bit FNV-1a: a cache key, not a defence against forgery (the cache folder is the user's).
struct Fnv1a {
    uint64_t hash = 1469598103934665603ull;
    void add(const void* data, size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
    }
    void add(const std::string& text) {
        add(text.data(), text.size());
        add("\0", 1);
    }
};

}  // namespace

std::string cache_file(const std::string& path, const LoadOptions& options, std::string_view kind) {
    if (options.cache_dir.empty()) return {};
    std::ifstream archive(path, std::ios::binary);
    if (!archive) return {};
    Fnv1a key;
    std::vector<char> chunk(1 << 16);
    while (archive.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || archive.gcount() > 0) {
        key.add(chunk.data(), static_cast<size_t>(archive.gcount()));
    }
    // Every option that may give another plan, by the table: an option added there is in the key.
    for (const auto& row : load_option_table()) {
        if (!row.changes_plan) continue;
        key.add(std::string(row.name));
        key.add(load_option_text(options, row));
    }
    key.add(lower::openvino_runtime_version());
    key.add(PT2OV_VERSION);
    key.add(std::to_string(std::thread::hardware_concurrency()));
    return (std::filesystem::path(options.cache_dir) / fmt::format("pt2ov-{}-{:016x}.txt", kind, key.hash)).string();
}

namespace {

// "pt2ov placement 1 chosen=cpu openvino_us=8.9 cpu_us=3.1 calls=300"; anything else is no entry.
std::optional<PlacementReport::Measurement> read_cache(const std::string& file) {
    std::ifstream in(file);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    char chosen[16] = {};
    PlacementReport::Measurement measurement;
    if (std::sscanf(line.c_str(), "pt2ov placement 1 chosen=%15s openvino_us=%lf cpu_us=%lf calls=%d", chosen,
                    &measurement.openvino_us, &measurement.cpu_us, &measurement.calls) != 4) {
        return std::nullopt;
    }
    measurement.chosen = chosen;
    if (measurement.chosen != "cpu" && measurement.chosen != "openvino") return std::nullopt;
    measurement.measured = true;
    measurement.from_cache = true;
    return measurement;
}

// Best effort: a cache that cannot be written only means the next load times again.
void write_cache(const std::string& file, const PlacementReport::Measurement& measurement) {
    const std::string temporary = file + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(temporary);
        out << fmt::format("pt2ov placement 1 chosen={} openvino_us={:.3f} cpu_us={:.3f} calls={}\n",
                           measurement.chosen, measurement.openvino_us, measurement.cpu_us, measurement.calls);
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            return;
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, file, ec);
    if (ec) std::filesystem::remove(temporary, ec);
}

// Median microseconds per call of each side, timed as the header says.
std::pair<double, double> time_both(Executor& first, Executor& second, const std::vector<Tensor>& inputs, int& calls) {
    std::vector<Tensor> first_outputs, second_outputs;
    for (int i = 0; i < kWarmupCalls; ++i) {
        first.run(inputs, first_outputs);
        second.run(inputs, second_outputs);
    }
    std::vector<double> first_us, second_us;
    auto timed = [&](Executor& executor, std::vector<Tensor>& outputs, std::vector<double>& samples) {
        for (int i = 0; i < kCallsPerRound; ++i) {
            const auto start = Clock::now();
            executor.run(inputs, outputs);
            samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        }
    };
    const auto start = Clock::now();
    for (int round = 0; round < kMaxRounds; ++round) {
        if (round >= kMinRounds && Clock::now() - start > kBudget) break;
        if (round % 2 == 0) {
            timed(first, first_outputs, first_us);
            timed(second, second_outputs, second_us);
        } else {
            timed(second, second_outputs, second_us);
            timed(first, first_outputs, first_us);
        }
    }
    calls = static_cast<int>(first_us.size());
    return {median(first_us), median(second_us)};
}

}  // namespace

std::optional<PlacementReport::Measurement> time_placements(const std::string& path, const PreparedMethod& prepared,
                                                            Executor& rules, const compile::PlanTrials::CpuPlan& cpu_plan,
                                                            const compile::Settings& settings, std::unique_ptr<Executor>& cpu_executor) {
    const std::string cache = cache_file(path, settings.given, "placement");
    auto cached = cache.empty() ? std::nullopt : read_cache(cache);
    if (cached && cached->chosen != "cpu") return cached;
    const PlannedMethod* cpu_planned = cpu_plan();
    if (!cpu_planned) return std::nullopt;
    cpu_executor = std::make_unique<Executor>(prepared, *cpu_planned, settings);
    if (cached) return cached;
    PlacementReport::Measurement measurement;
    std::tie(measurement.openvino_us, measurement.cpu_us) = time_both(rules, *cpu_executor, zero_inputs(prepared), measurement.calls);
    measurement.measured = true;
    measurement.chosen = compile::faster_side(measurement.openvino_us, measurement.cpu_us);
    if (!cache.empty()) write_cache(cache, measurement);
    return measurement;
}

}  // namespace pt2ov::runtime
