// Greedy decoding of a causal LM exported with transformers' static-cache wrapper
// (examples/make_llm.py): the prompt in one call (prefill), then one token per call, the KV cache
// carried by pt2ov as the program's mutated buffers. Uses only the public API (pt2ov/pt2ov.h).
//
//   build/examples/llm_decode examples/llm.pt2 --prompt 12,7,200 --steps 32 [--sequences 2]
//                             [--threads N] [--logits-out logits.f32] [--quiet]
//
// Each call takes input_ids (1, seq) int64 and cache_position (seq) int64 and returns the logits
// (1, seq, vocab); the next token is the argmax of the last position. Between sequences the cache
// goes back to the archive's values with Program::reset_state, so every sequence of one run
// decodes the same tokens. --logits-out writes every call's logits as raw float32, in call order
// (per sequence: the prompt's (len, vocab), then one (vocab) per step), for comparison.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace {

struct Options {
    std::string model;
    std::vector<int64_t> prompt;
    int steps = 32;
    int sequences = 1;
    int threads = 0;
    int64_t int64_input_limit = 0;
    std::string logits_out;
    bool quiet = false;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "llm_decode: " << problem
              << "\nusage: llm_decode MODEL.pt2 --prompt T1,T2,... [--steps N] [--sequences N] [--threads N]"
                 " [--int64-input-limit N] [--logits-out FILE] [--quiet]\n"
                 "  --int64-input-limit N: every token id and position lies within [0, N] (the vocabulary and the\n"
                 "  cache length); pt2ov checks it on each call and keeps the position arithmetic on OpenVINO\n";
    std::exit(2);
}

std::vector<int64_t> parse_tokens(const std::string& text) {
    std::vector<int64_t> tokens;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');) {
        try {
            tokens.push_back(std::stoll(item));
        } catch (const std::exception&) {
            usage("--prompt: '" + item + "' is not a token id");
        }
    }
    if (tokens.empty()) usage("--prompt needs at least one token");
    return tokens;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--prompt") {
            options.prompt = parse_tokens(value());
        } else if (arg == "--steps") {
            options.steps = std::stoi(value());
        } else if (arg == "--sequences") {
            options.sequences = std::stoi(value());
        } else if (arg == "--threads") {
            options.threads = std::stoi(value());
        } else if (arg == "--int64-input-limit") {
            options.int64_input_limit = std::stoll(value());
        } else if (arg == "--logits-out") {
            options.logits_out = value();
        } else if (arg == "--quiet") {
            options.quiet = true;
        } else if (!arg.empty() && arg[0] == '-') {
            usage("unknown option " + arg);
        } else if (options.model.empty()) {
            options.model = arg;
        } else {
            usage("one model only");
        }
    }
    if (options.model.empty()) usage("no model given");
    if (options.prompt.empty()) usage("--prompt is required");
    if (options.steps < 0 || options.sequences < 1) usage("--steps must be >= 0 and --sequences >= 1");
    return options;
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// The argmax over the vocabulary at the last position of logits (1, seq, vocab).
int64_t last_argmax(const pt2ov::Tensor& logits) {
    const int64_t vocab = logits.shape().back();
    const float* last = logits.data_as<float>() + (logits.numel() - vocab);
    return std::max_element(last, last + vocab) - last;
}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        pt2ov::LoadOptions load_options;
        load_options.num_threads = options.threads;
        load_options.int64_input_limit = options.int64_input_limit;
        const auto load_start = std::chrono::steady_clock::now();
        pt2ov::Program program = pt2ov::Program::load(options.model, load_options);
        std::printf("loaded %s in %.1f ms; %zu OpenVINO/CPU steps; %zu cache buffers\n", options.model.c_str(),
                    elapsed_ms(load_start), program.report().steps.size(), program.state_names().size());
        const auto& inputs = program.inputs();
        if (inputs.size() != 2 || inputs[0].dtype != pt2ov::DType::Int64 || inputs[1].dtype != pt2ov::DType::Int64) {
            std::cerr << "llm_decode: expected a program of (input_ids, cache_position), both int64\n";
            return 2;
        }
        const int64_t max_len = inputs[0].dim_ranges.size() == 2 ? inputs[0].dim_ranges[1].second : 1;
        if (static_cast<int64_t>(options.prompt.size()) > max_len) {
            std::cerr << "llm_decode: the prompt has " << options.prompt.size() << " tokens; the program takes at most "
                      << max_len << " per call\n";
            return 2;
        }

        std::ofstream logits_file;
        if (!options.logits_out.empty()) logits_file.open(options.logits_out, std::ios::binary);
        auto keep_logits = [&](const pt2ov::Tensor& logits) {
            if (logits_file) logits_file.write(static_cast<const char*>(logits.data()), static_cast<std::streamsize>(logits.byte_size()));
        };

        std::vector<int64_t> first_tokens;
        std::vector<double> decode_ms;
        std::vector<double> prefill_ms;
        for (int sequence = 0; sequence < options.sequences; ++sequence) {
            if (sequence > 0) program.reset_state();  // the cache back to zeros: a new sequence
            std::vector<int64_t> ids = options.prompt;
            std::vector<int64_t> positions(ids.size());
            std::iota(positions.begin(), positions.end(), int64_t{0});
            const int64_t n = static_cast<int64_t>(ids.size());

            auto start = std::chrono::steady_clock::now();
            std::vector<pt2ov::Tensor> outputs = program.run({pt2ov::Tensor::view(pt2ov::DType::Int64, {1, n}, ids.data()),
                                                              pt2ov::Tensor::view(pt2ov::DType::Int64, {n}, positions.data())});
            prefill_ms.push_back(elapsed_ms(start));
            keep_logits(outputs[0]);
            if (!options.quiet) std::printf("sequence %d: prefill of %lld tokens %.3f ms\n", sequence + 1, static_cast<long long>(n), prefill_ms.back());

            std::vector<int64_t> generated;
            int64_t position = n;
            for (int step = 0; step < options.steps; ++step) {
                int64_t token = last_argmax(outputs[0]);
                generated.push_back(token);
                start = std::chrono::steady_clock::now();
                outputs = program.run({pt2ov::Tensor::view(pt2ov::DType::Int64, {1, 1}, &token),
                                       pt2ov::Tensor::view(pt2ov::DType::Int64, {1}, &position)});
                decode_ms.push_back(elapsed_ms(start));
                keep_logits(outputs[0]);
                if (!options.quiet) std::printf("  step %2d: token %5lld  %.3f ms\n", step + 1, static_cast<long long>(token), decode_ms.back());
                ++position;
            }
            std::printf("tokens:");
            for (int64_t token : generated) std::printf(" %lld", static_cast<long long>(token));
            std::printf("\n");
            if (sequence == 0) {
                first_tokens = generated;
            } else if (generated != first_tokens) {
                std::cerr << "llm_decode: sequence " << sequence + 1 << " after reset_state decoded other tokens than the first\n";
                return 1;
            }
        }
        std::printf("prefill (%zu tokens): median %.3f ms; decode: median %.3f ms per token over %zu tokens\n",
                    options.prompt.size(), median(prefill_ms), median(decode_ms), decode_ms.size());
    } catch (const pt2ov::Error& error) {
        std::cerr << "llm_decode: " << error.what() << "\n";
        return 2;
    }
    return 0;
}
