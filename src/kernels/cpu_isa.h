// Which copy of the ISA table (kernels/isa/isa_kernels.h) the CPU kernels call: the widest
// x86-64 level this build has, this CPU runs and whose shared object loads, chosen once per
// process, or the level the environment variable PT2OV_CPU_ISA names (baseline, x86-64-v3;
// x86-64-v4 when src/kernels/isa/isa.cmake builds it). A wider level's
// object missing or unloadable falls back to the next narrower one, down to the baseline copy
// inside libpt2ov; a level asked for by the variable that the CPU lacks, or whose object does not
// load, is an error naming the variable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels/isa/isa_kernels.h"

namespace pt2ov::kernels {

inline constexpr const char* kCpuIsaVariable = "PT2OV_CPU_ISA";

enum class CpuIsa { Baseline, X86_64_V3, X86_64_V4 };
inline constexpr CpuIsa kAllCpuIsas[] = {CpuIsa::Baseline, CpuIsa::X86_64_V3, CpuIsa::X86_64_V4};

// "baseline", "x86-64-v3", "x86-64-v4": the names PT2OV_CPU_ISA takes and reports print (the
// psABI's names, as -march takes them).
std::string_view cpu_isa_name(CpuIsa level);

// Whether this CPU (and its operating system, which must save the wider registers) runs `level`.
bool cpu_has(CpuIsa level);

// Whether this build of pt2ov has kernels for `level`: the baseline always, a wider level when
// src/kernels/isa/isa.cmake builds its object (PT2OV_ISA_LEVELS).
bool built_for(CpuIsa level);

// The table the kernels call. The first call chooses it (thread-safe); an invalid
// PT2OV_CPU_ISA throws pt2ov::Error on every call. Program::load calls it, so a bad value
// fails the load, never a kernel.
const isa::IsaKernels& isa_kernels();

// The table of one level, loading its object on first use; nullptr, with the reason in
// `why_not`, when pt2ov is not built for the level, the CPU lacks it, or its object is missing
// or from another build.
const isa::IsaKernels* isa_kernels_for(CpuIsa level, std::string* why_not = nullptr);

// The level the kernels use for `requested`, PT2OV_CPU_ISA's value (nullptr or "" when unset:
// the widest level that loads). Throws pt2ov::Error naming the variable for a value that is not
// a level's name, a level the CPU lacks, or a level whose object does not load.
CpuIsa choose_cpu_isa(const char* requested);

// Every level built and this CPU has whose table loads, narrowest (baseline) first.
std::vector<CpuIsa> available_cpu_isas();

}  // namespace pt2ov::kernels
