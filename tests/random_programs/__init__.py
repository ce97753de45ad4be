"""Random well-conditioned PyTorch programs through pt2ov, compared with PyTorch eager.

Two generators make the programs: NNSmith 0.1.0 (`nnsmith_gen.py`) and one of our own over the
torch ops pt2ov claims (`own_gen.py`, its op table in `ops.py`). Each program is screened
(`harness.py`): eager in float32 and float64 must agree closely (so a later mismatch is never
rounding), and torch.export must take it. It is then exported both ways (as exported, and
`run_decompositions()`), run through pt2ov in three placements and through OpenVINO alone, each
in a child process restarted after a crash (`runner.py`), and compared with eager.

    make random-programs N=300 SEED=0 GENERATOR=both FORMS=exported,decomposed
    python -m tests.random_programs.run --n 50 --generator own
    python -m tests.random_programs.run --replay own:123      # one program, every placement

`make test` runs a fixed subset (`test_random_subset.py`). `shrink.py` reduces a failing
program of our own generator to its smallest form.
"""
