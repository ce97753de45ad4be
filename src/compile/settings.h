// The load options, checked and parsed once where the API takes them (Program::load, inspect,
// write_openvino_models): every later stage reads typed values, and a value the options cannot
// hold is one InputError naming it before the archive is read or anything is compiled.
#pragma once

#include <string_view>

#include "pt2ov/pt2ov.h"

namespace pt2ov::compile {

enum class PrecisionHint { F32, F16, BF16 };
enum class PerformanceHint { Latency, Throughput };

struct Settings {
    // As the caller gave them, checked: the plain fields (method, device, cpu_ops, strict, ...)
    // are read from here; cache keys and the verify worker's request repeat them.
    LoadOptions given;
    PrecisionHint precision = PrecisionHint::F32;
    PerformanceHint performance_hint = PerformanceHint::Latency;
    bool cpu_device = true;  // given.device is OpenVINO's CPU plugin
};

// Checks every option that does not depend on the program (precision, performance hint,
// threads, int64 input limit, cache folder: made when missing) and parses them.
Settings parse_settings(const LoadOptions& options);

std::string_view precision_name(PrecisionHint precision);

}  // namespace pt2ov::compile
