// Text generation over a loaded program: a causal language model exported with a static KV cache
// (transformers' TorchExportableModuleWithStaticCache, examples/export_llm.py, ExecuTorch's Llama
// export), whose cache is the program's mutated buffers.
//
//   auto program = pt2ov::Program::load("qwen.pt2", pt2ov::Generator::load_options());
//   auto tokenizer = pt2ov::Tokenizer::load("qwen-tokenizer/");
//   pt2ov::Generator generator(program, &tokenizer);
//   std::string text = generator.generate_text("Once upon a time", {}).text;
//
// The program takes the token ids (int64, (1, seq)) and their positions in the cache (int64,
// (seq,), or (1,): the first one's), and returns logits ((1, seq, vocab), or (1, vocab) / (1, 1,
// vocab) when it returns the last position's only). The prompt goes in one call (in chunks of the
// most tokens one call takes), then one token per call. A Generator keeps the conversation: each
// generate() continues from where the last one stopped, until reset(). One thread at a time uses
// a Generator (its Program's calls are serialized anyway: the cache is its state).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov {

// A Hugging Face tokenizer converted to OpenVINO models by openvino-tokenizers
// (`convert_tokenizer(..., with_detokenizer=True)`, as examples/export_llm.py and optimum-intel save
// them): openvino_tokenizer.xml and openvino_detokenizer.xml in one folder, run by OpenVINO with
// the openvino-tokenizers extension library. Text round-trips as the Hugging Face tokenizer's does.
class Tokenizer {
public:
    // `directory` holds openvino_tokenizer.xml and openvino_detokenizer.xml (and their .bin).
    // `extension`: the openvino-tokenizers library (libopenvino_tokenizers.so); empty: the
    // environment variable PT2OV_TOKENIZERS_EXTENSION, else the one found when pt2ov was built.
    // Throws pt2ov::Error naming the missing file or library.
    static Tokenizer load(const std::string& directory, const std::string& extension = "");

    // Token ids of `text`, with the special tokens the Hugging Face tokenizer adds (a BOS).
    std::vector<int64_t> encode(const std::string& text) const;
    // Text of `tokens`, special tokens skipped, and ids beyond the vocabulary (as Hugging Face's
    // decode() skips them). InputError for a negative id.
    std::string decode(const std::vector<int64_t>& tokens) const;

    int64_t eos_token_id() const;    // -1 when the tokenizer names none
    int64_t bos_token_id() const;    // -1 when the tokenizer names none
    int64_t vocabulary_size() const; // the detokenizer's vocabulary; 0 when it cannot tell
    const std::string& directory() const;

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    struct Impl;

private:
    explicit Tokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

struct GenerationConfig {
    int max_new_tokens = 128;
    // Generation ends after one of these is produced (it is part of the result). Empty: the
    // tokenizer's end-of-sequence token, when the generator has a tokenizer that names one.
    std::vector<int64_t> stop_tokens;
    // 0: greedy (the highest logit; the lowest id among equal ones). > 0: a token drawn from
    // softmax(logits / temperature), after top_k and top_p.
    float temperature = 0.0f;
    int top_k = 0;        // keep the k highest logits; 0: all
    float top_p = 1.0f;   // keep the fewest highest-probability tokens whose sum reaches top_p
    // > 1: each token already in the conversation (prompt and generated) has its logit divided
    // by this when positive and multiplied when negative (as transformers' repetition_penalty).
    float repetition_penalty = 1.0f;
    uint64_t seed = 0;    // the draw's seed: the same seed gives the same tokens, run after run
    // Keep the logits each new token was chosen from, as the program returned them (before the
    // penalty and temperature): GenerationResult::logits.
    bool output_logits = false;
};

struct GenerationResult {
    std::vector<int64_t> tokens;   // the new tokens, a stop token included
    std::string text;              // decode(tokens) when the generator has a tokenizer
    // "stop_token", "max_new_tokens", "cache_full" (the cache holds no more positions) or
    // "stopped" (the streaming callback returned false).
    std::string stop_reason;
    int64_t prompt_tokens = 0;     // tokens fed before the first new one (the prompt, and a token
                                   // left unfed by the generate() before)
    double time_to_first_token_ms = 0;  // prompt in, first token out
    std::vector<double> token_ms;       // each later token: its call and its choice
    std::vector<std::vector<float>> logits;  // with output_logits: one row of vocabulary floats per token
};

// Called with each new token as it is chosen (and, with a tokenizer, the text it completes: ""
// while a multi-byte character is still incomplete). Return false to stop after it.
using TokenCallback = std::function<bool(int64_t token, const std::string& text)>;

class Generator {
public:
    // The load options a program for generation is best loaded with: `given`, with
    // int64_input_limit set to 2^24 when it is 0. A generator feeds token ids below the vocabulary
    // and positions below the cache's length, both far within that bound, so the promise holds by
    // construction, and the position arithmetic of the cache update then stays on OpenVINO (with
    // the cache as OpenVINO state: one OpenVINO step per call, where without it each layer's cache
    // update runs on pt2ov's CPU kernels between OpenVINO steps).
    //
    // And with appending_positions set to "cache_position" (transformers' name for the positions
    // input) when it is empty: the generator feeds positions running on from 0 and resets the
    // program before a new conversation, so that promise holds too, and the static cache then
    // grows in OpenVINO by each call's positions, the attention reading it in place, instead of
    // being copied whole into OpenVINO's state at every call (Qwen2.5-0.5B's shape: about 1 ms a
    // token). A program whose positions input has another name is loaded with that name; one
    // loaded without load_options() runs the cache whole, as before.
    static LoadOptions load_options(LoadOptions given = {});
    static constexpr int64_t kInt64InputLimit = int64_t{1} << 24;
    static constexpr const char* kAppendingPositions = "cache_position";

    // Over `program` (and, for text, `tokenizer`), both kept by reference: they must outlive the
    // generator. Throws UnsupportedError when the program is not a language model with a static
    // cache (saying which input or output does not fit), InputError when the tokenizer's
    // vocabulary is larger than the program's logits.
    //
    // The constructor runs the program once on one token and resets its state: OpenVINO's
    // first inference of a program of dynamic shapes does setup that no later call repeats (the
    // CPU plugin packs the weights: about 0.6 s for Qwen2.5-0.5B's shape in int4), which is
    // then paid when the generator is made, not by the first reply. The program's state after
    // the constructor is the archive's, as after reset().
    explicit Generator(Program& program, const Tokenizer* tokenizer = nullptr);

    // Continues the conversation with `prompt` and generates up to config.max_new_tokens tokens.
    // InputError for an empty prompt, a token id beyond the vocabulary, a stop token beyond it,
    // or a prompt longer than what the cache still holds.
    GenerationResult generate(const std::vector<int64_t>& prompt, const GenerationConfig& config = {},
                              const TokenCallback& on_token = {});
    // The same for text: the prompt encoded by the tokenizer, the result decoded (InputError
    // without a tokenizer).
    GenerationResult generate_text(const std::string& prompt, const GenerationConfig& config = {},
                                   const TokenCallback& on_token = {});

    // A new conversation: the cache back to the archive's values.
    void reset();

    int64_t position() const;         // positions of the cache in use
    int64_t cache_length() const;     // positions the cache holds
    int64_t vocabulary_size() const;  // the logits' last dim
    int64_t max_tokens_per_call() const;

    Generator(Generator&&) noexcept;
    Generator& operator=(Generator&&) noexcept;
    ~Generator();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace pt2ov
