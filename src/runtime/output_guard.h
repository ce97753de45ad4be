// The output guard: every value a step hands on and every output a call returns is checked
// against the shape and dtype the program's own metadata gives it, so a step that returns
// something else (a plugin fault, a kernel bug) is an InternalError naming the value, the node
// that made it and the step, never a wrong answer returned with success.
//
// Sizes are static numbers, symbols, or expressions over symbols (torch.export's sympy text,
// e.g. "2*s0 + 1", "((s1 - 1)//2) + 1", "Max(1, s0)"). A symbol takes its value where it is
// first met in a call (the inputs first, then values in execution order: data-dependent sizes
// included) and every later use must agree. An expression the guard cannot read leaves that dim
// unchecked; its rank and the rest of the shape are still checked.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compile/method.h"
#include "kernels/registry.h"
#include "pt2ov/tensor.h"

namespace pt2ov::runtime {

// An integer expression over symbols, read from torch.export's text of a size.
class SizeExpression {
public:
    // Null when the text uses something the reader does not know (then nothing is checked).
    // `symbol_index` maps a symbol's name to its index, adding names it has not seen.
    static std::shared_ptr<const SizeExpression> parse(const std::string& text,
                                                       const std::function<int(const std::string&)>& symbol_index);
    virtual ~SizeExpression() = default;
    // The value, or nothing when a symbol it reads is not known yet (or on division by zero).
    virtual std::optional<int64_t> evaluate(const std::vector<int64_t>& symbols, const std::vector<char>& known) const = 0;
};

class OutputGuard {
public:
    OutputGuard(const compile::PreparedMethod& prepared, const compile::PlannedMethod& planned);

    // The symbols of one call, bound as they are met.
    struct Symbols {
        std::vector<int64_t> values;
        std::vector<char> known;
    };
    Symbols start_call() const { return {std::vector<int64_t>(symbol_count_, 0), std::vector<char>(symbol_count_, 0)}; }

    // The inputs bind the symbols of their sizes (checked for range and agreement before).
    void bind_inputs(const std::vector<Tensor>& inputs, Symbols& symbols) const;
    // Every value step `step` hands on, by slot in `values` (an OpenVINO step's; a CPU step's
    // values are checked node by node).
    void check_step(size_t step, const std::vector<kernels::RuntimeValue>& values, Symbols& symbols) const;
    // Every value the node at `position` of CPU step `step` made, before any later kernel reads
    // it: a kernel then only ever meets tensors of the sizes and dtypes the program records. The
    // kernels are PyTorch's semantics checked against eager, so a value that disagrees is taken
    // for metadata that contradict their own program (ArchiveError, exit 2, naming the node);
    // the random-program harness counts such a refusal of an exported program as pt2ov's bug.
    void check_node(size_t step, size_t position, const std::vector<kernels::RuntimeValue>& values, Symbols& symbols) const;
    // One value about to be returned as the program's output `index` (graph::Graph::outputs,
    // buffer mutations included).
    void check_output(size_t index, const kernels::RuntimeValue& value, Symbols& symbols) const;

    size_t checked_values() const;  // for tests: how many contracts the guard holds

private:
    struct DimContract {
        enum class Kind { Static, Symbol, Expression, Unchecked } kind = Kind::Unchecked;
        int64_t value = 0;  // Static
        int symbol = -1;    // Symbol
        std::shared_ptr<const SizeExpression> expression;
    };
    struct Contract {
        int slot = -1;
        bool tensor = true;  // else a symbolic int, whose value is checked as a size
        DType dtype = DType::Float32;
        std::vector<DimContract> dims;  // for a symbolic int: one, its value
        std::string value;              // the value's name
        std::string node;               // the archive node that made it, and its op
        std::string step;               // "step 2 (OpenVINO)", "step 3 (CPU kernels)"
        std::string role;               // for an output: "output 1", "the new state of buffer 'b'"
        bool made_on_cpu = false;  // made by a CPU kernel: a contradiction is the metadata's
    };

    Contract contract_for(const std::string& value_name, const std::string& step_text);
    DimContract dim_contract(const graph::Dim& dim);
    int symbol_index(const std::string& name);
    void check(const Contract& contract, const kernels::RuntimeValue& value, std::string_view role,
               Symbols& symbols) const;
    // Each contract's value in `values` that is made (not kept as OpenVINO state).
    void check_values(const std::vector<Contract>& contracts, const std::vector<kernels::RuntimeValue>& values,
                      Symbols& symbols) const;
    [[noreturn]] void fail(const Contract& contract, std::string_view role, const std::string& what) const;

    const compile::PreparedMethod& prepared_;
    std::vector<std::string> symbol_names_;
    size_t symbol_count_ = 0;
    std::vector<std::vector<DimContract>> input_dims_;  // by user input
    std::vector<std::vector<Contract>> step_contracts_;  // by plan step (OpenVINO steps)
    std::vector<std::vector<std::vector<Contract>>> node_contracts_;  // by CPU step, by node in it
    std::vector<std::optional<Contract>> output_contracts_;  // by user output (none for a number)
};

}  // namespace pt2ov::runtime
