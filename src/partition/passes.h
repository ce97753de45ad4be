// The placement passes, in the order place() runs them; declared here for place() and the
// partition unit tests only. Everything else calls partition::place or partition::whole_method.
#pragma once

#include "partition/plan.h"

namespace pt2ov::partition {

// The float arithmetic that turns a weight stored as integers of 8 bits or fewer into its float
// values, as NNCF's weight compression writes it: `(float(q) - float(zero_point)) * scale`, in
// the scale's float16, reshaped, then widened to float32 (and PT2E's dequantize_per_channel,
// `(q - zero_points) * scales` in float32). Nodes of constants only (parameters, buffers never
// mutated, lifted constants, what other such nodes make), each a conversion, a subtraction, a
// product or a view, reading a weight's integers (8 bits or fewer, less integer zero points),
// floats of constants (the scales) or another such node. They stay on OpenVINO (pass 3c),
// whose CPU plugin keeps the integers narrow and decompresses them in its kernels (int8 ones,
// between FakeQuantizes): in float32 it computes each op as eager does; in float16 it does not
// round the products (fact HalfIntermediatesKeptInFloat), so those stay only under
// --compressed-weights (E9) and are otherwise computed once at load. place() finds them once;
// passes 2 and 3c read what it found.
enum class Decompression : char { None, Float32, Half };
std::vector<Decompression> weight_decompression(const graph::Graph& graph, const ValueSources& sources);

void pass1_user_lists(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass2_openvino_support(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported,
                            const PlacementOptions& options, Plan& plan, const std::vector<Decompression>& decompression = {});
void pass3_exact_wide_integers(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                               Plan& plan);
void pass3b_all_on_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass3c_computed_once_at_load(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                                  const std::vector<Decompression>& decompression, Plan& plan);
void pass4_kernels_exist(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass5_group_into_steps(const graph::Graph& graph, const ValueSources& sources, Plan& plan);
void pass6_small_steps_to_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass7_step_edges(const graph::Graph& graph, const ValueSources& sources, Plan& plan);

}  // namespace pt2ov::partition
