// The load pipeline as one readable sequence (stages.h has each stage).
#pragma once

#include <string>

#include "compile/method.h"
#include "pt2ov/pt2ov.h"

namespace pt2ov::compile {

// read → check → rewrite → bind signature → number values.
PreparedMethod prepare(const std::string& path, const LoadOptions& options);

// learn support → place ⇄ convert → take out aliases → report.
PlannedMethod plan(const PreparedMethod& method, const LoadOptions& options);

}  // namespace pt2ov::compile
