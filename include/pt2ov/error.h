// pt2ov's exceptions. Every failure the engine reports is one of these; the message says what
// went wrong, where (file, method, node or input) and what to do about it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace pt2ov {

// Anything the engine reports. Catch this to catch them all.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message, std::string node = {})
        : std::runtime_error(message), node_(std::move(node)) {}
    explicit Error(const char* message) : std::runtime_error(message) {}

    // The program's node the failure is about, as the archive names it; "" when it is about
    // none (or no single one). The message names it too: this is for code that must know.
    const std::string& node() const noexcept { return node_; }

private:
    std::string node_;
};

// The .pt2 file is missing, damaged, truncated or of a version we do not read.
class ArchiveError : public Error {
public:
    using Error::Error;
};

// The program asks for something the engine (or the installed OpenVINO) cannot do.
class UnsupportedError : public Error {
public:
    using Error::Error;
};

// A call's inputs do not fit the program: count, dtype, rank, shape or range.
class InputError : public Error {
public:
    using Error::Error;
};

// pt2ov broke one of its own invariants: a bug in pt2ov, not a problem with the program or
// its inputs. The message says so; please report it with the model.
class InternalError : public Error {
public:
    using Error::Error;
};

}  // namespace pt2ov
