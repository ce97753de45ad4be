// The stored (uncompressed) entries of a zip held in memory, found through its central
// directory, and their CRC-32s recomputed after a mutation. A .pt2 is a zip of stored entries
// whose reader checks every entry's CRC: a byte flipped inside model.json is refused as a
// damaged archive before the JSON parser sees it. The archive target's mutator mutates inside
// one entry and then makes the checksums true again, so its mutations reach the parsers.
//
// Every read is bounds-checked: the mutator runs on arbitrary bytes.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pt2ov::fuzz {

struct StoredEntry {
    std::string name;
    size_t central_header = 0;  // offset of its central-directory record
    size_t local_header = 0;    // offset of its local header
    size_t data = 0;            // offset of its bytes
    size_t size = 0;            // its byte count (stored: compressed and uncompressed alike)
};

namespace zip_detail {

inline bool fits(size_t size, size_t offset, size_t count) { return offset <= size && count <= size - offset; }

inline uint64_t read_le(const uint8_t* data, size_t size, size_t offset, size_t bytes, bool& ok) {
    if (!fits(size, offset, bytes)) {
        ok = false;
        return 0;
    }
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(data[offset + i]) << (8 * i);
    return value;
}

inline void write_le32(uint8_t* data, size_t size, size_t offset, uint32_t value) {
    if (!fits(size, offset, 4)) return;
    for (size_t i = 0; i < 4; ++i) data[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50,
                   kZip64Locator = 0x07064b50, kZip64End = 0x06064b50, kDataDescriptor = 0x08074b50;

}  // namespace zip_detail

// The stored entries whose records all lie within the bytes; nothing when the end of the
// central directory is not found.
inline std::vector<StoredEntry> stored_entries(const uint8_t* data, size_t size) {
    using namespace zip_detail;
    std::vector<StoredEntry> entries;
    if (size < 22) return entries;
    bool ok = true;
    // The end record is the last 22 bytes plus a comment of at most 65,535.
    size_t end = size - 22;
    const size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
    while (read_le(data, size, end, 4, ok) != kEndOfDirectory) {
        if (end == lowest) return entries;
        --end;
    }
    uint64_t count = read_le(data, size, end + 10, 2, ok);
    uint64_t directory = read_le(data, size, end + 16, 4, ok);
    if ((count == 0xFFFF || directory == 0xFFFFFFFF) && end >= 20 &&
        read_le(data, size, end - 20, 4, ok) == kZip64Locator) {
        const uint64_t zip64_end = read_le(data, size, end - 20 + 8, 8, ok);
        if (zip64_end < size && read_le(data, size, static_cast<size_t>(zip64_end), 4, ok) == kZip64End) {
            count = read_le(data, size, static_cast<size_t>(zip64_end) + 32, 8, ok);
            directory = read_le(data, size, static_cast<size_t>(zip64_end) + 48, 8, ok);
        }
    }
    size_t at = static_cast<size_t>(directory);
    for (uint64_t i = 0; i < count && ok && at < size; ++i) {
        if (read_le(data, size, at, 4, ok) != kCentralHeader) break;
        const uint64_t method = read_le(data, size, at + 10, 2, ok);
        uint64_t stored_size = read_le(data, size, at + 20, 4, ok);
        const size_t name_length = static_cast<size_t>(read_le(data, size, at + 28, 2, ok));
        const size_t extra_length = static_cast<size_t>(read_le(data, size, at + 30, 2, ok));
        const size_t comment_length = static_cast<size_t>(read_le(data, size, at + 32, 2, ok));
        uint64_t local = read_le(data, size, at + 42, 4, ok);
        if (!ok || !fits(size, at + 46, name_length + extra_length)) break;
        // zip64 sizes and offset, in the extra field's 0x0001 block, in this order when present
        for (size_t x = at + 46 + name_length; x + 4 <= at + 46 + name_length + extra_length;) {
            const uint64_t id = read_le(data, size, x, 2, ok), length = read_le(data, size, x + 2, 2, ok);
            if (id == 1) {
                size_t field = x + 4;
                const uint64_t uncompressed = read_le(data, size, at + 24, 4, ok);
                if (uncompressed == 0xFFFFFFFF) field += 8;
                if (stored_size == 0xFFFFFFFF) stored_size = read_le(data, size, field, 8, ok), field += 8;
                if (local == 0xFFFFFFFF) local = read_le(data, size, field, 8, ok);
            }
            x += 4 + static_cast<size_t>(length);
        }
        StoredEntry entry;
        entry.name.assign(reinterpret_cast<const char*>(data + at + 46), name_length);
        entry.central_header = at;
        entry.local_header = static_cast<size_t>(local);
        entry.size = static_cast<size_t>(stored_size);
        at += 46 + name_length + extra_length + comment_length;
        if (method != 0 || local >= size || read_le(data, size, entry.local_header, 4, ok) != kLocalHeader) continue;
        const size_t local_name = static_cast<size_t>(read_le(data, size, entry.local_header + 26, 2, ok));
        const size_t local_extra = static_cast<size_t>(read_le(data, size, entry.local_header + 28, 2, ok));
        entry.data = entry.local_header + 30 + local_name + local_extra;
        if (ok && fits(size, entry.data, entry.size)) entries.push_back(std::move(entry));
    }
    return entries;
}

// Writes the CRC-32 of `entry`'s bytes where the zip records it: the central directory, the
// local header, and the data descriptor after the bytes when the entry has one.
inline void fix_crc(uint8_t* data, size_t size, const StoredEntry& entry) {
    using namespace zip_detail;
    if (!fits(size, entry.data, entry.size)) return;
    const auto crc = static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), data + entry.data, static_cast<uInt>(entry.size)));
    bool ok = true;
    write_le32(data, size, entry.central_header + 16, crc);
    const uint64_t flags = read_le(data, size, entry.local_header + 6, 2, ok);
    const bool has_descriptor = ok && (flags & 0x8) != 0;
    // With a data descriptor the local header's CRC field is 0 and stays so.
    if (!has_descriptor) write_le32(data, size, entry.local_header + 14, crc);
    if (has_descriptor) {
        const size_t after = entry.data + entry.size;
        const bool signed_descriptor = read_le(data, size, after, 4, ok) == kDataDescriptor;
        write_le32(data, size, signed_descriptor ? after + 4 : after, crc);
    }
}

}  // namespace pt2ov::fuzz
