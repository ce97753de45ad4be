# pt2ov_tools: the tools around the engine (.npz files, reports, the benchmark loop), a static
# library over libpt2ov's public API. One definition for both builds that need it: the
# top-level CMakeLists.txt and bench/CMakeLists.txt as its own project. The caller has found
# fmt and nlohmann_json and has a `pt2ov` target (built or imported); libzip is found here, as
# only these tools read and write zips through it.
#
# The tools use the public API (include/pt2ov/) only: their sources may include "pt2ov/...",
# "tools/..." and the header-only "common/bfloat16.h", "common/text.h" and "common/json_text.h", and the
# configure step refuses any other header of ours.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET GLOBAL libzip)

# Fails the configure step when one of `files` includes a project header other than the public
# API (include/pt2ov/), the header-only bfloat16, text and JSON text helpers, or headers matching
# `own_headers` (a regex of include-path prefixes): the tools and the server build on the
# public API only. `what` names them in the message.
function(pt2ov_require_public_api what own_headers)
    foreach(file IN LISTS ARGN)
        file(STRINGS "${file}" includes REGEX "^#include \"")
        foreach(line IN LISTS includes)
            if(NOT line MATCHES "^#include \"(pt2ov/|${own_headers}|common/bfloat16\\.h\"|common/text\\.h\"|common/json_text\\.h\")")
                message(FATAL_ERROR "${file}: '${line}': ${what} the public API (include/pt2ov/) only")
            endif()
        endforeach()
    endforeach()
endfunction()

function(pt2ov_add_tools_library name root)
    file(GLOB sources CONFIGURE_DEPENDS "${root}/src/tools/*.cpp" "${root}/src/tools/*.h")
    pt2ov_require_public_api("the tools use" "tools/" ${sources})
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC "${root}/src")
    target_link_libraries(${name} PUBLIC pt2ov PRIVATE PkgConfig::LIBZIP fmt::fmt nlohmann_json::nlohmann_json)
    target_compile_options(${name} PRIVATE -Wall -Wextra)
endfunction()
