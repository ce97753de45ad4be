// Verification at load (LoadOptions::verify): each OpenVINO step of the plan is compiled and
// run on synthetic inputs beside pt2ov's CPU kernels for the same nodes, in a child process, so
// that a plugin fault nobody has listed yet (a wrong value, a wrong shape, a crash) sends the
// step to the CPU kernels instead of reaching the user.
//
// The parent (Verifier, whose rounds the planner runs) writes a request file and starts the
// command pt2ov-verify-worker
// (found beside libpt2ov.so, or in bin/ beside or above it). The worker (verify_worker_main)
// prepares the same method, plans it with the same options and the failures found so far,
// builds a reference executor with every node that has a CPU kernel on the CPU kernels (a node
// without one runs on OpenVINO there, alone in its step: the step holding it is checked, that
// node against OpenVINO rather than pt2ov's kernels), runs it
// once on synthetic inputs keeping every value, then, step by step, runs each OpenVINO step of
// the plan alone on the reference's values and compares what it hands on with the reference's.
// It appends one line per event to a result file, flushed at once ("compile 3", "check 3",
// "ok 3", "differs 3 <why>"), so when a step kills it the last line names the step. The parent
// reads the file and hands the planner the failing steps; the planner moves their nodes onto
// the CPU kernels and asks for a round again on the new plan, until a round finds nothing new
// (at most compile::kMaxVerifyRounds).
//
// Synthetic inputs, in five domains each step is checked on (a fault may show only on some
// values): random normal floats with integers in [0, 4) (valid indices into any dim of size 4
// or more) and bools at random; all zeros; constants (every float 0.75: zero variance through a
// norm); large magnitudes (normal times 1e4); padded masks (integers and bools 0 over the first
// third of the last dim, a whole first row 0: a masked row and a left-padded one). All from a
// fixed seed; dynamic dims at the size the program was exported with (or the least the range
// allows, at least 2). A domain the CPU kernels refuse (zeros as a divisor index, say) is left
// out. No NaN or inf: such calls run on the CPU kernels (LoadOptions::nonfinite_inputs). Results are
// compared as the contract E5 does (float32: |a - b| <= 1e-5 + 1e-4 |b|, and where that fails
// within 1e-3 of the largest magnitude the value holds, since an OpenVINO step may sum in
// another order; float16 and bfloat16, and any reduced precision hint: 1e-2), integers and
// bools exactly, shapes and dtypes exactly, NaN where NaN.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "compile/method.h"
#include "compile/planner.h"
#include "compile/settings.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::runtime {

// --verify for one load: the trial the planner runs its rounds with (compile/planner.h), each
// round a worker process verifying the plan the failures so far give; then the report, kept
// in the cache folder (when one is set) so that a later load of the same archive and options
// verifies nothing again.
class Verifier {
public:
    // Reads the cache. Throws Error when the worker command cannot be found.
    Verifier(const std::string& path, const compile::PreparedMethod& prepared, const compile::Settings& settings);
    ~Verifier();
    Verifier(const Verifier&) = delete;
    Verifier& operator=(const Verifier&) = delete;

    compile::VerifyTrial trial();
    // The report of the verification the planner ended with, written to the cache.
    PlacementReport::Verification finish(const compile::SettledPlan& settled);

private:
    std::map<size_t, std::string> round(const std::map<std::string, std::string>& failures);

    std::string path_;
    const compile::PreparedMethod& prepared_;
    const compile::Settings& settings_;
    std::chrono::steady_clock::time_point start_;
    std::string cache_;   // the cache file; empty without a cache folder
    std::optional<std::map<std::string, std::string>> cached_failures_;
    PlacementReport::Verification report_;
    std::string worker_;
    std::string folder_;  // the rounds' temporary folder, made at the first round
};

// The worker's main: pt2ov-verify-worker REQUEST RESULT. Returns the process's exit status.
int verify_worker_main(int argc, char** argv);

}  // namespace pt2ov::runtime
