// aten.lstm.input and aten.gru.input: training-IR archives keep a whole recurrent layer stack
// as one node, which OpenVINO's FX op table lacks. Computed step by step in float (the
// dtypes they serve are float32 and lower: values are read into float and written back).
#include <cmath>

#include <string>

#include "kernels/contracts.h"
#include "kernels/dispatch.h"

namespace pt2ov::kernels {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// y[rows] += W[rows, cols] · x[cols]
void add_matvec(const float* w, const float* x, float* y, int64_t rows, int64_t cols) {
    for (int64_t r = 0; r < rows; ++r) {
        float sum = 0.0f;
        const float* row = w + r * cols;
        for (int64_t c = 0; c < cols; ++c) sum += row[c] * x[c];
        y[r] += sum;
    }
}

struct Layout {
    int64_t steps = 0, batch = 0, features = 0;
    bool batched = true, batch_first = false;
    // Offset of (t, b) in a [T, B, F] / [B, T, F] / [T, F] buffer with F features.
    int64_t at(int64_t t, int64_t b, int64_t f) const {
        if (!batched) return t * f;
        return batch_first ? (b * steps + t) * f : (t * batch + b) * f;
    }
};

struct Weights {
    std::vector<float> w_ih, w_hh, b_ih, b_hh;
};

// The shared frame of both cells: layers, directions, the sequence; `cell` advances one
// (h, c) pair by one input vector. `gates` is 4 for LSTM, 3 for GRU.
template <typename Cell>
std::vector<RuntimeValue> run_recurrent(const KernelCall& call, int gates, bool has_cell_state, Cell cell) {
    const StridedTensor& input = call.tensor("input", 0);
    const auto params = call.tensors("params", 2);
    const bool has_biases = call.bool_arg("has_biases", 3, true);
    const int64_t layers = call.int_arg("num_layers", 4);
    if (call.bool_arg("train", 6, false)) call.fail("runs in training mode; export the module in eval mode");
    const bool bidirectional = call.bool_arg("bidirectional", 7, false);
    const int64_t directions = bidirectional ? 2 : 1;
    Layout in;
    in.batched = input.rank() == 3;
    in.batch_first = call.bool_arg("batch_first", 8, false);
    if (input.rank() != 2 && input.rank() != 3) call.fail("expects a 2-D or 3-D input");
    in.steps = in.batched ? input.sizes[in.batch_first ? 1 : 0] : input.sizes[0];
    in.batch = in.batched ? input.sizes[in.batch_first ? 0 : 1] : 1;
    in.features = input.sizes.back();

    if (!dtype_is_floating(input.dtype)) call.fail("expects a floating input, got " + std::string(dtype_name(input.dtype)));
    if (layers < 1 || layers > (int64_t{1} << 20)) call.fail("expects num_layers in [1, 2**20], got " + std::to_string(layers));

    const size_t per_direction = has_biases ? 4 : 2;
    if (params.size() != static_cast<size_t>(layers * directions) * per_direction) {
        call.fail("has " + std::to_string(params.size()) + " weight tensors, expected " +
                  std::to_string(layers * directions * per_direction) + " (projections are not supported)");
    }
    if (params[1].rank() != 2) call.fail("expects a 2-D weight_hh_l0, got shape " + shape_text(params[1].sizes));
    const int64_t hidden = params[1].sizes[1];
    // Every size the loops below trust is checked against the tensor given: the cells read
    // weights, biases and states as dense rows of these sizes (a state of other sizes, as a
    // damaged archive can feed, was read and written past its end).
    for (int64_t layer = 0; layer < layers; ++layer) {
        const int64_t features = layer == 0 ? in.features : hidden * directions;
        for (int64_t direction = 0; direction < directions; ++direction) {
            const size_t base = static_cast<size_t>(layer * directions + direction) * per_direction;
            const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
            auto expect = [&](size_t k, const char* name, std::vector<int64_t> sizes) {
                if (params[base + k].sizes != sizes) {
                    call.fail(std::string("expects ") + name + suffix + " of shape " + shape_text(sizes) + ", got " +
                              shape_text(params[base + k].sizes));
                }
                if (!dtype_is_floating(params[base + k].dtype)) {
                    call.fail(std::string("expects a floating ") + name + suffix + ", got " +
                              std::string(dtype_name(params[base + k].dtype)));
                }
            };
            expect(0, "weight_ih", {gates * hidden, features});
            expect(1, "weight_hh", {gates * hidden, hidden});
            if (has_biases) {
                expect(2, "bias_ih", {gates * hidden});
                expect(3, "bias_hh", {gates * hidden});
            }
        }
    }

    // Initial states: [layers*directions, B, H] (or [layers*directions, H] unbatched).
    std::vector<StridedTensor> initial;
    if (has_cell_state) {
        initial = call.tensors("hx", 1);
        if (initial.size() != 2) call.fail("expects hx of two tensors (h_0, c_0), got " + std::to_string(initial.size()));
    } else {
        initial = {call.tensor("hx", 1)};
    }
    const std::vector<int64_t> state_sizes =
        in.batched ? std::vector<int64_t>{layers * directions, in.batch, hidden} : std::vector<int64_t>{layers * directions, hidden};
    for (size_t i = 0; i < initial.size(); ++i) {
        if (initial[i].sizes != state_sizes) {
            call.fail("expects hx[" + std::to_string(i) + "] of shape " + shape_text(state_sizes) + ", got " +
                      shape_text(initial[i].sizes));
        }
        if (!dtype_is_floating(initial[i].dtype)) {
            call.fail("expects a floating hx[" + std::to_string(i) + "], got " + std::string(dtype_name(initial[i].dtype)));
        }
    }
    std::vector<std::vector<float>> states;
    for (const auto& t : initial) states.push_back(dense_values<float>(t));

    std::vector<float> sequence = dense_values<float>(input);
    int64_t features = in.features;
    for (int64_t layer = 0; layer < layers; ++layer) {
        Layout out = in;
        out.features = hidden * directions;
        std::vector<float> next(static_cast<size_t>(in.steps * in.batch * out.features), 0.0f);
        for (int64_t direction = 0; direction < directions; ++direction) {
            const size_t base = static_cast<size_t>((layer * directions + direction)) * per_direction;
            Weights w{dense_values<float>(params[base]), dense_values<float>(params[base + 1]), {}, {}};
            if (has_biases) {
                w.b_ih = dense_values<float>(params[base + 2]);
                w.b_hh = dense_values<float>(params[base + 3]);
            } else {
                w.b_ih.assign(static_cast<size_t>(gates * hidden), 0.0f);
                w.b_hh.assign(static_cast<size_t>(gates * hidden), 0.0f);
            }
            const int64_t state_index = layer * directions + direction;
            for (int64_t b = 0; b < in.batch; ++b) {
                float* h = states[0].data() + (state_index * in.batch + b) * hidden;
                float* c = has_cell_state ? states[1].data() + (state_index * in.batch + b) * hidden : nullptr;
                for (int64_t s = 0; s < in.steps; ++s) {
                    const int64_t t = direction == 0 ? s : in.steps - 1 - s;
                    Layout source = in;
                    source.features = features;
                    cell(w, sequence.data() + source.at(t, b, features), features, hidden, h, c);
                    std::copy(h, h + hidden, next.data() + out.at(t, b, out.features) + direction * hidden);
                }
            }
        }
        sequence = std::move(next);
        features = out.features;
    }

    const DType dtype = input.dtype;
    std::vector<int64_t> out_sizes = input.sizes;
    out_sizes.back() = hidden * directions;
    std::vector<RuntimeValue> results{RuntimeValue::of(tensor_of_values<float>(sequence, out_sizes, dtype))};
    for (size_t i = 0; i < states.size(); ++i) results.push_back(RuntimeValue::of(tensor_of_values<float>(states[i], initial[i].sizes, dtype)));
    return results;
}

std::vector<RuntimeValue> lstm(const KernelCall& call) {
    return run_recurrent(call, 4, true,
                         [](const Weights& w, const float* x, int64_t features, int64_t hidden, float* h, float* c) {
                             std::vector<float> g(w.b_ih.size());
                             for (size_t i = 0; i < g.size(); ++i) g[i] = w.b_ih[i] + w.b_hh[i];
                             add_matvec(w.w_ih.data(), x, g.data(), 4 * hidden, features);
                             add_matvec(w.w_hh.data(), h, g.data(), 4 * hidden, hidden);
                             for (int64_t j = 0; j < hidden; ++j) {
                                 const float i_gate = sigmoid(g[j]);
                                 const float f_gate = sigmoid(g[hidden + j]);
                                 const float g_gate = std::tanh(g[2 * hidden + j]);
                                 const float o_gate = sigmoid(g[3 * hidden + j]);
                                 c[j] = f_gate * c[j] + i_gate * g_gate;
                                 h[j] = o_gate * std::tanh(c[j]);
                             }
                         });
}

std::vector<RuntimeValue> gru(const KernelCall& call) {
    return run_recurrent(call, 3, false,
                         [](const Weights& w, const float* x, int64_t features, int64_t hidden, float* h, float*) {
                             std::vector<float> gi(w.b_ih), gh(w.b_hh);
                             add_matvec(w.w_ih.data(), x, gi.data(), 3 * hidden, features);
                             add_matvec(w.w_hh.data(), h, gh.data(), 3 * hidden, hidden);
                             for (int64_t j = 0; j < hidden; ++j) {
                                 const float r = sigmoid(gi[j] + gh[j]);
                                 const float z = sigmoid(gi[hidden + j] + gh[hidden + j]);
                                 const float n = std::tanh(gi[2 * hidden + j] + r * gh[2 * hidden + j]);
                                 h[j] = (1.0f - z) * n + z * h[j];
                             }
                         });
}

std::string sizes_text(const ExpectedSizes& sizes) {
    std::string text = "[";
    for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + (sizes[i] ? std::to_string(*sizes[i]) : "?");
    return text + "]";
}

// The sequence [T, B, D H] (batch_first [B, T, D H]), H the hidden (or projected) size of the
// initial states, D 2 when bidirectional; then each final state with its initial state's sizes
// (lstm: h and c; gru: h). Each initial state must be [layers D, B, size] as PyTorch's
// check_hidden_size has it: h's size the columns of weight_hh_l0 (the projection's with
// proj_size), c's its rows over the 4 gates.
std::optional<std::vector<ExpectedSizes>> recurrent_shape(const ShapeQuery& query) {
    const bool lstm = query.node().op == graph::op_id("aten.lstm.input");
    const auto input = query.sizes("input", 0);
    const auto states = lstm ? query.tensor_list_sizes("hx", 1) : std::optional<std::vector<ExpectedSizes>>();
    const auto gru_state = lstm ? std::nullopt : query.sizes("hx", 1);
    const auto bidirectional = query.int_arg("bidirectional", 7);
    if (!input || input->size() != 3 || !bidirectional) return std::nullopt;
    std::vector<ExpectedSizes> initial;
    if (lstm && states && states->size() == 2) initial = *states;
    if (!lstm && gru_state) initial = {*gru_state};
    if (initial.empty()) return std::nullopt;
    const int64_t directions = *bidirectional ? 2 : 1;
    const auto layers = query.int_arg("num_layers", 4);
    const auto params = query.tensor_list_sizes("params", 2);
    if (layers && params && params->size() >= 2 && (*params)[1].size() == 2) {
        const auto batch = (*input)[query.int_arg("batch_first", 8).value_or(0) ? 0 : 1];
        const auto rows = (*params)[1][0];
        const std::optional<int64_t> sizes[2] = {(*params)[1][1], rows ? std::optional<int64_t>(*rows / 4) : std::nullopt};
        for (size_t i = 0; i < initial.size(); ++i) {
            const ExpectedSizes want{*layers * directions, batch, sizes[i]};
            bool agree = initial[i].size() == want.size();
            for (size_t d = 0; agree && d < want.size(); ++d) agree = !initial[i][d] || !want[d] || *initial[i][d] == *want[d];
            if (!agree) {
                query.contradiction("its hx[" + std::to_string(i) + "] is " + sizes_text(initial[i]) + " where its input and weights make it " +
                                    sizes_text(want));
            }
        }
    }
    if (initial[0].empty()) return std::nullopt;
    ExpectedSizes sequence = *input;
    const auto hidden = initial[0].back();
    sequence.back() = hidden ? std::optional<int64_t>(*hidden * directions) : std::nullopt;
    std::vector<ExpectedSizes> out{sequence};
    out.insert(out.end(), initial.begin(), initial.end());
    return out;
}

PT2OV_KERNEL("aten.lstm.input", lstm, recurrent_shape);
PT2OV_KERNEL("aten.gru.input", gru, recurrent_shape);

}  // namespace
}  // namespace pt2ov::kernels
