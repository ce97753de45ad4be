// The one error the server's request handling throws: what went wrong, in words that name the
// model and the input, and which kind of failure it is, which each protocol maps to its own
// status (HTTP 400/404/413/500, gRPC INVALID_ARGUMENT/NOT_FOUND/...). A request's failure is
// always one of these by the time it reaches a handler, so no exception ends the server.
#pragma once

#include <stdexcept>
#include <string>

#include "common/text.h"

namespace pt2ov::serve {

// The longest error message sent to a client. A message quotes what the client sent (a model's
// or an input's name, a shape), which can be any size; gRPC carries the message in its status
// trailer, which clients built on gRPC's C core refuse beyond 8 KB (16 KB at most), percent-
// encoding any byte outside printable ASCII as three: 2 KB stays within that for any bytes.
constexpr size_t kMaxClientMessageBytes = 2048;

// `message` on one line, cut to kMaxClientMessageBytes at a UTF-8 character's start, saying how
// much was cut.
inline std::string client_message(const std::string& message) {
    std::string line = one_line(message);
    if (line.size() <= kMaxClientMessageBytes) return line;
    size_t cut = kMaxClientMessageBytes - 40;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    const size_t dropped = line.size() - cut;
    line.resize(cut);
    return line + " ... (" + std::to_string(dropped) + " bytes more)";
}

enum class Failure {
    BadRequest,  // the request does not fit the protocol or the model: the client's to fix
    NotFound,    // no such model, version or output
    TooLarge,    // the body is over --max-body-bytes
    Exhausted,   // the machine ran out of what the run needed (pt2ov::ResourceError): memory, files
    Internal,    // a bug in pt2ov (pt2ov::InternalError) or in the server
};

class RequestError : public std::runtime_error {
public:
    RequestError(Failure failure, const std::string& message) : std::runtime_error(message), failure_(failure) {}
    Failure failure() const noexcept { return failure_; }

private:
    Failure failure_;
};

inline RequestError bad_request(const std::string& message) { return {Failure::BadRequest, message}; }

// The HTTP status of a failure, as the Open Inference Protocol's REST API answers it.
inline int http_status(Failure failure) {
    switch (failure) {
        case Failure::BadRequest: return 400;
        case Failure::NotFound: return 404;
        case Failure::TooLarge: return 413;
        case Failure::Exhausted: return 503;
        case Failure::Internal: return 500;
    }
    return 500;
}

}  // namespace pt2ov::serve
