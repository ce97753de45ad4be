"""Text generation over a loaded program (the C++ library's pt2ov::Generator).

    import pt2ov
    generator = pt2ov.Generator.load("qwen/model.pt2", pt2ov.Tokenizer("qwen/"), compressed_weights=True)
    print(generator.generate("Once upon a time", max_new_tokens=64).text)
    for token, text in generator.stream("And then", temperature=0.7, seed=1):
        print(text, end="", flush=True)

The program is a causal language model exported with a static KV cache
(examples/export_llm.py): it takes the token ids (int64, (1, seq)) and their cache positions
(int64, (seq,) or (1,)) and returns logits; its cache is its mutated buffers. A Generator keeps
the conversation: each generate() continues where the last stopped, until reset().
"""
from __future__ import annotations

import dataclasses
import os
import queue
import threading
from typing import Callable, Iterator, Optional, Sequence, Union

from . import _pt2ov


class Tokenizer(_pt2ov._Tokenizer):
    """A Hugging Face tokenizer converted by openvino-tokenizers: ``directory`` holds
    openvino_tokenizer.xml and openvino_detokenizer.xml. ``extension``: the openvino-tokenizers
    library (default: $PT2OV_TOKENIZERS_EXTENSION, else the one beside the openvino package)."""

    def __init__(self, directory: Union[str, os.PathLike], extension: Optional[str] = None):
        if extension is None and not os.environ.get("PT2OV_TOKENIZERS_EXTENSION"):
            extension = _installed_extension()
        super().__init__(os.fspath(directory), extension or "")

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``, with the special tokens the Hugging Face tokenizer adds."""
        return super().encode(text)

    def decode(self, tokens: Sequence[int]) -> str:
        """Text of ``tokens``, special tokens (and ids beyond the vocabulary) skipped."""
        return super().decode([int(t) for t in tokens])


def _installed_extension() -> str:
    """openvino-tokenizers' library as the installed package has it, when it is installed."""
    try:
        import openvino_tokenizers
    except ImportError:
        return ""
    return str(getattr(openvino_tokenizers, "_ext_path", ""))


@dataclasses.dataclass
class GenerationResult:
    tokens: list  # the new tokens, a stop token included
    text: str  # their text, with a tokenizer
    stop_reason: str  # "stop_token", "max_new_tokens", "cache_full" or "stopped"
    prompt_tokens: int
    time_to_first_token_ms: float
    token_ms: list  # each later token's time
    logits: object = None  # with output_logits=True: numpy float32 (new tokens, vocabulary)

    @property
    def ms_per_token(self) -> float:
        return sum(self.token_ms) / len(self.token_ms) if self.token_ms else 0.0


# Every token id and position a generator feeds lies below this (pt2ov::Generator::kInt64InputLimit).
INT64_INPUT_LIMIT = 1 << 24
APPENDING_POSITIONS = "cache_position"


class Generator:
    """Generation over ``program`` (a :class:`pt2ov.Program`), with ``tokenizer`` for text.

    Making one runs the program once on one token and resets its state, so that OpenVINO's
    first-inference setup (the CPU plugin's weight packing) is paid here, not by the first reply."""

    def __init__(self, program, tokenizer: Optional[Tokenizer] = None):
        self._generator = _pt2ov._Generator(program, tokenizer)
        self.program = program
        self.tokenizer = tokenizer

    @classmethod
    def load(cls, path: Union[str, os.PathLike], tokenizer: Optional[Tokenizer] = None, **load_options) -> "Generator":
        """Loads the program at ``path`` with :func:`pt2ov.load`'s options, ``int64_input_limit``
        defaulting to 2**24: a generator feeds ids below the vocabulary and positions below the
        cache's length, so the promise holds by construction, and the cache update then stays on
        OpenVINO (one OpenVINO step per call, the cache as its state); and ``appending_positions``
        defaulting to "cache_position" (transformers' positions input): the generator feeds
        positions running on from 0, so the static cache grows in OpenVINO by each call's positions,
        read in place by the attention (``appending_positions=""``: the cache stays whole)."""
        from . import load

        load_options.setdefault("int64_input_limit", INT64_INPUT_LIMIT)
        load_options.setdefault("appending_positions", APPENDING_POSITIONS)
        return cls(load(path, **load_options), tokenizer)

    def generate(self, prompt: Union[str, Sequence[int]], *, max_new_tokens: int = 128, stop_tokens: Sequence[int] = (),
                 temperature: float = 0.0, top_k: int = 0, top_p: float = 1.0, repetition_penalty: float = 1.0,
                 seed: int = 0, output_logits: bool = False,
                 on_token: Optional[Callable[[int, str], Optional[bool]]] = None) -> GenerationResult:
        """Continues the conversation with ``prompt`` (text, with a tokenizer, or token ids).

        Greedy when ``temperature`` is 0; else a seeded draw after ``repetition_penalty``,
        ``temperature``, ``top_k`` and ``top_p``. Stops after a token of ``stop_tokens`` (default:
        the tokenizer's end of sequence), ``max_new_tokens``, a full cache, or ``on_token``
        (called with each token and the text it completes) returning False."""
        if isinstance(prompt, str):
            if self.tokenizer is None:
                raise _pt2ov.InputError("generate: a text prompt needs a tokenizer (Generator(program, tokenizer))")
            ids = self.tokenizer.encode(prompt)
        else:
            ids = [int(t) for t in prompt]
        result = self._generator.generate(ids, int(max_new_tokens), [int(t) for t in stop_tokens], float(temperature),
                                          int(top_k), float(top_p), float(repetition_penalty), int(seed),
                                          bool(output_logits), on_token)
        return GenerationResult(**result)

    def stream(self, prompt: Union[str, Sequence[int]], **config) -> Iterator[tuple[int, str]]:
        """generate() as an iterator of (token, text); leaving the loop early stops generation."""
        items: queue.Queue = queue.Queue()
        taken = threading.Semaphore(0)
        stop = threading.Event()
        done = object()

        # Each token waits until the loop has taken it, so that leaving the loop after token k
        # stops the generation right after k (the next generate() continues from there).
        def on_token(token, text):
            items.put((token, text))
            taken.acquire()
            return not stop.is_set()

        def run():
            try:
                self.generate(prompt, on_token=on_token, **config)
                items.put(done)
            except BaseException as error:  # handed to the loop
                items.put(error)

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            while True:
                item = items.get()
                if item is done:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
                taken.release()
        finally:
            stop.set()
            taken.release()
            worker.join()

    def reset(self) -> None:
        """A new conversation: the cache back to the archive's values."""
        self._generator.reset()

    @property
    def position(self) -> int:
        """Positions of the cache in use."""
        return self._generator.position

    @property
    def cache_length(self) -> int:
        return self._generator.cache_length

    @property
    def vocabulary_size(self) -> int:
        return self._generator.vocabulary_size

    @property
    def max_tokens_per_call(self) -> int:
        return self._generator.max_tokens_per_call
