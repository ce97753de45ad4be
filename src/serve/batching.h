// Dynamic batching (a model's config.json "dynamic_batching": {"max_batch_size", "window_us"}):
// requests to one model that arrive within a window are concatenated along dim 0, the batch
// dim every input and output of the program has dynamic, run once, and the outputs split back.
// A request gets exactly what it would get alone: the model is checked at load (batching_check)
// by running a batch beside its rows one by one, and one that gives other bytes is refused.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov::serve {

class InferenceSlots;

struct BatchingConfig {
    int64_t max_batch_size = 0;  // 0: no batching
    int64_t window_us = 0;       // how long the first request of a batch waits for others
};

// Throws pt2ov::InputError starting with `what` ("model 'mlp' version 1") when `program` cannot
// be batched as `config` asks:
// a program with state, an input or output whose dim 0 is not dynamic, a max_batch_size beyond
// an input's dim 0 range, or a batch whose outputs differ in any byte from its rows run alone
// (checked on inputs made here: every value in a small range of the input's dtype).
void batching_check(const std::string& what, Program& program, const BatchingConfig& config);

class Batcher {
public:
    // `runs` counts the program's runs (a batch is one).
    Batcher(Program& program, BatchingConfig config, std::atomic<uint64_t>& runs);
    ~Batcher();
    Batcher(const Batcher&) = delete;
    Batcher& operator=(const Batcher&) = delete;

    struct Result {
        std::vector<Tensor> outputs;
        uint64_t queue_ns = 0;    // from the call to the start of its batch's run (window and slot included)
        uint64_t compute_ns = 0;  // the batch's run
    };
    // One request's inputs (in the program's order, checked); blocks until its batch ran. Throws
    // what Program::run throws for these inputs alone.
    Result run(const std::vector<Tensor>& inputs, InferenceSlots& slots);

private:
    struct Pending {
        const std::vector<Tensor>* inputs;
        int64_t rows;
        InferenceSlots* slots;
        std::chrono::steady_clock::time_point arrived;
        std::promise<Result> done;
    };
    void loop();
    void run_batch(std::vector<Pending*>& batch);

    Program& program_;
    BatchingConfig config_;
    std::mutex mutex_;
    std::condition_variable arrived_;
    std::deque<Pending*> queue_;
    bool stopping_ = false;
    std::atomic<uint64_t>& runs_;
    std::thread worker_;
};

}  // namespace pt2ov::serve
