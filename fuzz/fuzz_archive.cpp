// libFuzzer target: a .pt2 as bytes, through what loading does before OpenVINO is involved:
// the zip reader, every model's program JSON to the IR, the schema check, the rewrites, the
// order check, and the weights' and constants' configs (each stored tensor's first and last
// byte read, so a view past its storage is an ASan report). The entries are CRC-checked, so
// the target has its own mutator: most mutations land inside one stored entry (JSON entries
// three times as often as others) and the entry's CRC is made true again, so the JSON and config
// parsers see them; the others mutate the zip's structure itself.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "archive/archive.h"
#include "fuzz_common.h"
#include "stored_zip.h"
#include "graph/from_json.h"
#include "graph/passes/passes.h"
#include "graph/schema.h"

namespace {

volatile unsigned char sink;

void touch(const pt2ov::archive::StoredTensor& stored) {
    if (stored.storage_bytes == 0) return;
    sink = static_cast<unsigned char>(stored.storage[0]);
    sink = static_cast<unsigned char>(stored.storage[stored.storage_bytes - 1]);
    (void)stored.data();
}

bool is_json(const pt2ov::fuzz::StoredEntry& entry) {
    return entry.name.size() >= 5 && entry.name.compare(entry.name.size() - 5, 5, ".json") == 0;
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
    using namespace pt2ov::fuzz;
    std::minstd_rand random(seed);
    const auto entries = stored_entries(data, size);
    if (entries.empty() || random() % 4 == 0) {
        // The zip's structure: headers, offsets, sizes. CRCs are fixed where entries still parse.
        size = LLVMFuzzerMutate(data, size, max_size);
        for (const auto& entry : stored_entries(data, size)) fix_crc(data, size, entry);
        return size;
    }
    std::vector<size_t> weighted;
    for (size_t i = 0; i < entries.size(); ++i) {
        for (int k = 0; k < (is_json(entries[i]) ? 3 : 1); ++k) weighted.push_back(i);
    }
    const StoredEntry& entry = entries[weighted[random() % weighted.size()]];
    if (entry.size == 0) return size;
    // The entry keeps its size so every offset after it stays true; a shorter result is padded
    // with spaces, which JSON reads as nothing.
    std::vector<uint8_t> bytes(data + entry.data, data + entry.data + entry.size);
    const size_t mutated = LLVMFuzzerMutate(bytes.data(), bytes.size(), bytes.size());
    std::memcpy(data + entry.data, bytes.data(), mutated);
    std::memset(data + entry.data + mutated, ' ', entry.size - mutated);
    fix_crc(data, size, entry);
    return size;
}

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
