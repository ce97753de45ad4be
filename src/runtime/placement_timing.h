// Placement by measurement for small programs (LoadOptions::measure_placement).
//
// An OpenVINO call has a fixed cost of several microseconds (about 8 us for a 16-32-8 MLP on
// 2026.4.1, 2 cores), which dominates a program that does little work; pt2ov's CPU kernels run
// the same MLP in about 3 us. The placement rules cannot know which side wins on a given
// machine, so Program::load times a small program both ways (the rules' plan, and every node
// on the CPU kernels) on zero inputs, alternating short rounds within a bounded budget, and
// keeps the faster. Both sides return what PyTorch returns, so only the time differs.
//
// Timed only when it can matter and cannot change a result: the CPU device (on another device
// the CPU kernels would not be what the user asked for), static shapes, no mutated buffers
// (timing calls would advance the state), not --strict, every node with a CPU kernel, and at
// most kMaxTimedElements elements read and written over all nodes. With a cache_dir the
// figures and the choice are kept in a file there, keyed by the archive's bytes and every
// option that changes the plan or the speed, and reused by later loads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "compile/method.h"
#include "runtime/executor.h"

namespace pt2ov::runtime {

// Elements read and written over all nodes beyond which a program is not timed: there
// OpenVINO's per-call cost no longer dominates (at 64K floats a CPU elementwise kernel takes
// about as long as OpenVINO's fixed cost).
constexpr int64_t kMaxTimedElements = 65536;

// The file in options.cache_dir that keeps a load-time decision of `kind` ("placement",
// "verify") for this archive and every option that changes the plan or the speed; "" without
// a cache_dir (or when the archive cannot be read again, which load would already refuse).
std::string cache_file(const std::string& path, const LoadOptions& options, std::string_view kind);

// Whether Program::load times this program both ways.
bool worth_timing(const PreparedMethod& prepared, const PlannedMethod& planned, const LoadOptions& options);

struct TimedPlacement {
    PlacementReport::Measurement measurement;
    // When the CPU kernels won: their plan and executor, to replace the rules' ones.
    std::unique_ptr<PlannedMethod> cpu_planned;
    std::unique_ptr<Executor> cpu_executor;
};

// Times `rules` (the executor of the rules' plan) against every node on the CPU kernels, or
// reads the choice from the cache_dir. nullopt when timing failed (a call refused zero inputs,
// say): the rules' plan then stands, as it would without timing.
std::optional<TimedPlacement> time_placements(const std::string& path, const PreparedMethod& prepared,
                                              Executor& rules, const LoadOptions& options);

}  // namespace pt2ov::runtime
