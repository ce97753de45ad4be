#include "tools/npz.h"

#include <zip.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <unistd.h>

#include "common/bfloat16.h"
#include "pt2ov/error.h"

namespace pt2ov::tools {

namespace {

static_assert(std::endian::native == std::endian::little,
              ".npy data is read and written in place, which assumes a little-endian host");

constexpr std::string_view kAcceptedDTypes =
    "bool, uint8, int8, int16, uint16, int32, int64, float16, float32 or float64 (little-endian)";
constexpr std::string_view kNpyMagic = "\x93NUMPY";
constexpr size_t kNpyAlignment = 64;           // numpy pads headers so the data starts aligned
constexpr size_t kMaxHeaderBytes = 1 << 20;    // a real header is ~128 bytes; more is damage
constexpr int kMaxLiteralDepth = 32;           // nesting in a header; deeper is damage

// ---------------------------------------------------------------------------------------------
// The .npy header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// We parse the small subset of Python literals numpy writes (strings, ints, booleans, None,
// tuples, lists, dicts), so a structured dtype's list descr parses and can be refused by name.

// A damaged header can be long binary junk; an error message shows its start only.
std::string shown_header(std::string_view text) {
    constexpr size_t kShown = 200;
    std::string shown(text.substr(0, kShown));
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.pop_back();
    return text.size() > kShown ? shown + "..." : shown;
}

struct PyLiteral {
    enum class Kind { String, Int, Bool, None, Sequence, Dict } kind = Kind::None;
    std::string text;              // String
    int64_t integer = 0;           // Int
    bool flag = false;             // Bool
    std::vector<PyLiteral> items;  // Sequence; Dict as key, value, key, value, ...

    static PyLiteral of(Kind kind) {
        PyLiteral value;
        value.kind = kind;
        return value;
    }
};

class PyLiteralParser {
public:
    PyLiteralParser(std::string_view text, const std::string& where) : text_(text), where_(where) {}

    PyLiteral parse_whole() {
        PyLiteral value = parse_value(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the header dict");
        return value;
    }

private:
    [[noreturn]] void fail(std::string_view problem) const {
        throw InputError(fmt::format("{}: the .npy header does not parse ({} at offset {}): {}",
                                     where_, problem, pos_, shown_header(text_)));
    }

    void skip_space() {
        constexpr std::string_view kSpace = " \t\r\n";
        while (pos_ < text_.size() && kSpace.find(text_[pos_]) != std::string_view::npos) ++pos_;
    }

    bool accept(char c) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    PyLiteral parse_value(int depth) {
        if (depth > kMaxLiteralDepth) fail("nested too deeply");
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end");
        const char c = text_[pos_];
        if (c == '\'' || c == '"') return parse_string();
        if (c == '(') return parse_sequence(')', depth);
        if (c == '[') return parse_sequence(']', depth);
        if (c == '{') return parse_dict(depth);
        if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return parse_int();
        return parse_word();
    }

    PyLiteral parse_string() {
        const char quote = text_[pos_++];
        PyLiteral value = PyLiteral::of(PyLiteral::Kind::String);
        while (pos_ < text_.size() && text_[pos_] != quote) {
            if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;  // keep the escaped char
            value.text += text_[pos_++];
        }
        if (pos_ >= text_.size()) fail("unterminated string");
        ++pos_;
        return value;
    }

    PyLiteral parse_int() {
        PyLiteral value = PyLiteral::of(PyLiteral::Kind::Int);
        if (text_[pos_] == '+') ++pos_;
        const char* begin = text_.data() + pos_;
        const char* end = text_.data() + text_.size();
        auto [next, error] = std::from_chars(begin, end, value.integer);
        if (error != std::errc()) fail("bad integer");
        pos_ += static_cast<size_t>(next - begin);
        if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;  // Python 2
        return value;
    }

    PyLiteral parse_word() {
        for (auto [word, kind, flag] : {std::tuple{"True", PyLiteral::Kind::Bool, true},
                                        std::tuple{"False", PyLiteral::Kind::Bool, false},
                                        std::tuple{"None", PyLiteral::Kind::None, false}}) {
            if (text_.substr(pos_).starts_with(word)) {
                pos_ += std::strlen(word);
                PyLiteral value = PyLiteral::of(kind);
                value.flag = flag;
                return value;
            }
        }
        fail("unexpected character");
    }

    PyLiteral parse_sequence(char close, int depth) {
        ++pos_;
        PyLiteral value = PyLiteral::of(PyLiteral::Kind::Sequence);
        while (!accept(close)) {
            value.items.push_back(parse_value(depth + 1));
            if (!accept(',')) {
                if (!accept(close)) fail("expected ',' or a closing bracket");
                break;
            }
        }
        return value;
    }

    PyLiteral parse_dict(int depth) {
        ++pos_;
        PyLiteral value = PyLiteral::of(PyLiteral::Kind::Dict);
        while (!accept('}')) {
            value.items.push_back(parse_value(depth + 1));
            if (!accept(':')) fail("expected ':' after a dict key");
            value.items.push_back(parse_value(depth + 1));
            if (!accept(',')) {
                if (!accept('}')) fail("expected ',' or '}'");
                break;
            }
        }
        return value;
    }

    std::string_view text_;
    const std::string& where_;
    size_t pos_ = 0;
};

struct NpyHeader {
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    bool fortran_order = false;
};

// Why a dtype we refuse is refused, in words a numpy user recognises.
std::string refused_dtype_reason(std::string_view descr) {
    const char kind = descr.size() >= 2 ? descr[1] : '?';
    switch (kind) {
        case 'O': return "an object array";
        case 'c': return "complex";
        case 'U': case 'S': case 'a': return "strings";
        case 'V': return "raw bytes (void)";
        case 'M': case 'm': return "datetime";
        default: return "not a dtype the engine takes";
    }
}

DType dtype_from_descr(const PyLiteral& descr, const std::string& where) {
    auto refuse = [&](std::string_view shown, const std::string& reason) -> InputError {
        return InputError(fmt::format("{}: dtype {} ({}) is not accepted; arrays must be {}",
                                      where, shown, reason, kAcceptedDTypes));
    };
    if (descr.kind != PyLiteral::Kind::String) {
        throw refuse("with fields", "a structured array");
    }
    constexpr std::string_view kByteOrders = "<>|=";
    const bool has_byte_order =
        !descr.text.empty() && kByteOrders.find(descr.text[0]) != std::string_view::npos;
    const std::string code = has_byte_order ? descr.text : "=" + descr.text;  // none: native
    const std::string shown = "'" + descr.text + "'";
    if (code.size() < 2) throw refuse(shown, "not a numpy dtype code");
    const std::string_view type = std::string_view(code).substr(1);
    static const std::pair<std::string_view, DType> known[] = {
        {"b1", DType::Bool},    {"u1", DType::UInt8},   {"i1", DType::Int8},
        {"i2", DType::Int16},   {"u2", DType::UInt16},  {"i4", DType::Int32},
        {"i8", DType::Int64},   {"f2", DType::Float16}, {"f4", DType::Float32},
        {"f8", DType::Float64},
    };
    for (const auto& [name, dtype] : known) {
        if (type != name) continue;
        if (code[0] == '>' && dtype_size(dtype) > 1) {
            throw refuse(shown, "big-endian; convert with a.astype(a.dtype.newbyteorder('<'))");
        }
        return dtype;
    }
    if (type == "u4" || type == "u8") throw refuse(shown, type == "u4" ? "uint32" : "uint64");
    throw refuse(shown, refused_dtype_reason(code));
}

std::vector<int64_t> shape_from_literal(const PyLiteral& shape, const std::string& where) {
    if (shape.kind != PyLiteral::Kind::Sequence) {
        throw InputError(fmt::format("{}: the .npy header's 'shape' is not a tuple", where));
    }
    std::vector<int64_t> dims;
    for (const PyLiteral& dim : shape.items) {
        if (dim.kind != PyLiteral::Kind::Int || dim.integer < 0) {
            throw InputError(fmt::format("{}: the .npy header's 'shape' holds a value that is not "
                                         "a size",
                                         where));
        }
        dims.push_back(dim.integer);
    }
    return dims;
}

NpyHeader parse_npy_header(std::string_view text, const std::string& where) {
    const PyLiteral dict = PyLiteralParser(text, where).parse_whole();
    if (dict.kind != PyLiteral::Kind::Dict) {
        throw InputError(
            fmt::format("{}: the .npy header is not a dict: {}", where, shown_header(text)));
    }
    const PyLiteral* descr = nullptr;
    const PyLiteral* fortran_order = nullptr;
    const PyLiteral* shape = nullptr;
    for (size_t i = 0; i + 1 < dict.items.size(); i += 2) {
        const PyLiteral& key = dict.items[i];
        const PyLiteral& value = dict.items[i + 1];
        if (key.kind != PyLiteral::Kind::String) continue;
        if (key.text == "descr") descr = &value;
        if (key.text == "fortran_order") fortran_order = &value;
        if (key.text == "shape") shape = &value;
    }
    if (!descr || !fortran_order || !shape || fortran_order->kind != PyLiteral::Kind::Bool) {
        throw InputError(fmt::format("{}: the .npy header lacks 'descr', 'fortran_order' or "
                                     "'shape': {}",
                                     where, shown_header(text)));
    }
    return NpyHeader{dtype_from_descr(*descr, where), shape_from_literal(*shape, where),
                     fortran_order->flag};
}

// The bytes before the data: magic, version, header length, header padded to the alignment.
std::string format_npy_preamble(std::string_view npy_code, const std::vector<int64_t>& shape) {
    std::string dims;
    for (int64_t dim : shape) dims += fmt::format("{}, ", dim);
    if (shape.size() == 1) dims.pop_back();  // "(3,)" as Python spells a 1-tuple
    else if (!dims.empty()) dims.resize(dims.size() - 2);
    std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                     npy_code, dims);

    // Version 1.0 has a 2-byte header length; 2.0 (same format, 4 bytes) only when that is short.
    for (const auto& [major, length_bytes] : {std::pair{1, 2}, std::pair{2, 4}}) {
        const size_t fixed = kNpyMagic.size() + 2 + length_bytes;
        const size_t unpadded = fixed + header.size() + 1;  // + the closing '\n'
        const size_t total = (unpadded + kNpyAlignment - 1) / kNpyAlignment * kNpyAlignment;
        const size_t header_length = total - fixed;
        if (length_bytes == 2 && header_length > std::numeric_limits<uint16_t>::max()) continue;
        std::string preamble(kNpyMagic);
        preamble += static_cast<char>(major);
        preamble += '\0';
        for (int i = 0; i < length_bytes; ++i) {
            preamble += static_cast<char>((header_length >> (8 * i)) & 0xFF);  // little-endian
        }
        preamble += header;
        preamble.append(header_length - header.size() - 1, ' ');
        preamble += '\n';
        return preamble;
    }
    throw UnsupportedError("an .npy header longer than 4 GiB cannot be written");
}

// ---------------------------------------------------------------------------------------------
// Reading entries with libzip.

struct ZipDiscard {
    void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct ZipFileClose {
    void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using ZipArchive = std::unique_ptr<zip_t, ZipDiscard>;
using ZipFile = std::unique_ptr<zip_file_t, ZipFileClose>;

std::string zip_error_text(int code) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return text;
}

// Checks what libzip's error codes cannot tell apart: a folder, an unreadable file (and why),
// an empty one, and a cut-off zip (it starts like a zip, but libzip finds archives from the end
// record, so it reports "not a zip").
ZipArchive open_npz_for_reading(const std::string& path) {
    const std::string where = fmt::format("'{}'", path);
    // Only a regular file is opened: opening a FIFO blocks until a writer comes, forever.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status)) {
        throw InputError(where + " is a folder, not an .npz file");
    }
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        const char* kind = std::filesystem::is_fifo(status) ? "a FIFO (named pipe)"
                           : std::filesystem::is_socket(status) ? "a socket"
                           : "a device";
        throw InputError(where + " is " + kind + ", not an .npz file");
    }
    errno = 0;
    std::ifstream probe(path, std::ios::binary);
    if (!probe) {
        if (errno == ENOENT || errno == 0) throw InputError(where + ": no such file");
        throw InputError(where + " cannot be read: " + std::strerror(errno));
    }
    char magic[4] = {};
    probe.read(magic, sizeof magic);
    if (probe.gcount() == 0) throw InputError(where + " is empty (0 bytes), not an .npz file");
    const bool starts_like_a_zip = std::string_view(magic, sizeof magic) == "PK\x03\x04";

    int code = 0;
    zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (archive) return ZipArchive(archive);
    if (code == ZIP_ER_NOZIP && !starts_like_a_zip) {
        throw InputError(where + " is not an .npz file (not a zip archive; write inputs with "
                                 "numpy.savez)");
    }
    if (code == ZIP_ER_NOZIP || code == ZIP_ER_INCONS) {
        throw InputError(where + " is a truncated or damaged zip archive (" +
                         zip_error_text(code) + ")");
    }
    throw InputError(where + " cannot be opened as an .npz file: " + zip_error_text(code));
}

// Reads one entry's bytes in order, failing with the entry named when they run short.
class EntryReader {
public:
    EntryReader(ZipFile file, uint64_t size, std::string where)
        : file_(std::move(file)), size_(size), where_(std::move(where)) {}

    uint64_t remaining() const { return size_ - consumed_; }

    void read_exact(void* buffer, uint64_t bytes, std::string_view what) {
        auto* out = static_cast<char*>(buffer);
        uint64_t done = 0;
        while (done < bytes) {
            const uint64_t chunk = std::min<uint64_t>(bytes - done, uint64_t{1} << 30);
            const zip_int64_t got = zip_fread(file_.get(), out + done, chunk);
            if (got < 0) fail_read(what);
            if (got == 0) {
                throw InputError(fmt::format("{}: the entry ends after {} of the {} bytes of its "
                                             "{} (the file is truncated or damaged)",
                                             where_, done, bytes, what));
            }
            done += static_cast<uint64_t>(got);
        }
        consumed_ += bytes;
    }

    // Reading past the end is what makes libzip check the CRC and notice surplus bytes.
    void expect_end() {
        char extra;
        const zip_int64_t got = zip_fread(file_.get(), &extra, 1);
        if (got < 0) fail_read("data");
        if (got > 0) {
            throw InputError(fmt::format("{}: the entry holds more bytes than its zip directory "
                                         "says (the file is damaged)",
                                         where_));
        }
    }

private:
    [[noreturn]] void fail_read(std::string_view what) const {
        throw InputError(fmt::format("{}: cannot read its {}: {} (the file is truncated or "
                                     "damaged)",
                                     where_, what, zip_file_strerror(file_.get())));
    }

    ZipFile file_;
    uint64_t size_;
    uint64_t consumed_ = 0;
    std::string where_;
};

// Magic, version and header length; returns the header text.
std::string read_npy_header_text(EntryReader& reader, const std::string& where) {
    char preamble[8];
    if (reader.remaining() < sizeof preamble) {
        throw InputError(fmt::format("{}: the entry is {} bytes, too short for an .npy array",
                                     where, reader.remaining()));
    }
    reader.read_exact(preamble, sizeof preamble, ".npy preamble");
    if (std::string_view(preamble, kNpyMagic.size()) != kNpyMagic) {
        throw InputError(where + ": the entry is not an .npy array (no \\x93NUMPY magic)");
    }
    const int major = static_cast<unsigned char>(preamble[6]);
    const int minor = static_cast<unsigned char>(preamble[7]);
    if (major < 1 || major > 3 || minor != 0) {
        throw InputError(fmt::format("{}: .npy format version {}.{} is not one we read (1.0, 2.0, "
                                     "3.0)",
                                     where, major, minor));
    }
    unsigned char length_bytes[4] = {0, 0, 0, 0};
    const size_t length_size = major == 1 ? 2 : 4;
    reader.read_exact(length_bytes, length_size, ".npy header length");
    uint64_t header_length = 0;
    for (size_t i = 0; i < length_size; ++i) header_length |= uint64_t{length_bytes[i]} << (8 * i);
    if (header_length > reader.remaining() || header_length > kMaxHeaderBytes) {
        throw InputError(fmt::format("{}: the .npy header claims {} bytes but the entry has only "
                                     "{} left (the file is damaged)",
                                     where, header_length, reader.remaining()));
    }
    std::string header(header_length, '\0');
    reader.read_exact(header.data(), header_length, ".npy header");
    return header;
}

uint64_t checked_byte_size(const NpyHeader& header, const std::string& where) {
    uint64_t bytes = dtype_size(header.dtype);
    for (int64_t dim : header.shape) {
        const auto udim = static_cast<uint64_t>(dim);
        if (udim != 0 && bytes > std::numeric_limits<uint64_t>::max() / udim) {
            throw InputError(where + ": the .npy header's shape is impossibly large");
        }
        bytes *= udim;
    }
    return bytes;
}

// numpy writes a Fortran-order array's data with the first index varying fastest.
void copy_fortran_to_c_order(const std::byte* fortran, std::byte* c_order,
                             const std::vector<int64_t>& shape, size_t element_size) {
    const size_t rank = shape.size();
    size_t count = 1;
    for (int64_t dim : shape) count *= static_cast<size_t>(dim);
    if (count == 0) return;
    std::vector<size_t> fortran_stride(rank, 1), index(rank, 0);
    for (size_t d = 1; d < rank; ++d) {
        fortran_stride[d] = fortran_stride[d - 1] * static_cast<size_t>(shape[d - 1]);
    }

    size_t source = 0;  // element offset in the Fortran data of the current C-order index
    for (size_t out = 0; out < count; ++out) {
        std::memcpy(c_order + out * element_size, fortran + source * element_size, element_size);
        for (size_t d = rank; d-- > 0;) {  // odometer: the last dim turns fastest in C order
            if (++index[d] < static_cast<size_t>(shape[d])) {
                source += fortran_stride[d];
                break;
            }
            source -= fortran_stride[d] * (index[d] - 1);
            index[d] = 0;
        }
    }
}

Tensor allocate_for_reading(const NpyHeader& header, const std::string& where) {
    try {
        return Tensor::allocate(header.dtype, header.shape);
    } catch (const std::bad_alloc&) {
        throw InputError(where + ": not enough memory for the array");
    } catch (const Error& e) {
        throw InputError(where + ": " + e.what());
    }
}

Tensor read_npy_entry(EntryReader& reader, const std::string& where) {
    const NpyHeader header = parse_npy_header(read_npy_header_text(reader, where), where);
    const uint64_t data_bytes = checked_byte_size(header, where);
    if (data_bytes != reader.remaining()) {
        throw InputError(fmt::format("{}: the .npy header describes {} bytes of {} data but the "
                                     "entry holds {} (the file is damaged)",
                                     where, data_bytes, dtype_name(header.dtype),
                                     reader.remaining()));
    }
    Tensor tensor = allocate_for_reading(header, where);
    if (header.fortran_order && header.shape.size() > 1) {
        Tensor fortran = allocate_for_reading(header, where);
        reader.read_exact(fortran.data(), data_bytes, "data");
        copy_fortran_to_c_order(fortran.data_as<std::byte>(), tensor.data_as<std::byte>(),
                                header.shape, dtype_size(header.dtype));
    } else {
        reader.read_exact(tensor.data(), data_bytes, "data");
    }
    reader.expect_end();
    if (header.dtype == DType::Bool) {
        // Kernels and OpenVINO take a bool byte to be 0 or 1; numpy agrees, a damaged file may not.
        auto* bytes = tensor.data_as<uint8_t>();
        for (size_t i = 0; i < data_bytes; ++i) bytes[i] = bytes[i] != 0;
    }
    return tensor;
}

// The zip directory can claim any size, and we allocate what it claims before reading: check the
// claim against the bytes that hold it first (stored data is itself; deflate expands at most
// 1032:1), so a damaged or hostile file cannot make us allocate and zero terabytes.
void check_size_is_plausible(const zip_stat_t& stat, uint64_t file_bytes,
                             const std::string& where) {
    constexpr uint64_t kMaxDeflateRatio = 1032;
    const bool known = (stat.valid & ZIP_STAT_COMP_SIZE) && (stat.valid & ZIP_STAT_COMP_METHOD);
    if (!known) return;
    const bool implausible =
        stat.comp_size > file_bytes ||
        (stat.comp_method == ZIP_CM_STORE && stat.size != stat.comp_size) ||
        (stat.comp_method == ZIP_CM_DEFLATE && stat.size / kMaxDeflateRatio > stat.comp_size + 1);
    if (implausible) {
        throw InputError(fmt::format("{}: the zip directory claims {} bytes for the entry but it "
                                     "is stored in {} (the file is damaged)",
                                     where, stat.size, stat.comp_size));
    }
}

NamedArray read_zip_entry(zip_t* archive, zip_uint64_t index, const std::string& path,
                          uint64_t file_bytes) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_NAME) ||
        !(stat.valid & ZIP_STAT_SIZE)) {
        throw InputError(fmt::format("'{}': cannot read entry {} of the zip: {}", path, index,
                                     zip_strerror(archive)));
    }
    std::string name = stat.name;
    if (name.ends_with(".npy")) name.resize(name.size() - 4);
    const std::string where = fmt::format("'{}', array '{}'", path, name);
    check_size_is_plausible(stat, file_bytes, where);

    ZipFile file(zip_fopen_index(archive, index, 0));
    if (!file) {
        throw InputError(
            fmt::format("{}: cannot open the entry: {}", where, zip_strerror(archive)));
    }
    EntryReader reader(std::move(file), stat.size, where);
    return NamedArray{name, read_npy_entry(reader, where)};
}

// np.savez's positional number, for "arr_<digits>" names.
std::optional<uint64_t> positional_number(std::string_view name) {
    if (!name.starts_with("arr_") || name.size() == 4) return std::nullopt;
    uint64_t number = 0;
    const char* begin = name.data() + 4;
    const char* end = name.data() + name.size();
    auto [next, error] = std::from_chars(begin, end, number);
    if (error != std::errc() || next != end) return std::nullopt;
    return number;
}

void sort_positional_first(std::vector<NamedArray>& arrays) {
    std::stable_sort(arrays.begin(), arrays.end(), [](const NamedArray& a, const NamedArray& b) {
        const auto number_a = positional_number(a.name);
        const auto number_b = positional_number(b.name);
        if (number_a && number_b) return *number_a < *number_b;
        return number_a.has_value() && !number_b.has_value();
    });
}

// ---------------------------------------------------------------------------------------------
// Writing.

// A name in the output's folder that no other writer (thread or process) picks at the same time.
std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
    static std::atomic<uint64_t> counter{0};
    std::filesystem::path sibling = path;
    sibling.replace_filename(fmt::format(".{}.{}-{}.tmp", path.filename().string(), ::getpid(),
                                         counter.fetch_add(1)));
    return sibling;
}

// Removes the temporary file unless it was renamed into place.
class TemporaryFile {
public:
    explicit TemporaryFile(std::filesystem::path path) : path_(std::move(path)) {}
    ~TemporaryFile() {
        std::error_code ignored;
        if (!committed_) std::filesystem::remove(path_, ignored);
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    const std::filesystem::path& path() const { return path_; }
    void committed() { committed_ = true; }

private:
    std::filesystem::path path_;
    bool committed_ = false;
};

// One entry's bytes, kept alive until the archive is closed (libzip reads them then).
struct PreparedEntry {
    std::string entry_name;
    std::string preamble;
    Tensor data;  // a bf16 tensor's float32 copy, or the caller's tensor itself
};

std::vector<PreparedEntry> prepare_entries(const std::string& path,
                                           const std::vector<NamedArray>& arrays) {
    std::vector<PreparedEntry> entries;
    std::set<std::string> seen;
    for (const NamedArray& array : arrays) {
        if (array.name.empty()) {
            throw InternalError(fmt::format("cannot write '{}': an array has no name", path));
        }
        if (!seen.insert(array.name).second) {
            throw InternalError(
                fmt::format("cannot write '{}': two arrays are named '{}'", path, array.name));
        }
        if (array.tensor.data() == nullptr && array.tensor.numel() != 0) {
            throw InternalError(fmt::format("cannot write '{}': array '{}' has no data", path, array.name));
        }
        Tensor data = array.tensor.dtype() == DType::BFloat16 ? float32_from_bfloat16(array.tensor)
                                                              : array.tensor;
        std::string preamble = format_npy_preamble(dtype_npy_code(data.dtype()), data.shape());
        entries.push_back(PreparedEntry{array.name + ".npy", std::move(preamble), std::move(data)});
    }
    return entries;
}

void add_entry(zip_t* archive, PreparedEntry& entry, const std::string& path) {
    zip_buffer_fragment_t fragments[2];
    zip_uint64_t count = 0;
    fragments[count++] = {reinterpret_cast<zip_uint8_t*>(entry.preamble.data()),
                          entry.preamble.size()};
    if (entry.data.byte_size() > 0) {
        fragments[count++] = {entry.data.data_as<zip_uint8_t>(), entry.data.byte_size()};
    }
    zip_source_t* source = zip_source_buffer_fragment(archive, fragments, count, 0);
    if (!source) {
        throw ResourceError(fmt::format("cannot write '{}': {}", path, zip_strerror(archive)));
    }
    const zip_int64_t index =
        zip_file_add(archive, entry.entry_name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
        zip_source_free(source);  // not yet owned by the archive
        throw ResourceError(fmt::format("cannot write '{}': entry '{}': {}", path, entry.entry_name,
                                zip_strerror(archive)));
    }
    // Stored, as np.savez does: the reader then needs no inflating and the data stays in place.
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
}

void write_zip(const std::filesystem::path& target, std::vector<PreparedEntry>& entries,
               const std::string& path) {
    int code = 0;
    ZipArchive archive(zip_open(target.c_str(), ZIP_CREATE | ZIP_EXCL, &code));
    if (!archive) {
        throw ResourceError(fmt::format("cannot write '{}': {}", path, zip_error_text(code)));
    }
    for (PreparedEntry& entry : entries) add_entry(archive.get(), entry, path);
    if (zip_close(archive.get()) != 0) {
        throw ResourceError(fmt::format("cannot write '{}': {}", path, zip_strerror(archive.get())));
    }
    archive.release();  // zip_close freed it
}

// libzip writes no file for an archive without entries, but np.savez(path) does: an empty zip.
void write_empty_zip(const std::filesystem::path& target, const std::string& path) {
    static const char end_of_central_directory[22] = {'P', 'K', 5, 6};
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(end_of_central_directory, sizeof end_of_central_directory);
    out.close();
    if (!out) throw ResourceError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

}  // namespace

std::vector<NamedArray> read_npz(const std::string& path) {
    ZipArchive archive = open_npz_for_reading(path);
    std::error_code ec;
    const uint64_t file_bytes = std::filesystem::file_size(path, ec);
    const zip_int64_t entry_count = zip_get_num_entries(archive.get(), 0);
    std::vector<NamedArray> arrays;
    std::set<std::string> names;
    for (zip_int64_t i = 0; i < entry_count; ++i) {
        const char* entry_name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
        if (entry_name && std::string_view(entry_name).ends_with('/')) continue;  // a folder entry
        NamedArray array =
            read_zip_entry(archive.get(), static_cast<zip_uint64_t>(i), path, file_bytes);
        if (!names.insert(array.name).second) {
            throw InputError(fmt::format("'{}' holds two arrays named '{}'", path, array.name));
        }
        arrays.push_back(std::move(array));
    }
    sort_positional_first(arrays);
    return arrays;
}

void write_npz(const std::string& path, const std::vector<NamedArray>& arrays) {
    std::vector<PreparedEntry> entries = prepare_entries(path, arrays);
    TemporaryFile temporary(temporary_sibling(path));
    if (entries.empty()) {
        write_empty_zip(temporary.path(), path);
    } else {
        write_zip(temporary.path(), entries, path);
    }
    std::error_code ec;
    std::filesystem::rename(temporary.path(), path, ec);
    if (ec) throw ResourceError(fmt::format("cannot write '{}': {}", path, ec.message()));
    temporary.committed();
}

Tensor bfloat16_from_float32(const Tensor& float32_tensor) {
    if (float32_tensor.dtype() != DType::Float32) {
        throw InputError(fmt::format("a bfloat16 input travels as a float32 array, not {}",
                                     dtype_name(float32_tensor.dtype())));
    }
    Tensor result = Tensor::allocate(DType::BFloat16, float32_tensor.shape());
    const auto* in = float32_tensor.data_as<const float>();
    auto* out = result.data_as<uint16_t>();
    const auto count = static_cast<size_t>(float32_tensor.numel());
    for (size_t i = 0; i < count; ++i) {
        const float value = in[i];
        if (const auto exact = bfloat16_bits_if_exact(value)) {
            out[i] = *exact;  // every bf16 value, NaNs with their payload included
        } else if (std::isnan(value)) {
            // Another NaN: its payload means nothing to PyTorch, and cutting it to 16 bits could
            // make it infinity. bf16's quiet NaN, with the sign kept.
            out[i] = float_to_bfloat16_bits(value) | (std::signbit(value) ? 0x8000u : 0u);
        } else {
            throw InputError(fmt::format(
                "a bfloat16 input travels as a float32 array holding bfloat16 values exactly, but "
                "element {} is {} (0x{:08x}), which bfloat16 cannot hold; round it to bfloat16 "
                "first (e.g. torch.tensor(a).bfloat16().float().numpy())",
                i, value, std::bit_cast<uint32_t>(value)));
        }
    }
    return result;
}

Tensor float32_from_bfloat16(const Tensor& bfloat16_tensor) {
    if (bfloat16_tensor.dtype() != DType::BFloat16) {
        throw InternalError(fmt::format("float32_from_bfloat16 takes a bfloat16 tensor, not {}",
                                dtype_name(bfloat16_tensor.dtype())));
    }
    Tensor result = Tensor::allocate(DType::Float32, bfloat16_tensor.shape());
    const auto* in = bfloat16_tensor.data_as<const uint16_t>();
    auto* out = result.data_as<float>();
    const auto count = static_cast<size_t>(bfloat16_tensor.numel());
    for (size_t i = 0; i < count; ++i) out[i] = bfloat16_bits_to_float(in[i]);
    return result;
}

}  // namespace pt2ov::tools
