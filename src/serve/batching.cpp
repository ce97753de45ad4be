#include "serve/batching.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "common/text.h"
#include "serve/inference.h"

namespace pt2ov::serve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t nanoseconds_between(Clock::time_point start, Clock::time_point end) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
}

// Bytes of one dim-0 row of a contiguous tensor.
size_t row_bytes(const Tensor& tensor) {
    size_t bytes = dtype_size(tensor.dtype());
    for (size_t d = 1; d < tensor.rank(); ++d) bytes *= static_cast<size_t>(tensor.shape()[d]);
    return bytes;
}

// Whether two requests' inputs can share a batch: the same dims after dim 0, input by input.
bool same_rows(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].rank() != b[i].rank() || a[i].dtype() != b[i].dtype()) return false;
        if (!std::equal(a[i].shape().begin() + 1, a[i].shape().end(), b[i].shape().begin() + 1)) return false;
    }
    return true;
}

// `parts` concatenated along dim 0 (each contiguous, the same dims after dim 0).
Tensor concatenated(const std::vector<const Tensor*>& parts) {
    std::vector<int64_t> shape = parts.front()->shape();
    shape[0] = 0;
    for (const Tensor* part : parts) shape[0] += part->shape()[0];
    Tensor out = Tensor::allocate(parts.front()->dtype(), shape);
    auto* cursor = static_cast<char*>(out.data());
    for (const Tensor* part : parts) {
        if (part->byte_size()) std::memcpy(cursor, part->data(), part->byte_size());
        cursor += part->byte_size();
    }
    return out;
}

// Rows [first, first + rows) of `tensor` along dim 0, as a tensor of its own.
Tensor rows_of(const Tensor& tensor, int64_t first, int64_t rows) {
    std::vector<int64_t> shape = tensor.shape();
    shape[0] = rows;
    Tensor out = Tensor::allocate(tensor.dtype(), shape);
    const size_t bytes = row_bytes(tensor);
    if (rows && bytes) {
        std::memcpy(out.data(), static_cast<const char*>(tensor.data()) + static_cast<size_t>(first) * bytes,
                    static_cast<size_t>(rows) * bytes);
    }
    return out;
}

// A value for the load-time check: small, in range for every dtype, and varying by position so
// that rows differ.
Tensor check_input(const IOInfo& info, int64_t rows, uint32_t seed) {
    std::vector<int64_t> shape = info.shape;
    shape[0] = rows;
    for (size_t d = 1; d < shape.size(); ++d) {
        if (shape[d] < 0) shape[d] = d < info.dim_ranges.size() ? std::max<int64_t>(info.dim_ranges[d].first, 1) : 1;
    }
    Tensor tensor = Tensor::allocate(info.dtype, shape);
    const int64_t count = tensor.numel();
    for (int64_t i = 0; i < count; ++i) {
        const uint32_t bits = (static_cast<uint32_t>(i) + seed) * 2654435761u;
        const int value = static_cast<int>(bits >> 29);  // 0..7
        const double real = static_cast<double>(bits >> 8) / double(1 << 24) * 2.0 - 1.0;
        void* at = static_cast<char*>(tensor.data()) + static_cast<size_t>(i) * dtype_size(info.dtype);
        switch (info.dtype) {
            case DType::Bool: *static_cast<uint8_t*>(at) = value & 1; break;
            case DType::UInt8: *static_cast<uint8_t*>(at) = static_cast<uint8_t>(value); break;
            case DType::Int8: *static_cast<int8_t*>(at) = static_cast<int8_t>(value); break;
            case DType::Int16: *static_cast<int16_t*>(at) = static_cast<int16_t>(value); break;
            case DType::UInt16: *static_cast<uint16_t*>(at) = static_cast<uint16_t>(value); break;
            case DType::Int32: *static_cast<int32_t*>(at) = value; break;
            case DType::Int64: *static_cast<int64_t*>(at) = value; break;
            case DType::Float16: *static_cast<_Float16*>(at) = static_cast<_Float16>(real); break;
            case DType::BFloat16: {
                const float f = static_cast<float>(real);
                uint32_t fbits;
                std::memcpy(&fbits, &f, 4);
                *static_cast<uint16_t*>(at) = static_cast<uint16_t>(fbits >> 16);
                break;
            }
            case DType::Float32: *static_cast<float*>(at) = static_cast<float>(real); break;
            case DType::Float64: *static_cast<double*>(at) = real; break;
        }
    }
    return tensor;
}

}  // namespace

void batching_check(const std::string& what, Program& program, const BatchingConfig& config) {
    const auto refuse = [&](const std::string& why) {
        throw InputError(fmt::format("{}: dynamic_batching cannot apply: {} (remove \"dynamic_batching\" "
                                     "from its config.json)",
                                     what, why));
    };
    if (config.max_batch_size < 2) refuse("max_batch_size must be 2 or more");
    if (config.window_us < 0 || config.window_us > 10'000'000) refuse("window_us must be within [0, 10000000]");
    if (!program.state_names().empty()) refuse("the program mutates buffers, so its requests depend on each other");
    for (const auto* infos : {&program.inputs(), &program.outputs()}) {
        for (const auto& info : *infos) {
            if (info.shape.empty() || info.shape[0] >= 0) {
                refuse(fmt::format("'{}' has no dynamic dim 0 to batch along", info.name));
            }
        }
    }
    for (const auto& info : program.inputs()) {
        if (!info.dim_ranges.empty() && info.dim_ranges[0].second < config.max_batch_size) {
            refuse(fmt::format("max_batch_size {} is beyond input '{}''s dim 0 range [{}, {}]", config.max_batch_size,
                               info.name, info.dim_ranges[0].first, info.dim_ranges[0].second));
        }
    }
    // A batch of up to 4 rows against its rows alone, byte for byte.
    const int64_t rows = std::min<int64_t>(config.max_batch_size, 4);
    std::vector<std::vector<Tensor>> alone(static_cast<size_t>(rows));
    std::vector<Tensor> batch;
    for (size_t i = 0; i < program.inputs().size(); ++i) {
        std::vector<const Tensor*> parts;
        for (int64_t r = 0; r < rows; ++r) {
            alone[static_cast<size_t>(r)].push_back(check_input(program.inputs()[i], 1, static_cast<uint32_t>(r * 977 + i)));
        }
        for (auto& request : alone) parts.push_back(&request.back());
        batch.push_back(concatenated(parts));
    }
    try {
        const auto batched = program.run(batch);
        for (int64_t r = 0; r < rows; ++r) {
            const auto single = program.run(alone[static_cast<size_t>(r)]);
            for (size_t o = 0; o < single.size(); ++o) {
                if (batched[o].rank() == 0 || batched[o].shape()[0] != rows) {
                    refuse(fmt::format("output '{}' has {} rows for a batch of {}", program.outputs()[o].name,
                                       batched[o].rank() ? batched[o].shape()[0] : 0, rows));
                }
                const Tensor row = rows_of(batched[o], r, 1);
                if (row.shape() != single[o].shape() ||
                    std::memcmp(row.data(), single[o].data(), single[o].byte_size()) != 0) {
                    refuse(fmt::format("row {} of output '{}' differs when run in a batch of {} from the same row run "
                                       "alone, so batching would change results",
                                       r, program.outputs()[o].name, rows));
                }
            }
        }
    } catch (const InputError&) {
        throw;
    } catch (const Error& e) {
        refuse(fmt::format("checking it on made-up inputs failed: {}", one_line(e.what())));
    }
}

Batcher::Batcher(Program& program, BatchingConfig config, std::atomic<uint64_t>& runs)
    : program_(program), config_(config), runs_(runs) {
    worker_ = std::thread([this] { loop(); });
}

Batcher::~Batcher() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    arrived_.notify_all();
    worker_.join();
}

Batcher::Result Batcher::run(const std::vector<Tensor>& inputs, InferenceSlots& slots) {
    Pending pending{&inputs, inputs.empty() ? 0 : inputs.front().shape().at(0), &slots, Clock::now(), {}};
    auto done = pending.done.get_future();
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(&pending);
    }
    arrived_.notify_all();
    return done.get();
}

void Batcher::loop() {
    std::unique_lock lock(mutex_);
    while (true) {
        arrived_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, nothing left
        // The oldest request opens the batch; the others with its row shape join it until the
        // window closes or the batch is full. A request of another shape waits for a later batch.
        const auto deadline = queue_.front()->arrived + std::chrono::microseconds(config_.window_us);
        const auto fill = [&] {
            std::vector<Pending*> batch{queue_.front()};
            int64_t rows = batch.front()->rows;
            for (size_t i = 1; i < queue_.size() && rows < config_.max_batch_size; ++i) {
                if (rows + queue_[i]->rows <= config_.max_batch_size && same_rows(*batch.front()->inputs, *queue_[i]->inputs)) {
                    batch.push_back(queue_[i]);
                    rows += queue_[i]->rows;
                }
            }
            return std::make_pair(batch, rows);
        };
        while (!stopping_ && fill().second < config_.max_batch_size &&
               arrived_.wait_until(lock, deadline) != std::cv_status::timeout) {
        }
        auto [batch, rows] = fill();
        for (Pending* taken : batch) queue_.erase(std::find(queue_.begin(), queue_.end(), taken));
        lock.unlock();
        run_batch(batch);
        lock.lock();
    }
}

void Batcher::run_batch(std::vector<Pending*>& batch) {
    InferenceSlots& slots = *batch.front()->slots;
    slots.acquire();
    struct Release {
        InferenceSlots& slots;
        ~Release() { slots.release(); }
    } release{slots};
    const auto started = Clock::now();
    const auto run_alone = [&](Pending* pending) {
        const auto start = Clock::now();
        try {
            Result result;
            result.outputs = program_.run(*pending->inputs);
            result.queue_ns = nanoseconds_between(pending->arrived, start);
            result.compute_ns = nanoseconds_between(start, Clock::now());
            pending->done.set_value(std::move(result));
        } catch (...) {
            pending->done.set_exception(std::current_exception());
        }
        runs_.fetch_add(1, std::memory_order_relaxed);
    };
    if (batch.size() == 1) {
        run_alone(batch.front());
        return;
    }
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < batch.front()->inputs->size(); ++i) {
        std::vector<const Tensor*> parts;
        for (Pending* pending : batch) parts.push_back(&(*pending->inputs)[i]);
        inputs.push_back(concatenated(parts));
    }
    std::vector<Tensor> outputs;
    try {
        outputs = program_.run(inputs);
    } catch (...) {
        // One request's values may be what the program refuses (an int64 beyond its limit):
        // each runs alone, so each gets its own answer.
        for (Pending* pending : batch) run_alone(pending);
        return;
    }
    const auto finished = Clock::now();
    runs_.fetch_add(1, std::memory_order_relaxed);
    int64_t total = 0;
    for (Pending* pending : batch) total += pending->rows;
    for (const Tensor& output : outputs) {
        if (output.rank() == 0 || output.shape()[0] != total) {
            // Not rows of the batch after all (the load-time check saw otherwise): alone, then.
            for (Pending* pending : batch) run_alone(pending);
            return;
        }
    }
    int64_t first = 0;
    for (Pending* pending : batch) {
        Result result;
        for (const Tensor& output : outputs) result.outputs.push_back(rows_of(output, first, pending->rows));
        result.queue_ns = nanoseconds_between(pending->arrived, started);
        result.compute_ns = nanoseconds_between(started, finished);
        first += pending->rows;
        pending->done.set_value(std::move(result));
    }
}

}  // namespace pt2ov::serve
