# The two commands a new machine needs: `make demo` and `make test`. Each does its own set-up:
# Debian packages, a .venv with the pinned Python packages, and a CMake build in build/.
PYTHON_BOOT ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build
JOBS ?= 2

.PHONY: all setup deps venv build test test-cpp test-e2e test-conformance conformance test-state test-python test-wheel demo clean

all: build

deps:
	@PYTHON_BOOT=$(PYTHON_BOOT) bash scripts/install-deps.sh

$(VENV)/.installed: requirements.txt
	@test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	@touch $@

venv: $(VENV)/.installed

setup: deps venv

# ccache, where the machine has it, makes rebuilds (and builds in other work trees) cheap.
LAUNCHER := $(if $(shell command -v ccache 2>/dev/null),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache,)

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) \
		-DOpenVINO_DIR="$$($(PY) -c 'import openvino.utils as u; print(u.get_cmake_path())')" \
		-DPT2OV_PYTHON=ON -DPython_EXECUTABLE="$(CURDIR)/$(PY)" >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

test-cpp: build
	ctest --test-dir $(BUILD) --output-on-failure

test-e2e: build
	$(PY) -m pytest tests/e2e -q

# a fixed subset of the OpInfo conformance sweep: known failures as strict xfails, ~40 passing ops
test-conformance: build
	$(PY) -m pytest tests/conformance -q

test: test-cpp test-e2e test-python test-conformance

# Every cell of the state matrix (tests/e2e/test_state_matrix.py; `make test` runs its fast slice).
test-state: build
	PT2OV_STATE_MATRIX=all $(PY) -m pytest tests/e2e/test_state_matrix.py -q

# The Python module from build/python (tests/python/).
test-python: build
	PYTHONPATH=$(BUILD)/python $(PY) -m pytest tests/python -q

# Slow, not in `make test`: builds the wheel with `pip wheel .` into dist/, installs it into a
# fresh venv (build/wheel-venv) with the pinned torch and numpy, runs the example policy there.
test-wheel: venv
	$(PY) -m pytest tests/wheel -q -s

demo: build
	$(PY) examples/demo.py

clean:
	rm -rf $(BUILD)

# pt2ov against OpenVINO alone, PyTorch eager and ONNX Runtime (bench/compare): installs the
# peers' pinned packages into .venv, builds the C++ runner in build/bench, prints the table,
# writes bench/results.json and bench/results.png.
.PHONY: bench
bench: build
	$(PY) -m pip install -q -r requirements-bench.txt
	bench/compare

# PyTorch's OpInfo suite (op_db) through pt2ov, both program forms; writes docs/CONFORMANCE.md.
# Results are kept in build/conformance/results.jsonl, so an interrupted sweep resumes.
# Not part of `make test` (it takes minutes); the fixed subset there is test-conformance.
CONFORMANCE_DTYPES ?= float32
CONFORMANCE_OPS ?=
CONFORMANCE_SAMPLES ?= 2
CONFORMANCE_WORKERS ?= 2
conformance: build
	$(PY) -m tests.conformance.sweep --dtypes $(CONFORMANCE_DTYPES) --ops "$(CONFORMANCE_OPS)" \
		--samples $(CONFORMANCE_SAMPLES) --workers $(CONFORMANCE_WORKERS)

# The concurrency tests under ThreadSanitizer, in their own build folder build-tsan/ (not part
# of `make test`: a full instrumented build takes long). OpenVINO and oneTBB are not
# instrumented; tests/tsan.supp suppresses reports with a frame in those libraries only.
TSAN_BUILD := build-tsan
.PHONY: test-tsan
test-tsan: setup
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
		-DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
		-DOpenVINO_DIR="$$($(PY) -c 'import openvino.utils as u; print(u.get_cmake_path())')" \
		-DPT2OV_PYTHON=OFF >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target pt2ov_tests
	TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=0 exitcode=66 second_deadlock_stack=1" \
		setarch $$(uname -m) -R $(TSAN_BUILD)/pt2ov_tests --gtest_filter='Concurrency.*'

# Memory over many calls (bench/endurance): an OpenVINO-only, a CPU-only and two mixed programs,
# ENDURANCE_CALLS calls each; fails when RSS moves more than 1 MB after call 1,000. Not in `make test`.
ENDURANCE_CALLS ?= 100000
.PHONY: endurance
endurance: build
	bench/endurance --calls $(ENDURANCE_CALLS)

# Real architectures of torchvision, timm and transformers (requirements-models.txt) through
# pt2ov, both program forms, beside OpenVINO alone; writes docs/ARCHITECTURES.md. Results are
# kept in build/architectures/results.jsonl, so an interrupted run resumes. Not part of
# `make test` (it takes long).
.PHONY: architectures
architectures: build
	$(PY) -m pip install -q -r requirements-models.txt
	$(PY) -m tests.architectures.measure

# libFuzzer targets (fuzz/): clang with -fsanitize=fuzzer,address,undefined in build-fuzz/, each
# run for FUZZ_SECONDS one after the other on its seed corpus (fuzz/corpus/, read only; new
# inputs go to build-fuzz/corpus/). FUZZ_RUNS=N runs each for N executions instead, however long
# that takes: a count, unlike a time, means the same on a loaded machine. Not in `make test`.
# Installs clang (scripts/install-deps.sh --fuzz).
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_LIMIT := $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))
FUZZ_TARGETS := fuzz_archive:archive fuzz_program_json:program_json fuzz_npz:npz
.PHONY: fuzz fuzz-build
fuzz-build: deps
	@bash scripts/install-deps.sh --fuzz
	@cmake -S fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-19 $(LAUNCHER) >/dev/null
	@echo "*" > build-fuzz/.gitignore
	cmake --build build-fuzz -j $(JOBS)
fuzz: fuzz-build
	@set -e; for pair in $(FUZZ_TARGETS); do target=$${pair%%:*}; seeds=$${pair##*:}; \
		mkdir -p build-fuzz/corpus/$$seeds build-fuzz/findings/$$target; \
		echo "== $$target for $(if $(FUZZ_RUNS),$(FUZZ_RUNS) executions,$(FUZZ_SECONDS)s)"; \
		build-fuzz/$$target $(FUZZ_LIMIT) -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
			-dict=fuzz/pt2ov.dict -print_final_stats=1 -artifact_prefix=build-fuzz/findings/$$target/ \
			build-fuzz/corpus/$$seeds fuzz/corpus/$$seeds; done

# A transformers causal LM with a static KV cache (examples/make_llm.py), decoded token by token by
# examples/llm_decode.cpp and compared with eager at each step (tests/e2e/test_llm_decode.py).
# Not in `make test`: transformers takes ~150 MB in the venv (requirements-models.txt).
.PHONY: test-llm
test-llm: build
	$(PY) -m pip install -q -r requirements-models.txt
	$(PY) -m pytest tests/e2e/test_llm_decode.py -q
