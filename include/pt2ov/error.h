// pt2ov's exceptions. Every failure the engine reports is one of these; the message says what
// went wrong, where (file, method, node or input) and what to do about it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace pt2ov {

// Anything the engine reports. Catch this to catch them all. It is never thrown itself:
// every failure is one of the subclasses below, so that a caller (and `pt2ov serve`, and the
// command's exit status) can tell whose it is to fix. Its constructors are protected so that a
// new `throw` must choose one.
class Error : public std::runtime_error {
public:
    // The program's node the failure is about, as the archive names it; "" when it is about
    // none (or no single one). The message names it too: this is for code that must know.
    const std::string& node() const noexcept { return node_; }

protected:
    explicit Error(const std::string& message, std::string node = {})
        : std::runtime_error(message), node_(std::move(node)) {}

private:
    std::string node_;
};

// The .pt2 file (or a model file read beside it: a tokenizer) is missing, damaged, truncated or
// of a version we do not read.
class ArchiveError : public Error {
public:
    explicit ArchiveError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

// The program asks for something the engine (or the installed OpenVINO) cannot do.
class UnsupportedError : public Error {
public:
    explicit UnsupportedError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

// A call's inputs do not fit the program: count, dtype, rank, shape or range.
class InputError : public Error {
public:
    explicit InputError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

// An option, setting or environment variable given to pt2ov is not one it takes (a load
// option's value, `--cache-dir` that is not a folder, an unknown `--cpu-op`, PT2OV_CPU_ISA).
// The message names it and what it takes.
class OptionError : public Error {
public:
    explicit OptionError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

// The machine could not give what the call needed: memory, a file or folder to write, a
// process to start. Neither the program nor its inputs are at fault; the same call may succeed
// with more memory, free disk or elsewhere.
class ResourceError : public Error {
public:
    explicit ResourceError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

// OpenVINO failed at a step pt2ov could not route to its own CPU kernels: an inference that
// raised, a model it could not compile for the device, an extension it could not load. The
// message carries OpenVINO's own words and says which step.
class OpenVINOError : public Error {
public:
    explicit OpenVINOError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

// pt2ov broke one of its own invariants: a bug in pt2ov, not a problem with the program or
// its inputs. The message says so; please report it with the model.
class InternalError : public Error {
public:
    explicit InternalError(const std::string& message, std::string node = {}) : Error(message, std::move(node)) {}
};

}  // namespace pt2ov
