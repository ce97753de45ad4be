// The output guard's reading of torch.export's size expressions (runtime/output_guard.h). The
// guard itself is exercised end to end (tests/e2e/test_output_guard.py), where a fault is
// injected by switching a fact off.
#include <gtest/gtest.h>

#include <map>

#include "runtime/output_guard.h"

namespace {

using pt2ov::runtime::SizeExpression;

struct Evaluation {
    std::map<std::string, int> index;
    std::vector<int64_t> values;
    std::vector<char> known;

    std::shared_ptr<const SizeExpression> parse(const std::string& text) {
        return SizeExpression::parse(text, [this](const std::string& name) {
            auto [it, added] = index.emplace(name, static_cast<int>(index.size()));
            if (added) {
                values.push_back(0);
                known.push_back(0);
            }
            return it->second;
        });
    }
    void bind(const std::string& name, int64_t value) {
        values.at(static_cast<size_t>(index.at(name))) = value;
        known.at(static_cast<size_t>(index.at(name))) = 1;
    }
    std::optional<int64_t> evaluate(const std::string& text) {
        auto expression = parse(text);
        if (!expression) return std::nullopt;
        return expression->evaluate(values, known);
    }
};

TEST(OutputGuard, ReadsSympySizes) {
    Evaluation e;
    e.parse("s0 + s1");
    e.bind("s0", 7);
    e.bind("s1", 3);
    EXPECT_EQ(e.evaluate("2*s0"), 14);
    EXPECT_EQ(e.evaluate("s0 + 1"), 8);
    EXPECT_EQ(e.evaluate("s0 - s1 + 2"), 6);
    EXPECT_EQ(e.evaluate("((s0 - 1)//2) + 1"), 4);
    EXPECT_EQ(e.evaluate("(s0 - 8)//3"), -1);  // floor, as Python's //
    EXPECT_EQ(e.evaluate("Mod(s0, 3)"), 1);
    EXPECT_EQ(e.evaluate("PythonMod(-s0, 3)"), 2);
    EXPECT_EQ(e.evaluate("FloorDiv(s0, 2)"), 3);
    EXPECT_EQ(e.evaluate("Max(1, s1)"), 3);
    EXPECT_EQ(e.evaluate("Min(s0, s1, 5)"), 3);
    EXPECT_EQ(e.evaluate("s1**2"), 9);
    EXPECT_EQ(e.evaluate("s0*s1 - 2*s1"), 15);
    EXPECT_EQ(e.evaluate("CleanDiv(s0*s1, 3)"), 7);
    EXPECT_EQ(e.evaluate("-s1 + 10"), 7);
}

TEST(OutputGuard, LeavesUnknownSizesUnchecked) {
    Evaluation e;
    // Text it does not know is no expression at all (the dim is left unchecked), never a guess.
    EXPECT_EQ(e.parse("ceiling(s0/2)"), nullptr);
    EXPECT_EQ(e.parse("s0 +"), nullptr);
    EXPECT_EQ(e.parse("(s0"), nullptr);
    EXPECT_EQ(e.parse("s0 ? 1"), nullptr);
    EXPECT_EQ(e.parse("99999999999999999999999"), nullptr);
    // A symbol not bound yet, a division by zero or an inexact quotient: no value.
    auto unbound = e.parse("u0 + 1");
    ASSERT_NE(unbound, nullptr);
    EXPECT_EQ(unbound->evaluate(e.values, e.known), std::nullopt);
    e.bind("u0", 0);
    EXPECT_EQ(e.evaluate("5//u0"), std::nullopt);
    EXPECT_EQ(e.evaluate("Mod(5, u0)"), std::nullopt);
    e.bind("u0", 2);
    EXPECT_EQ(e.evaluate("5/u0"), std::nullopt);
    EXPECT_EQ(e.evaluate("6/u0"), 3);
}

}  // namespace
