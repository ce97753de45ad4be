// StridedTensor, RuntimeValue and copy_into (tensor.h), and the 16-bit float conversions
// (kernels/util/element_types.h), written out by hand so every platform rounds the same way.
#include "kernels/tensor.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <new>
#include <numeric>
#include <string>

#include "kernels/dispatch.h"
#include "pt2ov/error.h"

namespace pt2ov::kernels {

// ---- 16-bit floats -------------------------------------------------------------------------

uint16_t float_to_half_bits(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) {  // NaN: quiet it, keep the payload's top bits
        return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    }
    if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (magnitude < 0x38800000u) {  // below 2^-14: a half subnormal or zero
        if (magnitude <= 0x33000000u) return sign;  // <= 2^-25 rounds to zero (2^-25 is a tie, to even)
        const uint32_t exponent = magnitude >> 23;
        const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        // value = mantissa * 2^(exponent - 150); in units of 2^-24 that is mantissa >> (126 - exponent).
        const uint32_t shift = 126 - exponent;
        uint32_t quotient = mantissa >> shift;
        const uint32_t remainder = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (remainder > halfway || (remainder == halfway && (quotient & 1u))) ++quotient;
        return static_cast<uint16_t>(sign | quotient);
    }
    const uint32_t exponent = (magnitude >> 23) - 127 + 15;
    const uint32_t mantissa = magnitude & 0x7fffffu;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    const uint32_t remainder = mantissa & 0x1fffu;
    if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;  // a carry bumps the exponent
    return static_cast<uint16_t>(sign | half);
}

float half_bits_to_float(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1fu;
    uint32_t mantissa = bits & 0x3ffu;
    uint32_t result;
    if (exponent == 0x1f) {
        result = sign | 0x7f800000u | (mantissa ? (0x400000u | (mantissa << 13)) : 0u);
    } else if (exponent != 0) {
        result = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        result = sign;
    } else {  // subnormal: normalize so the leading 1 becomes implicit
        int shift = 0;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            ++shift;
        }
        result = sign | (static_cast<uint32_t>(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(result);
}

// ---- StridedTensor -------------------------------------------------------------------------

int64_t StridedTensor::numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
}

bool StridedTensor::is_contiguous() const {
    if (numel() <= 1) return true;
    int64_t expected = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
        if (sizes[d] == 1) continue;
        if (strides[d] != expected) return false;
        expected *= sizes[d];
    }
    return true;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
    std::vector<int64_t> strides(sizes.size());
    int64_t stride = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
        strides[d] = stride;
        // Sizes a kernel allocates were checked (check_sizes), so their strides fit; a view of an
        // empty tensor may ask for sizes whose strides do not ([3, 0, 2**62, 4]), and PyTorch
        // wraps them around 2**64 (strides [0, 0, 4, 1], which address nothing): computed the
        // same, without signed overflow. The product past the outermost dim is not a stride.
        if (d > 0) stride = static_cast<int64_t>(static_cast<uint64_t>(stride) * static_cast<uint64_t>(std::max<int64_t>(sizes[d], 1)));
    }
    return strides;
}

namespace {

// Kernel results up to kLargestCachedBlock bytes come from a cache of freed blocks kept per
// thread, by power-of-two size, at most kBlocksPerSize of each. A small program run on the CPU
// kernels allocates a few such results per call, and glibc's aligned allocation and free of
// them took about 40 % of a 16-32-8 MLP's 3.5 us call; a call now takes back the blocks the
// last call gave up. Bounded: at most kBlocksPerSize blocks of each of the 13 sizes per thread
// (under 8 MB), freed when the thread ends.
constexpr std::align_val_t kBlockAlignment{64};
constexpr size_t kSmallestCachedBlock = 64;
constexpr size_t kSizeClasses = 13;  // 64 B .. 256 KiB
constexpr size_t kLargestCachedBlock = kSmallestCachedBlock << (kSizeClasses - 1);
// Under AddressSanitizer a reused block would hide a use after free: nothing is kept there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t kBlocksPerSize = 0;
#else
constexpr size_t kBlocksPerSize = 8;
#endif

struct BlockCache {
    std::array<std::array<void*, kBlocksPerSize>, kSizeClasses> blocks{};
    std::array<size_t, kSizeClasses> count{};
    BlockCache();
    ~BlockCache();
};

// The thread's cache, or null before it is made and once it has been destroyed (a block freed
// by a thread_local destructor that runs later is then freed directly).
thread_local BlockCache* this_thread_cache = nullptr;

BlockCache::BlockCache() { this_thread_cache = this; }

BlockCache::~BlockCache() {
    this_thread_cache = nullptr;
    for (size_t c = 0; c < kSizeClasses; ++c) {
        for (size_t i = 0; i < count[c]; ++i) ::operator delete(blocks[c][i], kBlockAlignment);
    }
}

BlockCache* block_cache() {
    thread_local BlockCache cache;  // made on the thread's first call, sets this_thread_cache
    return this_thread_cache;
}

size_t size_class(size_t bytes) {
    size_t c = 0;
    while ((kSmallestCachedBlock << c) < bytes) ++c;
    return c;
}

void free_block(void* memory, size_t size_class_index) {
    BlockCache* cache = size_class_index < kSizeClasses ? this_thread_cache : nullptr;
    if (cache && cache->count[size_class_index] < kBlocksPerSize) {
        cache->blocks[size_class_index][cache->count[size_class_index]++] = memory;
    } else {
        ::operator delete(memory, kBlockAlignment);
    }
}

std::shared_ptr<void> allocate_aligned(size_t bytes, bool zeroed) {
    if (bytes > kLargestCachedBlock) {
        const size_t rounded = (bytes + 63) / 64 * 64;
        void* memory = ::operator new(rounded, kBlockAlignment);
        if (zeroed) std::memset(memory, 0, rounded);
        return std::shared_ptr<void>(memory, [](void* p) { ::operator delete(p, kBlockAlignment); });
    }
    const size_t c = size_class(std::max<size_t>(bytes, 1));
    const size_t rounded = kSmallestCachedBlock << c;
    BlockCache* cache = block_cache();
    void* memory = cache && cache->count[c] > 0 ? cache->blocks[c][--cache->count[c]]
                                                : ::operator new(rounded, kBlockAlignment);
    if (zeroed) std::memset(memory, 0, rounded);
    return std::shared_ptr<void>(memory, [c](void* p) { free_block(p, c); });
}

std::shared_ptr<void> allocate_zeroed(size_t bytes) { return allocate_aligned(bytes, true); }

// The largest tensor a kernel allocates (1 TiB): sizes a damaged archive asks for (zeros of
// [2**62]) are refused here rather than overflowing a byte count or exhausting memory.
// The fuzz build lowers it (PT2OV_LARGEST_ALLOCATION): a small argument may ask for a large
// tensor (arange(-1, 1e30, 2**63 - 1) has 1e11 elements) as it may of PyTorch, and running out
// of memory on it is no fault of a kernel's.
#ifndef PT2OV_LARGEST_ALLOCATION
#define PT2OV_LARGEST_ALLOCATION (uint64_t{1} << 40)
#endif
constexpr uint64_t kLargestAllocation = PT2OV_LARGEST_ALLOCATION;

void check_sizes(const std::vector<int64_t>& sizes, DType dtype) {
    uint64_t bytes = dtype_size(dtype);
    for (int64_t s : sizes) {
        if (s < 0) throw InternalError("a CPU kernel asked for a tensor of negative size " + shape_text(sizes));
    }
    // Every dim counts, a zero one as one: the strides of an empty tensor are computed too.
    for (int64_t s : sizes) {
        if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(std::max<int64_t>(s, 1)), &bytes) || bytes > kLargestAllocation) {
            throw UnsupportedError("a tensor of sizes " + shape_text(sizes) + " (" + std::string(dtype_name(dtype)) +
                        ") is larger than pt2ov allocates (" + std::to_string(kLargestAllocation >> 30) + " GiB)");
        }
    }
}

}  // namespace

StridedTensor StridedTensor::allocate(DType dtype, std::vector<int64_t> sizes) {
    const std::vector<int> order = contiguous_order(sizes.size());
    return allocate_in_order(dtype, std::move(sizes), order);
}

StridedTensor StridedTensor::allocate_in_order(DType dtype, std::vector<int64_t> sizes, const std::vector<int>& dim_order) {
    check_sizes(sizes, dtype);
    std::vector<bool> seen(sizes.size(), false);
    bool valid = dim_order.size() == sizes.size();
    for (int d : dim_order) {
        valid = valid && d >= 0 && static_cast<size_t>(d) < sizes.size() && !seen[d];
        if (valid) seen[d] = true;
    }
    if (!valid) throw InternalError("dim order does not fit a tensor of rank " + std::to_string(sizes.size()));
    StridedTensor t;
    t.dtype = dtype;
    t.strides.assign(sizes.size(), 1);
    int64_t stride = 1;
    for (size_t i = dim_order.size(); i-- > 0;) {
        t.strides[dim_order[i]] = stride;
        stride *= std::max<int64_t>(sizes[dim_order[i]], 1);
    }
    t.sizes = std::move(sizes);
    t.owner = allocate_zeroed(static_cast<size_t>(t.numel()) * t.element_size());
    t.data = static_cast<std::byte*>(t.owner.get());
    return t;
}

StridedTensor StridedTensor::allocate_for_overwrite(DType dtype, std::vector<int64_t> sizes) {
    check_sizes(sizes, dtype);
    StridedTensor t;
    t.dtype = dtype;
    t.strides = contiguous_strides(sizes);
    t.sizes = std::move(sizes);
    t.owner = allocate_aligned(static_cast<size_t>(t.numel()) * t.element_size(), false);
    t.data = static_cast<std::byte*>(t.owner.get());
    return t;
}

StridedTensor StridedTensor::view(std::vector<int64_t> new_sizes, std::vector<int64_t> new_strides,
                                  int64_t offset_elements) const {
    if (new_sizes.size() != new_strides.size()) throw InternalError("a view with unequal numbers of sizes and strides");
    StridedTensor t;
    t.dtype = dtype;
    t.sizes = std::move(new_sizes);
    t.strides = std::move(new_strides);
    t.data = data + offset_elements * static_cast<int64_t>(element_size());
    t.owner = owner;
    return t;
}

// ---- RuntimeValue --------------------------------------------------------------------------

const StridedTensor& RuntimeValue::tensor() const {
    if (const auto* t = std::get_if<StridedTensor>(&value)) return *t;
    throw InternalError(std::string("a CPU kernel expected a tensor but the value holds ") +
                (is_scalar() ? "a number" : "nothing"));
}

const Scalar& RuntimeValue::scalar() const {
    if (const auto* s = std::get_if<Scalar>(&value)) return *s;
    throw InternalError(std::string("a CPU kernel expected a number but the value holds ") +
                (is_tensor() ? "a tensor" : "nothing"));
}

// ---- copy_into -----------------------------------------------------------------------------

namespace {

void copy_bits(const StridedTensor& source, const StridedTensor& destination) {
    const size_t element = source.element_size();
    if (source.is_contiguous() && destination.is_contiguous()) {
        std::memmove(destination.data, source.data, static_cast<size_t>(source.numel()) * element);
        return;
    }
    visit_bits(element, [&]<typename Bits>() {
        map_elements<Bits, Bits>(destination, {&source}, [](Bits bits) { return bits; });
    });
}

template <typename To, typename From>
void convert_elements(const StridedTensor& source, const StridedTensor& destination) {
    map_elements<To, From>(destination, {&source}, [](compute_t<From> value) { return cast<To>(value); });
}

}  // namespace

void copy_into(const StridedTensor& source, const StridedTensor& destination) {
    if (source.sizes != destination.sizes) {
        throw InternalError("copy_into from a tensor of shape " + shape_text(source.sizes) + " into one of shape " +
                    shape_text(destination.sizes));
    }
    if (source.numel() == 0) return;
    if (source.dtype == destination.dtype) {
        copy_bits(source, destination);
        return;
    }
    visit_dtype(destination.dtype, [&]<typename To>() {
        visit_dtype(source.dtype, [&]<typename From>() { convert_elements<To, From>(source, destination); });
    });
}

}  // namespace pt2ov::kernels
