// Placement by measurement for small programs (LoadOptions::measure_placement).
//
// An OpenVINO call has a fixed cost of several microseconds (about 8 us for a 16-32-8 MLP on
// 2026.4.1, 2 cores), which dominates a program that does little work; pt2ov's CPU kernels run
// the same MLP in about 3 us. The placement rules cannot know which side wins on a given
// machine, so Program::load times a small program both ways (the rules' plan, and every node
// on the CPU kernels) on zero inputs, alternating short rounds within a bounded budget, and
// keeps the faster. Both sides return what PyTorch returns, so only the time differs.
//
// When a program is timed is the planner's to say (compile/planner.h, worth_timing); this
// file measures. With a cache_dir the figures and the choice are kept in a file there, keyed
// by the archive's bytes and every option that changes the plan or the speed, and reused by
// later loads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "compile/method.h"
#include "compile/planner.h"
#include "runtime/executor.h"

namespace pt2ov::runtime {

// The file in options.cache_dir that keeps a load-time decision of `kind` ("placement",
// "verify") for this archive and every option that changes the plan or the speed; "" without
// a cache_dir (or when the archive cannot be read again, which load would already refuse).
std::string cache_file(const std::string& path, const LoadOptions& options, std::string_view kind);

// The planner's PlanTrials::time: times `rules` (the executor of the rules' plan) against the
// executor of `cpu_plan()`, which it compiles into `cpu_executor`, or reads the figures and
// the choice from the cache_dir (compiling the CPU side only when the cache chose it). nullopt
// when there is no all-CPU plan to time.
std::optional<PlacementReport::Measurement> time_placements(const std::string& path, const PreparedMethod& prepared,
                                                            Executor& rules, const compile::PlanTrials::CpuPlan& cpu_plan,
                                                            const compile::Settings& settings, std::unique_ptr<Executor>& cpu_executor);

}  // namespace pt2ov::runtime
