# The two commands a new machine needs: `make demo` and `make test`. Each does its own set-up:
# Debian packages, a .venv with the pinned Python packages, and a CMake build in build/.
PYTHON_BOOT ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build
JOBS ?= 2
comma := ,

.PHONY: bench-compressed all setup deps venv build serve-client-venv quantized test test-cpp test-e2e test-conformance conformance test-state test-python test-wheel test-random random-programs demo clean

all: build

deps:
	@PYTHON_BOOT=$(PYTHON_BOOT) bash scripts/install-deps.sh

$(VENV)/.installed: requirements.txt requirements-random.txt requirements-nnsmith.txt requirements-models.txt
	@test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q -r requirements-models.txt -c requirements.txt
	$(PY) -m pip install -q -r requirements-random.txt -c requirements.txt
	$(PY) -m pip install -q --no-deps -r requirements-nnsmith.txt
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

# The recipe of a venv of its own under build/ (its .installed marker is the target) from the
# requirements file that is the target's first prerequisite.
define venv_from_requirements
@test -x $(@D)/bin/python || $(PYTHON_BOOT) -m venv $(@D)
$(@D)/bin/python -m pip install -q -r $<
endef

# The model server's test clients (tritonclient, requirements-serve.txt) in a venv of their own:
# tritonclient pins a protobuf .venv does not have (tests/e2e/test_serve.py drives them).
SERVE_CLIENT_VENV := $(BUILD)/serve-client-venv
$(SERVE_CLIENT_VENV)/.installed: requirements-serve.txt
	$(venv_from_requirements)
	@touch $@

serve-client-venv: $(SERVE_CLIENT_VENV)/.installed

# KServe's own clients against pt2ov serve (tests/serve_kserve/), not in `make test`: kserve's
# venv (requirements-kserve.txt, build/kserve-venv, also bench/serve_latency.py --kserve's peer)
# is large.
KSERVE_VENV := $(BUILD)/kserve-venv
$(KSERVE_VENV)/.installed: requirements-kserve.txt
	$(venv_from_requirements)
	@touch $@

kserve-venv: $(KSERVE_VENV)/.installed

.PHONY: kserve-venv test-serve-kserve
test-serve-kserve: build kserve-venv
	$(PY) -m pytest tests/serve_kserve -q

# examples/ray_serve on a local two-node Ray cluster (tests/serve_ray/), not in `make test`:
# Ray's venv (requirements-ray.txt, build/ray-venv) is large.
RAY_VENV := $(BUILD)/ray-venv
$(RAY_VENV)/.installed: requirements-ray.txt
	$(venv_from_requirements)
	@touch $@

ray-venv: $(RAY_VENV)/.installed

.PHONY: ray-venv test-serve-ray
test-serve-ray: build ray-venv
	$(PY) -m pytest tests/serve_ray -q

test-e2e: build serve-client-venv
	$(PY) -m pytest tests/e2e -q

# a fixed subset of the OpInfo conformance sweep: known failures as strict xfails, ~40 passing ops
test-conformance: build
	$(PY) -m pytest tests/conformance -q

test: test-cpp test-e2e test-python test-conformance test-random

# A fixed 200 random programs (100 NNSmith seeds, 100 of our own generator), both forms, the
# placements in turn, against eager (tests/random_programs/test_random_subset.py).
test-random: build
	$(PY) -m pytest tests/random_programs -q

# Random programs (tests/random_programs/): N programs per generator from SEED on, each form in
# every placement, OpenVINO alone where pt2ov fails (OPENVINO=always for every program); prints
# the table form x placement and writes build/random_programs/failures.json. Not in `make test`.
# INPUTS=structured: each program also runs on zeros, a constant, large and small magnitudes and
# NaN/+-inf inputs (tests/models/structured_inputs.py), with a table per domain.
N ?= 100
SEED ?= 0
GENERATOR ?= both
FORMS ?= exported,decomposed
PLACEMENTS ?= default,openvino,cpu
OPENVINO ?= failures
WORKERS ?= 2
INPUTS ?= normal
random-programs: build
	$(PY) -m tests.random_programs.run --n $(N) --seed $(SEED) --generator $(GENERATOR) \
		--forms $(FORMS) --placements $(PLACEMENTS) --openvino $(OPENVINO) --workers $(WORKERS) \
		--inputs $(INPUTS) --results build/random_programs/results.jsonl

# Every zoo case on structured inputs (tests/e2e/test_structured_inputs.py: zeros, a constant,
# large and small magnitudes, the int32 edge, padded masks, NaN and +-inf), both forms, static;
# `make test` runs its fast slice.
.PHONY: test-structured
test-structured: build
	PT2OV_STRUCTURED=all $(PY) -m pytest tests/e2e/test_structured_inputs.py -q

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

# The per-call cost of the NaN/inf check (LoadOptions::nonfinite_inputs) on the tiny MLP and
# ResNet-18, checked and unchecked loads interleaved in one process (bench/nonfinite_check.py,
# writes bench/results-nonfinite.json). Not part of `make test`.
.PHONY: bench-nonfinite
bench-nonfinite: build
	$(PY) bench/nonfinite_check.py

# pt2ov's CPU kernels against PyTorch eager's, op by op at 1K, 64K and 1M float32 elements
# (bench/kernels_vs_eager.py over bench/kernels_bench.cpp, built in build/bench). Not part of
# `make test`. KERNEL_OPS: a comma-separated subset (the script's op names).
KERNEL_OPS ?=
.PHONY: bench-kernels
bench-kernels: build
	@cmake -S bench -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) -DPT2OV_BUILD_DIR="$(CURDIR)/$(BUILD)" \
		-DOpenVINO_DIR="$(OPENVINO_CMAKE_DIR)" >/dev/null
	cmake --build $(BUILD)/bench -j $(JOBS) --target pt2ov_kernels_bench
	$(PY) bench/kernels_vs_eager.py --bench $(BUILD)/bench/pt2ov_kernels_bench $(if $(KERNEL_OPS),--ops $(KERNEL_OPS),)

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

# Sanitizer builds, each in its own build folder, not part of `make test` (an instrumented build
# takes long). pt2ov, its tools and tests are built with -fsanitize (CMake option PT2OV_SANITIZE)
# at -O1; OpenVINO and oneTBB run as shipped, not instrumented. Each executable links
# tests/sanitize/no_deepbind.c, without which the runtimes end the process when oneTBB loads
# libtbbbind with RTLD_DEEPBIND. Reports go to files in the build folder's reports/, and
# tests/sanitize/no-reports fails the run when one is there.
OPENVINO_CMAKE_DIR = $$($(PY) -c 'import openvino.utils as u; print(u.get_cmake_path())')
# -O0 and line tables only (-g1): at -O1 -g the instrumented template kernels (src/kernels/)
# compile several times slower, about an hour for the library on 2 busy cores.
SANITIZE_OPT ?= -O0 -g1
# $(call sanitizer_build,FOLDER,SANITIZERS,TARGETS)
define sanitizer_build
	@cmake -S . -B $(1) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) -DPT2OV_SANITIZE=$(2) \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_OPT)" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(SANITIZE_OPT)" \
		-DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST \
		-DOpenVINO_DIR="$(OPENVINO_CMAKE_DIR)" -DPT2OV_PYTHON=OFF >/dev/null
	cmake --build $(1) -j $(JOBS) --target $(3)
endef

# AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/): the C++ tests in one process,
# then the e2e suite against build-asan/pt2ov. The OpenVINO facts that crash OpenVINO on purpose
# (in a child process) are left out: their crash would be reported as a finding. Leaks are
# reported; tests/lsan.supp suppresses those allocated under OpenVINO or oneTBB frames.
# SANITIZE_E2E: the pytest arguments of the e2e run. By default the tests whose work is most
# pt2ov's own code: the CPU kernels, errors on bad archives and inputs, state, converter faults
# and inspect (SANITIZE_E2E=tests/e2e for all). test_package and test_llm_decode run build/'s
# binaries, not this build's, and are left out.
ASAN_BUILD := build-asan
SANITIZE_GTEST ?= -OpenVINOFacts.*Crash:OpenVINOFacts.*Crashes
SANITIZE_E2E ?= $(wildcard tests/e2e/test_kernels*.py) tests/e2e/test_errors.py tests/e2e/test_state.py \
	tests/e2e/test_converter_faults.py tests/e2e/test_inspect.py tests/e2e/test_split_buffers.py
ASAN_REPORTS = $(CURDIR)/$(ASAN_BUILD)/reports
# $(call asan_env,REPORTS_FOLDER)
asan_env = ASAN_OPTIONS="log_path=$(1)/asan detect_leaks=1 exitcode=86 \
		strict_string_checks=1 detect_stack_use_after_return=1 check_initialization_order=1" \
	LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp print_suppressions=0" \
	UBSAN_OPTIONS="log_path=$(1)/ubsan halt_on_error=1 print_stacktrace=1 exitcode=86"
.PHONY: test-sanitize test-sanitize-cpp test-sanitize-e2e sanitize-build
sanitize-build: setup
	$(call sanitizer_build,$(ASAN_BUILD),address$(comma)undefined,pt2ov_cli pt2ov_tests)
test-sanitize-cpp: sanitize-build
	$(call asan_env,$(ASAN_REPORTS)/cpp) tests/sanitize/no-reports $(ASAN_REPORTS)/cpp $(ASAN_BUILD)/pt2ov_tests --gtest_filter='$(SANITIZE_GTEST)'
test-sanitize-e2e: sanitize-build
	$(call asan_env,$(ASAN_REPORTS)/e2e) PT2OV_BIN=$(CURDIR)/$(ASAN_BUILD)/pt2ov tests/sanitize/no-reports $(ASAN_REPORTS)/e2e \
		$(PY) -m pytest -q -p no:cacheprovider $(SANITIZE_E2E) \
		--ignore=tests/e2e/test_package.py --ignore=tests/e2e/test_llm_decode.py
test-sanitize: test-sanitize-cpp test-sanitize-e2e

# The server against hostile clients under AddressSanitizer and UBSan: its C++ tests (the HTTP
# transport on raw sockets among them), then tests/e2e/test_serve_attacks.py and test_serve.py
# against build-asan/pt2ov (JSON a million deep, 2,000 idle and 200 slowloris connections, a 64 MB
# header, pipelining, resets; every protocol path through tritonclient).
.PHONY: test-sanitize-serve
test-sanitize-serve: sanitize-build serve-client-venv
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target pt2ov_serve_tests
	$(call asan_env,$(ASAN_REPORTS)/serve) tests/sanitize/no-reports $(ASAN_REPORTS)/serve $(ASAN_BUILD)/pt2ov_serve_tests
	$(call asan_env,$(ASAN_REPORTS)/serve-e2e) PT2OV_BIN=$(CURDIR)/$(ASAN_BUILD)/pt2ov \
		tests/sanitize/no-reports $(ASAN_REPORTS)/serve-e2e \
		$(PY) -m pytest -q -p no:cacheprovider tests/e2e/test_serve_attacks.py tests/e2e/test_serve.py

# The live-server fuzz under AddressSanitizer and UBSan: bench/serve_endurance.py against
# build-asan/pt2ov over REST, then over gRPC, FUZZ_LIVE_REQUESTS requests each, every other one
# a seed of fuzz/corpus/serve_request mutated at random (so a million bad requests a protocol by
# default), the valid ones checked against the in-process program's bytes; fails on a wrong
# answer, a dead server or any sanitizer report (leaks included, at the server's exit). About an
# hour on 2 cores. Not in `make test`.
FUZZ_LIVE_REQUESTS ?= 2000000
.PHONY: fuzz-serve-live
fuzz-serve-live: sanitize-build serve-client-venv
	$(call asan_env,$(ASAN_REPORTS)/serve-live-rest) tests/sanitize/no-reports $(ASAN_REPORTS)/serve-live-rest \
		$(PY) bench/serve_endurance.py --server $(ASAN_BUILD)/pt2ov --requests $(FUZZ_LIVE_REQUESTS) --seed 7
	$(call asan_env,$(ASAN_REPORTS)/serve-live-grpc) tests/sanitize/no-reports $(ASAN_REPORTS)/serve-live-grpc \
		$(PY) bench/serve_endurance.py --server $(ASAN_BUILD)/pt2ov --requests $(FUZZ_LIVE_REQUESTS) --seed 7 \
		--protocol grpc

# ThreadSanitizer (build-tsan/): the concurrency tests, four threads sharing one Program.
# tests/tsan.supp suppresses reports with a frame in OpenVINO or oneTBB only. setarch -R: the
# TSan runtime of GCC 12 needs the address layout without randomization.
TSAN_BUILD := build-tsan
.PHONY: test-tsan
test-tsan: setup
	$(call sanitizer_build,$(TSAN_BUILD),thread,pt2ov_concurrency_tests)
	TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp log_path=$(CURDIR)/$(TSAN_BUILD)/reports/tsan \
		halt_on_error=0 exitcode=66 second_deadlock_stack=1" \
		tests/sanitize/no-reports $(CURDIR)/$(TSAN_BUILD)/reports \
		setarch $$(uname -m) -R $(TSAN_BUILD)/pt2ov_concurrency_tests

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

# transformers' model types (its auto mappings: decoder, encoder, seq2seq, vision, speech), each
# made tiny generically, with padded attention masks (left-padded decoder LMs, right-padded
# encoders, a wholly padded row, all ones) through pt2ov, both program forms, beside OpenVINO
# alone; writes docs/HF_ARCHITECTURES.md. Results are kept in build/hf_architectures/results.jsonl
# (an interrupted run resumes). FAMILY=decoder|encoder|seq2seq|vision|speech|all (all), ONLY=a
# comma-separated list of model types. Not part of `make test` (it takes long).
FAMILY ?= all
.PHONY: hf-architectures
hf-architectures: build
	$(PY) -m pip install -q -r requirements-models.txt
	$(PY) -m tests.hf_architectures.measure --family $(FAMILY) $(if $(ONLY),--only $(subst $(comma), ,$(ONLY)),)

# Quantized programs as people make them (tests/quantized/flows.py): torchao's PT2E, NNCF's static
# int8 and weight compression, both program forms, through pt2ov and OpenVINO alone, against
# eager's quantized module (docs/EXACTNESS.md E8); prints one table, fails on a wrong answer.
# Installs the quantization packages (requirements-quant.txt). Not in `make test`.
.PHONY: quantized
quantized: build
	$(PY) -m pip install -q -r requirements-models.txt
	$(PY) -m pip install -q -r requirements-quant.txt -c requirements.txt
	PYTHONPATH=$(BUILD)/python $(PY) -m tests.quantized.flows --work $(BUILD)/quantized
	$(PY) -m pytest tests/quantized -q

# An int4-weight Llama-like decoder (NNCF): resident memory, load and call time of pt2ov (default
# and --compressed-weights), eager and OpenVINO alone, each in a fresh process
# (bench/compressed_weights.py). Not part of `make test`; run on a quiet machine.
bench-compressed: build
	$(PY) -m pip install -q -r requirements-models.txt
	$(PY) -m pip install -q -r requirements-quant.txt -c requirements.txt
	PYTHONPATH=$(BUILD)/python $(PY) bench/compressed_weights.py --work $(BUILD)/bench-compressed

# Text generation beside OpenVINO GenAI (bench/llm_generate.py): a decoder of Qwen2.5-0.5B's shape
# with random weights in f32, int8 and int4, pt2ov (C++ and Python) against optimum-intel's export
# run by openvino_genai.LLMPipeline and eager; writes bench/results-llm.json. The peer runs in a
# venv of its own, build/llm-peer-venv (requirements-llm-peer.txt: optimum-intel needs an older
# transformers). Not in `make test`; a quiet machine only.
LLM_PEER_VENV := $(BUILD)/llm-peer-venv
$(LLM_PEER_VENV)/.installed: requirements-llm-peer.txt
	$(venv_from_requirements)
	$(LLM_PEER_VENV)/bin/python -m pip uninstall -q -y torchvision
	@touch $@
.PHONY: bench-llm
bench-llm: build $(LLM_PEER_VENV)/.installed
	$(PY) -m pip install -q -r requirements-quant.txt -c requirements.txt
	PYTHONPATH=$(BUILD)/python $(PY) bench/llm_generate.py --peer-venv $(LLM_PEER_VENV) $(LLM_ARGS)

# libFuzzer targets (fuzz/): clang with -fsanitize=fuzzer,address,undefined in build-fuzz/, each
# run for FUZZ_SECONDS one after the other on its seed corpus (fuzz/corpus/, read only; new
# inputs go to build-fuzz/corpus/). FUZZ_RUNS=N runs each for N executions instead, however long
# that takes: a count, unlike a time, means the same on a loaded machine. Not in `make test`.
# Installs clang (scripts/install-deps.sh --fuzz).
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_LIMIT := $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))
FUZZ_TARGETS := fuzz_archive:archive fuzz_program_json:program_json fuzz_npz:npz fuzz_kernels:kernels fuzz_serve_request:serve_request
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

# Damaged archives that execute (fuzz/mutate_archives.py): MUTATIONS graph-level mutations of
# five small programs, each run by build/pt2ov on the CPU kernels and on the default placement;
# findings in build/mutations/findings/. A seeded batch of 40 runs in `make test`.
MUTATIONS ?= 3000
MUTATION_SEED ?= 0
.PHONY: fuzz-mutations
fuzz-mutations: build
	$(PY) -m fuzz.mutate_archives --n $(MUTATIONS) --seed $(MUTATION_SEED) --workers $(JOBS)

# The language-model tests alone: a transformers causal LM with a static KV cache decoded token by
# token by examples/llm_decode.cpp (tests/e2e/test_llm_decode.py) and pt2ov.Generator on every
# family of examples/export_llm.py (tests/e2e/test_generate.py), each compared with eager at each
# step. Both run in `make test` too (the venv holds requirements-models.txt), test_generate.py on
# ten families there and on all twenty-one here.
.PHONY: test-llm
test-llm: build
	$(PY) -m pip install -q -r requirements-models.txt
	PT2OV_GENERATE_FAMILIES=all $(PY) -m pytest tests/e2e/test_llm_decode.py tests/e2e/test_generate.py -q
