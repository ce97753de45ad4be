// pt2ov::Generator: prefill and decode on a program's own KV cache (its mutated buffers), the
// next token chosen by generate::Sampler. Everything else is the engine's: Program::run for each
// call, Program::reset_state for a new conversation.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <span>

#include "generate/sampling.h"
#include "pt2ov/generate.h"

namespace pt2ov {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string names_of(const std::vector<IOInfo>& infos) {
    std::string names;
    for (const auto& info : infos) names += (names.empty() ? "" : ", ") + info.name + " " + std::string(dtype_name(info.dtype));
    return names.empty() ? "none" : names;
}

const char* kExpected =
    "text generation needs a causal language model exported with a static KV cache: inputs the token ids "
    "(int64, (1, seq)) and their cache positions (int64, (seq,) or (1,)), output the logits ((1, seq, vocab) or "
    "(1, vocab)), the cache kept in the program's mutated buffers (examples/export_llm.py exports one)";

bool ends_incomplete(const std::string& text) {
    // The detokenizer replaces the bytes of a character not complete yet with U+FFFD.
    return text.size() >= 3 && std::memcmp(text.data() + text.size() - 3, "\xEF\xBF\xBD", 3) == 0;
}

}  // namespace

struct Generator::Impl {
    Program* program = nullptr;
    const Tokenizer* tokenizer = nullptr;
    size_t ids_input = 0;
    size_t positions_input = 1;
    bool position_per_token = true;  // positions (seq,); false: the first one's, (1,)
    size_t logits_output = 0;
    int64_t vocabulary = 0;
    int64_t max_per_call = 1;
    int64_t cache_length = 0;
    // The conversation: tokens fed into the cache, and the last one chosen but not fed yet.
    std::vector<int64_t> history;
    int64_t position = 0;
    int64_t pending = -1;
    // The last call's outputs, given back to the next call of as many tokens: the program writes
    // into them (no allocation a token). `logits` points at the last position's, in them.
    std::vector<Tensor> outputs;
    int64_t outputs_count = 0;
    float* logits = nullptr;

    // Feeds `tokens` (at most max_per_call) at the current position; keeps the last position's logits.
    void feed(const int64_t* tokens, int64_t count) {
        std::vector<int64_t> ids(tokens, tokens + count);
        std::vector<int64_t> positions;
        if (position_per_token) {
            for (int64_t i = 0; i < count; ++i) positions.push_back(position + i);
        } else {
            positions.push_back(position);
        }
        std::vector<Tensor> inputs(2);
        inputs[ids_input] = Tensor::view(DType::Int64, {1, count}, ids.data());
        inputs[positions_input] = Tensor::view(DType::Int64, {static_cast<int64_t>(positions.size())}, positions.data());
        if (count != outputs_count) outputs.clear();  // another shape: the program allocates them
        outputs_count = count;
        program->run(inputs, outputs);
        Tensor& out = outputs.at(logits_output);
        if (out.numel() < vocabulary || out.numel() % vocabulary != 0) {
            throw UnsupportedError("generate: the program's logits have " + std::to_string(out.numel()) + " values for " +
                        std::to_string(count) + " token(s), not a multiple of the vocabulary (" + std::to_string(vocabulary) + ")");
        }
        logits = out.data_as<float>() + (out.numel() - vocabulary);
        position += count;
        history.insert(history.end(), tokens, tokens + count);
    }
};

Generator::Generator(Program& program, const Tokenizer* tokenizer) : impl_(std::make_unique<Impl>()) {
    Impl& g = *impl_;
    g.program = &program;
    g.tokenizer = tokenizer;
    const auto& inputs = program.inputs();
    const auto& outputs = program.outputs();
    if (inputs.size() != 2) {
        throw UnsupportedError(std::string(kExpected) + "; this program takes " + std::to_string(inputs.size()) +
                               " input(s): " + names_of(inputs));
    }
    int ids = -1, positions = -1;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].dtype != DType::Int64) continue;
        if (inputs[i].shape.size() == 2 && ids < 0) ids = static_cast<int>(i);
        else if (inputs[i].shape.size() == 1 && positions < 0) positions = static_cast<int>(i);
    }
    if (ids < 0 || positions < 0) {
        throw UnsupportedError(std::string(kExpected) + "; this program takes " + names_of(inputs));
    }
    g.ids_input = static_cast<size_t>(ids);
    g.positions_input = static_cast<size_t>(positions);
    const IOInfo& id_info = inputs[g.ids_input];
    const IOInfo& position_info = inputs[g.positions_input];
    if (!id_info.dim_ranges.empty() && (id_info.dim_ranges[0].first > 1 || id_info.dim_ranges[0].second < 1)) {
        throw UnsupportedError(std::string(kExpected) + "; input '" + id_info.name + "' does not take a batch of 1");
    }
    g.max_per_call = id_info.shape[1] >= 0 ? id_info.shape[1]
                                            : (id_info.dim_ranges.size() > 1 ? id_info.dim_ranges[1].second : 1);
    const int64_t min_per_call = id_info.shape[1] >= 0 ? id_info.shape[1]
                                                       : (id_info.dim_ranges.size() > 1 ? id_info.dim_ranges[1].first : 1);
    if (min_per_call > 1) {
        throw UnsupportedError(std::string(kExpected) + "; input '" + id_info.name + "' takes at least " +
                               std::to_string(min_per_call) + " tokens per call, and decoding feeds one");
    }
    // (1,) beside a dynamic sequence: the first token's position; otherwise one per token.
    g.position_per_token = !(position_info.shape[0] == 1 && id_info.shape[1] != 1);
    int logits = -1;
    for (size_t o = 0; o < outputs.size() && logits < 0; ++o) {
        const auto& shape = outputs[o].shape;
        if (outputs[o].dtype == DType::Float32 && (shape.size() == 2 || shape.size() == 3) && shape.back() > 0) {
            logits = static_cast<int>(o);
        }
    }
    if (logits < 0) {
        throw UnsupportedError(std::string(kExpected) + "; no output is float32 logits with a static vocabulary (outputs: " +
                               names_of(outputs) + "; a model in another dtype returns logits.float())");
    }
    g.logits_output = static_cast<size_t>(logits);
    g.vocabulary = outputs[g.logits_output].shape.back();
    for (const auto& state : program.report().state) {
        if (state.shape.size() == 4) g.cache_length = std::max(g.cache_length, state.shape[2]);
    }
    if (g.cache_length <= 0) {
        throw UnsupportedError(std::string(kExpected) + "; this program carries no KV cache (no mutated buffer of 4 dims)");
    }
    if (tokenizer && tokenizer->vocabulary_size() > g.vocabulary) {
        throw InputError("generate: the tokenizer '" + tokenizer->directory() + "' has " +
                         std::to_string(tokenizer->vocabulary_size()) + " tokens and the program's logits " +
                         std::to_string(g.vocabulary) + ": they were not made for each other");
    }
    if (tokenizer && tokenizer->eos_token_id() >= g.vocabulary) {
        throw InputError("generate: the tokenizer's end-of-sequence token " + std::to_string(tokenizer->eos_token_id()) +
                         " is beyond the program's vocabulary (" + std::to_string(g.vocabulary) + ")");
    }
    // OpenVINO's first-inference setup, paid here rather than by the first reply; the state
    // goes back to the archive's.
    const int64_t first = 0;
    g.feed(&first, 1);
    reset();
}

LoadOptions Generator::load_options(LoadOptions given) {
    if (given.int64_input_limit == 0) given.int64_input_limit = kInt64InputLimit;
    if (given.appending_positions.empty()) given.appending_positions = kAppendingPositions;
    return given;
}

Generator::Generator(Generator&&) noexcept = default;
Generator& Generator::operator=(Generator&&) noexcept = default;
Generator::~Generator() = default;

void Generator::reset() {
    impl_->program->reset_state();
    impl_->history.clear();
    impl_->position = 0;
    impl_->pending = -1;
}

int64_t Generator::position() const { return impl_->position; }
int64_t Generator::cache_length() const { return impl_->cache_length; }
int64_t Generator::vocabulary_size() const { return impl_->vocabulary; }
int64_t Generator::max_tokens_per_call() const { return impl_->max_per_call; }

GenerationResult Generator::generate(const std::vector<int64_t>& prompt, const GenerationConfig& config,
                                     const TokenCallback& on_token) {
    Impl& g = *impl_;
    const auto start = Clock::now();
    if (prompt.empty()) throw InputError("generate: the prompt is empty");
    if (config.max_new_tokens < 0) throw InputError("generate: max_new_tokens is negative");
    if (!(config.temperature >= 0.0f) || !std::isfinite(config.temperature)) {
        throw InputError("generate: temperature must be 0 (greedy) or positive");
    }
    if (config.top_k < 0) throw InputError("generate: top_k must be 0 (all tokens) or positive");
    if (!(config.top_p > 0.0f && config.top_p <= 1.0f)) throw InputError("generate: top_p must be in (0, 1]");
    if (!(config.repetition_penalty > 0.0f) || !std::isfinite(config.repetition_penalty)) {
        throw InputError("generate: repetition_penalty must be positive");
    }
    for (size_t i = 0; i < prompt.size(); ++i) {
        if (prompt[i] < 0 || prompt[i] >= g.vocabulary) {
            throw InputError("generate: prompt token " + std::to_string(i) + " is " + std::to_string(prompt[i]) +
                             ", outside the vocabulary [0, " + std::to_string(g.vocabulary) + ")");
        }
    }
    std::vector<int64_t> stops = config.stop_tokens;
    if (stops.empty() && g.tokenizer && g.tokenizer->eos_token_id() >= 0) stops.push_back(g.tokenizer->eos_token_id());
    for (int64_t stop : stops) {
        if (stop < 0 || stop >= g.vocabulary) {
            throw InputError("generate: stop token " + std::to_string(stop) + " is outside the vocabulary [0, " +
                             std::to_string(g.vocabulary) + ")");
        }
    }
    std::vector<int64_t> feed;
    if (g.pending >= 0) feed.push_back(g.pending);
    feed.insert(feed.end(), prompt.begin(), prompt.end());
    const int64_t room = g.cache_length - g.position;
    if (static_cast<int64_t>(feed.size()) > room) {
        throw InputError("generate: the prompt's " + std::to_string(prompt.size()) + " token(s)" +
                         (g.pending >= 0 ? " (and the last token of the previous reply)" : "") + " do not fit: the cache holds " +
                         std::to_string(g.cache_length) + " positions and " + std::to_string(g.position) +
                         " are in use; start a new conversation (reset) or shorten the prompt");
    }
    g.pending = -1;
    GenerationResult result;
    result.prompt_tokens = static_cast<int64_t>(feed.size());
    for (size_t done = 0; done < feed.size();) {
        const int64_t count = std::min<int64_t>(g.max_per_call, static_cast<int64_t>(feed.size() - done));
        g.feed(feed.data() + done, count);
        done += static_cast<size_t>(count);
    }
    generate::Sampler sampler(config);
    std::string printed;
    auto chosen_at = Clock::now();
    while (static_cast<int>(result.tokens.size()) < config.max_new_tokens) {
        for (const float value : std::span<const float>(g.logits, static_cast<size_t>(g.vocabulary))) {
            if (std::isnan(value)) {
                throw InputError("generate: the logits at position " + std::to_string(g.position - 1) +
                            " hold NaN; the program computed no valid distribution");
            }
        }
        if (config.output_logits) result.logits.emplace_back(g.logits, g.logits + g.vocabulary);
        const int64_t token = sampler.next(g.logits, g.vocabulary, g.history);
        result.tokens.push_back(token);
        if (result.tokens.size() == 1) {
            result.time_to_first_token_ms = ms_since(start);
        } else {
            result.token_ms.push_back(ms_since(chosen_at));
        }
        chosen_at = Clock::now();
        if (std::find(stops.begin(), stops.end(), token) != stops.end()) {
            result.stop_reason = "stop_token";
        } else if (static_cast<int>(result.tokens.size()) >= config.max_new_tokens) {
            result.stop_reason = "max_new_tokens";
        } else if (g.position >= g.cache_length) {
            result.stop_reason = "cache_full";
        }
        if (on_token) {
            std::string piece;
            if (g.tokenizer) {
                // What the reply's text adds, held back while it ends in an incomplete character
                // (U+FFFD), except after the last token: the pieces add up to the reply's text.
                const std::string text = g.tokenizer->decode(result.tokens);
                const bool last = !result.stop_reason.empty();
                if ((last || !ends_incomplete(text)) && text.size() > printed.size() &&
                    text.compare(0, printed.size(), printed) == 0) {
                    piece = text.substr(printed.size());
                    printed = text;
                }
            }
            if (!on_token(token, piece) && result.stop_reason.empty()) result.stop_reason = "stopped";
        }
        if (!result.stop_reason.empty()) {
            g.pending = token;  // fed first by the next generate() of this conversation
            break;
        }
        g.feed(&token, 1);
    }
    if (result.stop_reason.empty()) result.stop_reason = "max_new_tokens";
    if (g.tokenizer && !result.tokens.empty()) result.text = g.tokenizer->decode(result.tokens);
    return result;
}

GenerationResult Generator::generate_text(const std::string& prompt, const GenerationConfig& config,
                                          const TokenCallback& on_token) {
    if (!impl_->tokenizer) throw InputError("generate: a text prompt needs a tokenizer (Generator(program, &tokenizer))");
    return generate(impl_->tokenizer->encode(prompt), config, on_token);
}

}  // namespace pt2ov
