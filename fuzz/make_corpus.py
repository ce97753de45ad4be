"""Writes the fuzz targets' seed corpus (fuzz/corpus/, committed, kept under 1 MB): a few zoo
programs saved with torch.export.save, their program JSON, and .npz inputs.

Usage (from the repository root): .venv/bin/python fuzz/make_corpus.py
"""
import pathlib
import sys
import zipfile

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.models import get_case  # noqa: E402
from tests.models.export import export_case, flatten, for_mode  # noqa: E402

CASES = [("mlp", "static"), ("params_and_buffers", "static"), ("arange_dynamic", "dynamic"),
         ("bool_int_outputs", "static"), ("writes_into_buffer_views", "static")]
OUT = ROOT / "fuzz" / "corpus"

for folder in ("archive", "program_json", "npz"):
    (OUT / folder).mkdir(parents=True, exist_ok=True)
for name, shape in CASES:
    case = get_case(name)
    for mode in ("exported", "decomposed"):
        ep = for_mode(export_case(case, case.make_module(), shape), mode)
        archive = OUT / "archive" / f"{name}_{mode}.pt2"
        torch.export.save(ep, archive)
        with zipfile.ZipFile(archive) as z:
            program = next(n for n in z.namelist() if n.endswith("models/model.json"))
            (OUT / "program_json" / f"{name}_{mode}.json").write_bytes(z.read(program))
    arrays = [t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t) for t in flatten(case.make_inputs(0))]
    np.savez(OUT / "npz" / f"{name}.npz", *arrays)
    np.savez_compressed(OUT / "npz" / f"{name}_compressed.npz", *arrays)
np.savez(OUT / "npz" / "dtypes.npz", np.zeros((2, 3), np.float16), np.asfortranarray(np.arange(6.0).reshape(2, 3)),
         np.array(True), np.array([1, 2], np.uint16), image=np.ones((1, 2), np.float32))
