// libFuzzer target: a program's JSON text (models/model.json of a .pt2) with the archive
// around it bypassed, through the IR builder, the schema check, the rewrites and the order
// check: what loading does with it before OpenVINO is involved. The rewrites must keep the
// order check true: a failure of the second check is pt2ov's bug (compile.cpp makes it an
// InternalError), so it aborts here too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "graph/from_json.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pt2ov;
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzz::expect_clean_refusal([&] {
        const std::string where = "fuzz.pt2: models/model.json";
        auto graph = graph::graph_from_json(text, where);
        graph::check_and_resolve(graph, where);
        graph::prepare_for_lowering(graph, where);
        try {
            graph::check_values_defined_before_use(graph);
        } catch (const ArchiveError& e) {
            throw InternalError(std::string("after pt2ov's rewrites: ") + e.what());
        }
        graph::number_values(graph);
    });
    return 0;
}
