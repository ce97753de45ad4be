// Reading .pt2 archives written by torch.export.save (see ../fixtures/make_fixtures.py): the
// bytes of every weight must be what torch saved, held once, in place and aligned; damaged,
// truncated and foreign files must be refused with an ArchiveError naming the file, never a
// crash.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../fixtures/fixtures.h"
#include "archive/archive.h"
#include "graph/from_json.h"
#include "pt2ov/error.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using pt2ov::ArchiveError;
using pt2ov::archive::Archive;
using pt2ov::archive::StoredTensor;
using pt2ov::test::expected_facts;
using pt2ov::test::fixture;

// The tensor's elements in logical (row-major) order, read through its strides, as hex.
std::string logical_hex(const StoredTensor& tensor) {
    const std::vector<int64_t> sizes = tensor.meta.static_sizes();
    const std::vector<int64_t> strides = tensor.meta.static_strides();
    const size_t element = pt2ov::dtype_size(tensor.meta.dtype);
    int64_t count = 1;
    for (int64_t s : sizes) count *= s;
    std::string hex;
    std::vector<int64_t> index(sizes.size(), 0);
    static const char digits[] = "0123456789abcdef";
    for (int64_t n = 0; n < count; ++n) {
        int64_t offset = 0;
        for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
        const auto* bytes = reinterpret_cast<const unsigned char*>(tensor.data()) + offset * element;
        for (size_t b = 0; b < element; ++b) {
            hex += digits[bytes[b] >> 4];
            hex += digits[bytes[b] & 15];
        }
        for (size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
    return hex;
}

// Compares every tensor against what torch reported for it.
void expect_tensors_match(const std::map<std::string, StoredTensor>& tensors, const nlohmann::json& expected) {
    ASSERT_EQ(tensors.size(), expected.size());
    for (const auto& [name, facts] : expected.items()) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(tensors.count(name));
        const StoredTensor& tensor = tensors.at(name);
        EXPECT_EQ(tensor.name, name);
        EXPECT_EQ(pt2ov::dtype_name(tensor.meta.dtype), facts["dtype"].get<std::string>());
        EXPECT_EQ(tensor.meta.static_sizes(), facts["sizes"].get<std::vector<int64_t>>());
        EXPECT_EQ(tensor.meta.static_strides(), facts["strides"].get<std::vector<int64_t>>());
        EXPECT_EQ(tensor.meta.storage_offset, facts["storage_offset"].get<int64_t>());
        EXPECT_EQ(tensor.is_param, facts["is_param"].get<bool>());
        EXPECT_EQ(tensor.storage_path, facts["path_name"].get<std::string>());
        EXPECT_EQ(logical_hex(tensor), facts["hex"].get<std::string>());
    }
}

class TempDir {
public:
    // In memory where the system has it: the damage tests write thousands of small files.
    TempDir() : path_(scratch_root() / ("pt2ov-archive-test-" + std::to_string(::getpid()))) {
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    // A fresh file each call: on some file systems rewriting one file in place costs a
    // millisecond, which thousands of damaged variants would pay.
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string file = (path_ / (std::to_string(++count_) + "-" + name)).string();
        std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return file;
    }

private:
    static fs::path scratch_root() {
        std::error_code ignored;
        return fs::is_directory("/dev/shm", ignored) && ::access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm")
                                                                                        : fs::temp_directory_path();
    }
    fs::path path_;
    size_t count_ = 0;
};

// Everything a loader does with an archive. Touches every byte of every tensor view, so a
// view pointing outside the mapping shows up (under ASan, or as a crash).
size_t read_everything(const std::string& path) {
    const auto archive = Archive::open(path);
    size_t checksum = 0;
    for (const std::string& model : archive->models()) {
        const auto graph = pt2ov::graph::graph_from_json(archive->program_json(model), path + ": models/" + model + ".json");
        checksum += graph.nodes.size();
        for (const auto& tensors : {archive->weights(model), archive->constants(model)}) {
            for (const auto& [name, tensor] : tensors) checksum += logical_hex(tensor).size();
        }
        checksum += archive->custom_objects(model).size();
    }
    return checksum;
}

// Runs `body` and checks it throws ArchiveError mentioning the file and each phrase.
template <typename Body>
void expect_archive_error(Body&& body, const std::string& path, std::vector<std::string> phrases = {}) {
    try {
        body();
        ADD_FAILURE() << "no ArchiveError for " << path;
    } catch (const ArchiveError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(path), std::string::npos) << message;
        for (const std::string& phrase : phrases) EXPECT_NE(message.find(phrase), std::string::npos) << message;
    }
}

// ---- A well-formed archive --------------------------------------------------------------

TEST(ArchiveOpen, FindsRootModelsAndEntries) {
    const std::string path = fixture("basic.pt2");
    const auto archive = Archive::open(path);
    EXPECT_EQ(archive->path(), path);
    EXPECT_EQ(archive->root(), "basic");  // the file's stem, taken from the first entry
    EXPECT_EQ(archive->models(), std::vector<std::string>{"model"});
    EXPECT_EQ(archive->mapped_bytes(), fs::file_size(path));
    EXPECT_TRUE(archive->has_entry("archive_format"));
    EXPECT_FALSE(archive->has_entry("basic/archive_format"));
    const auto [format, format_size] = archive->entry("archive_format");
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(format), format_size), "pt2");
    EXPECT_EQ(archive->program_json("model").front(), '{');
    EXPECT_THROW(archive->entry("no/such/entry"), ArchiveError);
    expect_archive_error([&] { archive->program_json("other"); }, path, {"other", "model"});
}

TEST(ArchiveWeights, BytesMetaAndKindsMatchWhatTorchSaved) {
    const auto archive = Archive::open(fixture("basic.pt2"));
    const nlohmann::json& facts = expected_facts()["basic"];
    expect_tensors_match(archive->weights("model"), facts["weights"]);
    // Lifted constants and non-persistent buffers live in data/constants.
    expect_tensors_match(archive->constants("model"), facts["constants"]);
    EXPECT_TRUE(archive->custom_objects("model").empty());
}

TEST(ArchiveWeights, TensorsOfOneStorageShareItsBytes) {
    const auto archive = Archive::open(fixture("basic.pt2"));
    const auto weights = archive->weights("model");
    const StoredTensor& lin1 = weights.at("lin1.weight");
    const StoredTensor& lin2 = weights.at("lin2.weight");  // tied to lin1.weight
    EXPECT_EQ(lin1.storage_path, lin2.storage_path);
    EXPECT_EQ(lin1.storage, lin2.storage);
    EXPECT_EQ(lin1.data(), lin2.data());

    const StoredTensor& table = weights.at("table");
    const StoredTensor& row = weights.at("table_row");  // table[1]
    const StoredTensor& transposed = weights.at("table_t");
    EXPECT_EQ(row.storage, table.storage);
    EXPECT_EQ(transposed.storage, table.storage);
    EXPECT_EQ(row.data(), table.storage + 4 * sizeof(float));
    EXPECT_EQ(table.storage_bytes, 12 * sizeof(float));
    EXPECT_EQ(transposed.meta.dim_order, (std::vector<int>{1, 0}));
    EXPECT_TRUE(table.meta.is_contiguous_order());
}

TEST(ArchiveWeights, DataIsUsedInPlaceAndAligned) {
    const std::string path = fixture("basic.pt2");
    const auto archive = Archive::open(path);
    const auto check = [&](const std::map<std::string, StoredTensor>& tensors, const std::string& folder) {
        for (const auto& [name, tensor] : tensors) {
            SCOPED_TRACE(name);
            EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.storage) % 64, 0u);
            // The storage is the entry's own bytes in the mapping, not a copy.
            const auto [entry_bytes, entry_size] = archive->entry(folder + tensor.storage_path);
            EXPECT_EQ(tensor.storage, entry_bytes);
            EXPECT_EQ(tensor.storage_bytes, entry_size);
        }
    };
    check(archive->weights("model"), "data/weights/");
    check(archive->constants("model"), "data/constants/");
    EXPECT_EQ(archive->weights("model").at("conv.weight").storage, archive->weights("model").at("conv.weight").storage);
    // The archive is mapped, not read: what it holds is the file's size, once.
    EXPECT_EQ(archive->mapped_bytes(), fs::file_size(path));
}

TEST(ArchiveWeights, EmptyTensorNeedsNoBytes) {
    const auto weights = Archive::open(fixture("basic.pt2"))->weights("model");
    const StoredTensor& empty = weights.at("empty");
    EXPECT_EQ(empty.storage_bytes, 0u);
    EXPECT_EQ(empty.meta.static_sizes(), (std::vector<int64_t>{0, 3}));
}

TEST(ArchiveRepacked, Zip64ExtraFieldsGiveSizesAndOffsets) {
    const auto archive = Archive::open(fixture("basic_zip64.pt2"));
    EXPECT_EQ(archive->root(), "basic");
    expect_tensors_match(archive->weights("model"), expected_facts()["basic"]["weights"]);
    expect_tensors_match(archive->constants("model"), expected_facts()["basic"]["constants"]);
    for (const auto& [name, tensor] : archive->weights("model")) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.storage) % 64, 0u) << name;
    }
}

TEST(ArchiveRepacked, UnalignedZipIsCopiedOnceIntoAlignedMemory) {
    const auto archive = Archive::open(fixture("basic_unaligned.pt2"));
    const auto weights = archive->weights("model");
    expect_tensors_match(weights, expected_facts()["basic"]["weights"]);
    for (const auto& [name, tensor] : weights) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.storage) % 64, 0u) << name;
    }
    EXPECT_EQ(weights.at("lin1.weight").storage, weights.at("lin2.weight").storage);
}

TEST(ArchiveCustomObjects, AreListedAndNotReadAsTensors) {
    const auto archive = Archive::open(fixture("custom_object.pt2"));
    EXPECT_EQ(archive->custom_objects("model"), std::vector<std::string>{"tokenizer"});
    const auto constants = archive->constants("model");
    EXPECT_EQ(constants.count("tokenizer"), 0u);
}

// ---- Refusals ---------------------------------------------------------------------------

TEST(ArchiveErrors, MissingEmptyForeignAndFolder) {
    const std::string missing = (fs::temp_directory_path() / "pt2ov-no-such-dir/m.pt2").string();
    expect_archive_error([&] { Archive::open(missing); }, missing, {"cannot open"});
    expect_archive_error([&] { Archive::open(fixture("empty.pt2")); }, fixture("empty.pt2"), {"empty"});
    expect_archive_error([&] { Archive::open(fixture("not_zip.pt2")); }, fixture("not_zip.pt2"),
                         {"not a .pt2 archive", "torch.export.save"});
    const std::string folder = pt2ov::test::fixture_dir().string();
    expect_archive_error([&] { Archive::open(folder); }, folder, {"not a regular file"});
}

TEST(ArchiveErrors, FifoIsRefusedWithoutBlocking) {
    TempDir dir;
    const std::string fifo = dir.write("placeholder", "") + ".fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // Opening a FIFO for reading would block until a writer comes: the check comes first.
    expect_archive_error([&] { Archive::open(fifo); }, fifo, {"FIFO", "not a regular file"});
    expect_archive_error([&] { Archive::open("/dev/null"); }, "/dev/null", {"device"});
}

uint32_t read_u32(const std::string& bytes, size_t at) {
    uint32_t value = 0;
    for (size_t i = 4; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    return value;
}

uint16_t read_u16(const std::string& bytes, size_t at) {
    return static_cast<uint16_t>(static_cast<unsigned char>(bytes[at]) | static_cast<unsigned char>(bytes[at + 1]) << 8);
}

void write_u32(std::string& bytes, size_t at, uint32_t value) {
    for (size_t i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

// A plain (not ZIP64) zip whose first weight entry claims every byte after its header: its data
// then covers every later entry, as in the fuzzed archive that cost 300 times its size.
std::string with_first_weight_covering_the_rest(std::string zip) {
    const size_t end_record = zip.size() - 22;
    EXPECT_EQ(read_u32(zip, end_record), 0x06054b50u);
    size_t pos = read_u32(zip, end_record + 16);
    for (uint16_t i = 0; i < read_u16(zip, end_record + 10); ++i) {
        const uint16_t name_length = read_u16(zip, pos + 28);
        const std::string name = zip.substr(pos + 46, name_length);
        if (name.find("/data/weights/") != std::string::npos && name.find(".json") == std::string::npos) {
            const size_t local = read_u32(zip, pos + 42);
            const size_t data = local + 30 + read_u16(zip, local + 26) + read_u16(zip, local + 28);
            const auto rest = static_cast<uint32_t>(zip.size() - data);
            write_u32(zip, pos + 20, rest);  // compressed and uncompressed sizes, stored
            write_u32(zip, pos + 24, rest);
            return zip;
        }
        pos += 46 + name_length + read_u16(zip, pos + 30) + read_u16(zip, pos + 32);
    }
    ADD_FAILURE() << "no weight entry in the fixture";
    return zip;
}

TEST(ArchiveErrors, OverlappingEntriesAreRefused) {
    TempDir dir;
    const std::string bytes = pt2ov::test::read_text_file(fixture("basic_unaligned.pt2"));
    const std::string overlapping = dir.write("overlap.pt2", with_first_weight_covering_the_rest(bytes));
    expect_archive_error([&] { Archive::open(overlapping); }, overlapping, {"overlap"});
    const std::string aligned = pt2ov::test::read_text_file(fixture("basic.pt2"));
    EXPECT_NO_THROW(Archive::open(dir.write("control.pt2", aligned)));
}

TEST(ArchiveErrors, CompressedEntriesAndMissingProgramsAreRefused) {
    expect_archive_error([&] { Archive::open(fixture("deflated.pt2")); }, fixture("deflated.pt2"), {"compressed"});
    expect_archive_error([&] { Archive::open(fixture("no_models.pt2")); }, fixture("no_models.pt2"),
                         {"no program", "models/*.json"});
}

TEST(ArchiveErrors, SchemaMajorNineIsRefusedNamingBothVersions) {
    const std::string path = fixture("schema9.pt2");
    const auto archive = Archive::open(path);  // the zip itself is fine
    expect_archive_error(
        [&] { pt2ov::graph::graph_from_json(archive->program_json("model"), path + ": models/model.json"); }, path,
        {"schema version 9.", "major version 8"});
}

TEST(ArchiveErrors, BadWeightsNameTheTensor) {
    const auto check = [](const std::string& file, std::vector<std::string> phrases) {
        const std::string path = fixture(file);
        const auto archive = Archive::open(path);
        expect_archive_error([&] { archive->weights("model"); }, path, phrases);
    };
    check("pickled_weight.pt2", {"conv.weight", "pickled"});
    check("missing_entry.pt2", {"weight_99"});
    check("view_too_big.pt2", {"table_row", "bytes"});
    check("fake_weight.pt2", {"conv.weight", "fake"});
    check("old_format.pt2", {"PyTorch >= 2.9"});
    const auto old = Archive::open(fixture("old_format.pt2"));
    expect_archive_error([&] { old->constants("model"); }, fixture("old_format.pt2"), {"PyTorch >= 2.9"});
}

// Weight configs damaged in every way make_fixtures.py knows: refused, naming the file.
TEST(ArchiveErrors, DamagedWeightConfigsAreRefused) {
    const json& names = expected_facts()["bad_configs"];
    ASSERT_FALSE(names.empty());
    for (const json& name : names) {
        SCOPED_TRACE(name.get<std::string>());
        const std::string path = fixture("bad_config_" + name.get<std::string>() + ".pt2");
        const auto archive = Archive::open(path);
        try {
            archive->weights("model");
            ADD_FAILURE() << "accepted";
        } catch (const pt2ov::Error& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(path), std::string::npos) << message;
            if (name != "config_list") EXPECT_NE(message.find("'scale'"), std::string::npos) << message;
            const bool unsupported = dynamic_cast<const pt2ov::UnsupportedError*>(&e) != nullptr;
            EXPECT_EQ(unsupported, name == "unsupported_dtype") << message;
        }
    }
}

// ---- Truncation and damage: refused, never a crash -----------------------------------------

std::string file_bytes(const std::string& path) { return pt2ov::test::read_text_file(path); }

TEST(ArchiveTruncation, EveryPrefixOfASmallArchiveIsRefused) {
    const std::string whole = file_bytes(fixture("tiny.pt2"));
    ASSERT_EQ(whole.size(), expected_facts()["tiny"]["size"].get<size_t>());
    TempDir temp;
    for (size_t length = 0; length < whole.size(); ++length) {
        const std::string path = temp.write("cut.pt2", whole.substr(0, length));
        expect_archive_error([&] { Archive::open(path); }, path);
        if (HasFailure()) FAIL() << "at length " << length;
    }
}

TEST(ArchiveTruncation, LargerArchiveCutAtItsStructures) {
    const std::string whole = file_bytes(fixture("basic.pt2"));
    const size_t directory = expected_facts()["basic"]["directory_offset"].get<size_t>();
    TempDir temp;
    for (size_t length : {size_t{4}, size_t{30}, size_t{100}, whole.size() / 2, directory, directory + 10,
                          whole.size() - 98, whole.size() - 22, whole.size() - 1}) {
        const std::string path = temp.write("cut.pt2", whole.substr(0, length));
        expect_archive_error([&] { Archive::open(path); }, path, {"truncated or damaged"});
    }
}

TEST(ArchiveDamage, FlippedCentralDirectorySignatureIsRefused) {
    std::string bytes = file_bytes(fixture("basic.pt2"));
    const size_t directory = expected_facts()["basic"]["directory_offset"].get<size_t>();
    TempDir temp;
    bytes[directory] ^= 0x01;
    const std::string path = temp.write("flipped.pt2", bytes);
    expect_archive_error([&] { Archive::open(path); }, path, {"truncated or damaged", "signature"});
}

// Every single-byte change in the central directory: loading either works (the byte did not
// matter, e.g. a timestamp) or throws a pt2ov error naming the file.
TEST(ArchiveDamage, EveryCentralDirectoryByteFlippedNeverCrashes) {
    const std::string whole = file_bytes(fixture("tiny.pt2"));
    const size_t directory = expected_facts()["tiny"]["directory_offset"].get<size_t>();
    TempDir temp;
    size_t refused = 0;
    for (size_t at = directory; at < whole.size(); ++at) {
        std::string bytes = whole;
        bytes[at] = static_cast<char>(bytes[at] ^ 0xFF);
        const std::string path = temp.write("flipped.pt2", bytes);
        try {
            read_everything(path);
        } catch (const pt2ov::Error& e) {
            ++refused;
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "byte " << at << ": " << e.what();
        }
    }
    EXPECT_GT(refused, (whole.size() - directory) / 2);  // most of the directory matters
}

// Every byte of a small archive changed in turn, data and program included.
TEST(ArchiveDamage, EveryByteChangedNeverCrashes) {
    const std::string whole = file_bytes(fixture("tiny.pt2"));
    TempDir temp;
    for (size_t at = 0; at < whole.size(); ++at) {
        std::string bytes = whole;
        bytes[at] = static_cast<char>(bytes[at] ^ 0x5A);
        const std::string path = temp.write("changed.pt2", bytes);
        try {
            read_everything(path);
        } catch (const pt2ov::Error& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "byte " << at << ": " << e.what();
        }
    }
}

}  // namespace
