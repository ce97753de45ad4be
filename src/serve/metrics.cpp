#include "serve/metrics.h"

#include <fmt/format.h>

namespace pt2ov::serve {
namespace {

// A label value with the three characters the format escapes.
std::string escaped(const std::string& value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

}  // namespace

std::string prometheus_text(const std::vector<LabelledMetrics>& models) {
    struct Family {
        const char* name;
        const char* help;
        bool seconds;
        std::atomic<uint64_t> ModelMetrics::*field;
    };
    const Family families[] = {
        {"pt2ov_inference_requests_total", "Inference requests that reached the model, failed or not", false,
         &ModelMetrics::requests},
        {"pt2ov_inference_failures_total", "Inference requests the model answered with an error", false,
         &ModelMetrics::failures},
        {"pt2ov_inference_queue_seconds_total",
         "Time inference requests waited for a free inference slot (--max-concurrent-inferences)", true,
         &ModelMetrics::queue_ns},
        {"pt2ov_inference_compute_seconds_total", "Time inference requests spent running the program", true,
         &ModelMetrics::compute_ns},
        {"pt2ov_program_runs_total",
         "Runs of the program; fewer than the requests when dynamic batching joins them", false, &ModelMetrics::runs},
    };
    std::string out;
    for (const auto& family : families) {
        out += fmt::format("# HELP {} {}.\n# TYPE {} counter\n", family.name, family.help, family.name);
        for (const auto& model : models) {
            const uint64_t value = (model.metrics->*family.field).load(std::memory_order_relaxed);
            out += fmt::format("{}{{model=\"{}\",version=\"{}\"}} ", family.name, escaped(model.model),
                               escaped(model.version));
            out += family.seconds ? fmt::format("{:.9f}\n", static_cast<double>(value) * 1e-9) : fmt::format("{}\n", value);
        }
    }
    return out;
}

}  // namespace pt2ov::serve
