// LoadOptions checked and parsed once (settings.h).
#include "compile/settings.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

namespace pt2ov::compile {
namespace {

PrecisionHint parse_precision(const std::string& precision) {
    if (precision == "f32") return PrecisionHint::F32;
    if (precision == "f16") return PrecisionHint::F16;
    if (precision == "bf16") return PrecisionHint::BF16;
    throw OptionError("unknown precision '" + precision + "'; use f32, f16 or bf16");
}

PerformanceHint parse_performance_hint(const std::string& hint) {
    if (hint == "latency") return PerformanceHint::Latency;
    if (hint == "throughput") return PerformanceHint::Throughput;
    throw OptionError("unknown performance hint '" + hint + "'; use latency or throughput");
}

// OpenVINO is handed the cache folder as given and would fail late, or not at all (a cache it
// cannot write is silently no cache). Checked first: a folder, or one we can make, writable.
void check_cache_dir(const std::string& cache_dir) {
    if (cache_dir.empty()) return;
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(cache_dir, ec);
    if (fs::exists(status) && !fs::is_directory(status)) {
        throw OptionError("--cache-dir " + cache_dir + ": exists and is not a folder; give a folder for OpenVINO's model cache");
    }
    if (!fs::exists(status) && !fs::create_directories(cache_dir, ec)) {
        throw ResourceError("--cache-dir " + cache_dir + ": cannot create the folder (" + ec.message() + ")");
    }
    if (::access(cache_dir.c_str(), W_OK | X_OK) != 0) {
        throw ResourceError("--cache-dir " + cache_dir + ": the folder is not writable (" + std::strerror(errno) + ")");
    }
}

}  // namespace

Settings parse_settings(const LoadOptions& options) {
    Settings settings;
    settings.given = options;
    settings.precision = parse_precision(options.precision);
    settings.performance_hint = parse_performance_hint(options.performance_hint);
    settings.cpu_device = options.device == "CPU";
    if (options.nonfinite_inputs != "exact" && options.nonfinite_inputs != "openvino") {
        throw OptionError("unknown nonfinite_inputs '" + options.nonfinite_inputs + "'; use exact or openvino");
    }
    if (options.num_threads < 0) throw OptionError("the number of threads must be 0 (OpenVINO's default) or more");
    if (options.int64_input_limit < 0 || options.int64_input_limit > std::numeric_limits<int32_t>::max()) {
        throw OptionError("the int64 input limit must be 0 (no promise) or between 1 and 2147483647 (2^31 - 1), got " +
                         std::to_string(options.int64_input_limit));
    }
    check_cache_dir(options.cache_dir);
    return settings;
}

std::string_view precision_name(PrecisionHint precision) {
    switch (precision) {
        case PrecisionHint::F32: return "f32";
        case PrecisionHint::F16: return "f16";
        case PrecisionHint::BF16: return "bf16";
    }
    return "f32";
}

}  // namespace pt2ov::compile
