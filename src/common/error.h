// One exception family for the whole engine. Messages name the file, method, node or input
// concerned and say what to do; context is prepended on the way up (see with_context).
#pragma once

#include <stdexcept>
#include <string>

#include "pt2ov/error.h"

namespace pt2ov {

// Called inside a catch block: rethrows the exception being handled as a pt2ov error whose
// message starts with `context`, of the same class (and naming the same node, Error::node) for
// pt2ov's own errors. A foreign exception gets the class of whose it is: OpenVINO's exceptions
// become OpenVINOError, running out of memory or a file system failure ResourceError, and any
// other standard exception (std::out_of_range from our own code, say) InternalError. So nothing
// foreign crosses our API, and no failure is left a bare pt2ov::Error. `node` is what the error
// names (Error::node) when the one being handled names none.
[[noreturn]] void rethrow_in_context(const std::string& context, const std::string& node = {});

// Runs `body`; an exception escaping it is rethrown by rethrow_in_context ("while lowering node
// conv_3: ...").
template <typename Body>
decltype(auto) with_context(const std::string& context, Body&& body) {
    try {
        return body();
    } catch (const std::exception&) {
        rethrow_in_context(context);
    }
}

// The same, for hot paths: `make_context()` builds the context string only on failure.
template <typename MakeContext, typename Body>
decltype(auto) with_lazy_context(MakeContext&& make_context, Body&& body) {
    try {
        return body();
    } catch (const std::exception&) {
        rethrow_in_context(make_context());
    }
}

}  // namespace pt2ov
