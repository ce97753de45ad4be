// Choosing the next token from one position's logits: greedy, or a seeded draw after the
// repetition penalty, temperature, top-k and top-p, in transformers' order. pt2ov's own small
// code: one pass over the vocabulary for greedy, a partial sort of the candidates for a draw.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "pt2ov/generate.h"

namespace pt2ov::generate {

// The sampler of one generate() call: its draws come from `config.seed` alone, so the same seed
// and logits give the same tokens on every run and thread count.
class Sampler {
public:
    explicit Sampler(const GenerationConfig& config);

    // The next token from `logits` (`vocabulary` floats, changed in place by the penalty and the
    // temperature). `seen`: the conversation's tokens so far, for the repetition penalty.
    int64_t next(float* logits, int64_t vocabulary, const std::vector<int64_t>& seen);

private:
    GenerationConfig config_;
    std::mt19937_64 engine_;
    std::vector<int32_t> order_;    // candidate ids, reused across calls
    std::vector<double> weights_;   // unnormalized probabilities by id, reused
};

// Index of the largest value; the lowest index among equal ones, NaN never chosen over a
// number (as torch.argmax would choose NaN, a NaN in logits is refused by the caller first).
int64_t argmax(const float* values, int64_t count);

}  // namespace pt2ov::generate
