#include "runtime/verify.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <type_traits>
#include <variant>

#include "common/error.h"
#include "common/text.h"
#include "compile/compile.h"
#include "pt2ov/load_options.h"
#include "runtime/executor.h"
#include "runtime/placement_timing.h"

extern char** environ;

namespace pt2ov::runtime {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using kernels::RuntimeValue;
using kernels::StridedTensor;

constexpr int kWorkerTimeoutSeconds = 900;
constexpr const char* kWorkerName = "pt2ov-verify-worker";

// ---- The request: the archive, the options that change the plan, the failures so far ----

std::string escape_line(const std::string& text) {
    std::string out;
    for (char c : text) out += (c == '\n' || c == '\t' || c == '\r') ? ' ' : c;
    return out;
}

// The request gives every option that changes the plan (the load option table's), by its name,
// so that the worker plans as load() does; a list one line an item.
void write_request(const fs::path& file, const std::string& path, const LoadOptions& options,
                   const std::map<std::string, std::string>& failures) {
    std::ofstream out(file);
    out << "archive\t" << escape_line(fs::absolute(path).string()) << "\n";
    for (const auto& row : load_option_table()) {
        if (!row.changes_plan) continue;
        if (const auto* list = std::get_if<std::vector<std::string> LoadOptions::*>(&row.field)) {
            for (const auto& item : options.**list) out << row.name << "\t" << escape_line(item) << "\n";
        } else {
            out << row.name << "\t" << escape_line(load_option_text(options, row)) << "\n";
        }
    }
    for (const auto& [node, why] : failures) out << "failure\t" << escape_line(node) << "\t" << escape_line(why) << "\n";
    if (!out) throw ResourceError("--verify: cannot write " + file.string());
}

struct Request {
    std::string path;
    LoadOptions options;
    std::map<std::string, std::string> failures;
};

// Sets `row` of `options` from its text in a request (load_option_text's spelling).
void read_option(const LoadOptionRow& row, const std::string& text, LoadOptions& options) {
    std::visit(
        [&](auto field) {
            auto& value = options.*field;
            using Value = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<Value, std::string>) value = text;
            else if constexpr (std::is_same_v<Value, std::vector<std::string>>) value.push_back(text);
            else if constexpr (std::is_same_v<Value, bool>) value = text == "true";
            else value = static_cast<Value>(std::stoll(text));
        },
        row.field);
}

Request read_request(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw ResourceError("cannot read " + file);
    Request request;
    request.options.verify = false;
    request.options.measure_placement = false;
    std::string line;
    while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        if (tab == std::string::npos) continue;
        const std::string key = line.substr(0, tab), value = line.substr(tab + 1);
        if (key == "archive") {
            request.path = value;
        } else if (key == "failure") {
            const size_t second = value.find('\t');
            request.failures[value.substr(0, second)] = second == std::string::npos ? "" : value.substr(second + 1);
        } else if (const auto* row = find_load_option(key)) {
            read_option(*row, value, request.options);
        }
    }
    return request;
}

// ---- Finding and running the worker ----

std::string worker_path() {
    if (const char* forced = std::getenv("PT2OV_VERIFY_WORKER"); forced && *forced) return forced;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&verify_worker_main), &info) == 0 || !info.dli_fname) return {};
    const fs::path library = fs::absolute(info.dli_fname).parent_path();
    for (const fs::path& candidate : {library / kWorkerName, library / "bin" / kWorkerName, library / ".." / "bin" / kWorkerName}) {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return {};
}

struct WorkerRun {
    int status = 0;
    bool timed_out = false;
    std::string log;  // what it wrote on stderr and stdout
};

WorkerRun run_worker(const std::string& worker, const fs::path& request, const fs::path& result, const fs::path& log) {
    std::string request_text = request.string(), result_text = result.string();
    char* argv[] = {const_cast<char*>(kWorkerName), request_text.data(), result_text.data(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t child = 0;
    const int spawned = posix_spawn(&child, worker.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw ResourceError("--verify: cannot start " + worker + ": " + std::strerror(spawned));
    WorkerRun run;
    const auto deadline = Clock::now() + std::chrono::seconds(kWorkerTimeoutSeconds);
    while (true) {
        const pid_t done = waitpid(child, &run.status, WNOHANG);
        if (done == child) break;
        if (done < 0 && errno != EINTR) throw ResourceError(std::string("--verify: waiting for the worker: ") + std::strerror(errno));
        if (Clock::now() > deadline) {
            kill(child, SIGKILL);
            waitpid(child, &run.status, 0);
            run.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    run.log = text.str();
    return run;
}

std::string last_line(const std::string& text) {
    std::string trimmed = text;
    while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
    const size_t newline = trimmed.rfind('\n');
    return newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
}

std::string ending(const WorkerRun& run) {
    if (run.timed_out) return "did not finish within " + std::to_string(kWorkerTimeoutSeconds) + " s";
    if (WIFSIGNALED(run.status)) {
        const int signal = WTERMSIG(run.status);
        return std::string("was killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
    }
    return "exited with status " + std::to_string(WEXITSTATUS(run.status));
}

// ---- The worker: synthetic inputs, the reference, one step at a time ----

// The kinds of synthetic inputs each step is checked on: a plugin fault may show only on some
// values (a masked row, a row of equal values, large magnitudes), so random normals alone are
// not enough. Finite values only: a call with NaN or inf never reaches OpenVINO
// (LoadOptions::nonfinite_inputs).
enum class InputDomain { Normal, Zeros, Constant, Large, Padded };
constexpr InputDomain kInputDomains[] = {InputDomain::Normal, InputDomain::Zeros, InputDomain::Constant, InputDomain::Large,
                                         InputDomain::Padded};

const char* domain_name(InputDomain domain) {
    switch (domain) {
        case InputDomain::Normal: return "random normal inputs";
        case InputDomain::Zeros: return "all-zero inputs";
        case InputDomain::Constant: return "constant inputs (every float 0.75)";
        case InputDomain::Large: return "large inputs (normal times 1e4)";
        case InputDomain::Padded: return "padded inputs (integers and bools 0 over the first third of the last dim, 1 after)";
    }
    return "";
}

// Floats: normal(0, 1) (times 1e4 for Large), 0 (Zeros, Padded), 0.75 (Constant). Integers in
// [0, 4) (valid indices into any dim of size 4 or more) and bools at random (Normal, Large),
// 0 (Zeros), 1 (Constant), or a left-padded mask along the last dim (Padded: 0 over its first
// third, then 1; the first row of the rest only, so that a fully masked row and an unmasked
// one both occur). All from a fixed seed; dynamic dims at the size the program was exported
// with (or the least the range allows, at least 2).
std::vector<Tensor> synthetic_inputs(const compile::PreparedMethod& prepared, InputDomain domain) {
    std::mt19937_64 random(20241205);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_int_distribution<int64_t> index(0, 3);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < prepared.input_infos.size(); ++i) {
        const auto& info = prepared.input_infos[i];
        const auto& meta = prepared.graph.value(prepared.user_inputs[i]).meta;
        std::vector<int64_t> shape = info.shape;
        for (size_t d = 0; d < shape.size(); ++d) {
            if (shape[d] >= 0) continue;
            const auto [min, max] = info.dim_ranges[d];
            const int64_t hint = d < meta.sizes.size() ? meta.sizes[d].hint : -1;
            shape[d] = hint >= min && hint <= max ? hint : std::min(std::max<int64_t>(min, 2), max);
        }
        // Symbols shared by several inputs take one size: the first input's.
        for (const auto& [symbol, uses] : prepared.symbol_uses) {
            const auto& [first_input, first_dim] = uses.front();
            for (const auto& [input, dim] : uses) {
                if (input == i && first_input < i) shape[dim] = inputs[first_input].shape()[first_dim];
            }
        }
        Tensor tensor = Tensor::allocate(info.dtype, shape);
        StridedTensor all = StridedTensor::allocate(DType::Float64, shape);
        auto* values = reinterpret_cast<double*>(all.data);
        const bool floating = dtype_is_floating(info.dtype);
        const int64_t last = shape.empty() ? 1 : shape.back();
        for (int64_t k = 0; k < all.numel(); ++k) {
            double value = 0;
            switch (domain) {
                case InputDomain::Normal:
                case InputDomain::Large:
                    value = floating ? normal(random) * (domain == InputDomain::Large ? 1e4 : 1.0)
                                     : static_cast<double>(info.dtype == DType::Bool ? index(random) % 2 : index(random));
                    break;
                case InputDomain::Zeros: value = 0; break;
                case InputDomain::Constant: value = floating ? 0.75 : 1; break;
                case InputDomain::Padded:
                    // Row 0 of the leading dims: all masked; the others padded on the left.
                    value = floating ? 0.0 : (k < last ? 0.0 : (k % last) < last / 3 ? 0.0 : 1.0);
                    break;
            }
            values[k] = value;
        }
        StridedTensor destination{info.dtype, shape, kernels::contiguous_strides(shape),
                                  static_cast<std::byte*>(tensor.data()), nullptr};
        kernels::copy_into(all, destination);
        inputs.push_back(std::move(tensor));
    }
    return inputs;
}

StridedTensor as_double(const StridedTensor& tensor) {
    StridedTensor copy = StridedTensor::allocate(DType::Float64, tensor.sizes);
    kernels::copy_into(tensor, copy);
    return copy;
}

std::string number_text(double v) {
    std::ostringstream text;
    text.precision(7);
    text << v;
    return text.str();
}

// "" when `got` agrees with `want` (the reference) within the contract, else what differs.
std::string difference(const RuntimeValue& got, const RuntimeValue& want, bool reduced_precision) {
    if (got.is_tensor() != want.is_tensor()) return "a number where the CPU kernels give a tensor, or the reverse";
    if (!got.is_tensor()) {
        return got.scalar() == want.scalar() ? "" : "another number than the CPU kernels";
    }
    const StridedTensor& a = got.tensor();
    const StridedTensor& b = want.tensor();
    if (a.dtype != b.dtype) {
        return std::string("dtype ") + std::string(dtype_name(a.dtype)) + " where the CPU kernels give " +
               std::string(dtype_name(b.dtype));
    }
    if (a.sizes != b.sizes) return "shape " + shape_text(a.sizes) + " where the CPU kernels give " + shape_text(b.sizes);
    if (a.numel() == 0) return "";
    const StridedTensor x = as_double(a), y = as_double(b);
    const auto* p = reinterpret_cast<const double*>(x.data);
    const auto* q = reinterpret_cast<const double*>(y.data);
    const int64_t n = x.numel();
    const bool floating = a.dtype == DType::Float32 || a.dtype == DType::Float64 || a.dtype == DType::Float16 ||
                          a.dtype == DType::BFloat16;
    const bool half = a.dtype == DType::Float16 || a.dtype == DType::BFloat16 || reduced_precision;
    const double rtol = half ? 1e-2 : 1e-4, atol = half ? 1e-3 : 1e-5, scale_tol = half ? 1e-2 : 1e-3;
    double largest = 0;
    for (int64_t k = 0; k < n; ++k) {
        if (std::isfinite(q[k])) largest = std::max(largest, std::abs(q[k]));
    }
    int64_t worst = -1;
    double worst_gap = 0;
    int64_t count = 0;
    for (int64_t k = 0; k < n; ++k) {
        const double u = p[k], v = q[k];
        bool agree;
        if (!floating) {
            agree = u == v;
        } else if (std::isnan(u) || std::isnan(v)) {
            agree = std::isnan(u) && std::isnan(v);
        } else if (std::isinf(u) || std::isinf(v)) {
            agree = u == v;
        } else {
            const double gap = std::abs(u - v);
            agree = gap <= atol + rtol * std::abs(v) || gap <= scale_tol * largest;
        }
        if (agree) continue;
        ++count;
        const double gap = std::isfinite(u - v) ? std::abs(u - v) : INFINITY;
        if (worst < 0 || gap > worst_gap) {
            worst = k;
            worst_gap = gap;
        }
    }
    if (count == 0) return "";
    return std::to_string(count) + " of " + std::to_string(n) + " values differ, the most at flat index " +
           std::to_string(worst) + ": " + number_text(p[worst]) + " where the CPU kernels give " + number_text(q[worst]);
}

class ResultLog {
public:
    explicit ResultLog(const std::string& file) : out_(file, std::ios::app) {}
    // One event: its fields are joined by tabs, so only line breaks are taken out.
    void line(const std::string& text) {
        std::string one_line = text;
        for (char& c : one_line) c = (c == '\n' || c == '\r') ? ' ' : c;
        out_ << one_line << "\n";
        out_.flush();
    }

private:
    std::ofstream out_;
};

int run_worker_checks(const Request& request, ResultLog& log) {
    const compile::Settings settings = compile::parse_settings(request.options);
    const compile::PreparedMethod prepared = compile::prepare(request.path, settings);
    const compile::PlannedMethod planned = compile::plan(prepared, settings, {}, {}, request.failures);
    bool any_openvino = false;
    for (const auto& step : planned.plan.steps) any_openvino |= step.where == partition::Where::OpenVINO;
    if (!any_openvino) {
        log.line("done");
        return 0;
    }
    std::unique_ptr<Executor> reference_executor;
    try {
        compile::Settings reference_settings = settings;
        reference_settings.given.strict = false;  // the reference is the CPU kernels, wherever they exist
        const compile::PlannedMethod reference_plan =
            compile::plan(prepared, reference_settings, {}, "the reference of --verify");
        log.line("reference");
        reference_executor = std::make_unique<Executor>(prepared, reference_plan, reference_settings);
    } catch (const Error& e) {
        log.line(std::string("reference-failed\t") + e.what());
        log.line("done");
        return 0;
    }
    // Nodes without a CPU kernel: the reference runs them on OpenVINO (alone in their steps).
    std::set<std::string> without_kernel;
    for (const auto& node : prepared.graph.nodes) {
        if (!kernels::find_kernel(node.op)) without_kernel.insert(node.name);
    }
    std::unique_ptr<Executor> executor;
    try {
        executor = std::make_unique<Executor>(prepared, planned, settings,
                                              [&](size_t step) { log.line("compile\t" + std::to_string(step)); });
    } catch (const StepCompileFailure& failure) {
        log.line("failed\t" + std::to_string(failure.step_index) + "\tcould not be compiled by OpenVINO (" +
                 failure.plugin_message + ")");
        log.line("done");
        return 0;
    }
    log.line("compiled");
    const bool reduced = settings.precision != compile::PrecisionHint::F32;
    std::vector<size_t> openvino_steps;
    std::set<size_t> quantized_steps;
    for (size_t s = 0; s < planned.plan.steps.size(); ++s) {
        const auto& step = planned.plan.steps[s];
        if (step.where != partition::Where::OpenVINO) continue;
        openvino_steps.push_back(s);
        std::string missing;
        for (int n : step.nodes) {
            const auto& node = prepared.graph.nodes[static_cast<size_t>(n)];
            if (without_kernel.count(node.name)) missing = node.source_name() + " (" + node.target + ")";
        }
        if (!missing.empty()) {
            // The reference ran such a node on OpenVINO too, alone in a step of its own: the
            // step is still checked, that node against OpenVINO rather than pt2ov's kernels.
            log.line("partial\t" + std::to_string(s) + "\tnode " + missing +
                     " has no CPU kernel; it was compared with OpenVINO running it alone");
        }
        // A quantized step's requantized values may land one step of their scale from the
        // reference's wherever a float result lies near a rounding boundary (E8), and a step
        // of a deep network carries such a step on: its values are not compared here (E8 is
        // what the tests check); it is run, so a crash or a failure is still found.
        for (int n : step.nodes) {
            if (prepared.graph.nodes[static_cast<size_t>(n)].source_target().rfind("quantized_decomposed.", 0) == 0) {
                log.line("partial\t" + std::to_string(s) +
                         "\tit quantizes (E8): run on synthetic inputs, its values not compared (a requantized value may be "
                         "one step of its scale from the CPU kernels')");
                quantized_steps.insert(s);
                break;
            }
        }
    }
    // Each step on every domain; the first domain it fails on is its finding. A domain the
    // reference cannot run (an index input of zeros the program rejects, say) is left out.
    std::set<size_t> failed;
    for (InputDomain domain : kInputDomains) {
        Executor::ValueTable reference;
        try {
            reference = reference_executor->run_capturing(synthetic_inputs(prepared, domain));
        } catch (const Error& e) {
            if (domain == InputDomain::Normal) {
                log.line(std::string("reference-failed\t") + e.what());
                log.line("done");
                return 0;
            }
            continue;
        }
        for (size_t s : openvino_steps) {
            if (failed.count(s)) continue;
            const auto& step = planned.plan.steps[s];
            log.line("check\t" + std::to_string(s) + "\t" + domain_name(domain));
            Executor::ValueTable values = reference;
            try {
                executor->run_step_alone(s, values);
            } catch (const Error& e) {
                failed.insert(s);
                log.line("failed\t" + std::to_string(s) + "\tfailed on " + domain_name(domain) + " (" + std::string(e.what()) + ")");
                continue;
            }
            if (quantized_steps.count(s)) continue;
            std::string found;
            for (const auto& name : step.outputs) {
                const auto* value = prepared.graph.find_value(name);
                if (!value || value->slot < 0) continue;
                const auto slot = static_cast<size_t>(value->slot);
                if (slot >= reference.size() || slot >= values.size()) continue;
                const auto& want = reference[slot];
                const auto& got = values[slot];
                if (std::holds_alternative<std::monostate>(want.value) || std::holds_alternative<std::monostate>(got.value)) continue;
                const std::string why = difference(got, want, reduced);
                if (!why.empty()) {
                    found = "value " + name + " on " + domain_name(domain) + ": " + why;
                    break;
                }
            }
            if (!found.empty()) {
                failed.insert(s);
                log.line("differs\t" + std::to_string(s) + "\t" + found);
            }
        }
    }
    for (size_t s : openvino_steps) {
        if (!failed.count(s)) log.line("ok\t" + std::to_string(s));
    }
    log.line("done");
    return 0;
}

// ---- Reading a round's result ----

struct Round {
    std::vector<size_t> checked;
    std::map<size_t, std::string> failing;  // step → why
    std::vector<std::string> notes;         // skipped steps, a failed reference
    bool done = false;
    std::string last;                       // the last event before the end
};

Round read_round(const fs::path& result) {
    Round round;
    std::ifstream in(result);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::stringstream split(line);
        for (std::string field; std::getline(split, field, '\t');) fields.push_back(field);
        if (fields.empty()) continue;
        const std::string& event = fields[0];
        round.last = line;
        if (event == "done") round.done = true;
        else if (event == "ok" && fields.size() > 1) round.checked.push_back(std::stoul(fields[1]));
        else if ((event == "differs" || event == "failed") && fields.size() > 2) {
            const size_t step = std::stoul(fields[1]);
            round.checked.push_back(step);
            round.failing[step] = event == "differs" ? "disagrees with the CPU kernels on " + fields[2] : fields[2];
        } else if (event == "partial" && fields.size() > 2) {
            round.notes.push_back("step " + std::to_string(std::stoul(fields[1]) + 1) + " verified in part: " + fields[2]);
        } else if (event == "reference-failed" && fields.size() > 1) {
            round.notes.push_back("not verified: pt2ov's CPU kernels could not run the program on synthetic inputs (" +
                                  fields[1] + ")");
        }
    }
    return round;
}

}  // namespace

Verifier::Verifier(const std::string& path, const compile::PreparedMethod& prepared, const compile::Settings& settings)
    : path_(path), prepared_(prepared), settings_(settings), start_(Clock::now()) {
    report_.verified = true;
    cache_ = cache_file(path, settings.given, "verify");
    if (!cache_.empty() && fs::exists(cache_)) {
        std::ifstream in(cache_);
        std::map<std::string, std::string> failures;
        PlacementReport::Verification cached;
        cached.verified = true;
        bool valid = false;
        std::string line;
        while (std::getline(in, line)) {
            std::stringstream split(line);
            std::vector<std::string> fields;
            for (std::string field; std::getline(split, field, '\t');) fields.push_back(field);
            if (fields.size() == 3 && fields[0] == "failure") failures[fields[1]] = fields[2];
            if (fields.size() == 2 && fields[0] == "finding") cached.findings.push_back(fields[1]);
            if (fields.size() == 3 && fields[0] == "counts") {
                cached.steps_checked = std::stoul(fields[1]);
                cached.steps_moved = std::stoul(fields[2]);
                valid = true;
            }
        }
        if (valid) {
            cached.from_cache = true;
            report_ = std::move(cached);
            cached_failures_ = std::move(failures);
            return;
        }
    }
    worker_ = worker_path();
    if (worker_.empty()) {
        throw ResourceError(prepared.where + ": --verify needs the command " + std::string(kWorkerName) +
                    " beside libpt2ov.so (or in bin/ beside or above it), and it is not there; reinstall pt2ov, or set "
                    "PT2OV_VERIFY_WORKER to its path");
    }
}

Verifier::~Verifier() {
    if (folder_.empty()) return;
    std::error_code ec;
    fs::remove_all(folder_, ec);
}

compile::VerifyTrial Verifier::trial() {
    compile::VerifyTrial trial;
    trial.known_failures = cached_failures_;
    // The worker makes the plan these failures give itself (the same options, the same planner).
    trial.round = [this](const compile::PlannedMethod&, const std::map<std::string, std::string>& failures) {
        return round(failures);
    };
    return trial;
}

std::map<size_t, std::string> Verifier::round(const std::map<std::string, std::string>& failures) {
    if (folder_.empty()) {
        char pattern[] = "/tmp/pt2ov-verify-XXXXXX";
        const char* made = ::mkdtemp(pattern);
        if (!made) throw ResourceError(std::string("--verify: cannot make a temporary folder: ") + std::strerror(errno));
        folder_ = made;
    }
    const fs::path folder(folder_);
    const fs::path request = folder / "request.txt", result = folder / "result.txt", log = folder / "worker.log";
    write_request(request, path_, settings_.given, failures);
    std::error_code ec;
    fs::remove(result, ec);
    const WorkerRun run = run_worker(worker_, request, result, log);
    Round found = read_round(result);
    report_.steps_checked += found.checked.size();
    for (const auto& note : found.notes) {
        if (std::find(report_.findings.begin(), report_.findings.end(), note) == report_.findings.end()) {
            report_.findings.push_back(note);
        }
    }
    if (!found.done) {
        // The worker ended without finishing: a crash, a hang, or an error of the program
        // itself (which the load here reports in its own words). A step it was compiling or
        // running is what failed.
        std::stringstream split(found.last);
        std::string event, step_text;
        std::getline(split, event, '\t');
        std::getline(split, step_text, '\t');
        if ((event == "compile" || event == "check") && !step_text.empty()) {
            const size_t step = std::stoul(step_text);
            found.failing[step] = std::string("killed the verifying process while OpenVINO ") +
                                  (event == "compile" ? "compiled" : "ran") + " it (the process " + ending(run) + ")";
            report_.steps_checked += 1;
        } else if (WIFEXITED(run.status) && !run.timed_out) {
            return {};  // the program's own error: load meets it again and reports it
        } else {
            throw ResourceError(prepared_.where + ": --verify: the verifying process " + ending(run) +
                        " outside any OpenVINO step (" + last_line(run.log) + ")");
        }
    }
    return found.failing;
}

PlacementReport::Verification Verifier::finish(const compile::SettledPlan& settled) {
    if (report_.from_cache) {
        report_.ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
        return report_;
    }
    for (const auto& move : settled.verify_moves) report_.findings.push_back(move);
    report_.steps_moved = settled.verify_moves.size();
    report_.ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
    if (!cache_.empty()) {
        std::ofstream out(cache_);
        for (const auto& [node, why] : settled.verify_failures) out << "failure\t" << escape_line(node) << "\t" << escape_line(why) << "\n";
        for (const auto& finding : report_.findings) out << "finding\t" << escape_line(finding) << "\n";
        out << "counts\t" << report_.steps_checked << "\t" << report_.steps_moved << "\n";
    }
    return report_;
}

int verify_worker_main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s REQUEST RESULT\n(started by pt2ov's --verify; not meant to be run by hand)\n",
                     kWorkerName);
        return 2;
    }
    ResultLog log(argv[2]);
    try {
        return run_worker_checks(read_request(argv[1]), log);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        log.line(std::string("error\t") + e.what());
        return 2;
    }
}

}  // namespace pt2ov::runtime
