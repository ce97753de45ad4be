// The pt2ov command: parses flags and calls the library (README.md, "The command line").
#include <chrono>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <type_traits>
#include <variant>

#include "common/text.h"
#include "pt2ov/generate.h"
#include "pt2ov/load_options.h"
#include "pt2ov/pt2ov.h"
#include "serve/repository.h"
#include "serve/server.h"
#include "tools/benchmark.h"
#include "tools/npz_io.h"
#include "tools/report.h"

namespace {

// The exit status (README.md, "The command line"): 0 success, 2 a user error (bad file, bad
// input, unsupported program, bad flag), 3 a bug in pt2ov, so one is never taken for the other.
constexpr int kExitUserError = 2;
constexpr int kExitInternalError = 3;
constexpr const char* kExitStatusHelp = "Exit status: 0 success, 2 user error (bad file, input, flag or unsupported "
                                        "program; one line on stderr), 3 internal error (a bug in pt2ov: please report it).";

// The load options, each a row of the one table (pt2ov/load_options.h): a text option
// with its choices, a repeatable list, a flag ("--no-..." for one that is on by default), an
// integer in its range.
void add_placement_options(CLI::App& command, pt2ov::LoadOptions& options) {
    const pt2ov::LoadOptions defaults;
    for (const auto& row : pt2ov::load_option_table()) {
        std::visit(
            [&](auto field) {
                auto& value = options.*field;
                using Value = std::decay_t<decltype(value)>;
                const std::string flag(row.flag), help(row.help);
                if constexpr (std::is_same_v<Value, bool>) {
                    command.add_flag((defaults.*field ? "!" : "") + flag, value, help);
                } else {
                    auto* option = command.add_option(flag, value, help);
                    if constexpr (std::is_same_v<Value, std::string>) {
                        if (!row.choices.empty()) {
                            option->check(CLI::IsMember(std::vector<std::string>(row.choices.begin(), row.choices.end())));
                        }
                        if (!(defaults.*field).empty()) option->default_val(defaults.*field);
                    } else if constexpr (std::is_integral_v<Value>) {
                        option->check(CLI::Range(static_cast<Value>(row.min), static_cast<Value>(row.max)))
                            ->default_val(defaults.*field);
                    }
                }
            },
            row.field);
    }
    // The spellings before the options had one name each, kept for one release (not in --help).
    const auto deprecated = [&command](const char* old_flag, const char* flag, auto& value, const CLI::Validator& check) {
        command.add_option(old_flag, value)
            ->check(check)
            ->group("")
            ->each([old_flag, flag](const std::string&) {
                std::cerr << "pt2ov: " << old_flag << " is deprecated and will be removed: use " << flag << "\n";
            });
    };
    deprecated("--hint", "--performance-hint", options.performance_hint, CLI::IsMember({"latency", "throughput"}));
    deprecated("--threads", "--num-threads", options.num_threads, CLI::Range(0, 4096));
}

// Whether two paths name one file: by inode where both exist (links, "./x", "../d/x"), else by
// their canonical spelling (an output not written yet, named twice).
bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) return std::filesystem::equivalent(a, b, ec);
    const auto canonical = [&](const std::string& path) {
        return std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    };
    return canonical(a) == canonical(b);
}

// A file the run writes (--outputs, --state-out) that is the model, an --inputs file or
// another file the run writes would be overwritten (or overwrite a result) while the run
// reports success: refused before anything runs. (--state-out may be the --state-in file:
// the state is read whole before the first call, and written through a temporary file.)
void refuse_outputs_over_other_files(const std::string& model, const std::vector<std::string>& inputs,
                                     const std::vector<std::pair<std::string, std::string>>& written) {
    for (size_t i = 0; i < written.size(); ++i) {
        const auto& [flag, path] = written[i];
        const auto refuse = [&](const std::string& what) {
            throw pt2ov::InputError(fmt::format("{} {} is {}; writing it would destroy that file: give another path",
                                                flag, path, what));
        };
        if (same_file(path, model)) refuse("the model " + model);
        for (const auto& input : inputs) {
            if (same_file(path, input)) refuse("the --inputs file " + input);
        }
        for (size_t j = 0; j < i; ++j) {
            if (same_file(path, written[j].second)) refuse("also " + written[j].first + " " + written[j].second);
        }
    }
}

int run_command(const std::string& model, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                const std::vector<std::string>& inputs_out, const std::string& state_in, const std::string& state_out,
                const pt2ov::LoadOptions& options) {
    if (inputs.size() != outputs.size()) {
        throw pt2ov::OptionError(fmt::format("{} --inputs but {} --outputs: give one --outputs file per --inputs file",
                                            inputs.size(), outputs.size()));
    }
    if (!inputs_out.empty() && inputs_out.size() != inputs.size()) {
        throw pt2ov::OptionError(fmt::format("{} --inputs but {} --inputs-out: give one --inputs-out file per --inputs file",
                                            inputs.size(), inputs_out.size()));
    }
    std::vector<std::pair<std::string, std::string>> written;
    for (const auto& path : outputs) written.emplace_back("--outputs", path);
    for (const auto& path : inputs_out) written.emplace_back("--inputs-out", path);
    if (!state_out.empty()) written.emplace_back("--state-out", state_out);
    refuse_outputs_over_other_files(model, inputs, written);
    auto program = pt2ov::Program::load(model, options);
    // Read every input first, so a bad file stops the run before any call changes state.
    std::vector<std::vector<pt2ov::Tensor>> calls;
    for (const auto& path : inputs) calls.push_back(pt2ov::tools::read_inputs(path, program.inputs()));
    if (!state_in.empty()) pt2ov::tools::load_state(state_in, program);
    for (size_t i = 0; i < calls.size(); ++i) {
        pt2ov::tools::write_outputs(outputs[i], program.run(calls[i]));
        if (!inputs_out.empty()) pt2ov::tools::write_inputs(inputs_out[i], calls[i], program.inputs());
    }
    if (!state_out.empty()) pt2ov::tools::save_state(state_out, program);
    return 0;
}

int inspect_command(const std::string& model, bool json, pt2ov::LoadOptions options) {
    std::vector<pt2ov::PlacementReport> reports;
    const bool all_methods = options.method == "forward";
    for (const auto& method : all_methods ? pt2ov::Program::methods(model) : std::vector<std::string>{options.method}) {
        options.method = method;
        reports.push_back(pt2ov::Program::inspect(model, options));
    }
    std::cout << (json ? pt2ov::tools::report_json(reports) + "\n" : pt2ov::tools::report_text(reports));
    return 0;
}

struct GenerateArguments {
    std::string model;
    std::string tokenizer;
    std::string prompt;
    std::string prompt_ids;
    pt2ov::GenerationConfig config;
    bool json = false;
};

std::vector<int64_t> parse_token_list(const std::string& text, const std::string& flag) {
    std::vector<int64_t> tokens;
    for (const auto& item : pt2ov::split(text, ',')) {
        size_t used = 0;
        int64_t value = 0;
        try {
            value = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size()) {
            throw pt2ov::OptionError(fmt::format("{}: '{}' is not a token id (give ids separated by commas: 12,7,200)", flag, item));
        }
        tokens.push_back(value);
    }
    return tokens;
}

int generate_command(const GenerateArguments& arguments, const pt2ov::LoadOptions& options) {
    if (arguments.prompt.empty() == arguments.prompt_ids.empty()) {
        throw pt2ov::OptionError("give the prompt as text (--prompt, with --tokenizer) or as token ids (--prompt-ids), one of them");
    }
    if (!arguments.prompt.empty() && arguments.tokenizer.empty()) {
        throw pt2ov::OptionError("--prompt is text: give --tokenizer DIR (openvino_tokenizer.xml and openvino_detokenizer.xml, "
                                "as examples/export_llm.py writes them), or the token ids with --prompt-ids");
    }
    std::optional<pt2ov::Tokenizer> tokenizer;
    if (!arguments.tokenizer.empty()) tokenizer.emplace(pt2ov::Tokenizer::load(arguments.tokenizer));
    const auto load_start = std::chrono::steady_clock::now();
    auto program = pt2ov::Program::load(arguments.model, options);
    pt2ov::Generator generator(program, tokenizer ? &*tokenizer : nullptr);
    // The archive read, converted and compiled, and the generator's first-inference warm-up.
    const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
    const std::vector<int64_t> prompt =
        arguments.prompt.empty() ? parse_token_list(arguments.prompt_ids, "--prompt-ids") : tokenizer->encode(arguments.prompt);
    // Streams the text (or the token ids) to stdout as each token is chosen.
    const auto stream = [&](int64_t token, const std::string& text) {
        if (arguments.json) return true;
        if (tokenizer) {
            std::cout << text << std::flush;
        } else {
            std::cout << token << ' ' << std::flush;
        }
        return true;
    };
    const auto result = generator.generate(prompt, arguments.config, stream);
    double sum = 0;
    for (double ms : result.token_ms) sum += ms;
    const double per_token = result.token_ms.empty() ? 0.0 : sum / static_cast<double>(result.token_ms.size());
    if (arguments.json) {
        nlohmann::json out = {{"tokens", result.tokens},
                              {"text", result.text},
                              {"stop_reason", result.stop_reason},
                              {"prompt_tokens", result.prompt_tokens},
                              {"load_ms", load_ms},
                              {"time_to_first_token_ms", result.time_to_first_token_ms},
                              {"ms_per_token", per_token}};
        std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        std::cout << "\n";
        std::cerr << fmt::format("{} prompt tokens, {} new ({}); first token {:.1f} ms, then {:.2f} ms per token\n",
                                 result.prompt_tokens, result.tokens.size(), result.stop_reason,
                                 result.time_to_first_token_ms, per_token);
    }
    return 0;
}

int serve_command(const std::string& repository_path, const pt2ov::serve::ServeOptions& options,
                  const pt2ov::LoadOptions& defaults) {
    const auto sources = pt2ov::serve::scan_repository(repository_path, defaults);
    std::cerr << fmt::format("pt2ov serve: loading {} model(s) from {}\n", sources.size(), repository_path);
    const auto repository = pt2ov::serve::ModelRepository::load(sources);
    pt2ov::serve::serve(repository, options);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"pt2ov: run PyTorch torch.export programs (.pt2) on OpenVINO, exactly.\n"
                 "OpenVINO " + pt2ov::openvino_version()};
    app.require_subcommand(1);
    app.footer(kExitStatusHelp);

    pt2ov::LoadOptions run_options;
    std::string run_model;
    std::vector<std::string> run_inputs, run_outputs;
    auto* run = app.add_subcommand("run", "Run a program on inputs from .npz files, write outputs to .npz files.\n"
                                          "Several --inputs/--outputs pairs are successive calls on one loaded program.");
    run->add_option("model", run_model, "The .pt2 archive (torch.export.save)")->required();
    run->add_option("--inputs", run_inputs, "Inputs: np.savez(path, *inputs), or arrays named after the inputs")
        ->required()
        ->take_all()
        ->allow_extra_args(false);
    run->add_option("--outputs", run_outputs, "Where to write the outputs (arr_0, arr_1, ...)")->required();
    std::vector<std::string> run_inputs_out;
    run->add_option("--inputs-out", run_inputs_out,
                    "Where to write each call's inputs after the call, named after the inputs: a program that\n"
                    "writes its inputs in place (x.add_(1), a KV cache passed in) leaves its new values there,\n"
                    "as PyTorch leaves them in the caller's tensors; the file can be the next --inputs");
    std::string run_state_in, run_state_out;
    run->add_option("--state-in", run_state_in,
                    "Set mutated buffers before the first call from this .npz (arrays named by buffer name,\n"
                    "e.g. count, layer.cache); buffers not in it keep the archive's values");
    run->add_option("--state-out", run_state_out,
                    "Write every mutated buffer after the last call to this .npz (arrays named by buffer name)");
    add_placement_options(*run, run_options);
    run->footer(kExitStatusHelp);

    pt2ov::LoadOptions inspect_options;
    std::string inspect_model;
    bool inspect_json = false;
    auto* inspect = app.add_subcommand("inspect", "Show where each node runs and why, and the constants' memory.");
    inspect->add_option("model", inspect_model, "The .pt2 archive")->required();
    inspect->add_flag("--json", inspect_json, "Print one JSON object");
    add_placement_options(*inspect, inspect_options);
    inspect->footer(kExitStatusHelp);

    pt2ov::LoadOptions bench_options;
    pt2ov::tools::BenchmarkOptions bench_loop;
    std::string bench_model, bench_inputs;
    bool bench_json = false;
    auto* bench = app.add_subcommand("bench", "Time load and calls: warm-up, then N synchronous calls; latency\n"
                                              "percentiles, load split, engine overhead per call, peak RSS.");
    bench->add_option("model", bench_model, "The .pt2 archive")->required();
    bench->add_option("--inputs", bench_inputs, "Inputs of every call, as for run")->required();
    bench->add_option("--iterations", bench_loop.iterations, "Timed calls")->default_val(100)->check(CLI::Range(1, 1000000000));
    bench->add_option("--warmup", bench_loop.warmup, "Untimed calls first")->default_val(10)->check(CLI::Range(0, 1000000000));
    bench->add_flag("--json", bench_json, "Print one JSON object");
    add_placement_options(*bench, bench_options);
    bench->footer(kExitStatusHelp);

    pt2ov::LoadOptions generate_options;
    GenerateArguments generate_arguments;
    auto* generate = app.add_subcommand(
        "generate", "Generate text with a causal language model exported with a static KV cache\n"
                    "(examples/export_llm.py): the prompt in one call, then one token per call; the text\n"
                    "streams to stdout, the timings go to stderr.");
    generate->add_option("model", generate_arguments.model, "The .pt2 archive")->required();
    generate->add_option("--tokenizer", generate_arguments.tokenizer,
                         "Folder of openvino_tokenizer.xml and openvino_detokenizer.xml (openvino-tokenizers' conversion "
                         "of the model's Hugging Face tokenizer)");
    generate->add_option("--prompt", generate_arguments.prompt, "The prompt as text (needs --tokenizer)");
    generate->add_option("--prompt-ids", generate_arguments.prompt_ids, "The prompt as token ids: 12,7,200");
    generate->add_option("--max-new-tokens", generate_arguments.config.max_new_tokens, "At most this many new tokens")
        ->default_val(128)
        ->check(CLI::Range(0, 1 << 30));
    generate->add_option("--stop-token", generate_arguments.config.stop_tokens,
                         "Stop after this token (repeatable); default: the tokenizer's end-of-sequence token");
    generate->add_option("--temperature", generate_arguments.config.temperature,
                         "0: greedy (the highest logit); > 0: draw from softmax(logits / T)")
        ->default_val(0.0f)
        ->check(CLI::Range(0.0f, 1e6f));
    generate->add_option("--top-k", generate_arguments.config.top_k, "Draw among the k highest logits (0: all)")
        ->default_val(0)
        ->check(CLI::Range(0, 1 << 30));
    generate->add_option("--top-p", generate_arguments.config.top_p,
                         "Draw among the fewest highest tokens whose probabilities reach p (1: all)")
        ->default_val(1.0f)
        ->check(CLI::Range(1e-6f, 1.0f));
    generate->add_option("--repetition-penalty", generate_arguments.config.repetition_penalty,
                         "Divide the positive logits of tokens already seen by this (multiply the negative ones); 1: off")
        ->default_val(1.0f)
        ->check(CLI::Range(1e-6f, 1e6f));
    generate->add_option("--seed", generate_arguments.config.seed, "Seed of the draws (same seed, same tokens)")->default_val(0);
    generate->add_flag("--json", generate_arguments.json, "Print one JSON object (tokens, text, stop reason, timings)");
    add_placement_options(*generate, generate_options);
    // The generator's ids and positions lie far within 2^24 by construction (Generator::load_options).
    generate->get_option("--int64-input-limit")
        ->default_val(pt2ov::Generator::kInt64InputLimit)
        ->description("Every token id and position lies within [0, N]: the generator feeds nothing beyond the vocabulary "
                      "and the cache, so the default 2^24 holds for any model, and keeps the cache update on OpenVINO "
                      "(0: no promise, the position arithmetic runs on the CPU kernels)");
    generate->get_option("--appending-positions")
        ->default_val(std::string(pt2ov::Generator::kAppendingPositions))
        ->description("The cache positions input, which the generator feeds running on from 0 (transformers' "
                      "cache_position): the static cache then grows in OpenVINO by each call's positions, read in place "
                      "by the attention. Empty: the cache stays whole, copied into OpenVINO's state at every call");
    generate->footer(kExitStatusHelp);

    pt2ov::serve::ServeOptions serve_options;
    pt2ov::LoadOptions serve_defaults;
    std::string serve_repository;
    auto* serve = app.add_subcommand(
        "serve", "Serve programs over the Open Inference Protocol (KServe v2), REST and gRPC, until SIGINT/SIGTERM.\n"
                 "REPO is a model repository (REPO/NAME/1/model.pt2, REPO/NAME/2/model.pt2, ..., an optional\n"
                 "REPO/NAME/config.json of load options) or one .pt2 file, served as version 1 of a model named\n"
                 "after its stem. Every model is loaded before the server listens. docs/SERVING.md has the rest.");
    serve->add_option("repository", serve_repository, "Model repository folder, or one .pt2 file")->required();
    serve->add_option("--host", serve_options.host, "Address to listen on (both protocols)")->default_val("0.0.0.0");
    serve->add_option("--http-port", serve_options.http_port, "REST port (0: no REST)")
        ->default_val(8000)
        ->check(CLI::Range(0, 65535));
    serve->add_option("--grpc-port", serve_options.grpc_port, "gRPC port (0: no gRPC)")
        ->default_val(8001)
        ->check(CLI::Range(0, 65535));
    serve->add_option("--max-body-bytes", serve_options.max_body_bytes,
                      "Largest request accepted: a REST body beyond is answered 413, a gRPC message beyond "
                      "RESOURCE_EXHAUSTED")
        ->default_val(size_t{64} << 20)
        ->check(CLI::Range(size_t{1024}, size_t{1} << 40));
    serve->add_option("--max-json-bytes", serve_options.max_json_bytes,
                      "Largest JSON part of a REST request (the whole body, or what Inference-Header-Content-Length "
                      "gives): beyond, 413 before it is read. JSON costs about 19x its size in memory while parsed; "
                      "send large tensors as binary data")
        ->default_val(size_t{8} << 20)
        ->check(CLI::Range(size_t{1024}, size_t{1} << 40));
    serve->add_option("--max-concurrent-inferences", serve_options.max_concurrent_inferences,
                      "At most this many inferences run at once over all models; the others wait (their wait is "
                      "the metrics' queue time). 0: no limit")
        ->default_val(0)
        ->check(CLI::Range(0, 1 << 20));
    serve->add_option("--http-threads", serve_options.http_threads,
                      "REST requests handled at once (an event loop holds the connections: an idle or slow one "
                      "costs no thread)")
        ->default_val(32)
        ->check(CLI::Range(1, 4096));
    serve->add_option("--max-header-bytes", serve_options.max_header_bytes,
                      "Largest REST request head (request line and header fields): beyond, 431 and the connection "
                      "closed")
        ->default_val(size_t{64} << 10)
        ->check(CLI::Range(size_t{1024}, size_t{1} << 30));
    serve->add_option("--max-request-line-bytes", serve_options.max_request_line_bytes,
                      "Largest REST request line (method, path, version): beyond, 414")
        ->default_val(size_t{8} << 10)
        ->check(CLI::Range(size_t{256}, size_t{1} << 30));
    serve->add_option("--keep-alive-timeout-ms", serve_options.keep_alive_timeout_ms,
                      "A REST connection idle this long between requests is closed")
        ->default_val(60'000)
        ->check(CLI::Range(1, 86'400'000));
    serve->add_option("--request-timeout-ms", serve_options.request_timeout_ms,
                      "A REST request must arrive whole (head and body) this long after its first byte, and its "
                      "answer be read as long: else 408 and the connection closed (slow clients cannot hold it)")
        ->default_val(30'000)
        ->check(CLI::Range(1, 86'400'000));
    serve->add_option("--max-connections", serve_options.max_connections,
                      "REST connections open at once: beyond, a new one is answered 503 and closed")
        ->default_val(size_t{10'000})
        ->check(CLI::Range(size_t{1}, size_t{1} << 24));
    serve->add_option("--busy-poll-us", serve_options.busy_poll_us,
                      "After answering a light request (health, metadata, a fast unbatched inference; REST and "
                      "gRPC) on the thread that read it, that thread polls its connections this many microseconds "
                      "before it sleeps, so that a client's next request is read without a thread wake-up; costs "
                      "up to that much CPU time per request. 0: sleep at once")
        ->default_val(500)
        ->check(CLI::Range(0, 1'000'000));
    serve->add_option("--performance-hint", serve_defaults.performance_hint,
                      "OpenVINO performance hint of models whose config.json gives none: latency (one stream, "
                      "fastest alone) or throughput (parallel streams, for many concurrent requests)")
        ->check(CLI::IsMember({"latency", "throughput"}))
        ->default_val("latency");
    serve->add_option("--device", serve_defaults.device, "OpenVINO device of models whose config.json gives none")
        ->default_val("CPU");
    serve->footer(kExitStatusHelp);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "pt2ov: " << pt2ov::one_line(e.what()) << " (see pt2ov --help or pt2ov COMMAND --help)\n";
        return kExitUserError;
    }
    try {
        if (*run) return run_command(run_model, run_inputs, run_outputs, run_inputs_out, run_state_in, run_state_out, run_options);
        if (*inspect) return inspect_command(inspect_model, inspect_json, inspect_options);
        if (*generate) return generate_command(generate_arguments, generate_options);
        if (*serve) return serve_command(serve_repository, serve_options, serve_defaults);
        if (*bench) {
            const auto result = pt2ov::tools::benchmark_file(bench_model, bench_inputs, bench_options, bench_loop);
            std::cout << (bench_json ? pt2ov::tools::benchmark_json(result) + "\n" : pt2ov::tools::benchmark_text(result));
            return 0;
        }
    } catch (const pt2ov::InternalError& e) {
        std::cerr << "pt2ov: internal error (a bug in pt2ov; please report it with the model): " << pt2ov::one_line(e.what()) << "\n";
        return kExitInternalError;
    } catch (const pt2ov::Error& e) {
        std::cerr << "pt2ov: error: " << pt2ov::one_line(e.what()) << "\n";
        return kExitUserError;
    } catch (const std::exception& e) {
        // The library throws only pt2ov::Error; this is the last resort for the tools' code.
        std::cerr << "pt2ov: internal error (a bug in pt2ov; please report it with the model): " << pt2ov::one_line(e.what()) << "\n";
        return kExitInternalError;
    }
    return 0;
}
