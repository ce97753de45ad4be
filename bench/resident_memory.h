// The process's resident set now, from /proc/self/statm: what bench/endurance and
// bench/openvino_arenas read as calls go on (Linux only, as both are).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <fstream>

inline int64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t total_pages = 0, resident_pages = 0;
    statm >> total_pages >> resident_pages;
    return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}
