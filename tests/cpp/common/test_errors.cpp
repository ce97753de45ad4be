// The exception family: context keeps each class, foreign exceptions become the class of whose
// failure they are, a bug of ours (InternalError) is never mistaken for bad input, and the base
// class is never thrown itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <new>
#include <openvino/core/except.hpp>
#include <stdexcept>
#include <type_traits>

#include "common/error.h"
#include "pt2ov/dtype.h"

namespace {

using namespace pt2ov;

// A `throw Error(...)` does not compile: every failure chooses its class.
static_assert(!std::is_constructible_v<Error, std::string>);
static_assert(!std::is_constructible_v<Error, const char*>);
static_assert(std::is_constructible_v<OptionError, std::string>);

// The class `body` throws after with_context, and its message.
template <typename Body>
std::pair<std::string, std::string> caught(Body&& body) {
    try {
        with_context("step 2", body);
    } catch (const InternalError& e) {
        return {"InternalError", e.what()};
    } catch (const OpenVINOError& e) {
        return {"OpenVINOError", e.what()};
    } catch (const ResourceError& e) {
        return {"ResourceError", e.what()};
    } catch (const OptionError& e) {
        return {"OptionError", e.what()};
    } catch (const InputError& e) {
        return {"InputError", e.what()};
    } catch (const UnsupportedError& e) {
        return {"UnsupportedError", e.what()};
    } catch (const ArchiveError& e) {
        return {"ArchiveError", e.what()};
    } catch (const Error& e) {
        return {"Error", e.what()};
    } catch (...) {
        return {"foreign", ""};
    }
    return {"nothing", ""};
}

TEST(Errors, ContextKeepsEveryClassAndTheNode) {
    EXPECT_EQ(caught([] { throw InternalError("slot 3 read before it is made"); }),
              (std::pair<std::string, std::string>{"InternalError", "step 2: slot 3 read before it is made"}));
    EXPECT_EQ(caught([] { throw ArchiveError("bad zip"); }).first, "ArchiveError");
    EXPECT_EQ(caught([] { throw UnsupportedError("no kernel"); }).first, "UnsupportedError");
    EXPECT_EQ(caught([] { throw InputError("wrong dtype"); }).first, "InputError");
    EXPECT_EQ(caught([] { throw OptionError("bad hint"); }).first, "OptionError");
    EXPECT_EQ(caught([] { throw ResourceError("disk full"); }).first, "ResourceError");
    EXPECT_EQ(caught([] { throw OpenVINOError("plugin failed"); }).first, "OpenVINOError");
    try {
        with_context("outer", [] { throw UnsupportedError("inner", "conv_3"); });
    } catch (const UnsupportedError& e) {
        EXPECT_EQ(e.node(), "conv_3");
    }
}

TEST(Errors, ForeignExceptionsTakeTheClassOfWhoseFailureTheyAre) {
    EXPECT_EQ(caught([] { OPENVINO_THROW("Port for tensor name x was not found."); }).first, "OpenVINOError");
    EXPECT_EQ(caught([] { throw std::bad_alloc(); }),
              (std::pair<std::string, std::string>{"ResourceError", "step 2: out of memory"}));
    EXPECT_EQ(caught([] {
                  throw std::filesystem::filesystem_error("cannot create", std::make_error_code(std::errc::no_space_on_device));
              }).first,
              "ResourceError");
    // Anything else from the standard library is our own code's misuse of it: a bug of ours.
    EXPECT_EQ(caught([] { throw std::out_of_range("vector::at"); }),
              (std::pair<std::string, std::string>{"InternalError", "step 2: vector::at"}));
}

TEST(Errors, TheNodeGivenNamesAnErrorThatNamesNone) {
    try {
        try {
            throw ResourceError("cannot allocate 9 GiB");
        } catch (const std::exception&) {
            rethrow_in_context("node mm (aten.mm.default)", "mm");
        }
    } catch (const ResourceError& e) {
        EXPECT_EQ(e.node(), "mm");
        EXPECT_STREQ(e.what(), "node mm (aten.mm.default): cannot allocate 9 GiB");
    }
}

TEST(Errors, InvalidDTypeValueIsAnInputError) {
    EXPECT_THROW(dtype_size(static_cast<DType>(99)), InputError);
}

}  // namespace
