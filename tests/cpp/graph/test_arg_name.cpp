// Argument name ids (graph/arg_name.h): one per argument name of the schema table, found alike
// at compile time and at run time, carried by every parsed schema argument; a kernel's read of a
// node without schema matches the stored names by id.
#include <gtest/gtest.h>

#include <string>

#include "graph/arg_name.h"
#include "graph/schema.h"

namespace pt2ov {
namespace {

using graph::ArgName;
using graph::ArgNameId;
using graph::find_arg_name;

TEST(ArgName, TheTableIsSortedAndEverySchemaArgumentHasAnId) {
    const auto& names = graph::arg_name_table::kNames;
    for (size_t i = 1; i < graph::arg_name_table::kCount; ++i) {
        EXPECT_LT(names[i - 1], names[i]) << "arg_names.inc out of order or repeated at " << i;
    }
    size_t arguments = 0;
    for (const auto& target : graph::schema_targets()) {
        for (const auto& argument : graph::find_schema(target)->arguments) {
            ++arguments;
            ASSERT_NE(argument.name_id, ArgNameId::Unknown)
                << target << " argument " << argument.name << " has no id: re-run scripts/gen_op_schemas.py";
            EXPECT_EQ(graph::arg_name_table::kNames[static_cast<size_t>(argument.name_id)], argument.name);
        }
    }
    EXPECT_GT(arguments, 10000u);
}

TEST(ArgName, CompileTimeAndRunTimeAgree) {
    constexpr ArgName self = "self";
    EXPECT_EQ(find_arg_name(std::string("self")), self.id());
    EXPECT_EQ(self.text(), "self");
    EXPECT_NE(ArgName("other").id(), self.id());
    EXPECT_EQ(find_arg_name("no_schema_has_this"), ArgNameId::Unknown);
    EXPECT_EQ(find_arg_name(""), ArgNameId::Unknown);
}

}  // namespace
}  // namespace pt2ov
