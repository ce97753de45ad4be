// One exception family for the whole engine. Messages name the file, method, node or input
// concerned and say what to do; context is prepended on the way up (see with_context).
#pragma once

#include <stdexcept>
#include <string>

#include "pt2ov/error.h"

namespace pt2ov {

// Runs `body`; an exception escaping it is rethrown as a pt2ov error whose message starts
// with `context` ("while lowering node conv_3: ..."), the node it names (Error::node) kept.
// OpenVINO's and the standard library's exceptions become pt2ov::Error here, so nothing
// foreign crosses our API.
template <typename Body>
decltype(auto) with_context(const std::string& context, Body&& body) {
    try {
        return body();
    } catch (const InputError& e) {
        throw InputError(context + ": " + e.what(), e.node());
    } catch (const UnsupportedError& e) {
        throw UnsupportedError(context + ": " + e.what(), e.node());
    } catch (const ArchiveError& e) {
        throw ArchiveError(context + ": " + e.what(), e.node());
    } catch (const InternalError& e) {
        throw InternalError(context + ": " + e.what(), e.node());
    } catch (const Error& e) {
        throw Error(context + ": " + e.what(), e.node());
    } catch (const std::exception& e) {
        throw Error(context + ": " + e.what());
    }
}

// The same, for hot paths: `make_context()` builds the context string only on failure.
template <typename MakeContext, typename Body>
decltype(auto) with_lazy_context(MakeContext&& make_context, Body&& body) {
    try {
        return body();
    } catch (const std::exception&) {
        return with_context(make_context(), [] () -> decltype(body()) { throw; });
    }
}

}  // namespace pt2ov
