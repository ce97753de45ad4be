# The ISA table's sources (isa_kernels.cpp, and float_math.cpp whose loops it lists) compiled once
# per x86-64 level (kernels/cpu_isa.h).
# The baseline copy is a source of libpt2ov; each wider level is a shared object of its own,
# libpt2ov_isa_<level>.so, built beside libpt2ov.so (and installed beside it: cpu_isa.cpp looks
# for it there). Everything in such an object is hidden but its one C entry point, and the static
# libraries it links keep their symbols to themselves (--exclude-libs): template code compiled
# for the wider level can never stand in for libpt2ov's own baseline copies.
set(PT2OV_ISA_SOURCE "${CMAKE_CURRENT_LIST_DIR}/isa_kernels.cpp" "${CMAKE_CURRENT_LIST_DIR}/float_math.cpp")
set(PT2OV_ISA_EXPORTS "${CMAKE_CURRENT_LIST_DIR}/isa_exports.map")

# The levels with an object of their own, each compiled with -march=<level> (kernels/cpu_isa.h
# knows both). x86-64-v4 (AVX-512) gains little over AVX2 for Eigen's GEMM on the AMD Zen 4 of
# the benchmarks, whose AVX-512 runs on 256-bit units, but 1.25-1.4x for float_math's exp,
# sigmoid, tanh and softmax (bench/README.md).
set(PT2OV_ISA_LEVELS x86-64-v3 x86-64-v4)

# pt2ov_isa_baseline(target): the baseline copy into `target` (libpt2ov), through an object
# library of its own (a source file's properties would reach every target compiling it).
function(pt2ov_isa_baseline target)
    add_library(pt2ov_isa_baseline OBJECT "${PT2OV_ISA_SOURCE}")
    target_include_directories(pt2ov_isa_baseline PRIVATE "${PROJECT_SOURCE_DIR}/src")
    target_compile_definitions(pt2ov_isa_baseline PRIVATE PT2OV_ISA_LEVEL="baseline")
    target_compile_options(pt2ov_isa_baseline PRIVATE -Wall -Wextra)
    target_link_libraries(pt2ov_isa_baseline PRIVATE Eigen3::Eigen)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:pt2ov_isa_baseline>)
endfunction()

# pt2ov_isa_objects(LIBRARY OUT_TARGETS): one shared object per level of PT2OV_ISA_LEVELS, in the
# folder libpt2ov.so is built in, built with LIBRARY (which is told the levels it may load);
# their target names in OUT_TARGETS.
function(pt2ov_isa_objects library out_targets)
    set(targets "")
    foreach(level IN LISTS PT2OV_ISA_LEVELS)
        string(REPLACE "-" "_" suffix "${level}")
        set(target pt2ov_isa_${suffix})
        add_library(${target} MODULE "${PT2OV_ISA_SOURCE}")
        set_target_properties(${target} PROPERTIES OUTPUT_NAME "pt2ov_isa_${level}"
                              LIBRARY_OUTPUT_DIRECTORY "$<TARGET_FILE_DIR:${library}>"
                              CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                              LINK_DEPENDS "${PT2OV_ISA_EXPORTS}")
        target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/src")
        target_compile_definitions(${target} PRIVATE PT2OV_ISA_LEVEL="${level}" PT2OV_ISA_SHARED_OBJECT)
        # -Wno-maybe-uninitialized: GCC 12 warns inside its own avx512fintrin.h when Eigen's
        # AVX-512 packets are inlined (a false positive on _mm512_undefined_*).
        target_compile_options(${target} PRIVATE -march=${level} -Wall -Wextra -Wno-maybe-uninitialized)
        target_link_libraries(${target} PRIVATE Eigen3::Eigen)
        target_link_options(${target} PRIVATE LINKER:--exclude-libs,ALL LINKER:--version-script=${PT2OV_ISA_EXPORTS})
        list(APPEND targets ${target})
    endforeach()
    list(JOIN PT2OV_ISA_LEVELS "," levels)
    target_compile_definitions(${library} PRIVATE PT2OV_ISA_OBJECT_LEVELS="${levels}")
    if(targets)
        add_dependencies(${library} ${targets})
    endif()
    set(${out_targets} ${targets} PARENT_SCOPE)
endfunction()
