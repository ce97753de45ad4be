// An inference request run on the model's shared Program, and the limit on how many run at once.
#pragma once

#include <condition_variable>
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

}  // namespace pt2ov::serve
