// The binding of text generation (include/pt2ov/generate.h): _Tokenizer and _Generator, which
// pt2ov.Tokenizer and pt2ov.Generator (python/pt2ov/generate.py) wrap. The generation runs
// with the GIL released; a token callback takes it back for its Python call.
#include "generate.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "pt2ov/generate.h"

namespace pt2ov::python {

namespace {

struct PyGenerator {
    nb::object program;    // kept alive for as long as the generator
    nb::object tokenizer;  // None or the _Tokenizer
    pt2ov::Generator generator;
};

nb::dict result_dict(pt2ov::GenerationResult&& result) {
    nb::dict out;
    out["tokens"] = nb::cast(result.tokens);
    out["text"] = nb::cast(result.text);
    out["stop_reason"] = nb::cast(result.stop_reason);
    out["prompt_tokens"] = result.prompt_tokens;
    out["time_to_first_token_ms"] = result.time_to_first_token_ms;
    out["token_ms"] = nb::cast(result.token_ms);
    if (result.logits.empty()) {
        out["logits"] = nb::none();
    } else {
        const size_t rows = result.logits.size();
        const size_t vocabulary = result.logits[0].size();
        auto* values = new std::vector<float>(rows * vocabulary);
        for (size_t r = 0; r < rows; ++r) std::copy(result.logits[r].begin(), result.logits[r].end(), values->begin() + r * vocabulary);
        nb::capsule owner(values, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
        out["logits"] = nb::ndarray<nb::numpy, float, nb::ndim<2>>(values->data(), {rows, vocabulary}, owner).cast();
    }
    return out;
}

}  // namespace

void bind_generate(nb::module_& m, pt2ov::Program& (*program_of)(nb::handle)) {
    nb::class_<pt2ov::Tokenizer>(m, "_Tokenizer")
        .def(
            "__init__",
            [](pt2ov::Tokenizer* self, const std::string& directory, const std::string& extension) {
                nb::gil_scoped_release release;
                new (self) pt2ov::Tokenizer(pt2ov::Tokenizer::load(directory, extension));
            },
            nb::arg("directory"), nb::arg("extension"))
        .def(
            "encode",
            [](const pt2ov::Tokenizer& self, const std::string& text) {
                nb::gil_scoped_release release;
                return self.encode(text);
            },
            nb::arg("text"))
        .def(
            "decode",
            [](const pt2ov::Tokenizer& self, const std::vector<int64_t>& tokens) {
                nb::gil_scoped_release release;
                return self.decode(tokens);
            },
            nb::arg("tokens"))
        .def_prop_ro("eos_token_id", &pt2ov::Tokenizer::eos_token_id)
        .def_prop_ro("bos_token_id", &pt2ov::Tokenizer::bos_token_id)
        .def_prop_ro("vocabulary_size", &pt2ov::Tokenizer::vocabulary_size)
        .def_prop_ro("directory", &pt2ov::Tokenizer::directory);

    nb::class_<PyGenerator>(m, "_Generator")
        .def(
            "__init__",
            [program_of](PyGenerator* self, nb::object program, nb::object tokenizer) {
                pt2ov::Program& loaded = program_of(program);
                const pt2ov::Tokenizer* text = tokenizer.is_none() ? nullptr : &nb::cast<const pt2ov::Tokenizer&>(tokenizer);
                new (self) PyGenerator{program, tokenizer, pt2ov::Generator(loaded, text)};
            },
            nb::arg("program"), nb::arg("tokenizer").none())
        .def(
            "generate",
            [](PyGenerator& self, const std::vector<int64_t>& prompt, int max_new_tokens,
               const std::vector<int64_t>& stop_tokens, float temperature, int top_k, float top_p,
               float repetition_penalty, uint64_t seed, bool output_logits, nb::object on_token) {
                pt2ov::GenerationConfig config;
                config.max_new_tokens = max_new_tokens;
                config.stop_tokens = stop_tokens;
                config.temperature = temperature;
                config.top_k = top_k;
                config.top_p = top_p;
                config.repetition_penalty = repetition_penalty;
                config.seed = seed;
                config.output_logits = output_logits;
                std::exception_ptr raised;
                pt2ov::TokenCallback callback;
                if (!on_token.is_none()) {
                    callback = [&](int64_t token, const std::string& text) {
                        nb::gil_scoped_acquire acquire;
                        try {
                            nb::object answer = on_token(token, text);
                            return answer.is_none() || nb::cast<bool>(answer);
                        } catch (...) {
                            // The caller's exception, raised again once generation stopped.
                            raised = std::current_exception();
                            return false;
                        }
                    };
                }
                pt2ov::GenerationResult result;
                {
                    nb::gil_scoped_release release;
                    result = self.generator.generate(prompt, config, callback);
                }
                if (raised) std::rethrow_exception(raised);
                return result_dict(std::move(result));
            },
            nb::arg("prompt"), nb::arg("max_new_tokens"), nb::arg("stop_tokens"), nb::arg("temperature"),
            nb::arg("top_k"), nb::arg("top_p"), nb::arg("repetition_penalty"), nb::arg("seed"), nb::arg("output_logits"),
            nb::arg("on_token").none())
        .def("reset",
             [](PyGenerator& self) {
                 nb::gil_scoped_release release;
                 self.generator.reset();
             })
        .def_prop_ro("position", [](PyGenerator& self) { return self.generator.position(); })
        .def_prop_ro("cache_length", [](PyGenerator& self) { return self.generator.cache_length(); })
        .def_prop_ro("vocabulary_size", [](PyGenerator& self) { return self.generator.vocabulary_size(); })
        .def_prop_ro("max_tokens_per_call", [](PyGenerator& self) { return self.generator.max_tokens_per_call(); });
}

}  // namespace pt2ov::python
