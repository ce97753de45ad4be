#include "generate/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

namespace pt2ov::generate {

int64_t argmax(const float* values, int64_t count) {
    int64_t best = 0;
    for (int64_t i = 1; i < count; ++i) {
        if (values[i] > values[best]) best = i;
    }
    return best;
}

Sampler::Sampler(const GenerationConfig& config) : config_(config), engine_(config.seed) {}

int64_t Sampler::next(float* logits, int64_t vocabulary, const std::vector<int64_t>& seen) {
    if (config_.repetition_penalty != 1.0f) {
        // Each token once, however often it was seen (transformers gathers the scores of the
        // ids, so a repeated id is penalized once).
        std::unordered_set<int64_t> once;
        for (int64_t token : seen) {
            if (token < 0 || token >= vocabulary || !once.insert(token).second) continue;
            float& score = logits[token];
            score = score < 0 ? score * config_.repetition_penalty : score / config_.repetition_penalty;
        }
    }
    if (config_.temperature <= 0.0f) return argmax(logits, vocabulary);
    for (int64_t i = 0; i < vocabulary; ++i) logits[i] /= config_.temperature;

    // Candidates in a total order: higher logit first, then lower id, so that ties are cut the
    // same way on every run. Only selections (nth_element) in this order, never a full sort:
    // a vocabulary of 150,000 costs a few passes over it.
    const auto before = [logits](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
    order_.resize(static_cast<size_t>(vocabulary));
    std::iota(order_.begin(), order_.end(), 0);
    size_t kept = order_.size();
    if (config_.top_k > 0 && static_cast<size_t>(config_.top_k) < kept) {
        kept = static_cast<size_t>(config_.top_k);
        std::nth_element(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(kept), order_.end(), before);
    }
    // Each candidate's unnormalized probability, by id (exp(logit - the highest)).
    const double top = logits[argmax(logits, vocabulary)];
    weights_.resize(static_cast<size_t>(vocabulary));
    for (size_t i = 0; i < kept; ++i) weights_[order_[i]] = std::exp(static_cast<double>(logits[order_[i]]) - top);
    const auto mass = [&](size_t from, size_t to) {
        double sum = 0;
        for (size_t i = from; i < to; ++i) sum += weights_[order_[i]];
        return sum;
    };
    if (config_.top_p < 1.0f) {
        // The fewest highest tokens (within the top-k) whose probabilities reach top_p: a
        // selection by mass. That count lies in (low, high]; order_[0, low) are kept (their mass
        // taken off `target`), and each of order_[low, high) is above everything after it.
        double target = config_.top_p * mass(0, kept);
        size_t low = 0, high = kept;
        while (high - low > 1) {
            const size_t middle = low + (high - low) / 2;  // low < middle < high
            std::nth_element(order_.begin() + static_cast<std::ptrdiff_t>(low), order_.begin() + static_cast<std::ptrdiff_t>(middle),
                             order_.begin() + static_cast<std::ptrdiff_t>(high), before);
            const double upper = mass(low, middle);  // the tokens above order_[middle]
            if (upper >= target) {
                high = middle;
            } else {
                target -= upper;
                low = middle;
            }
        }
        kept = high;
    }
    const double sum = mass(0, kept);
    // A draw in [0, 1) from the top 53 bits: the same on every standard library, unlike
    // std::uniform_real_distribution's.
    const double draw = static_cast<double>(engine_() >> 11) * 0x1.0p-53 * sum;
    double cumulative = 0;
    for (size_t i = 0; i < kept; ++i) {
        cumulative += weights_[order_[i]];
        if (draw < cumulative) return order_[i];
    }
    return order_[kept - 1];
}

}  // namespace pt2ov::generate
