// pt2ov::Tokenizer: a Hugging Face tokenizer as openvino-tokenizers converts it, two OpenVINO
// models run with that package's extension library (the way OpenVINO GenAI tokenizes). Chosen
// over a C++ port of Hugging Face's `tokenizers` because it needs nothing but the extension
// beside OpenVINO (no Rust toolchain) and covers the tokenizers GenAI covers (byte-level BPE,
// SentencePiece, WordPiece); docs/GENERATE.md says more.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <openvino/openvino.hpp>

#include "pt2ov/generate.h"

#ifndef PT2OV_TOKENIZERS_EXTENSION_DEFAULT
#define PT2OV_TOKENIZERS_EXTENSION_DEFAULT ""
#endif

namespace pt2ov {

struct Tokenizer::Impl {
    std::string directory;
    ov::Core core;
    ov::CompiledModel tokenizer;
    ov::CompiledModel detokenizer;
    // One request each; a Tokenizer may be used from several threads, one call at a time.
    mutable std::mutex lock;
    mutable ov::InferRequest encoder;
    mutable ov::InferRequest decoder;
    int64_t eos = -1;
    int64_t bos = -1;
    int64_t vocabulary = 0;
};

namespace {

int64_t rt_info_integer(const std::shared_ptr<ov::Model>& model, const std::string& key) {
    if (!model->has_rt_info(key)) return -1;
    try {
        return std::stoll(model->get_rt_info<std::string>(key));
    } catch (const std::exception&) {
        return -1;
    }
}

std::string extension_path(const std::string& given) {
    if (!given.empty()) return given;
    if (const char* variable = std::getenv("PT2OV_TOKENIZERS_EXTENSION"); variable && *variable) return variable;
    return PT2OV_TOKENIZERS_EXTENSION_DEFAULT;
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::load(const std::string& directory, const std::string& extension) {
    namespace fs = std::filesystem;
    const fs::path folder(directory);
    const fs::path encoder = folder / "openvino_tokenizer.xml";
    const fs::path decoder = folder / "openvino_detokenizer.xml";
    for (const auto& file : {encoder, decoder}) {
        if (!fs::exists(file)) {
            throw ArchiveError("tokenizer '" + directory + "': " + file.string() +
                        " is missing; convert the Hugging Face tokenizer with openvino-tokenizers "
                        "(convert_tokenizer(tokenizer, with_detokenizer=True), saved with openvino.save_model; "
                        "examples/export_llm.py does this)");
        }
    }
    const std::string library = extension_path(extension);
    if (library.empty() || !fs::exists(library)) {
        throw UnsupportedError("tokenizer '" + directory + "': the openvino-tokenizers extension library " +
                    (library.empty() ? std::string("was not found when pt2ov was built") : "'" + library + "' does not exist") +
                    "; install openvino-tokenizers (pip install openvino-tokenizers==<OpenVINO's version>) and set "
                    "PT2OV_TOKENIZERS_EXTENSION to its lib/libopenvino_tokenizers.so");
    }
    auto impl = std::make_unique<Impl>();
    impl->directory = directory;
    try {
        impl->core.add_extension(library);
    } catch (const std::exception& e) {
        throw OpenVINOError("tokenizer '" + directory + "': OpenVINO could not load the openvino-tokenizers extension '" + library +
                    "' (it must be the release built for this OpenVINO, " + ov::get_openvino_version().buildNumber +
                    "): " + e.what());
    }
    try {
        auto encoder_model = impl->core.read_model(encoder.string());
        auto decoder_model = impl->core.read_model(decoder.string());
        impl->eos = rt_info_integer(encoder_model, "eos_token_id");
        if (impl->eos < 0) impl->eos = rt_info_integer(decoder_model, "eos_token_id");
        impl->bos = rt_info_integer(encoder_model, "bos_token_id");
        if (impl->bos < 0) impl->bos = rt_info_integer(decoder_model, "bos_token_id");
        // The detokenizer's vocabulary: the length of the table its VocabDecoder reads.
        for (const auto& node : decoder_model->get_ordered_ops()) {
            if (std::string(node->get_type_name()) != "VocabDecoder" || node->get_input_size() < 2) continue;
            const auto shape = node->get_input_partial_shape(1);
            if (shape.rank().is_static() && shape.rank().get_length() == 1 && shape[0].is_static()) {
                impl->vocabulary = shape[0].get_length();
            }
        }
        impl->tokenizer = impl->core.compile_model(encoder_model, "CPU");
        impl->detokenizer = impl->core.compile_model(decoder_model, "CPU");
    } catch (const pt2ov::Error&) {
        throw;
    } catch (const std::exception& e) {
        throw OpenVINOError("tokenizer '" + directory + "': OpenVINO could not read or compile it: " + e.what());
    }
    impl->encoder = impl->tokenizer.create_infer_request();
    impl->decoder = impl->detokenizer.create_infer_request();
    return Tokenizer(std::move(impl));
}

std::vector<int64_t> Tokenizer::encode(const std::string& text) const {
    std::lock_guard<std::mutex> guard(impl_->lock);
    ov::Tensor input(ov::element::string, ov::Shape{1});
    input.data<std::string>()[0] = text;
    impl_->encoder.set_input_tensor(0, input);
    impl_->encoder.infer();
    ov::Tensor ids;
    try {
        ids = impl_->encoder.get_tensor("input_ids");
    } catch (const std::exception&) {
        ids = impl_->encoder.get_output_tensor(0);
    }
    std::vector<int64_t> tokens(ids.get_size());
    if (ids.get_element_type() == ov::element::i64) {
        std::copy_n(ids.data<const int64_t>(), tokens.size(), tokens.begin());
    } else if (ids.get_element_type() == ov::element::i32) {
        std::copy_n(ids.data<const int32_t>(), tokens.size(), tokens.begin());
    } else {
        throw UnsupportedError("tokenizer '" + impl_->directory + "': its token ids are " + ids.get_element_type().get_type_name() +
                    ", not int64 or int32");
    }
    return tokens;
}

std::string Tokenizer::decode(const std::vector<int64_t>& tokens) const {
    // An id beyond the vocabulary decodes to nothing, as Hugging Face's decode() skips it (a
    // model's logits may be wider than its tokenizer's vocabulary).
    for (int64_t token : tokens) {
        if (token < 0) throw InputError("tokenizer '" + impl_->directory + "': token id " + std::to_string(token) + " is negative");
    }
    std::lock_guard<std::mutex> guard(impl_->lock);
    const auto input_type = impl_->detokenizer.input(0).get_element_type();
    ov::Tensor ids(input_type, ov::Shape{1, tokens.size()});
    if (input_type == ov::element::i64) {
        std::copy(tokens.begin(), tokens.end(), ids.data<int64_t>());
    } else if (input_type == ov::element::i32) {
        std::transform(tokens.begin(), tokens.end(), ids.data<int32_t>(), [](int64_t t) { return static_cast<int32_t>(t); });
    } else {
        throw UnsupportedError("tokenizer '" + impl_->directory + "': its detokenizer takes " + input_type.get_type_name() +
                    ", not int64 or int32 token ids");
    }
    impl_->decoder.set_input_tensor(0, ids);
    impl_->decoder.infer();
    const ov::Tensor text = impl_->decoder.get_output_tensor(0);
    if (text.get_element_type() != ov::element::string || text.get_size() < 1) {
        throw UnsupportedError("tokenizer '" + impl_->directory + "': its detokenizer does not return a string");
    }
    return text.data<const std::string>()[0];
}

int64_t Tokenizer::eos_token_id() const { return impl_->eos; }
int64_t Tokenizer::bos_token_id() const { return impl_->bos; }
int64_t Tokenizer::vocabulary_size() const { return impl_->vocabulary; }
const std::string& Tokenizer::directory() const { return impl_->directory; }

}  // namespace pt2ov
