// .npz reading and writing (src/tools/npz.h): our own round trips, files numpy wrote, files
// numpy must read back, and damaged files that must fail as InputError and never crash.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "pt2ov/error.h"
#include "tools/npz.h"

namespace {

namespace fs = std::filesystem;
using pt2ov::DType;
using pt2ov::Tensor;
using pt2ov::tools::NamedArray;
using pt2ov::tools::read_npz;
using pt2ov::tools::write_npz;

const DType kAllDTypes[] = {DType::Bool,  DType::UInt8,   DType::Int8,     DType::Int16,
                            DType::UInt16, DType::Int32,  DType::Int64,    DType::Float16,
                            DType::BFloat16, DType::Float32, DType::Float64};

// ---------------------------------------------------------------------------------------------
// Helpers

// A fresh folder per test, removed afterwards.
class NpzTest : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        dir_ = fs::temp_directory_path() /
               ("pt2ov_npz_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    fs::path dir_;
};

std::string python_executable() { return std::string(PT2OV_SOURCE_DIR) + "/.venv/bin/python"; }

// Runs `script` with the venv's Python; returns its exit status.
int run_python(const fs::path& dir, const std::string& script,
               const std::vector<std::string>& args) {
    const fs::path script_path = dir / "script.py";
    std::ofstream(script_path) << script;
    std::string command = "'" + python_executable() + "' '" + script_path.string() + "'";
    for (const std::string& arg : args) command += " '" + arg + "'";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define REQUIRE_PYTHON()                                                                  \
    do {                                                                                  \
        if (::access(python_executable().c_str(), X_OK) != 0)                              \
            GTEST_SKIP() << "no Python venv at " << python_executable() << " (make setup)"; \
    } while (0)

std::vector<uint8_t> read_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& file, const std::vector<uint8_t>& bytes) {
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
}

std::vector<uint8_t> tensor_bytes(const Tensor& tensor) {
    const auto* begin = tensor.data_as<const uint8_t>();
    return {begin, begin + tensor.byte_size()};
}

template <typename T, typename Value>
void fill(Tensor& tensor, Value value_at) {
    for (int64_t i = 0; i < tensor.numel(); ++i) {
        tensor.data_as<T>()[i] = static_cast<T>(value_at(static_cast<int64_t>(i)));
    }
}

// Deterministic contents that are valid values of the dtype (bools 0/1, no NaN bit patterns).
Tensor sample_tensor(DType dtype, std::vector<int64_t> shape, int seed) {
    Tensor t = Tensor::allocate(dtype, std::move(shape));
    auto real = [seed](int64_t i) { return (double((i * 37 + seed * 11) % 101) - 50.0) * 1.25; };
    switch (dtype) {
        case DType::Bool: fill<uint8_t>(t, [&](int64_t i) { return (i + seed) % 3 == 0; }); break;
        case DType::UInt8: fill<uint8_t>(t, [&](int64_t i) { return i * 7 + seed; }); break;
        case DType::Int8: fill<int8_t>(t, [&](int64_t i) { return i * 7 + seed; }); break;
        case DType::Int16: fill<int16_t>(t, [&](int64_t i) { return i * 977 - seed; }); break;
        case DType::UInt16: fill<uint16_t>(t, [&](int64_t i) { return i * 977 + seed; }); break;
        case DType::Int32: fill<int32_t>(t, [&](int64_t i) { return i * 100003 - seed; }); break;
        case DType::Int64:
            fill<int64_t>(t, [&](int64_t i) { return i * 10000000019 - seed; });
            break;
        case DType::Float16:  // 1.0 upwards in small steps: finite halves
            fill<uint16_t>(t, [&](int64_t i) { return 0x3C00 + i * 3 + seed; });
            break;
        case DType::BFloat16:  // the top half of a float32
            fill<uint16_t>(t, [&](int64_t i) {
                return std::bit_cast<uint32_t>(static_cast<float>(real(i))) >> 16;
            });
            break;
        case DType::Float32: fill<float>(t, [&](int64_t i) { return real(i) / 3.0; }); break;
        case DType::Float64: fill<double>(t, [&](int64_t i) { return real(i) / 7.0; }); break;
    }
    return t;
}

// `body` must throw a pt2ov::InputError whose message holds every one of `expected`.
void expect_input_error(const std::function<void()>& body,
                        const std::vector<std::string>& expected) {
    try {
        body();
        ADD_FAILURE() << "expected pt2ov::InputError, nothing was thrown";
    } catch (const pt2ov::InputError& e) {
        const std::string message = e.what();
        for (const std::string& part : expected) {
            EXPECT_NE(message.find(part), std::string::npos)
                << "'" << part << "' not in: " << message;
        }
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected pt2ov::InputError, got: " << e.what();
    }
}

using RawEntries = std::vector<std::pair<std::string, std::string>>;  // name, bytes

// A zip whose entries hold exactly the given bytes, for files numpy would never write.
void write_raw_zip(const std::string& file, const RawEntries& entries) {
    int code = 0;
    zip_t* archive = zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    ASSERT_NE(archive, nullptr);
    for (const auto& [name, bytes] : entries) {
        zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
        ASSERT_NE(source, nullptr);
        ASSERT_GE(zip_file_add(archive, name.c_str(), source, 0), 0);
    }
    ASSERT_EQ(zip_close(archive), 0);
}

// An .npy entry with the given header text (padded as numpy pads) and data.
std::string make_npy(const std::string& header, const std::string& data, int major = 1) {
    const size_t length_bytes = major == 1 ? 2 : 4;
    const size_t fixed = 8 + length_bytes;
    const size_t total = (fixed + header.size() + 1 + 63) / 64 * 64;
    const size_t header_length = total - fixed;
    std::string npy = "\x93NUMPY";
    npy += static_cast<char>(major);
    npy += '\0';
    for (size_t i = 0; i < length_bytes; ++i) {
        npy += static_cast<char>((header_length >> (8 * i)) & 0xFF);
    }
    npy += header + std::string(header_length - header.size() - 1, ' ') + "\n";
    return npy + data;
}

// The header numpy would write for a C-order array.
std::string header_for(const std::string& descr, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

std::vector<std::string> names_of(const std::vector<NamedArray>& arrays) {
    std::vector<std::string> names;
    for (const NamedArray& array : arrays) names.push_back(array.name);
    return names;
}

// ---------------------------------------------------------------------------------------------
// Round trips through our own reader and writer.

using NpzRoundTrip = NpzTest;

TEST_F(NpzRoundTrip, EveryDTypeAndRankKeepsDTypeShapeAndBytes) {
    const std::vector<std::vector<int64_t>> shapes = {{},        {5},       {0},         {2, 3},
                                                      {2, 0, 3}, {2, 3, 4}, {1, 2, 3, 2}};
    std::vector<NamedArray> written;
    int seed = 0;
    for (DType dtype : kAllDTypes) {
        if (dtype == DType::BFloat16) continue;  // travels as float32: its own test
        for (const auto& shape : shapes) {
            written.push_back({"a" + std::to_string(seed), sample_tensor(dtype, shape, seed)});
            ++seed;
        }
    }
    const std::string file = path("all.npz");
    write_npz(file, written);
    const std::vector<NamedArray> read = read_npz(file);

    ASSERT_EQ(read.size(), written.size());
    for (size_t i = 0; i < read.size(); ++i) {
        SCOPED_TRACE(written[i].name + " " +
                     std::string(pt2ov::dtype_name(written[i].tensor.dtype())));
        EXPECT_EQ(read[i].name, written[i].name);
        EXPECT_EQ(read[i].tensor.dtype(), written[i].tensor.dtype());
        EXPECT_EQ(read[i].tensor.shape(), written[i].tensor.shape());
        EXPECT_EQ(read[i].tensor.rank(), written[i].tensor.shape().size());
        EXPECT_EQ(tensor_bytes(read[i].tensor), tensor_bytes(written[i].tensor));
        EXPECT_EQ(reinterpret_cast<uintptr_t>(read[i].tensor.data()) % 64, 0u);
    }
}

TEST_F(NpzRoundTrip, BFloat16IsWrittenAsExactFloat32AndConvertsBack) {
    const uint16_t bits[] = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0,
                             0x0001, 0x807F, 0x7F7F, 0x3DCD, 0x4049};
    Tensor bf16 = Tensor::allocate(DType::BFloat16, {3, 4});
    std::memcpy(bf16.data(), bits, sizeof bits);
    const std::string file = path("bf16.npz");
    write_npz(file, {{"x", bf16}});

    const auto read = read_npz(file);
    ASSERT_EQ(read.size(), 1u);
    const Tensor& f32 = read[0].tensor;
    ASSERT_EQ(f32.dtype(), DType::Float32);
    ASSERT_EQ(f32.shape(), (std::vector<int64_t>{3, 4}));
    for (size_t i = 0; i < std::size(bits); ++i) {
        EXPECT_EQ(f32.data_as<uint32_t>()[i], uint32_t{bits[i]} << 16) << "element " << i;
    }
    const Tensor back = pt2ov::tools::bfloat16_from_float32(f32);
    ASSERT_EQ(back.dtype(), DType::BFloat16);
    EXPECT_EQ(back.shape(), bf16.shape());
    EXPECT_EQ(tensor_bytes(back), tensor_bytes(bf16));
}

TEST_F(NpzRoundTrip, PositionalNamesComeFirstInNumberOrderThenOthersInWrittenOrder) {
    std::vector<NamedArray> written;
    for (const char* name :
         {"zeta", "arr_10", "arr_2", "alpha", "arr_0", "arr_9", "arr_", "arr_1x", "arr_1"}) {
        written.push_back({name, sample_tensor(DType::Int32, {1}, 0)});
    }
    const std::string file = path("order.npz");
    write_npz(file, written);
    EXPECT_EQ(names_of(read_npz(file)),
              (std::vector<std::string>{"arr_0", "arr_1", "arr_2", "arr_9", "arr_10", "zeta",
                                        "alpha", "arr_", "arr_1x"}));
}

TEST_F(NpzRoundTrip, EmptyListWritesAnEmptyArchive) {
    const std::string file = path("none.npz");
    write_npz(file, {});
    EXPECT_TRUE(fs::exists(file));
    EXPECT_TRUE(read_npz(file).empty());
}

// ---------------------------------------------------------------------------------------------
// Writing: atomic, clear errors, ordinary file permissions.

using NpzWrite = NpzTest;

TEST_F(NpzWrite, OverwritesAndLeavesNoTemporaryFiles) {
    const std::string file = path("out.npz");
    write_npz(file, {{"a", sample_tensor(DType::Float32, {2}, 1)}});
    write_npz(file, {{"b", sample_tensor(DType::Int64, {3}, 2)}});
    const auto read = read_npz(file);
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].name, "b");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(NpzWrite, FileGetsTheUmaskPermissionsNotPrivateOnes) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    const std::string file = path("perm.npz");
    write_npz(file, {{"a", sample_tensor(DType::Float32, {2}, 1)}});
    struct stat info {};
    ASSERT_EQ(::stat(file.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0666u & ~mask);
}

TEST_F(NpzWrite, FailureNamesThePathAndKeepsTheOldFile) {
    const std::string file = path("keep.npz");
    write_npz(file, {{"a", sample_tensor(DType::Float32, {2}, 1)}});
    const auto before = read_bytes(file);

    const Tensor t = sample_tensor(DType::Float32, {2}, 3);
    try {
        write_npz(file, {{"same", t}, {"same", t}});
        ADD_FAILURE() << "duplicate names were written";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("same"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_bytes(file), before);

    const std::string nowhere = path("no/such/folder/out.npz");
    try {
        write_npz(nowhere, {{"a", t}});
        ADD_FAILURE() << "wrote into a missing folder";
    } catch (const pt2ov::Error& e) {
        EXPECT_NE(std::string(e.what()).find(nowhere), std::string::npos) << e.what();
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

// numpy must read what we write: names in order, dtype codes, shapes, bytes, stored entries.
using NpzReadSpecialFiles = NpzTest;

TEST_F(NpzReadSpecialFiles, FifoAndDeviceAreRefusedWithoutBlocking) {
    const std::string fifo = path("pipe.npz");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // Opening a FIFO for reading would block until a writer comes: it is never opened.
    try {
        pt2ov::tools::read_npz(fifo);
        ADD_FAILURE() << "read a FIFO";
    } catch (const pt2ov::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("FIFO"), std::string::npos) << e.what();
    }
    EXPECT_THROW(pt2ov::tools::read_npz("/dev/null"), pt2ov::InputError);
}

TEST_F(NpzWrite, NumpyReadsEveryDTypeAndRank) {
    REQUIRE_PYTHON();
    const std::vector<std::vector<int64_t>> shapes = {{},     {4},       {0, 2},
                                                      {2, 3}, {2, 1, 3}, {1, 2, 2, 3}};
    std::vector<NamedArray> arrays;
    nlohmann::json manifest = nlohmann::json::array();
    int seed = 0;
    for (DType dtype : kAllDTypes) {
        for (const auto& shape : shapes) {
            const std::string name = std::string(pt2ov::dtype_name(dtype)) + "_r" +
                                     std::to_string(shape.size()) + "_" + std::to_string(seed);
            Tensor tensor = sample_tensor(dtype, shape, seed++);
            // numpy sees a bf16 tensor as the float32 array holding the same values.
            const Tensor expected = dtype == DType::BFloat16
                                        ? pt2ov::tools::float32_from_bfloat16(tensor)
                                        : tensor;
            const std::string raw = name + ".bin";
            const auto bytes = tensor_bytes(expected);
            write_bytes(dir_ / raw, bytes);
            manifest.push_back({{"name", name},
                                {"code", std::string(pt2ov::dtype_npy_code(dtype))},
                                {"shape", shape},
                                {"raw", raw}});
            arrays.push_back({name, tensor});
        }
    }
    arrays.push_back({"arr_0", sample_tensor(DType::Float32, {2}, 99)});
    manifest.push_back({{"name", "arr_0"}, {"code", "<f4"}, {"shape", {2}}, {"raw", "arr_0.bin"}});
    write_bytes(dir_ / "arr_0.bin", tensor_bytes(arrays.back().tensor));

    write_npz(path("ours.npz"), arrays);
    std::ofstream(dir_ / "manifest.json") << manifest.dump();

    const char* script = R"PY(
import json, os, sys, zipfile
import numpy as np
folder = sys.argv[1]
npz = os.path.join(folder, "ours.npz")
manifest = json.load(open(os.path.join(folder, "manifest.json")))
with zipfile.ZipFile(npz) as z:
    assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()), "not stored"
with np.load(npz, allow_pickle=False) as data:
    assert list(data.files) == [e["name"] for e in manifest], data.files
    for e in manifest:
        a = data[e["name"]]
        raw = open(os.path.join(folder, e["raw"]), "rb").read()
        assert a.dtype.str == e["code"], (e["name"], a.dtype.str, e["code"])
        assert list(a.shape) == e["shape"], (e["name"], a.shape, e["shape"])
        assert a.flags.c_contiguous
        assert a.tobytes() == raw, e["name"]
)PY";
    EXPECT_EQ(run_python(dir_, script, {dir_.string()}), 0)
        << "numpy rejected what write_npz wrote";
}

// ---------------------------------------------------------------------------------------------
// Reading what numpy wrote.

// The numpy script runs once for the suite; each test checks some of the files it wrote.
class NpzReadNumpy : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (::access(python_executable().c_str(), X_OK) != 0) return;
        dir_ = new fs::path(fs::temp_directory_path() /
                            ("pt2ov_npz_numpy_" + std::to_string(::getpid())));
        fs::remove_all(*dir_);
        fs::create_directories(*dir_);
        script_status_ = run_python(*dir_, kScript, {dir_->string()});
    }
    static void TearDownTestSuite() {
        if (!dir_) return;
        std::error_code ignored;
        fs::remove_all(*dir_, ignored);
        delete dir_;
        dir_ = nullptr;
    }

    void SetUp() override {
        REQUIRE_PYTHON();
        ASSERT_EQ(script_status_, 0) << "the numpy script that writes the test files failed";
        manifest_ = nlohmann::json::parse(std::ifstream(*dir_ / "manifest.json"));
    }

    static std::string path(const std::string& name) { return (*dir_ / name).string(); }

    // Reads `file` and compares each array with what the script recorded: order, name, dtype,
    // shape and the C-order bytes numpy gave.
    void expect_matches_numpy(const std::string& file) {
        SCOPED_TRACE(file);
        ASSERT_TRUE(manifest_.contains(file));
        const auto read = read_npz(path(file));
        const auto& expected = manifest_[file];
        ASSERT_EQ(read.size(), expected.size());
        for (size_t i = 0; i < read.size(); ++i) {
            const auto& want = expected[i];
            SCOPED_TRACE(want["name"].get<std::string>());
            EXPECT_EQ(read[i].name, want["name"].get<std::string>());
            EXPECT_EQ(std::string(pt2ov::dtype_name(read[i].tensor.dtype())),
                      want["dtype"].get<std::string>());
            EXPECT_EQ(read[i].tensor.shape(), want["shape"].get<std::vector<int64_t>>());
            EXPECT_EQ(tensor_bytes(read[i].tensor),
                      read_bytes(*dir_ / want["raw"].get<std::string>()));
        }
    }

    static inline fs::path* dir_ = nullptr;
    static inline int script_status_ = -1;
    nlohmann::json manifest_;

    static constexpr const char* kScript = R"PY(
import io, json, os, sys, zipfile
import numpy as np
out = sys.argv[1]
manifest = {}
rng = np.random.default_rng(0)
dtypes = ["bool", "uint8", "int8", "int16", "uint16", "int32", "int64",
          "float16", "float32", "float64"]

def p(name):
    return os.path.join(out, name)

def expect(file, arrays):
    entries = []
    for name, a in arrays:
        raw = f"{file}.{name}.bin"
        open(p(raw), "wb").write(np.ascontiguousarray(a).tobytes())
        entries.append({"name": name, "dtype": str(a.dtype), "shape": list(a.shape), "raw": raw})
    manifest[file] = entries

def sample(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return (rng.standard_normal(size=shape) * 100).astype(dtype)

# 12 positional arrays: arr_10 and arr_11 must come after arr_9.
positional = [sample(dtypes[i % len(dtypes)], (i % 4 + 1, 3)) for i in range(12)]
np.savez(p("positional.npz"), *positional)
expect("positional.npz", [(f"arr_{i}", a) for i, a in enumerate(positional)])

keywords = {f"x_{d}": sample(d, (2, 3)) for d in dtypes}
np.savez(p("keywords.npz"), **keywords)
expect("keywords.npz", list(keywords.items()))

# numpy puts keyword arrays first in the zip; positional ones are read first.
a, b, c = sample("float32", (4,)), sample("int64", (2, 2)), sample("bool", (3,))
np.savez(p("mixed.npz"), a, b, mask=c)
expect("mixed.npz", [("arr_0", a), ("arr_1", b), ("mask", c)])

compressed = [sample(d, (5, 7)) for d in dtypes]
np.savez_compressed(p("compressed.npz"), *compressed)
expect("compressed.npz", [(f"arr_{i}", a) for i, a in enumerate(compressed)])

ranks = {"r0": np.array(3.5, dtype=np.float32), "r0_int": np.array(-7, dtype=np.int64),
         "r1": sample("int32", (5,)), "r2": sample("float16", (3, 2)),
         "r3": sample("uint8", (2, 3, 4)), "r4": sample("float64", (2, 1, 3, 2)),
         "empty": np.zeros((0, 3), np.float32), "empty_r1": np.zeros((0,), np.int8)}
np.savez(p("ranks.npz"), **ranks)
expect("ranks.npz", list(ranks.items()))

fortran = {f"f_{d}": np.asfortranarray(sample(d, (2, 3, 4))) for d in dtypes}
fortran["f_2d"] = np.asfortranarray(sample("float32", (3, 5)))
fortran["f_4d"] = np.asfortranarray(sample("int16", (2, 3, 1, 4)))
fortran["f_empty"] = np.asfortranarray(np.zeros((3, 0), np.float32))
for name, a in fortran.items():
    assert a.size == 0 or not a.flags.c_contiguous, name
np.savez(p("fortran.npz"), **fortran)
with zipfile.ZipFile(p("fortran.npz")) as z:
    assert b"'fortran_order': True" in z.read("f_2d.npy")[:128]
expect("fortran.npz", list(fortran.items()))

# Format versions 2.0 and 3.0 as well as 1.0, in a zip written by zipfile itself,
# in an order where neither zip order nor string order is the number order.
version_array = sample("float32", (3, 4))
order = ["arr_10", "zeta", "arr_9", "arr_0", "alpha", "arr_2"]
arrays = {name: sample("int32", (i + 1,)) for i, name in enumerate(order)}
with zipfile.ZipFile(p("versions.npz"), "w") as z:
    for name, version in [("v1", (1, 0)), ("v2", (2, 0)), ("v3", (3, 0))]:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, version_array, version=version)
        z.writestr(name + ".npy", buffer.getvalue())
    for name in order:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, arrays[name])
        z.writestr(name + ".npy", buffer.getvalue())
expect("versions.npz", [(n, arrays[n]) for n in ["arr_0", "arr_2", "arr_9", "arr_10"]]
       + [("v1", version_array), ("v2", version_array), ("v3", version_array)]
       + [(n, arrays[n]) for n in ["zeta", "alpha"]])

refused = {"bigendian": np.arange(4, dtype=">f4"),
           "object": np.array([1, "a"], dtype=object),
           "complex": np.ones(3, np.complex64),
           "structured": np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]),
           "uint32": np.ones(2, np.uint32),
           "unicode": np.array(["ab"]),
           "datetime": np.array(["2020-01-01"], dtype="datetime64[D]")}
for name, a in refused.items():
    np.savez(p(f"refused_{name}.npz"), good=np.ones(2, np.float32), **{name: a})
np.savez(p("bigendian_int.npz"), x=np.arange(3, dtype=">i8"))
np.savez(p("bigendian_byte.npz"), x=np.arange(3, dtype=">u1"))   # 1 byte: order means nothing
expect("bigendian_byte.npz", [("x", np.arange(3, dtype=np.uint8))])

json.dump(manifest, open(p("manifest.json"), "w"))
)PY";
};

TEST_F(NpzReadNumpy, PositionalArraysSortNumerically) { expect_matches_numpy("positional.npz"); }
TEST_F(NpzReadNumpy, KeywordArraysKeepArchiveOrder) { expect_matches_numpy("keywords.npz"); }
TEST_F(NpzReadNumpy, PositionalBeforeKeyword) { expect_matches_numpy("mixed.npz"); }
TEST_F(NpzReadNumpy, CompressedEntries) { expect_matches_numpy("compressed.npz"); }
TEST_F(NpzReadNumpy, RanksZeroToFourAndEmptyArrays) {
    expect_matches_numpy("ranks.npz");
    const auto read = read_npz(path("ranks.npz"));
    EXPECT_EQ(read[0].tensor.rank(), 0u);
    EXPECT_EQ(read[0].tensor.data_as<float>()[0], 3.5f);
    EXPECT_EQ(read[1].tensor.data_as<int64_t>()[0], -7);
}
TEST_F(NpzReadNumpy, FortranOrderIsCopiedToCOrder) { expect_matches_numpy("fortran.npz"); }
TEST_F(NpzReadNumpy, FormatVersionsAndShuffledZipOrder) { expect_matches_numpy("versions.npz"); }
TEST_F(NpzReadNumpy, OneByteBigEndianIsFine) { expect_matches_numpy("bigendian_byte.npz"); }

TEST_F(NpzReadNumpy, RefusedDTypesNameFileArrayAndAcceptedDTypes) {
    const std::map<std::string, std::string> reason = {
        {"bigendian", "big-endian"}, {"object", "object"},       {"complex", "complex"},
        {"structured", "structured"}, {"uint32", "uint32"},      {"unicode", "strings"},
        {"datetime", "datetime"}};
    for (const auto& [name, why] : reason) {
        SCOPED_TRACE(name);
        const std::string file = path("refused_" + name + ".npz");
        expect_input_error([&] { read_npz(file); },
                           {file, "array '" + name + "'", why,
                            "bool, uint8, int8, int16, uint16, int32, int64, float16, float32 or "
                            "float64"});
    }
    expect_input_error([&] { read_npz(path("bigendian_int.npz")); }, {"'>i8'", "big-endian"});
}

// ---------------------------------------------------------------------------------------------
// Damaged files: always InputError naming the file, never a crash.

using NpzCorrupt = NpzTest;

TEST_F(NpzCorrupt, MissingEmptyFolderAndNotAZip) {
    expect_input_error([&] { read_npz(path("missing.npz")); },
                       {path("missing.npz"), "no such file"});
    expect_input_error([&] { read_npz(dir_.string()); }, {dir_.string(), "folder"});
    write_bytes(dir_ / "empty.npz", {});
    expect_input_error([&] { read_npz(path("empty.npz")); }, {path("empty.npz"), "empty"});
    std::ofstream(dir_ / "text.npz") << "these are not the arrays you are looking for\n";
    expect_input_error([&] { read_npz(path("text.npz")); }, {path("text.npz"), "not an .npz"});
}

TEST_F(NpzCorrupt, EveryTruncationIsAnInputError) {
    const std::string file = path("whole.npz");
    write_npz(file, {{"a", sample_tensor(DType::Float32, {3, 5}, 1)},
                     {"b", sample_tensor(DType::Bool, {7}, 2)}});
    const auto whole = read_bytes(file);
    for (size_t length = 0; length < whole.size(); ++length) {
        SCOPED_TRACE("truncated to " + std::to_string(length) + " bytes");
        const std::string cut = path("cut.npz");
        write_bytes(cut, {whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length)});
        if (length < 4) {
            expect_input_error([&] { read_npz(cut); }, {cut});  // empty, or too short to tell
        } else {
            expect_input_error([&] { read_npz(cut); }, {cut, "truncated or damaged"});
        }
    }
}

// Any single damaged byte either goes unnoticed (e.g. a timestamp) or is an InputError.
TEST_F(NpzCorrupt, FlippedBytesNeverEscapeAsAnotherError) {
    const std::string file = path("whole.npz");
    write_npz(file, {{"a", sample_tensor(DType::Int16, {2, 3}, 1)},
                     {"arr_0", sample_tensor(DType::Float64, {}, 2)}});
    const auto whole = read_bytes(file);
    int refused = 0;
    for (size_t at = 0; at < whole.size(); ++at) {
        for (uint8_t mask : {0x01, 0x80, 0xFF}) {
            auto damaged = whole;
            damaged[at] ^= mask;
            const std::string bad = path("bad.npz");
            write_bytes(bad, damaged);
            try {
                read_npz(bad);
            } catch (const pt2ov::InputError&) {
                ++refused;
            } catch (const std::exception& e) {
                ADD_FAILURE() << "byte " << at << " ^ " << int(mask)
                              << ": not an InputError: " << e.what();
            }
        }
    }
    EXPECT_GT(refused, 0);
}

void patch_u32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

// A zip directory that claims gigabytes for a small deflated entry, with an .npy header that
// agrees, must be refused before anything is allocated for it.
TEST_F(NpzCorrupt, SizeClaimsBeyondWhatDeflateCanHoldAreRefused) {
    const uint64_t elements = 1073741788;  // ~4 GiB of float32
    const std::string data(4096, '\0');
    const std::string npy = make_npy(header_for("<f4", "(" + std::to_string(elements) + ",)"), data);
    const auto claimed = static_cast<uint32_t>(npy.size() - data.size() + elements * 4);

    const std::string file = path("bomb.npz");
    int code = 0;
    zip_t* archive = zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    ASSERT_NE(archive, nullptr);
    zip_source_t* source = zip_source_buffer(archive, npy.data(), npy.size(), 0);
    const zip_int64_t index = zip_file_add(archive, "big.npy", source, 0);
    ASSERT_GE(index, 0);
    ASSERT_EQ(zip_set_file_compression(archive, index, ZIP_CM_DEFLATE, 9), 0);
    ASSERT_EQ(zip_close(archive), 0);

    // The uncompressed size sits at byte 22 of the local header and 24 of the central one.
    auto bytes = read_bytes(file);
    const std::string text(bytes.begin(), bytes.end());
    const size_t local = text.find("PK\x03\x04");
    const size_t central = text.find("PK\x01\x02");
    ASSERT_NE(local, std::string::npos);
    ASSERT_NE(central, std::string::npos);
    patch_u32(bytes, local + 22, claimed);
    patch_u32(bytes, central + 24, claimed);
    write_bytes(file, bytes);

    expect_input_error([&] { read_npz(file); }, {file, "array 'big'", "claims", "damaged"});
}

// A damaged data byte keeps every size right; only the zip's CRC can tell.
TEST_F(NpzCorrupt, DamagedDataFailsTheCrcCheck) {
    const std::string file = path("crc.npz");
    Tensor marked = Tensor::allocate(DType::UInt8, {8});
    std::memcpy(marked.data(), "MARKDATA", 8);
    write_npz(file, {{"m", marked}});
    auto bytes = read_bytes(file);
    const std::string text(bytes.begin(), bytes.end());
    const size_t at = text.find("MARKDATA");
    ASSERT_NE(at, std::string::npos);
    bytes[at + 3] ^= 0x20;
    write_bytes(file, bytes);
    expect_input_error([&] { read_npz(file); }, {file, "array 'm'", "CRC"});
}

TEST_F(NpzCorrupt, HeadersThatLieAboutTheirData) {
    const std::string f4x4(16, '\0');  // four float32 zeros
    const std::string ok = header_for("<f4", "(4,)");
    const std::string ok_npy = make_npy(ok, f4x4);
    struct Case {
        std::string label, entry, expected;
    };
    const std::vector<Case> cases = {
        {"short data", make_npy(header_for("<f4", "(10,)"), f4x4), "40 bytes"},
        {"long data", make_npy(ok, f4x4 + "xxxx"), "holds 20"},
        {"no magic", "\x93NUMPX" + ok_npy.substr(6), "magic"},
        {"version 4.0", make_npy(ok, f4x4, 4), "version 4.0"},
        {"header longer than entry", ok_npy.substr(0, 8) + "\xff\x7f" + ok_npy.substr(10),
         "header claims"},
        {"too short", "\x93NU", "too short"},
        {"unterminated header",
         make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,", f4x4), "does not parse"},
        {"not a dict", make_npy("['descr', '<f4']", f4x4), "not a dict"},
        {"missing key", make_npy("{'descr': '<f4', 'shape': (4,), }", f4x4), "lacks"},
        {"negative dim", make_npy(header_for("<f4", "(-4,)"), f4x4), "shape"},
        {"shape overflows",
         make_npy(header_for("<f8", "(4611686018427387904, 4611686018427387904)"), f4x4),
         "impossibly large"},
        {"huge shape", make_npy(header_for("<f4", "(1099511627776,)"), f4x4), "holds 16"},
        {"deep nesting", make_npy("{'descr': " + std::string(200, '[') + "}", f4x4),
         "nested too deeply"},
        {"bad dtype code", make_npy(header_for("<x9", "(4,)"), f4x4), "'<x9'"},
        {"not npy at all", "hello, world", "magic"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.label);
        const std::string file = path("lie.npz");
        write_raw_zip(file, {{"fine.npy", ok_npy}, {"liar.npy", c.entry}});
        expect_input_error([&] { read_npz(file); }, {file, "array 'liar'", c.expected});
    }
}

TEST_F(NpzCorrupt, TwoEntriesWithOneArrayName) {
    const std::string f4 = make_npy(header_for("<f4", "()"), std::string(4, '\0'));
    write_raw_zip(path("twice.npz"), {{"x.npy", f4}, {"x", f4}});
    expect_input_error([&] { read_npz(path("twice.npz")); },
                       {path("twice.npz"), "two arrays named 'x'"});
}

TEST_F(NpzCorrupt, NonZeroBoolBytesReadAsTrue) {
    write_raw_zip(path("bools.npz"),
                  {{"b.npy", make_npy(header_for("|b1", "(3,)"), std::string("\0\x01\x07", 3))}});
    const auto read = read_npz(path("bools.npz"));
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(tensor_bytes(read[0].tensor), (std::vector<uint8_t>{0, 1, 1}));
}

// ---------------------------------------------------------------------------------------------
// bf16 inputs arrive as float32 arrays that must hold bf16 values exactly.

TEST(NpzBFloat16, ExactValuesConvertAndOthersAreRefused) {
    const float infinity = std::numeric_limits<float>::infinity();
    const float exact[] = {0.0f,     -0.0f,     1.0f, -2.5f, 3.140625f,
                           infinity, -infinity, std::bit_cast<float>(0x00010000u)};
    Tensor input = Tensor::allocate(DType::Float32, {2, 4});
    std::memcpy(input.data(), exact, sizeof exact);
    const Tensor bf16 = pt2ov::tools::bfloat16_from_float32(input);
    ASSERT_EQ(bf16.dtype(), DType::BFloat16);
    for (size_t i = 0; i < std::size(exact); ++i) {
        EXPECT_EQ(bf16.data_as<uint16_t>()[i], std::bit_cast<uint32_t>(exact[i]) >> 16) << i;
    }

    input.data_as<float>()[5] = 0.1f;  // 0x3dcccccd: bf16 would round it
    expect_input_error([&] { pt2ov::tools::bfloat16_from_float32(input); },
                       {"element 5", "0x3dcccccd", "bfloat16"});

    Tensor ints = Tensor::allocate(DType::Int32, {2});
    expect_input_error([&] { pt2ov::tools::bfloat16_from_float32(ints); }, {"float32", "int32"});
}

TEST(NpzBFloat16, AnyNaNBecomesBFloat16NaNNotInfinity) {
    const uint32_t nans[] = {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu};
    Tensor input = Tensor::allocate(DType::Float32, {4});
    std::memcpy(input.data(), nans, sizeof nans);
    const Tensor bf16 = pt2ov::tools::bfloat16_from_float32(input);
    for (size_t i = 0; i < std::size(nans); ++i) {
        const float back = std::bit_cast<float>(uint32_t{bf16.data_as<uint16_t>()[i]} << 16);
        EXPECT_TRUE(std::isnan(back)) << i;
        EXPECT_EQ(std::signbit(back), (nans[i] >> 31) != 0) << i;
    }
}

TEST(NpzBFloat16, NaNsBFloat16HoldsKeepTheirBits) {
    const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F810000u, 0xFFFF0000u};
    Tensor input = Tensor::allocate(DType::Float32, {4});
    std::memcpy(input.data(), nans, sizeof nans);
    const Tensor bf16 = pt2ov::tools::bfloat16_from_float32(input);
    for (size_t i = 0; i < std::size(nans); ++i) {
        EXPECT_EQ(uint32_t{bf16.data_as<uint16_t>()[i]} << 16, nans[i]) << i;
    }
}

// ---------------------------------------------------------------------------------------------
// The dtype table and Tensor that the .npz code rests on.

TEST(NpzDType, NamesSizesAndNumpyCodes) {
    const std::map<DType, std::tuple<std::string, size_t, std::string, bool>> expected = {
        {DType::Bool, {"bool", 1, "|b1", false}},
        {DType::UInt8, {"uint8", 1, "|u1", false}},
        {DType::Int8, {"int8", 1, "|i1", false}},
        {DType::Int16, {"int16", 2, "<i2", false}},
        {DType::UInt16, {"uint16", 2, "<u2", false}},
        {DType::Int32, {"int32", 4, "<i4", false}},
        {DType::Int64, {"int64", 8, "<i8", false}},
        {DType::Float16, {"float16", 2, "<f2", true}},
        {DType::BFloat16, {"bfloat16", 2, "<f4", true}},  // travels as float32
        {DType::Float32, {"float32", 4, "<f4", true}},
        {DType::Float64, {"float64", 8, "<f8", true}}};
    ASSERT_EQ(expected.size(), std::size(kAllDTypes));
    for (const auto& [dtype, row] : expected) {
        const auto& [name, size, code, floating] = row;
        EXPECT_EQ(pt2ov::dtype_name(dtype), name);
        EXPECT_EQ(pt2ov::dtype_size(dtype), size) << name;
        EXPECT_EQ(pt2ov::dtype_npy_code(dtype), code) << name;
        EXPECT_EQ(pt2ov::dtype_is_floating(dtype), floating) << name;
    }
}

TEST(NpzTensor, AllocateIsZeroedAlignedAndOwned) {
    Tensor scalar = Tensor::allocate(DType::Float64, {});
    EXPECT_EQ(scalar.numel(), 1);
    EXPECT_EQ(scalar.rank(), 0u);
    EXPECT_FALSE(scalar.empty_handle());
    EXPECT_EQ(scalar.data_as<double>()[0], 0.0);

    Tensor empty = Tensor::allocate(DType::Int8, {3, 0});
    EXPECT_EQ(empty.numel(), 0);
    EXPECT_NE(empty.data(), nullptr);

    Tensor big = Tensor::allocate(DType::Int32, {7, 9});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % 64, 0u);
    EXPECT_EQ(big.byte_size(), 7u * 9u * 4u);
    for (int64_t i = 0; i < big.numel(); ++i) EXPECT_EQ(big.data_as<int32_t>()[i], 0);

    Tensor copy = big;  // shares the buffer, which outlives the original handle
    big = Tensor();
    copy.data_as<int32_t>()[62] = 5;
    EXPECT_TRUE(big.empty_handle());

    int32_t mine[6] = {1, 2, 3, 4, 5, 6};
    Tensor view = Tensor::view(DType::Int32, {2, 3}, mine);
    EXPECT_EQ(view.data(), mine);
    EXPECT_EQ(view.numel(), 6);
    EXPECT_THROW(Tensor::allocate(DType::Float32, {2, -1}), pt2ov::Error);
    const int64_t huge = int64_t{1} << 62;
    EXPECT_THROW(Tensor::allocate(DType::Float32, {huge, huge}), pt2ov::Error);
}

}  // namespace
