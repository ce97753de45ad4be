// The zip layer is read by hand over one read-only mapping: torch.export.save stores every
// entry uncompressed and 64-byte aligned, so an entry's bytes are usable in place, and what we
// need of the format (the central directory, ZIP64 sizes, local header lengths) is small.
// Every read is bounds-checked against the mapping: a damaged file is an ArchiveError.
#include "archive/archive.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "graph/json_meta.h"

namespace pt2ov::archive {

namespace {

using json = nlohmann::json;

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr size_t kLocalHeaderBytes = 30;
constexpr size_t kCentralHeaderBytes = 46;
constexpr size_t kEndBytes = 22;
constexpr size_t kZip64EndBytes = 56;
constexpr size_t kZip64LocatorBytes = 20;
constexpr size_t kDataAlignment = 64;  // what torch.export.save pads every entry's data to

const std::string kResave = "save the program again with torch.export.save";

// Little-endian reads over the mapping. Every read checks its bounds first.
class ZipView {
public:
    ZipView(const std::byte* data, size_t size, const std::string& path) : data_(data), size_(size), path_(path) {}

    size_t size() const { return size_; }
    bool fits(uint64_t offset, uint64_t length) const { return offset <= size_ && length <= size_ - offset; }

    void require(uint64_t offset, uint64_t length, std::string_view what) const {
        if (!fits(offset, length)) damaged(std::string(what) + " lies outside the file");
    }

    uint64_t little_endian(uint64_t offset, size_t bytes, std::string_view what) const {
        require(offset, bytes, what);
        uint64_t value = 0;
        for (size_t i = bytes; i-- > 0;) value = (value << 8) | std::to_integer<uint64_t>(data_[offset + i]);
        return value;
    }
    uint16_t u16(uint64_t offset, std::string_view what) const { return static_cast<uint16_t>(little_endian(offset, 2, what)); }
    uint32_t u32(uint64_t offset, std::string_view what) const { return static_cast<uint32_t>(little_endian(offset, 4, what)); }
    uint64_t u64(uint64_t offset, std::string_view what) const { return little_endian(offset, 8, what); }

    std::string_view text(uint64_t offset, uint64_t length, std::string_view what) const {
        require(offset, length, what);
        return {reinterpret_cast<const char*>(data_ + offset), static_cast<size_t>(length)};
    }
    const std::byte* at(uint64_t offset) const { return data_ + offset; }

    [[noreturn]] void damaged(const std::string& detail) const {
        throw ArchiveError(path_ + ": the archive is truncated or damaged (" + detail + "); " + kResave);
    }

private:
    const std::byte* data_;
    size_t size_;
    const std::string& path_;
};

// ---- The end records: where the central directory is and how many entries it holds.

struct DirectoryLocation {
    uint64_t entry_count = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
};

// The end-of-central-directory record is the last 22 bytes plus a comment of up to 64 KiB,
// so it is searched for backwards.
std::optional<uint64_t> find_end_record(const ZipView& zip) {
    if (zip.size() < kEndBytes) return std::nullopt;
    const uint64_t last = zip.size() - kEndBytes;
    const uint64_t first = last > 0xFFFF ? last - 0xFFFF : 0;
    for (uint64_t pos = last + 1; pos-- > first;) {
        if (zip.u32(pos, "end record") != kEndSignature) continue;
        const uint16_t comment_length = zip.u16(pos + 20, "end record");
        if (zip.fits(pos + kEndBytes, comment_length)) return pos;
    }
    return std::nullopt;
}

DirectoryLocation locate_directory(const ZipView& zip, uint64_t end_record) {
    DirectoryLocation where;
    where.entry_count = zip.u16(end_record + 10, "end record");
    where.size = zip.u32(end_record + 12, "end record");
    where.offset = zip.u32(end_record + 16, "end record");
    uint64_t directory_end_limit = end_record;
    // ZIP64 (always written by torch): a locator just before the end record points at the
    // ZIP64 end record, whose 64-bit counts replace the 16/32-bit ones.
    const bool has_locator = end_record >= kZip64LocatorBytes &&
                             zip.u32(end_record - kZip64LocatorBytes, "ZIP64 locator") == kZip64LocatorSignature;
    if (has_locator) {
        const uint64_t zip64_end = zip.u64(end_record - kZip64LocatorBytes + 8, "ZIP64 locator");
        zip.require(zip64_end, kZip64EndBytes, "the ZIP64 end record");
        if (zip.u32(zip64_end, "ZIP64 end record") != kZip64EndSignature) zip.damaged("bad ZIP64 end record signature");
        where.entry_count = zip.u64(zip64_end + 32, "ZIP64 end record");
        where.size = zip.u64(zip64_end + 40, "ZIP64 end record");
        where.offset = zip.u64(zip64_end + 48, "ZIP64 end record");
        directory_end_limit = zip64_end;
    } else if (where.entry_count == 0xFFFF || where.size == 0xFFFFFFFF || where.offset == 0xFFFFFFFF) {
        zip.damaged("ZIP64 sizes without a ZIP64 end record");
    }
    if (where.offset > directory_end_limit || where.size > directory_end_limit - where.offset) {
        zip.damaged("the central directory does not fit before the end record");
    }
    return where;
}

// ---- The central directory.

struct CentralEntry {
    std::string name;
    uint64_t local_header = 0;
    uint64_t size = 0;
    uint32_t crc = 0;
};

// Fields the 32-bit header marks 0xFFFFFFFF are in the ZIP64 extra field, in this order:
// uncompressed size, compressed size, local header offset.
void read_zip64_extra(const ZipView& zip, uint64_t extra, uint16_t extra_length, std::array<uint64_t*, 3> wanted,
                      const std::string& what) {
    uint64_t pos = extra;
    const uint64_t end = extra + extra_length;
    while (pos + 4 <= end) {
        const uint16_t id = zip.u16(pos, what);
        const uint16_t length = zip.u16(pos + 2, what);
        if (pos + 4 + length > end) zip.damaged(what + " has an extra field running past its end");
        if (id == kZip64ExtraId) {
            uint64_t field = pos + 4;
            for (uint64_t* value : wanted) {
                if (*value != 0xFFFFFFFF) continue;
                if (field + 8 > pos + 4 + length) zip.damaged(what + " has a short ZIP64 extra field");
                *value = zip.u64(field, what);
                field += 8;
            }
            return;
        }
        pos += 4 + length;
    }
    for (uint64_t* value : wanted) {
        if (*value == 0xFFFFFFFF) zip.damaged(what + " needs a ZIP64 extra field it lacks");
    }
}

CentralEntry read_central_entry(const ZipView& zip, uint64_t& pos, uint64_t directory_end, const std::string& path) {
    const std::string what = "central directory entry at byte " + std::to_string(pos);
    if (!zip.fits(pos, kCentralHeaderBytes) || pos + kCentralHeaderBytes > directory_end) {
        zip.damaged(what + " is cut short");
    }
    if (zip.u32(pos, what) != kCentralHeaderSignature) zip.damaged(what + " has a bad signature");
    const uint16_t flags = zip.u16(pos + 8, what);
    const uint16_t method = zip.u16(pos + 10, what);
    CentralEntry entry;
    entry.crc = zip.u32(pos + 16, what);
    uint64_t compressed = zip.u32(pos + 20, what);
    uint64_t uncompressed = zip.u32(pos + 24, what);
    const uint16_t name_length = zip.u16(pos + 28, what);
    const uint16_t extra_length = zip.u16(pos + 30, what);
    const uint16_t comment_length = zip.u16(pos + 32, what);
    entry.local_header = zip.u32(pos + 42, what);
    const uint64_t name_at = pos + kCentralHeaderBytes;
    const uint64_t record_end = name_at + name_length + extra_length + comment_length;
    if (record_end > directory_end) zip.damaged(what + " runs past the central directory");
    entry.name = std::string(zip.text(name_at, name_length, what));
    read_zip64_extra(zip, name_at + name_length, extra_length, {&uncompressed, &compressed, &entry.local_header},
                     what + " ('" + entry.name + "')");
    if (flags & 0x1) {
        throw ArchiveError(path + ": entry '" + entry.name + "' is encrypted, which torch.export.save never does; " + kResave);
    }
    if (method != 0) {
        throw ArchiveError(path + ": entry '" + entry.name + "' is compressed (zip method " + std::to_string(method) +
                           "); pt2ov maps weights in place and reads only stored (uncompressed) entries, as "
                           "torch.export.save writes them: " + kResave + " and do not re-zip the file");
    }
    if (compressed != uncompressed) zip.damaged("entry '" + entry.name + "' is stored but its two sizes differ");
    entry.size = uncompressed;
    pos = record_end;
    return entry;
}

// The data follows the local header, whose name and extra lengths (the extra pads to 64
// bytes) may differ from the central directory's: read them from the local header itself.
uint64_t data_offset_of(const ZipView& zip, const CentralEntry& entry) {
    const std::string what = "local header of '" + entry.name + "'";
    zip.require(entry.local_header, kLocalHeaderBytes, what);
    if (zip.u32(entry.local_header, what) != kLocalHeaderSignature) zip.damaged(what + " has a bad signature");
    const uint16_t name_length = zip.u16(entry.local_header + 26, what);
    const uint16_t extra_length = zip.u16(entry.local_header + 28, what);
    const uint64_t name_at = entry.local_header + kLocalHeaderBytes;
    if (zip.text(name_at, name_length, what) != entry.name) zip.damaged(what + " names a different entry");
    const uint64_t data = name_at + name_length + extra_length;
    if (!zip.fits(data, entry.size)) zip.damaged("the data of '" + entry.name + "' runs past the end of the file");
    return data;
}

uint32_t crc32_of(const std::byte* data, size_t size) {
    static const std::array<uint32_t, 256> table = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; ++i) crc = table[(crc ^ std::to_integer<uint32_t>(data[i])) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

// Weights and constants are checked by their configs' sizes, not by CRC: reading every byte
// at open would defeat mapping them. Everything else (program, configs) is small: check it.
bool is_checked_by_crc(const std::string& relative_name) {
    const bool under_data = relative_name.rfind("data/", 0) == 0;
    const bool is_json = relative_name.size() >= 5 && relative_name.compare(relative_name.size() - 5, 5, ".json") == 0;
    return !under_data || is_json;
}

// ---- The file mapping.

struct Mapping {
    const std::byte* data = nullptr;
    size_t size = 0;
};

// What a path names when it is not a regular file, for the refusal.
std::string_view file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "not a regular file";
}

Mapping map_file(const std::string& path) {
    // Checked before open(): opening a FIFO for reading blocks until a writer comes, forever.
    struct stat named {};
    if (::stat(path.c_str(), &named) != 0) {
        throw ArchiveError(path + ": cannot open the file (" + std::strerror(errno) + "); check the path");
    }
    if (!S_ISREG(named.st_mode)) {
        throw ArchiveError(path + ": is " + std::string(file_kind(named.st_mode)) +
                           ", not a regular file; give the path of a .pt2 file written by torch.export.save");
    }
    // O_NONBLOCK: should the path be swapped for a FIFO after the check, open() still returns.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        throw ArchiveError(path + ": cannot open the file (" + std::strerror(errno) + "); check the path");
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        throw ArchiveError(path + ": not a regular file; give the path of a .pt2 file written by torch.export.save");
    }
    if (info.st_size == 0) {
        ::close(fd);
        throw ArchiveError(path + ": the file is empty, not a .pt2 archive; " + kResave);
    }
    void* address = ::mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_errno = errno;
    ::close(fd);  // the mapping keeps the file's pages alive by itself
    if (address == MAP_FAILED) {
        throw ArchiveError(path + ": cannot map the file into memory (" + std::strerror(map_errno) + ")");
    }
    return {static_cast<const std::byte*>(address), static_cast<size_t>(info.st_size)};
}

void unmap(const std::byte* data, size_t size) {
    if (data) ::munmap(const_cast<std::byte*>(data), size);
}

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

const std::byte* StoredTensor::data() const {
    return storage + static_cast<size_t>(meta.storage_offset) * dtype_size(meta.dtype);
}

Archive::~Archive() { unmap(base_, size_); }

void Archive::release_resident_pages() const {
    if (file_backed_ && base_) ::madvise(const_cast<std::byte*>(base_), size_, MADV_DONTNEED);
}

namespace {

[[noreturn]] void not_an_archive(const ZipView& zip, const std::string& path) {
    const bool looks_like_zip = zip.size() >= 4 && zip.u32(0, "start") == kLocalHeaderSignature;
    if (looks_like_zip) zip.damaged("no end-of-central-directory record: the file was cut short");
    throw ArchiveError(path + ": not a .pt2 archive (no end-of-central-directory record, so not a zip file); " +
                       kResave);
}

// Where one entry lies in the file, from its local header to the end of its data.
struct EntrySpan {
    uint64_t begin = 0;
    uint64_t end = 0;
    const std::string* name = nullptr;
};

// torch.export.save writes each entry once, one after another. Entries whose bytes overlap
// are a damaged or crafted zip: refused, because an unaligned archive copies every entry, and
// overlapping ones would make a small file cost many times its size in memory.
void check_entries_do_not_overlap(const ZipView& zip, std::vector<EntrySpan> spans) {
    std::sort(spans.begin(), spans.end(), [](const EntrySpan& a, const EntrySpan& b) { return a.begin < b.begin; });
    for (size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].begin < spans[i - 1].end) {
            zip.damaged("entries '" + *spans[i - 1].name + "' and '" + *spans[i].name + "' overlap in the file");
        }
    }
}

// Reads the central directory into (relative name → data range) and the root folder.
void read_entries(const ZipView& zip, const std::string& path, std::string& root,
                  std::map<std::string, std::pair<uint64_t, uint64_t>>& entries) {
    const std::optional<uint64_t> end_record = find_end_record(zip);
    if (!end_record) not_an_archive(zip, path);
    const DirectoryLocation directory = locate_directory(zip, *end_record);
    uint64_t pos = directory.offset;
    const uint64_t directory_end = directory.offset + directory.size;
    std::vector<CentralEntry> kept;  // the entries read, for the overlap check at the end
    std::vector<EntrySpan> spans;
    for (uint64_t i = 0; i < directory.entry_count; ++i) {
        const CentralEntry entry = read_central_entry(zip, pos, directory_end, path);
        if (i == 0) {
            const size_t slash = entry.name.find('/');
            if (slash == std::string::npos || slash == 0) {
                throw ArchiveError(path + ": not a .pt2 archive (its entries are not under one root folder); " + kResave);
            }
            root = entry.name.substr(0, slash);
        }
        if (!starts_with(entry.name, root + "/") || entry.name.back() == '/') continue;  // foreign or a folder
        const std::string relative = entry.name.substr(root.size() + 1);
        const uint64_t data = data_offset_of(zip, entry);
        if (is_checked_by_crc(relative) && crc32_of(zip.at(data), entry.size) != entry.crc) {
            zip.damaged("entry '" + entry.name + "' fails its CRC check");
        }
        if (!entries.emplace(relative, std::make_pair(data, entry.size)).second) {
            zip.damaged("entry '" + entry.name + "' appears twice");
        }
        spans.push_back({entry.local_header, data + entry.size, nullptr});
        kept.push_back(entry);
    }
    if (pos != directory_end) zip.damaged("the central directory holds more than its entry count says");
    for (size_t i = 0; i < spans.size(); ++i) spans[i].name = &kept[i].name;
    check_entries_do_not_overlap(zip, std::move(spans));
}

size_t round_up_to_alignment(size_t bytes) { return (bytes + kDataAlignment - 1) / kDataAlignment * kDataAlignment; }

// An archive re-zipped by another tool loses the 64-byte alignment that lets weights be used in
// place. Its entries are then copied once into an aligned private region, which replaces the
// file mapping (so the weights are still held once). Templated only to reach Archive's
// private Entry type without naming it.
template <typename EntryMap>
Mapping copy_entries_aligned(const std::byte* file, size_t file_size, EntryMap& entries, const std::string& path) {
    size_t total = 0;
    for (const auto& [name, entry] : entries) total += round_up_to_alignment(entry.size);
    total = std::max(total, kDataAlignment);
    // Entries do not overlap (read_entries), so the copy is the file's size plus padding; more
    // would mean a damaged directory, and memory the file's size does not justify.
    if (total > file_size + (entries.size() + 1) * kDataAlignment) {
        throw ArchiveError(path + ": the archive is truncated or damaged (its entries would take " + std::to_string(total) +
                           " bytes, more than the file's " + std::to_string(file_size) + "); " + kResave);
    }
    void* address = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (address == MAP_FAILED) {
        throw ArchiveError(path + ": cannot allocate " + std::to_string(total) +
                           " bytes to align its entries (the archive was re-zipped without torch's 64-byte "
                           "alignment; " + kResave + ")");
    }
    auto* copy = static_cast<std::byte*>(address);
    size_t next = 0;
    for (auto& [name, entry] : entries) {
        if (entry.size > 0) std::memcpy(copy + next, file + entry.data_offset, entry.size);
        entry.data_offset = next;
        next += round_up_to_alignment(entry.size);
    }
    ::mprotect(address, total, PROT_READ);
    return {copy, total};
}

}  // namespace

std::shared_ptr<const Archive> Archive::open(const std::string& path) {
    std::shared_ptr<Archive> archive(new Archive());
    archive->path_ = path;
    const Mapping mapping = map_file(path);
    archive->base_ = mapping.data;  // owned from here: the destructor unmaps it, also on a throw
    archive->size_ = mapping.size;

    std::map<std::string, std::pair<uint64_t, uint64_t>> ranges;
    read_entries(ZipView(mapping.data, mapping.size, path), path, archive->root_, ranges);
    bool aligned = true;
    for (const auto& [name, range] : ranges) {
        archive->entries_[name] = Entry{static_cast<size_t>(range.first), static_cast<size_t>(range.second)};
        aligned = aligned && range.first % kDataAlignment == 0;
    }
    if (archive->models().empty()) {
        throw ArchiveError(path + ": holds no program (no " + archive->root_ +
                           "/models/*.json entry); it is not an archive written by torch.export.save: " + kResave);
    }
    if (!aligned) {
        const Mapping copy = copy_entries_aligned(archive->base_, archive->size_, archive->entries_, path);
        unmap(archive->base_, archive->size_);
        archive->base_ = copy.data;
        archive->size_ = copy.size;
        archive->file_backed_ = false;
    }
    return archive;
}

std::vector<std::string> Archive::models() const {
    std::vector<std::string> names;
    constexpr std::string_view folder = "models/";
    constexpr std::string_view suffix = ".json";
    for (const auto& [name, entry] : entries_) {
        if (!starts_with(name, folder) || name.size() <= folder.size() + suffix.size()) continue;
        if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
        std::string model = name.substr(folder.size(), name.size() - folder.size() - suffix.size());
        if (model.find('/') == std::string::npos) names.push_back(std::move(model));
    }
    return names;
}

bool Archive::has_entry(const std::string& relative_name) const { return entries_.count(relative_name) > 0; }

std::pair<const std::byte*, size_t> Archive::entry(const std::string& relative_name) const {
    auto it = entries_.find(relative_name);
    if (it == entries_.end()) {
        throw ArchiveError(path_ + ": has no entry '" + root_ + "/" + relative_name +
                           "' that its program needs; the archive is incomplete: " + kResave);
    }
    return {base_ + it->second.data_offset, it->second.size};
}

std::string Archive::program_json(const std::string& model) const {
    const std::string name = "models/" + model + ".json";
    if (!has_entry(name)) {
        std::string available;
        for (const std::string& m : models()) available += (available.empty() ? "" : ", ") + m;
        throw ArchiveError(path_ + ": has no program named '" + model + "' (no " + root_ + "/" + name +
                           "); it holds: " + available);
    }
    const auto [data, size] = entry(name);
    return std::string(reinterpret_cast<const char*>(data), size);
}

namespace {

// The config of one model's weights or constants, or a clear refusal of archives that store
// them pickled (PyTorch before 2.9 wrote data/weights/<model>.pt).
std::string require_config(const Archive& archive, const std::string& folder, const std::string& model,
                           const std::string& kind) {
    const std::string config = folder + model + "_" + kind + "_config.json";
    if (archive.has_entry(config)) return config;
    if (archive.has_entry(folder + model + ".pt")) {
        throw ArchiveError(archive.path() + ": stores its " + kind + " as a pickle (" + archive.root() + "/" + folder +
                           model + ".pt), the format of PyTorch before 2.9, which pt2ov cannot read without "
                           "Python; load it and save it again with PyTorch >= 2.9 (torch.export.save)");
    }
    throw ArchiveError(archive.path() + ": has no " + archive.root() + "/" + config +
                       "; the archive is incomplete: " + kResave);
}

bool is_pickled_object_path(const std::string& path_name) {
    return starts_with(path_name, "custom_obj_") || starts_with(path_name, "opaque_obj_");
}

json parse_config(const std::string& text, const std::string& where) {
    try {
        json config = json::parse(text);
        if (!config.is_object() || !config.contains("config") || !config["config"].is_object()) {
            throw ArchiveError(where + ": has no \"config\" object; the archive is damaged: " + kResave);
        }
        return config;
    } catch (const json::exception& e) {
        throw ArchiveError(where + ": not valid JSON (" + e.what() + "); the archive is damaged: " + kResave);
    }
}

// Elements from the first to the last element the view reads, plus one; 0 for an empty view.
// Throws on negative or overflowing numbers, which only a damaged config holds.
uint64_t view_extent(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, const std::string& where) {
    for (int64_t size : sizes) {
        if (size < 0) throw ArchiveError(where + ": has a negative size; the archive is damaged: " + kResave);
        if (size == 0) return 0;
    }
    uint64_t last = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        uint64_t step = 0;
        if (strides[i] < 0 ||
            __builtin_mul_overflow(static_cast<uint64_t>(sizes[i] - 1), static_cast<uint64_t>(strides[i]), &step) ||
            __builtin_add_overflow(last, step, &last)) {
            throw ArchiveError(where + ": has an impossible size or stride; the archive is damaged: " + kResave);
        }
    }
    return last + 1;
}

// The view (sizes, strides, offset) must lie inside the storage's bytes; a storage of 0 bytes
// behind a non-empty view is what torch writes for a fake tensor.
void check_view_fits(const StoredTensor& tensor, const std::string& where) {
    const uint64_t extent = view_extent(tensor.meta.static_sizes(), tensor.meta.static_strides(), where);
    if (extent == 0) return;
    if (tensor.storage_bytes == 0) {
        throw ArchiveError(where + ": has no data (its entry '" + tensor.storage_path +
                           "' is empty: the program was saved with fake tensors); export and save it from a "
                           "model holding real weights");
    }
    uint64_t end_element = 0;
    uint64_t end_byte = 0;
    const bool overflow = tensor.meta.storage_offset < 0 ||
                          __builtin_add_overflow(static_cast<uint64_t>(tensor.meta.storage_offset), extent, &end_element) ||
                          __builtin_mul_overflow(end_element, dtype_size(tensor.meta.dtype), &end_byte);
    if (overflow || end_byte > tensor.storage_bytes) {
        throw ArchiveError(where + ": its view needs " + (overflow ? std::string("more") : std::to_string(end_byte)) +
                           " bytes but entry '" + tensor.storage_path + "' holds " + std::to_string(tensor.storage_bytes) +
                           "; the archive is damaged: " + kResave);
    }
}

}  // namespace

std::map<std::string, StoredTensor> Archive::read_tensor_config(const std::string& config_entry,
                                                                const std::string& data_folder) const {
    const std::string where = path_ + ": " + root_ + "/" + config_entry;
    const auto [config_data, config_size] = entry(config_entry);
    const json config = parse_config(std::string(reinterpret_cast<const char*>(config_data), config_size), where);
    std::map<std::string, StoredTensor> tensors;
    for (const auto& [name, payload] : config["config"].items()) {
        const std::string tensor_where = where + ": tensor '" + name + "'";
        StoredTensor tensor;
        tensor.name = name;
        try {
            tensor.storage_path = payload.at("path_name").get<std::string>();
            if (is_pickled_object_path(tensor.storage_path)) continue;  // see custom_objects()
            tensor.is_param = payload.value("is_param", false);
            if (payload.value("use_pickle", false)) {
                throw ArchiveError(tensor_where + ": is stored pickled (a tensor subclass, e.g. torchao's quantize_ "
                                   "or another wrapped tensor), which pt2ov cannot read without Python; save the "
                                   "program after ep.run_decompositions(), which stores a subclass's inner tensors "
                                   "as plain ones, or make it a plain torch.Tensor before export");
            }
            if (!payload.contains("tensor_meta") || payload["tensor_meta"].is_null()) {
                throw ArchiveError(tensor_where + ": has no tensor_meta; the archive is damaged: " + kResave);
            }
            tensor.meta = graph::tensor_meta_from_json(payload["tensor_meta"], tensor_where);
        } catch (const json::exception& e) {
            throw ArchiveError(tensor_where + ": malformed entry (" + e.what() + "); the archive is damaged: " + kResave);
        }
        if (!tensor.meta.all_static()) {
            throw ArchiveError(tensor_where + ": has symbolic sizes, which a stored tensor cannot have; " + kResave);
        }
        if (!has_entry(data_folder + tensor.storage_path)) {
            throw ArchiveError(tensor_where + ": its data entry '" + root_ + "/" + data_folder + tensor.storage_path +
                               "' is missing; the archive is incomplete: " + kResave);
        }
        const auto [storage, storage_bytes] = entry(data_folder + tensor.storage_path);
        tensor.storage = storage;
        tensor.storage_bytes = storage_bytes;
        check_view_fits(tensor, tensor_where);
        tensors.emplace(name, std::move(tensor));
    }
    return tensors;
}

std::map<std::string, StoredTensor> Archive::weights(const std::string& model) const {
    return read_tensor_config(require_config(*this, "data/weights/", model, "weights"), "data/weights/");
}

std::map<std::string, StoredTensor> Archive::constants(const std::string& model) const {
    return read_tensor_config(require_config(*this, "data/constants/", model, "constants"), "data/constants/");
}

std::vector<std::string> Archive::custom_objects(const std::string& model) const {
    const std::string config_entry = require_config(*this, "data/constants/", model, "constants");
    const std::string where = path_ + ": " + root_ + "/" + config_entry;
    const auto [data, size] = entry(config_entry);
    const json config = parse_config(std::string(reinterpret_cast<const char*>(data), size), where);
    std::vector<std::string> names;
    for (const auto& [name, payload] : config["config"].items()) {
        const json* path_name = payload.is_object() && payload.contains("path_name") ? &payload["path_name"] : nullptr;
        if (path_name && path_name->is_string() && is_pickled_object_path(path_name->get<std::string>())) {
            names.push_back(name);
        }
    }
    return names;
}

}  // namespace pt2ov::archive
