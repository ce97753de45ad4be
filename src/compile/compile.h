// The load pipeline as one readable sequence (stages.h has each stage).
#pragma once

#include <map>
#include <string>

#include "compile/method.h"
#include "compile/settings.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::compile {

// read → check → rewrite → bind signature → number values.
PreparedMethod prepare(const std::string& path, const Settings& settings);

// learn support → place ⇄ convert → take out aliases → report. `compile_failures` (node name →
// OpenVINO's words) places the nodes of a step OpenVINO could not compile on the CPU kernels.
// A non-empty `all_on_cpu_reason` places every node that has a CPU kernel there, with it.
// `verify_failures` (node name → how its step failed verification) places those on the CPU
// kernels too.
PlannedMethod plan(const PreparedMethod& method, const Settings& settings,
                   const std::map<std::string, std::string>& compile_failures = {},
                   const std::string& all_on_cpu_reason = {},
                   const std::map<std::string, std::string>& verify_failures = {});

}  // namespace pt2ov::compile
