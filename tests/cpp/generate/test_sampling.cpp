// generate::Sampler, the only arithmetic of text generation that is pt2ov's own: greedy ties,
// the repetition penalty, top-k, top-p, the draw's distribution and its seed.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "generate/sampling.h"

namespace {

using pt2ov::GenerationConfig;
using pt2ov::generate::Sampler;

int64_t next(const GenerationConfig& config, std::vector<float> logits, const std::vector<int64_t>& seen = {}) {
    Sampler sampler(config);
    return sampler.next(logits.data(), static_cast<int64_t>(logits.size()), seen);
}

TEST(Sampling, GreedyTakesTheHighestAndTheLowestIdAmongEqualOnes) {
    GenerationConfig greedy;
    EXPECT_EQ(next(greedy, {0.1f, 3.0f, -2.0f, 2.9f}), 1);
    EXPECT_EQ(next(greedy, {1.0f, 5.0f, 5.0f, 5.0f}), 1);  // as torch.argmax
    EXPECT_EQ(next(greedy, {-INFINITY, -1e30f, -INFINITY}), 1);
}

TEST(Sampling, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOnce) {
    GenerationConfig config;
    config.repetition_penalty = 2.0f;
    std::vector<float> logits = {4.0f, -1.0f, 3.0f};
    Sampler sampler(config);
    // Token 0 seen twice is penalized once (4 -> 2), token 1 (-1 -> -2); token 2 (3) wins.
    EXPECT_EQ(sampler.next(logits.data(), 3, {0, 1, 0}), 2);
    EXPECT_FLOAT_EQ(logits[0], 2.0f);
    EXPECT_FLOAT_EQ(logits[1], -2.0f);
    EXPECT_FLOAT_EQ(logits[2], 3.0f);
}

TEST(Sampling, TopKOfOneAndATinyTopPAreGreedyWhateverTheSeed) {
    const std::vector<float> logits = {0.5f, 0.2f, 0.9f, 0.1f, 0.85f};
    for (uint64_t seed = 0; seed < 50; ++seed) {
        GenerationConfig k1;
        k1.temperature = 1.0f;
        k1.top_k = 1;
        k1.seed = seed;
        EXPECT_EQ(next(k1, logits), 2);
        GenerationConfig p;
        p.temperature = 1.0f;
        p.top_p = 1e-4f;
        p.seed = seed;
        EXPECT_EQ(next(p, logits), 2);
    }
}

// Draw frequencies against the probabilities they come from, within 5 standard deviations.
void expect_frequencies(GenerationConfig config, const std::vector<float>& logits, const std::map<int64_t, double>& expected) {
    const int draws = 40000;
    Sampler sampler(config);
    std::map<int64_t, int> counts;
    for (int i = 0; i < draws; ++i) {
        std::vector<float> copy = logits;
        ++counts[sampler.next(copy.data(), static_cast<int64_t>(copy.size()), {})];
    }
    for (const auto& [token, count] : counts) {
        EXPECT_TRUE(expected.count(token)) << "token " << token << " drawn " << count << " times, never expected";
    }
    for (const auto& [token, p] : expected) {
        const double sigma = std::sqrt(draws * p * (1 - p));
        EXPECT_NEAR(counts[token], draws * p, 5 * sigma + 1) << "token " << token;
    }
}

TEST(Sampling, DrawsFollowTheSoftmaxOfLogitsOverTemperature) {
    GenerationConfig config;
    config.temperature = 2.0f;
    config.seed = 7;
    // logits / 2 = 0, ln 2, ln 4: probabilities 1/7, 2/7, 4/7.
    const std::vector<float> logits = {0.0f, 2 * std::log(2.0f), 2 * std::log(4.0f)};
    expect_frequencies(config, logits, {{0, 1.0 / 7}, {1, 2.0 / 7}, {2, 4.0 / 7}});
}

TEST(Sampling, TopKAndTopPKeepTheTokensTheyName) {
    // Probabilities 0.1, 0.2, 0.3, 0.4 (logits their logs).
    const std::vector<float> logits = {std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f)};
    GenerationConfig k2;
    k2.temperature = 1.0f;
    k2.top_k = 2;
    expect_frequencies(k2, logits, {{3, 4.0 / 7}, {2, 3.0 / 7}});
    GenerationConfig p;
    p.temperature = 1.0f;
    p.top_p = 0.65f;  // 0.4 + 0.3 = 0.7 reaches it; 0.4 alone does not
    expect_frequencies(p, logits, {{3, 4.0 / 7}, {2, 3.0 / 7}});
    GenerationConfig both;
    both.temperature = 1.0f;
    both.top_k = 3;
    both.top_p = 0.99f;  // within the top 3 (0.9 of the mass) all three are needed
    expect_frequencies(both, logits, {{3, 4.0 / 9}, {2, 3.0 / 9}, {1, 2.0 / 9}});
}

TEST(Sampling, TopPOverALargeVocabularySortsOnlyWhatItNeeds) {
    // 100,000 tokens: one of 0.5 of the mass, the rest spread evenly; top_p 0.5 keeps one.
    std::vector<float> logits(100000, 0.0f);
    logits[4242] = std::log(99999.0f);
    GenerationConfig config;
    config.temperature = 1.0f;
    config.top_p = 0.5f;
    for (uint64_t seed = 0; seed < 5; ++seed) {
        config.seed = seed;
        EXPECT_EQ(next(config, logits), 4242);
    }
    config.top_p = 0.9f;  // now about 80,000 of the others too: many distinct draws
    Sampler sampler(config);
    std::map<int64_t, int> counts;
    for (int i = 0; i < 200; ++i) {
        std::vector<float> copy = logits;
        ++counts[sampler.next(copy.data(), static_cast<int64_t>(copy.size()), {})];
    }
    EXPECT_GT(counts.size(), 50u);
    EXPECT_NEAR(counts[4242], 200 * 0.5 / 0.9, 40);
}

TEST(Sampling, TheSameSeedGivesTheSameTokensAndAnotherSeedOthers) {
    std::vector<float> logits(1000);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(std::sin(static_cast<double>(i)));
    const auto run = [&](uint64_t seed) {
        GenerationConfig config;
        config.temperature = 1.0f;
        config.seed = seed;
        Sampler sampler(config);
        std::vector<int64_t> tokens;
        for (int i = 0; i < 64; ++i) {
            std::vector<float> copy = logits;
            tokens.push_back(sampler.next(copy.data(), static_cast<int64_t>(copy.size()), {}));
        }
        return tokens;
    };
    EXPECT_EQ(run(3), run(3));
    EXPECT_NE(run(3), run(4));
}

}  // namespace
