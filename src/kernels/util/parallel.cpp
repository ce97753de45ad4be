// Loops split over the library's pool (TBB's when pt2ov is built with it).
#include "kernels/util/parallel.h"
#include "kernels/dispatch.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

#include "graph/graph.h"

#ifdef PT2OV_WITH_TBB
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#endif

namespace pt2ov::kernels {

// ---- Parallel ranges and elementwise plans ------------------------------------------------

void parallel_ranges(int64_t total, int64_t min_per_range, const std::function<void(int64_t, int64_t)>& body) {
    if (total <= 0) return;
#ifdef PT2OV_WITH_TBB
    const int64_t threads = oneapi::tbb::this_task_arena::max_concurrency();
    const int64_t pieces = std::min(threads, total / std::max<int64_t>(min_per_range, 1));
    if (pieces > 1) {
        // As many ranges as threads, of equal length: elementwise work is uniform, so a static
        // split balances it without the cost of stealing.
        std::exception_ptr failure;
        std::mutex failure_mutex;
        oneapi::tbb::parallel_for(
            int64_t{0}, pieces,
            [&](int64_t piece) {
                const int64_t begin = total * piece / pieces;
                const int64_t end = total * (piece + 1) / pieces;
                try {
                    body(begin, end);
                } catch (...) {
                    const std::lock_guard<std::mutex> lock(failure_mutex);
                    if (!failure) failure = std::current_exception();
                }
            },
            oneapi::tbb::static_partitioner());
        if (failure) std::rethrow_exception(failure);
        return;
    }
#endif
    (void)min_per_range;
    body(0, total);
}

}  // namespace pt2ov::kernels
