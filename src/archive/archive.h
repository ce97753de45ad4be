// Reading the zip that torch.export.save writes. Entries are stored uncompressed and 64-byte
// aligned, so the file is mapped once and every weight is used in place: the archive is the
// one holder of the program's constants. Knows nothing about OpenVINO.
//
// Thread safety: an Archive is immutable after open(); share it freely.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace pt2ov::archive {

// A parameter, buffer or lifted constant as the archive stores it: a storage (one zip entry,
// possibly shared by several tensors) viewed with the meta's sizes, strides and offset.
struct StoredTensor {
    std::string name;          // the state-dict / constant name ("conv.weight")
    graph::TensorMeta meta;    // static sizes and strides; storage_offset in elements
    const std::byte* storage;  // first byte of the storage, inside the mapping (or owned copy)
    size_t storage_bytes = 0;
    std::string storage_path;  // entry name, e.g. "weight_0": equal paths share memory
    bool is_param = false;

    // First byte of the tensor's own data (storage + storage_offset * element size).
    const std::byte* data() const;
};

class Archive {
public:
    // Opens and maps `path` and checks the zip's structure. Throws ArchiveError naming the file
    // for a missing, unreadable, truncated or damaged archive, or one that is not a .pt2.
    static std::shared_ptr<const Archive> open(const std::string& path);

    ~Archive();
    Archive(const Archive&) = delete;
    Archive& operator=(const Archive&) = delete;

    const std::string& path() const { return path_; }

    // The root folder every entry sits under ("m" for m.pt2).
    const std::string& root() const { return root_; }

    // Names of the programs stored under models/ ("model" for torch.export.save).
    std::vector<std::string> models() const;

    // The program JSON of one model. Throws ArchiveError naming the model if absent.
    std::string program_json(const std::string& model) const;

    // Parameters and buffers (data/weights) and tensor constants (data/constants) of one model,
    // by name. Tensors of one storage point into the same bytes. Throws ArchiveError for a
    // pickled (use_pickle) weight or a config that names a missing entry.
    std::map<std::string, StoredTensor> weights(const std::string& model) const;
    std::map<std::string, StoredTensor> constants(const std::string& model) const;

    // Names of constants stored as pickled custom objects, which the engine cannot use.
    std::vector<std::string> custom_objects(const std::string& model) const;

    // Bytes the archive keeps in memory for the entries' data (the mapping itself is shared
    // with the page cache; this counts what a caller pays for: mapped entry data).
    size_t mapped_bytes() const { return size_; }

    // Drops the pages of the file mapping from this process's resident set (madvise DONTNEED):
    // once a program is loaded, OpenVINO holds its own copies of most weights, and what is read
    // again comes back from the page cache at its first read, unchanged (the mapping is private
    // and read-only). Nothing for an archive copied into aligned memory, whose pages are its only
    // copy.
    void release_resident_pages() const;

    // True when the named entry exists (relative to root()).
    bool has_entry(const std::string& relative_name) const;

    // The bytes of an entry (relative to root()), in place. Throws ArchiveError if absent.
    std::pair<const std::byte*, size_t> entry(const std::string& relative_name) const;

private:
    Archive() = default;
    struct Entry {
        size_t data_offset = 0;
        size_t size = 0;
    };
    std::string path_;
    std::string root_;
    const std::byte* base_ = nullptr;  // the mapping
    size_t size_ = 0;
    bool file_backed_ = true;  // false: an aligned anonymous copy
    std::map<std::string, Entry> entries_;  // by name relative to root_
    std::map<std::string, StoredTensor> read_tensor_config(const std::string& config_entry,
                                                           const std::string& data_folder) const;
};

}  // namespace pt2ov::archive
