// The one error the server's request handling throws: what went wrong, in words that name the
// model and the input, and which kind of failure it is, which each protocol maps to its own
// status (HTTP 400/404/413/500, gRPC INVALID_ARGUMENT/NOT_FOUND/...). A request's failure is
// always one of these by the time it reaches a handler, so no exception ends the server.
#pragma once

#include <stdexcept>
#include <string>

namespace pt2ov::serve {

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
