"""Builds the demo's files from examples/policy.py:

    examples/policy.pt2            the policy exported with a dynamic batch (1..32)
    examples/policy_inputs.npz     a batch of 2 (image, state), as np.savez(path, *inputs)
    examples/policy_expected.npz   PyTorch eager's (action, state) for those inputs

Run from the repository root: .venv/bin/python examples/make_example.py
"""
import pathlib
import sys

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import policy  # noqa: E402


def main() -> None:
    model = policy.make_policy(seed=0)
    inputs = policy.example_inputs(batch=2, seed=1)

    ep = torch.export.export(model, inputs, dynamic_shapes=policy.dynamic_shapes(max_batch=32))
    torch.export.save(ep, str(HERE / "policy.pt2"))

    with torch.no_grad():
        action, state = model(*inputs)
    np.savez(HERE / "policy_inputs.npz", *[t.numpy() for t in inputs])
    np.savez(HERE / "policy_expected.npz", action.numpy(), state.numpy())

    for name in ("policy.pt2", "policy_inputs.npz", "policy_expected.npz"):
        print(f"wrote examples/{name} ({(HERE / name).stat().st_size} bytes)")


if __name__ == "__main__":
    main()
