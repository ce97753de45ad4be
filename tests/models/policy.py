"""The example policy of examples/policy.py (what `make demo` runs), as a zoo case."""
import importlib.util
import pathlib

from . import ModelCase, register

_POLICY_PATH = pathlib.Path(__file__).resolve().parents[2] / "examples" / "policy.py"


def _load_policy_module():
    # examples/ is not a package; load the file itself so the zoo tests exactly what the demo runs
    spec = importlib.util.spec_from_file_location("pt2ov_examples_policy", _POLICY_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


policy = _load_policy_module()

register(
    ModelCase(
        name="example_policy",
        make_module=lambda: policy.make_policy(seed=0),
        make_inputs=lambda variant: policy.example_inputs(batch=(2, 5)[variant], seed=1 + variant),
        dynamic_shapes=policy.dynamic_shapes(),
        exact_outputs=(1,),
        notes="examples/policy.py: conv encoder + MLP head, returns (action, state.clone()).",
    )
)
