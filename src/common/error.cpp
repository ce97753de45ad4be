#include "common/error.h"

#include <filesystem>
#include <new>
#include <system_error>

// The one place in common/ that knows OpenVINO's exception type: it is how a failure inside
// OpenVINO is told from a failure of ours when both arrive as std::exception.
#include <openvino/core/except.hpp>

namespace pt2ov {

void rethrow_in_context(const std::string& context, const std::string& node) {
    const auto prefixed = [&](const std::exception& e) { return context + ": " + e.what(); };
    const auto named = [&](const Error& e) { return e.node().empty() ? node : e.node(); };
    try {
        throw;
    } catch (const ArchiveError& e) {
        throw ArchiveError(prefixed(e), named(e));
    } catch (const UnsupportedError& e) {
        throw UnsupportedError(prefixed(e), named(e));
    } catch (const InputError& e) {
        throw InputError(prefixed(e), named(e));
    } catch (const OptionError& e) {
        throw OptionError(prefixed(e), named(e));
    } catch (const ResourceError& e) {
        throw ResourceError(prefixed(e), named(e));
    } catch (const OpenVINOError& e) {
        throw OpenVINOError(prefixed(e), named(e));
    } catch (const InternalError& e) {
        throw InternalError(prefixed(e), named(e));
    } catch (const Error& e) {
        // A class of error.h this list does not name yet: ours to fix here.
        throw InternalError(prefixed(e) + " (an error class rethrow_in_context does not know)", named(e));
    } catch (const std::bad_alloc&) {
        throw ResourceError(context + ": out of memory", node);
    } catch (const ov::Exception& e) {
        throw OpenVINOError(prefixed(e), node);
    } catch (const std::filesystem::filesystem_error& e) {
        throw ResourceError(prefixed(e), node);
    } catch (const std::system_error& e) {
        throw ResourceError(prefixed(e), node);
    } catch (const std::exception& e) {
        throw InternalError(prefixed(e), node);
    }
}

}  // namespace pt2ov
