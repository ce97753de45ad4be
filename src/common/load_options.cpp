#include "pt2ov/load_options.h"

#include <type_traits>

namespace pt2ov {

const std::vector<LoadOptionRow>& load_option_table() {
    using O = LoadOptions;
    static const std::vector<LoadOptionRow> table{
        {"method", "--method", &O::method, {}, 0, 0, true, "Method (program) in the archive"},
        {"device", "--device", &O::device, {}, 0, 0, true, "OpenVINO device: CPU, GPU, NPU, AUTO, HETERO:..."},
        {"precision", "--precision", &O::precision, {"f32", "f16", "bf16"}, 0, 0, true, "Inference precision hint"},
        {"cache_dir", "--cache-dir", &O::cache_dir, {}, 0, 0, false,
         "OpenVINO model cache folder (made when missing); the placement measurement and --verify's outcome are "
         "kept there too"},
        {"cpu_ops", "--cpu-op", &O::cpu_ops, {}, 0, 0, true,
         "Keep this op off OpenVINO (repeatable), e.g. aten.atan.default or aten.atan"},
        {"cpu_nodes", "--cpu-node", &O::cpu_nodes, {}, 0, 0, true,
         "Keep this node off OpenVINO (repeatable), as inspect names it"},
        {"strict", "--strict", &O::strict, {}, 0, 0, true, "Refuse any CPU fallback: all on OpenVINO, or an error"},
        {"num_threads", "--num-threads", &O::num_threads, {}, 0, 4096, true,
         "OpenVINO inference threads (0: OpenVINO's default, all cores)"},
        {"performance_hint", "--performance-hint", &O::performance_hint, {"latency", "throughput"}, 0, 0, true,
         "OpenVINO performance hint: latency (one call at a time, fastest) or throughput (parallel streams for "
         "calls from many threads on one program)"},
        {"int64_input_limit", "--int64-input-limit", &O::int64_input_limit, {}, 0, 2147483647, true,
         "Promise that every int64 user input (positions, token ids) lies within [-N, N]: each call checks it "
         "(error beyond), and index arithmetic on them that then fits 32 bits stays on OpenVINO (0: no promise, "
         "such arithmetic runs on the CPU kernels)"},
        {"openvino_state", "--no-openvino-state", &O::openvino_state, {}, 0, 0, true,
         "Carry every mutated buffer in pt2ov between calls; by default a buffer that one OpenVINO step reads and "
         "updates, and nothing else reads, stays in OpenVINO as state (ReadValue/Assign)"},
        {"appending_positions", "--appending-positions", &O::appending_positions, {}, 0, 0, true,
         "Promise that the rank-1 int64 input NAME holds the KV-cache positions each call writes, running on "
         "without a gap (0, 1, ... after load or reset): each call checks it, and a static cache written there "
         "stays in OpenVINO as state that grows by each call's positions, read in place by the attention (no "
         "whole-cache copy per call). Empty: no promise"},
        {"measure_placement", "--no-measure-placement", &O::measure_placement, {}, 0, 0, false,
         "Let the placement rules alone decide; by default a small program (static shapes, every node with a CPU "
         "kernel, no mutated buffers, CPU device) is timed at load on OpenVINO and on the CPU kernels, and the "
         "faster kept (with --cache-dir the choice is kept there)"},
        {"verify", "--verify", &O::verify, {}, 0, 0, false,
         "At load, run each OpenVINO step on synthetic inputs beside pt2ov's CPU kernels, in a child process; a "
         "step that disagrees or crashes runs on the CPU kernels (with --cache-dir the outcome is kept there)"},
        {"quantized_reference", "--quantized-reference", &O::quantized_reference, {}, 0, 0, true,
         "Compute every quantize and dequantize of a quantized program with PyTorch's reference arithmetic in "
         "float32 (eager's integers exactly, float speed); by default a quantize-dequantize pair runs on OpenVINO "
         "as FakeQuantize, on its int8 kernels, within one quantization step of eager's (docs/EXACTNESS.md E8)"},
        {"compressed_weights", "--compressed-weights", &O::compressed_weights, {}, 0, 0, true,
         "Keep a quantized program's integer weights (NNCF's int8/int4 weight compression) compressed in memory, "
         "int4 as 4 bits, decompressed by OpenVINO's kernels as they multiply: each weight within half a float16 "
         "step of eager's (docs/EXACTNESS.md E9); by default they are decompressed once at load, exactly as eager "
         "does, and held as float32"},
        {"nonfinite_inputs", "--nonfinite-inputs", &O::nonfinite_inputs, {"exact", "openvino"}, 0, 0, false,
         "A call whose floating inputs hold NaN or inf: exact (run it on pt2ov's CPU kernels, which follow "
         "PyTorch on NaN and inf, or refuse it where a node has no CPU kernel; finite calls stay on OpenVINO, and "
         "one whose outputs come out of OpenVINO as NaN or inf runs again on the CPU kernels where they are cheap "
         "to read) or openvino (no check: OpenVINO loses NaN through relu, exp, max and clamp, "
         "docs/EXACTNESS.md O8)"},
    };
    return table;
}

const LoadOptionRow* find_load_option(std::string_view name) {
    for (const auto& row : load_option_table()) {
        if (row.name == name) return &row;
    }
    return nullptr;
}

std::string load_option_text(const LoadOptions& options, const LoadOptionRow& row) {
    return std::visit(
        [&](auto field) -> std::string {
            const auto& value = options.*field;
            using Value = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<Value, std::string>) {
                return value;
            } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
                std::string joined;
                for (const auto& item : value) joined += (joined.empty() ? "" : ",") + item;
                return joined;
            } else if constexpr (std::is_same_v<Value, bool>) {
                return value ? "true" : "false";
            } else {
                return std::to_string(value);
            }
        },
        row.field);
}

}  // namespace pt2ov
