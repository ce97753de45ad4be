// Per-model counters of inference requests, and their Prometheus text (GET /metrics). Written
// here rather than through a client library: the text exposition format is a few lines, and
// Debian 12 packages no Prometheus C++ client.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace pt2ov::serve {

struct ModelMetrics {
    std::atomic<uint64_t> requests{0};    // inference requests that reached the model
    std::atomic<uint64_t> failures{0};    // of those, answered with an error
    std::atomic<uint64_t> queue_ns{0};    // summed: waiting for a free inference slot
    std::atomic<uint64_t> compute_ns{0};  // summed: inside Program::run
    std::atomic<uint64_t> runs{0};        // Program::run calls: fewer than requests when batched
};

struct LabelledMetrics {
    std::string model;
    std::string version;
    const ModelMetrics* metrics;
};

// The Prometheus text exposition (version 0.0.4) of every model's counters.
std::string prometheus_text(const std::vector<LabelledMetrics>& models);

}  // namespace pt2ov::serve
