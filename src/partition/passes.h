// The placement passes, in the order place() runs them; declared here for place() and the
// partition unit tests only. Everything else calls partition::place or partition::whole_method.
#pragma once

#include "partition/plan.h"

namespace pt2ov::partition {

void pass1_user_lists(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass2_openvino_support(const graph::Graph& graph, const std::map<std::string, std::string>& unsupported,
                            const PlacementOptions& options, Plan& plan, const std::vector<bool>& kept_compressed = {});
void pass3_exact_wide_integers(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                               Plan& plan);
void pass3b_all_on_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass3c_computed_once_at_load(const graph::Graph& graph, const ValueSources& sources, const PlacementOptions& options,
                                  Plan& plan);
void pass4_kernels_exist(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass5_group_into_steps(const graph::Graph& graph, Plan& plan);
void pass6_small_steps_to_cpu(const graph::Graph& graph, const PlacementOptions& options, Plan& plan);
void pass7_step_edges(const graph::Graph& graph, const ValueSources& sources, Plan& plan);

}  // namespace pt2ov::partition
