// The exception family: context keeps each class, foreign exceptions become pt2ov's, and a bug
// of ours (InternalError) is never mistaken for bad input.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/error.h"
#include "pt2ov/dtype.h"

namespace {

using namespace pt2ov;

TEST(Errors, ContextKeepsTheInternalErrorClass) {
    try {
        with_context("while lowering node n", [] { throw InternalError("slot 3 read before it is made"); });
        FAIL() << "nothing thrown";
    } catch (const InternalError& e) {
        EXPECT_STREQ(e.what(), "while lowering node n: slot 3 read before it is made");
    }
}

TEST(Errors, ForeignExceptionsBecomeErrors) {
    try {
        with_context("step 2", [] { throw std::out_of_range("vector::at"); });
        FAIL() << "nothing thrown";
    } catch (const InternalError&) {
        FAIL() << "a foreign exception with context is ours to name, not an invariant broken";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "step 2: vector::at");
    }
}

TEST(Errors, InvalidDTypeValueIsAnError) {
    EXPECT_THROW(dtype_size(static_cast<DType>(99)), Error);
}

}  // namespace
