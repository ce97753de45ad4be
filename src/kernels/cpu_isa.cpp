// The choice of the ISA table (cpu_isa.h): cpuid through the compiler's __builtin_cpu_supports,
// the wider levels' objects found beside libpt2ov.so (dladdr) and opened with dlopen.
#include "kernels/cpu_isa.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "common/text.h"
#include "pt2ov/error.h"

namespace pt2ov::kernels {
namespace isa {
const IsaKernels& baseline_isa_kernels();  // isa_kernels.cpp, compiled into libpt2ov
}

namespace {

// The object of a wider level: libpt2ov_isa_<name>.so in libpt2ov.so's folder.
std::filesystem::path object_path(CpuIsa level) {
    Dl_info info{};
    std::filesystem::path folder;
    if (dladdr(reinterpret_cast<const void*>(&object_path), &info) != 0 && info.dli_fname != nullptr) {
        folder = std::filesystem::path(info.dli_fname).parent_path();
    }
    return folder / ("libpt2ov_isa_" + std::string(cpu_isa_name(level)) + ".so");
}

struct Loaded {
    const isa::IsaKernels* table = nullptr;
    std::string why_not;
};

// Opens a wider level's object and checks its table. The handle is never closed: the table's
// functions are called until the process ends.
Loaded load_object(CpuIsa level) {
    const std::filesystem::path path = object_path(level);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = dlerror();
        return {nullptr, "cannot load " + path.string() + ": " + (error ? error : "dlopen failed")};
    }
    using Entry = const isa::IsaKernels* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kIsaKernelsEntry));
    const isa::IsaKernels* table = entry ? entry() : nullptr;
    if (table == nullptr || table->size != sizeof(isa::IsaKernels) ||
        table->layout_version != isa::kIsaKernelsLayoutVersion || table->isa == nullptr ||
        std::string_view(table->isa) != cpu_isa_name(level)) {
        return {nullptr, path.string() + " is from another build of pt2ov (its kernel table does not match)"};
    }
    return {table, ""};
}

}  // namespace

std::string_view cpu_isa_name(CpuIsa level) {
    switch (level) {
        case CpuIsa::Baseline: return "baseline";
        case CpuIsa::X86_64_V3: return "x86-64-v3";
        case CpuIsa::X86_64_V4: return "x86-64-v4";
    }
    return "?";
}

bool cpu_has(CpuIsa level) {
    __builtin_cpu_init();
    switch (level) {
        case CpuIsa::Baseline: return true;
        case CpuIsa::X86_64_V3: return __builtin_cpu_supports("x86-64-v3");
        case CpuIsa::X86_64_V4: return __builtin_cpu_supports("x86-64-v4");
    }
    return false;
}

bool built_for(CpuIsa level) {
    if (level == CpuIsa::Baseline) return true;
    // PT2OV_ISA_OBJECT_LEVELS: the levels with an object, comma-separated (isa.cmake).
    const auto built = split(PT2OV_ISA_OBJECT_LEVELS, ',');
    return std::find(built.begin(), built.end(), cpu_isa_name(level)) != built.end();
}

const isa::IsaKernels* isa_kernels_for(CpuIsa level, std::string* why_not) {
    if (level == CpuIsa::Baseline) return &isa::baseline_isa_kernels();
    if (!built_for(level)) {
        if (why_not) *why_not = "this build of pt2ov has no " + std::string(cpu_isa_name(level)) + " kernels";
        return nullptr;
    }
    if (!cpu_has(level)) {
        if (why_not) *why_not = "this CPU lacks " + std::string(cpu_isa_name(level));
        return nullptr;
    }
    // Each level's object is opened once; a failed open is remembered too.
    static std::mutex mutex;
    static std::array<std::optional<Loaded>, std::size(kAllCpuIsas)> loaded;
    std::lock_guard lock(mutex);
    auto& slot = loaded[static_cast<size_t>(level)];
    if (!slot) slot = load_object(level);
    if (why_not) *why_not = slot->why_not;
    return slot->table;
}

CpuIsa choose_cpu_isa(const char* requested) {
    const std::string_view value = requested ? requested : "";
    if (value.empty()) {
        for (auto it = std::rbegin(kAllCpuIsas); it != std::rend(kAllCpuIsas); ++it) {
            if (isa_kernels_for(*it) != nullptr) return *it;
        }
        return CpuIsa::Baseline;
    }
    for (CpuIsa level : kAllCpuIsas) {
        if (value != cpu_isa_name(level)) continue;
        std::string why_not;
        if (isa_kernels_for(level, &why_not) == nullptr) {
            throw OptionError(std::string(kCpuIsaVariable) + "=" + std::string(value) + " cannot be used: " + why_not +
                        "; unset it for the widest level that runs here");
        }
        return level;
    }
    std::string names;
    for (CpuIsa level : kAllCpuIsas) {
        if (built_for(level)) names += (names.empty() ? "" : ", ") + std::string(cpu_isa_name(level));
    }
    throw OptionError(std::string(kCpuIsaVariable) + "=" + std::string(value) + " is not an ISA level pt2ov knows; use one of " +
                names + ", or unset it for the widest this CPU has");
}

const isa::IsaKernels& isa_kernels() {
    // A function-local static: initialized once, thread-safe; when the initializer throws (an
    // invalid PT2OV_CPU_ISA), the next call tries again and throws again.
    static const isa::IsaKernels& chosen = *isa_kernels_for(choose_cpu_isa(std::getenv(kCpuIsaVariable)));
    return chosen;
}

std::vector<CpuIsa> available_cpu_isas() {
    std::vector<CpuIsa> levels;
    for (CpuIsa level : kAllCpuIsas) {
        if (isa_kernels_for(level) != nullptr) levels.push_back(level);
    }
    return levels;
}

}  // namespace pt2ov::kernels
