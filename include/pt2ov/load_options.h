#pragma once

// The load options, one row each: every front end reads this table instead of spelling the
// options again. The command line's flags (cli/main.cpp), serve's config.json keys
// (serve/repository.cpp), the Python module's keywords (python/src/module.cpp), the verify
// worker's request (runtime/verify.cpp) and the placement and verification cache key
// (runtime/placement_timing.cpp) are all made from it, and tests/e2e/test_load_options.py fails
// when LoadOptions has a field the table lacks. Adding an option is one row here plus its use.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov {

struct LoadOptionRow {
    // The option's one name: LoadOptions' field, config.json's key, the Python keyword, the
    // verify request's key. The command line spells it with dashes (`flag`).
    std::string_view name;
    // The command line's flag: "--" and the name with dashes, but for a repeatable list the
    // singular ("--cpu-op") and for a flag that turns a default-true option off "--no-...".
    std::string_view flag;
    std::variant<std::string LoadOptions::*, std::vector<std::string> LoadOptions::*, bool LoadOptions::*,
                 int LoadOptions::*, int64_t LoadOptions::*>
        field;
    // Where not empty, the only values a text option takes.
    std::vector<std::string_view> choices;
    // The range of an integer option.
    int64_t min = 0, max = 0;
    // Whether another value may give another plan: such options are part of the cache key
    // and of the verify worker's request (the worker must plan as load() does).
    bool changes_plan = false;
    std::string_view help;
};

const std::vector<LoadOptionRow>& load_option_table();

// The row named `name`, or null.
const LoadOptionRow* find_load_option(std::string_view name);

// `options`' value of `row` as text: a list's items joined by ",", a bool "true" or "false".
std::string load_option_text(const LoadOptions& options, const LoadOptionRow& row);

}  // namespace pt2ov
