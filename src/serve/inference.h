// An inference request run on the model's shared Program, and the limit on how many run at once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "serve/repository.h"
#include "serve/request.h"

namespace pt2ov::serve {

// At most `limit` inferences run at once over the whole server (0: no limit); the others wait,
// in the order the condition variable wakes them. The wait is the queue time of the metrics.
class InferenceSlots {
public:
    explicit InferenceSlots(int limit) : limit_(limit) {}
    void acquire();
    void release();
    // Whether acquire() would return at once now (another thread may take the slot first).
    bool free_now();

private:
    int limit_;
    int running_ = 0;
    std::mutex mutex_;
    std::condition_variable freed_;
};

// Checks `request` against the model's inputs and outputs (every input once, by name, of the
// model's datatype and shape), runs it, and picks the requested outputs. RequestError naming
// the model and the input for a request that does not fit; a pt2ov::InputError (or any other
// pt2ov::Error but an InternalError) from the run is a BadRequest, anything else Internal.
// Counts the request, its failure and its times in the model's metrics.
InferResponse infer(Model& model, InferRequest& request, InferenceSlots& slots);

// Whether an inference of `model` is answered on the thread that read it (REST's event loop,
// gRPC's poller) rather than handed to a worker and back, two thread wake-ups that cost more
// than a light model's run: the model runs unbatched (a batch waits for others), its runs have
// taken under kLightRunNs of late, a slot is free now, and the request's tensors are small.
// Those threads' other clients wait that long at most.
constexpr uint64_t kLightRunNs = 200'000;
constexpr size_t kLightRequestBytes = 64 * 1024;
bool runs_light(const Model& model, InferenceSlots& slots, size_t request_bytes);

}  // namespace pt2ov::serve
