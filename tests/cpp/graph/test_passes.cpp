// The table of passes (graph/passes/passes.h): every pass once, in the order the header
// documents, and prepare_for_lowering runs exactly that table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/passes/passes.h"

namespace {

TEST(Passes, TheTableRunsEachPassOnceInTheDocumentedOrder) {
    std::vector<std::string> names;
    for (const auto& pass : pt2ov::graph::passes()) {
        ASSERT_NE(pass.run, nullptr) << pass.name;
        names.emplace_back(pass.name);
    }
    const std::vector<std::string> documented = {"inline scoping regions", "fold error checks",
                                                 "drop assertions",        "functionalize in-place ops",
                                                 "record fake quantizations",
                                                 "lower training ops",     "clamp slice bounds",
                                                 "canonical forms",        "split stacked buffers"};
    EXPECT_EQ(names, documented);
}

}  // namespace
