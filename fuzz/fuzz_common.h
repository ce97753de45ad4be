// What every fuzz target shares: the input handed to a path-taking reader without touching the
// disk (a memfd, named by /proc/self/fd/N), and the one rule for what a reader may throw.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "pt2ov/error.h"

namespace pt2ov::fuzz {

// The fuzz input as a regular file in memory, closed when it goes out of scope.
class MemoryFile {
public:
    MemoryFile(const uint8_t* data, size_t size) : fd_(memfd_create("pt2ov-fuzz", MFD_CLOEXEC)) {
        if (fd_ < 0) die("memfd_create failed");
        for (size_t done = 0; done < size;) {
            const ssize_t wrote = write(fd_, data + done, size - done);
            if (wrote <= 0) die("writing the memfd failed");
            done += static_cast<size_t>(wrote);
        }
    }
    ~MemoryFile() { close(fd_); }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

    [[noreturn]] static void die(const char* why) {
        std::perror(why);
        std::abort();
    }

private:
    int fd_;
};

// A damaged input must be refused with a pt2ov::Error that names it. An InternalError (pt2ov
// saying the fault is its own), any other exception (it would reach the API boundary as an
// InternalError) or running out of memory on a small input is a finding: abort, so libFuzzer
// keeps the input.
template <typename Body>
void expect_clean_refusal(Body&& body) {
    try {
        body();
    } catch (const InternalError& e) {
        std::fprintf(stderr, "pt2ov::InternalError: %s\n", e.what());
        std::abort();
    } catch (const Error&) {
        // the expected refusal
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "std::bad_alloc on a %s\n", "fuzz input");
        std::abort();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "foreign exception escaped: %s\n", e.what());
        std::abort();
    }
}

}  // namespace pt2ov::fuzz
