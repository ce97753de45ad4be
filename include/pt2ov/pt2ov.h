// pt2ov: run a torch.export program (.pt2) on OpenVINO and get what PyTorch returns.
//
//   auto program = pt2ov::Program::load("policy.pt2", {});
//   std::vector<pt2ov::Tensor> outputs = program.run({image, state});
//
// Thread safety: one Program may be shared by many threads. run() may be called from any
// number of threads at once, and concurrent calls return exactly what the same calls return one
// after another: each call takes a call context of its own from the Program's pool (an
// OpenVINO infer request per OpenVINO step, the call's intermediates and scratch memory), made
// when none is free and kept for later calls, so a Program holds as many contexts as the most
// calls it ran at once. The compiled models, the CPU kernels and the constants are shared and
// only read. A program with state (state_names() non-empty) runs one call at a time instead: its
// calls and read_state/write_state/reset_state take one lock, so each call reads the state the
// call before it left, in the order the calls took the lock, and its calls run on one call
// context, whose infer requests hold the buffers kept as OpenVINO state
// (LoadOptions::openvino_state). The other const accessors
// (inputs, outputs, report, timings, state_names) read what load fixed and need no lock. Load,
// move and destroy a Program on one thread, with no call running.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pt2ov/dtype.h"
#include "pt2ov/error.h"
#include "pt2ov/tensor.h"

namespace pt2ov {

struct LoadOptions {
    std::string method = "forward";      // the program in the archive; "forward" = torch.export.save's
    std::string device = "CPU";          // passed to OpenVINO as given: CPU, GPU, NPU, AUTO, HETERO:...
    std::string precision = "f32";       // inference precision hint: f32, f16 or bf16
    std::string cache_dir;               // OpenVINO's model cache; empty: none
    std::vector<std::string> cpu_ops;    // targets kept off OpenVINO ("aten.atan" or "aten.atan.default")
    std::vector<std::string> cpu_nodes;  // node names kept off OpenVINO
    bool strict = false;                 // refuse any CPU step
    int num_threads = 0;                 // OpenVINO's inference threads; 0: OpenVINO's default
    // OpenVINO's performance hint: "latency" (one call at a time as fast as it goes: one stream)
    // or "throughput" (calls from several threads at once on one Program run on parallel
    // streams; each call's own latency is longer). Results are the same either way.
    std::string performance_hint = "latency";
    // A promise about the int64 user inputs (positions, token ids, lengths): every value within
    // [-limit, limit]. Each call checks it (InputError naming the input beyond it), and index
    // arithmetic on those inputs whose every value then fits 32 bits stays on OpenVINO, which
    // computes int64 in 32 bits (exact within them). 0: no promise, such arithmetic runs on
    // pt2ov's CPU kernels. At most 2^31 - 1.
    int64_t int64_input_limit = 0;
    // A mutated buffer that one OpenVINO step reads and updates, and that nothing else reads
    // (no other step, no user output), stays in that step's infer request as OpenVINO state
    // (ReadValue/Assign) instead of being copied in and out of OpenVINO on every call; the
    // state API reads and writes it there. false: pt2ov carries every buffer between calls.
    bool openvino_state = true;
    // A promise about the KV cache (what pt2ov::Generator makes): the name of a rank-1 int64
    // input holding the cache positions each call writes, which run on without a gap: after
    // load or reset_state the calls' positions are n, n + 1, ..., n + S - 1, n counting the
    // positions given since. Each call checks it (InputError naming the input otherwise), and a
    // static cache written at those positions and read only by attentions then stays in
    // OpenVINO as state that grows by each call's positions (lower/appending_cache.h): no copy
    // of the whole cache per call, and the CPU plugin's attention over the positions written.
    // Such a state is read whole by read_state (the positions not yet written as the archive
    // holds them) and cannot be written (write_state refuses it: load without the promise).
    // Empty: no promise.
    std::string appending_positions;
    // A small program (static shapes, every node with a CPU kernel, no mutated buffers, on the
    // CPU device) may run faster on pt2ov's CPU kernels than through an OpenVINO call, whose
    // fixed cost (several microseconds) then dominates. load() times both placements on zero
    // inputs (a few calls each, within about 30 ms) and keeps the faster; the report's
    // `measurement` gives the figures. With a cache_dir the decision is kept there and reused.
    // false: the placement rules alone decide.
    bool measure_placement = true;
    // Verify at load: before anything is compiled here, a child process (the command
    // pt2ov-verify-worker, beside libpt2ov) compiles each OpenVINO step and runs it on synthetic
    // inputs beside pt2ov's CPU kernels for the same nodes. A step whose results differ beyond
    // the exactness contract, or that crashes the child, is planned onto the CPU kernels, its
    // nodes' reason quoting the difference (report().verification). With a cache_dir the
    // outcome is kept there and reused. Costs a second load and one call per OpenVINO step.
    bool verify = false;
    // A quantized program's quantize-dequantize pairs (per tensor, of one scale) run on
    // OpenVINO as FakeQuantize, so that its CPU plugin computes the layers between them on int8
    // kernels: each value within one quantization step of eager's where eager's lies near a
    // rounding boundary, and the outputs within the bound EXACTNESS.md E8 states. true: every
    // quantize and dequantize computes eager's reference arithmetic in float32 (eager's integers
    // exactly), at float speed.
    bool quantized_reference = false;
    // A weight a quantized program stores as integers (NNCF's compressed weights: 8 bits, or 4
    // packed two to a byte, with float16 scales) stays integers in memory, 4-bit ones as
    // OpenVINO's u4/i4, and OpenVINO's kernels decompress it as they multiply: memory and
    // speed of the compressed weights, but each weight as (q - zero point) * scale in float32,
    // where eager rounds it to the scale's float16, up to half a float16 step apart
    // (EXACTNESS.md E9). false: each weight is decompressed once at load by pt2ov's CPU kernels
    // exactly as eager decompresses it, and held as float32.
    bool compressed_weights = false;
    // A call whose floating inputs (or mutated buffers) hold NaN or an infinity. "exact": it runs
    // on pt2ov's CPU kernels, every node as PyTorch computes it, so a NaN comes out where PyTorch's
    // does (OpenVINO's CPU plugin loses NaN through relu, exp, max, clamp and the ops it fuses
    // them into: docs/EXACTNESS.md O8); calls with finite inputs keep OpenVINO (the check reads
    // each floating input once). A program with a node that has no CPU kernel cannot be run so:
    // such a call is refused (InputError naming the input and the node). A program without
    // state whose finite inputs come out of OpenVINO as NaN or inf (outputs no larger than about
    // the inputs) runs the call again on the CPU kernels, which decide. "openvino": no check,
    // every call on the placement rules' plan; `strict` implies it.
    std::string nonfinite_inputs = "exact";
};

// One user input or output of a method.
struct IOInfo {
    std::string name;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;                           // -1 where the dim is dynamic
    std::vector<std::pair<int64_t, int64_t>> dim_ranges;  // per dim: [min, max] allowed
    // An input the program writes in place (`x.add_(1)`, through an alias too): as in PyTorch,
    // the caller's tensor holds the new value after the call, so its memory must be writable.
    bool written = false;
};

// Where each node of a method runs and why, in execution order.
struct PlacementReport {
    struct NodeInfo {
        std::string name;
        std::string target;
        std::string reason;
    };
    struct Step {
        std::string kind;  // "openvino" or "cpu"
        std::vector<NodeInfo> nodes;
        // An OpenVINO step with at least 64 MiB of weights, inferred by OpenVINO's own stream
        // thread (the calling thread waits); lighter steps are inferred by the calling thread.
        bool own_thread = false;
    };
    // A buffer the method mutates (its state, carried from call to call).
    struct State {
        std::string name;  // the state-dict name ("count")
        DType dtype = DType::Float32;
        std::vector<int64_t> shape;
        std::string update;  // the kind of step that computes its new value: "openvino" or "cpu"
        size_t step = 0;     // that step, numbered as `steps` from 1; 0 when no node computes it
        std::string node;    // the node whose result is the new value ("" when it is an input)
        std::string carried;  // how it travels between calls, in words
        // > 0: every use of the buffer reads or writes one constant index of its dim 0, and it
        // runs as this many buffers, one per index (the state API still takes it whole)
        size_t split_into = 0;
    };
    // A small program's placement timed at load (LoadOptions::measure_placement).
    struct Measurement {
        bool measured = false;   // false: not timed (not a small program, or not asked)
        bool from_cache = false; // the figures and the choice were read from the cache_dir
        std::string chosen;      // "openvino" (the placement rules' plan) or "cpu" (all on CPU kernels)
        double openvino_us = 0;  // median time per call of the rules' plan, microseconds
        double cpu_us = 0;       // median time per call with every node on the CPU kernels
        int calls = 0;           // timed calls per side
    };
    std::string method;
    std::string openvino_version;  // the OpenVINO that decided support
    std::string cpu_isa;           // the x86-64 level the CPU kernels run (as pt2ov::cpu_isa())
    std::vector<Step> steps;
    std::vector<State> state;      // in the order of the program's signature
    size_t constant_count = 0;
    size_t constant_bytes = 0;     // sum of all constants' sizes
    size_t resident_bytes = 0;     // what the loaded program holds for them
    Measurement measurement;
    // What LoadOptions::verify found.
    struct Verification {
        bool verified = false;      // false: not asked
        bool from_cache = false;    // read from the cache_dir
        size_t steps_checked = 0;   // OpenVINO steps run beside the CPU kernels (over every round)
        size_t steps_moved = 0;     // of those, planned onto the CPU kernels
        double ms = 0;              // the whole verification's time at load
        std::vector<std::string> findings;  // per step moved or not checked: what happened, in words
    };
    Verification verification;
};

// Load-time costs, for benchmarks.
struct LoadTimings {
    double archive_ms = 0;  // reading the archive and building the IR
    double convert_ms = 0;  // OpenVINO's frontend conversion
    double compile_ms = 0;  // OpenVINO's compile_model
};

class Program {
public:
    // Reads `path`, places and converts the method, compiles it on the device. Throws
    // pt2ov::Error (ArchiveError, UnsupportedError, ...) with a message that says what to do.
    static Program load(const std::string& path, const LoadOptions& options = {});

    // The placement (what `pt2ov inspect` prints). Compiles nothing, except for a program whose
    // placement load() would time (LoadOptions::measure_placement): that one is loaded and timed,
    // so the report says what load() would choose and why.
    static PlacementReport inspect(const std::string& path, const LoadOptions& options = {});

    // Method names stored in an archive ("forward" for torch.export.save's).
    static std::vector<std::string> methods(const std::string& path);

    // Writes the OpenVINO models a load of `path` would compile, as OpenVINO IR files
    // `directory`/step<N>.xml and .bin, N numbering the steps as the report does (from 1); a step
    // whose every output pt2ov makes itself has no model and no file. Compiles nothing; a
    // missing folder is made. Returns the .xml paths written. For setting pt2ov's OpenVINO steps
    // beside OpenVINO's own conversion (bench/runner.cpp's `dump`, benchmark_app). A step whose RMS
    // norms load leaves to the plugin's fusion is written as load compiles it first; load checks the
    // fusion and compiles again where it did not happen (docs/EXACTNESS.md, ReduceFusedArithmeticWrong).
    static std::vector<std::string> write_openvino_models(const std::string& path, const std::string& directory,
                                                          const LoadOptions& options = {});

    const std::vector<IOInfo>& inputs() const;
    const std::vector<IOInfo>& outputs() const;
    const PlacementReport& report() const;
    const LoadTimings& timings() const;

    // One call. Inputs are read in place; an input the program writes in place (IOInfo::written)
    // gets its new value in the caller's memory after the call, as PyTorch writes the caller's
    // tensor, and no other input is ever written. Returns the user outputs, each owning its
    // memory. Throws InputError for inputs that do not fit the program.
    std::vector<Tensor> run(const std::vector<Tensor>& inputs);

    // One call writing into caller-provided outputs where their shape is known before the call
    // (static shapes); an empty Tensor() slot is allocated by the engine.
    void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

    // State: the buffers the method mutates (self.count += 1, self.cache.index_copy_(...)),
    // carried from call to call on this Program. Each is named by its state-dict name
    // ("count", "layer.cache"). Calls of a program with state, and these functions, are
    // serialized on one lock of the Program: safe from many threads, never two at once.
    //
    // The mutated buffers, in the order of the program's signature.
    std::vector<std::string> state_names() const;
    // A buffer's current state: a copy owning its memory (contiguous). InputError for a name
    // that is not a mutated buffer.
    Tensor read_state(const std::string& name) const;
    // Sets a buffer's state for the next call; `value` is copied. Its dtype and shape must be
    // the buffer's, else InputError naming the buffer.
    void write_state(const std::string& name, const Tensor& value);
    // Every mutated buffer back to the archive's values, as after load.
    void reset_state();

    // Time spent inside OpenVINO's infer() during the last run completed on this Program, in
    // nanoseconds, whichever thread ran it (read and written atomically; with calls running on
    // several threads, a thread's own call may not be the last one completed).
    int64_t last_openvino_ns() const;

    Program(Program&&) noexcept;
    Program& operator=(Program&&) noexcept;
    ~Program();

    struct Impl;

private:
    explicit Program(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The OpenVINO this library runs on, e.g. "2026.4.1-...".
std::string openvino_version();

// The x86-64 level pt2ov's CPU kernels run in this process: "baseline" or "x86-64-v3" (AVX2,
// FMA; "x86-64-v4", AVX-512, when built with it), the widest this CPU has unless the environment
// variable PT2OV_CPU_ISA names one. Throws pt2ov::Error when PT2OV_CPU_ISA names no level, or one the CPU
// lacks (loading a program throws the same).
std::string cpu_isa();

}  // namespace pt2ov
