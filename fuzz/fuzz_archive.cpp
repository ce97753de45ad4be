// libFuzzer target: a .pt2 as bytes, through what loading does before OpenVINO is involved:
// the zip reader, every model's program JSON to the IR, the schema check, the rewrites, the
// order check, and the weights' and constants' configs (each stored tensor's first and last
// byte read, so a view past its storage is an ASan report). The program JSON entries are
// CRC-checked, so mutations rarely reach deep into them: fuzz_program_json does that.
#include <cstddef>
#include <cstdint>

#include "archive/archive.h"
#include "fuzz_common.h"
#include "graph/from_json.h"
#include "graph/rewrite.h"
#include "graph/schema.h"

namespace {

volatile unsigned char sink;

void touch(const pt2ov::archive::StoredTensor& stored) {
    if (stored.storage_bytes == 0) return;
    sink = static_cast<unsigned char>(stored.storage[0]);
    sink = static_cast<unsigned char>(stored.storage[stored.storage_bytes - 1]);
    (void)stored.data();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pt2ov;
    fuzz::MemoryFile file(data, size);
    fuzz::expect_clean_refusal([&] {
        const auto archive = archive::Archive::open(file.path());
        for (const auto& model : archive->models()) {
            fuzz::expect_clean_refusal([&] {
                for (const auto& [name, stored] : archive->weights(model)) touch(stored);
                for (const auto& [name, stored] : archive->constants(model)) touch(stored);
                (void)archive->custom_objects(model);
            });
            fuzz::expect_clean_refusal([&] {
                const std::string where = "fuzz.pt2, method " + model;
                auto graph = graph::graph_from_json(archive->program_json(model), where);
                graph::check_and_resolve(graph, where);
                graph::prepare_for_lowering(graph, where);
                graph::check_values_defined_before_use(graph);
                graph::number_values(graph);
            });
        }
    });
    return 0;
}
