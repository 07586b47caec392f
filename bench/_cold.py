"""The cold ``densing eval`` command timed by phase, one process per run (shared by bench/cold_eval.py and
bench/gpu_check.py).

A run is ``python -c PHASES OUT.json eval ...`` in a checkout (``tree``, on ``PYTHONPATH``): the child wraps
lm-eval's ``Task.build_all_requests`` (contexts), the backends' ``loglikelihood`` and ``generate_until`` (calls,
outermost call only) and the Llama model's ``forward`` (forward; on CUDA synchronised at its end) with timers, each
once the command itself imports its module (an import hook: the child imports nothing the command does not), runs
the console script ``densing.cli.run`` (its exit handlers, which write the sums, then ``os._exit`` with the
command's code, as the installed ``densing`` does). The parent times the whole process (wall): ``rest`` = wall −
contexts − calls (interpreter, imports, task index, model load, store), ``host`` = wall − forward. Built requests
served from the store count in ``rest``, not ``contexts``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

#: A child script's import hook: each module named in the script's ``HOOKS`` (name → function of the module) is handed
#: to its function once the command itself has imported it, so the child imports what the command imports, no more.
IMPORT_HOOK = r"""
class Hooked:
    @staticmethod
    def find_spec(name, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path, target) if name in HOOKS else None
        if spec is not None:
            run = spec.loader.exec_module
            def exec_module(module):
                run(module)
                HOOKS.pop(name)(module)
            spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Hooked)
"""

PHASES = (
    r"""
import atexit, importlib.machinery, json, sys, time
out, argv = sys.argv[1], sys.argv[2:]
sums = {"contexts": 0.0, "calls": 0.0, "forward": 0.0}
depth = {key: 0 for key in sums}

def wrap(owner, name, key, sync=None):
    original = owner.__dict__[name]
    def timed(*args, **kwargs):
        depth[key] += 1
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            if sync is not None:
                sync(args[0])
            depth[key] -= 1
            if depth[key] == 0:
                sums[key] += time.perf_counter() - start
    setattr(owner, name, timed)

def sync(model):
    if model.device.type == "cuda":
        import torch
        torch.cuda.synchronize(model.device)

def backend(module, cls):
    for name in ("loglikelihood", "generate_until"):
        if name in getattr(module, cls).__dict__:
            wrap(getattr(module, cls), name, "calls")

# each class wrapped once its module is imported by the command itself, so that the command imports what it imports
HOOKS = {"lm_eval.api.task": lambda m: wrap(m.Task, "build_all_requests", "contexts"),
         "lm_eval.models.huggingface": lambda m: backend(m, "HFLM"),
         "densing.eval.backends.prefix.lm": lambda m: backend(m, "PrefixCachedHFLM"),
         "transformers.models.llama.modeling_llama": lambda m: wrap(m.LlamaForCausalLM, "forward", "forward", sync)}

"""
    + IMPORT_HOOK
    + r"""

def dump():
    # an exit handler never raises (its traceback would follow the command's own last line): the sums are written
    # to a temporary file beside OUT and renamed into place, else one line says why and nothing is left
    import os, tempfile
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(out) or ".", suffix=".tmp")
    except OSError as exc:
        print(f"error: {out}: cannot write the phases ({exc.strerror})", file=sys.stderr)
        return
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(sums, handle)
        os.replace(temporary, out)
    except OSError as exc:
        print(f"error: {out}: cannot write the phases ({exc.strerror})", file=sys.stderr)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)

atexit.register(dump)
sys.argv = ["densing", *argv]
from densing.cli import run
run()  # the console script: its exit handlers (dump), then os._exit with the command's code
"""
)


def save_tiny_model(folder: Path, data_root: Path, vocab: int = 8192, seed: int = 0) -> Path:
    """A random Llama of the GPU check's dry-run shape (2 layers, width 64, 4 heads, 2 key/value heads, MLP 128,
    float32) and a byte-level BPE tokenizer of ``vocab`` tokens trained on the ARC-Challenge, WinoGrande and GSM8K
    texts under ``data_root``/benchmarks, saved to ``folder`` (transformers' ``save_pretrained``)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    root = Path(data_root) / "benchmarks"
    texts = []
    for name in ("arc/ARC-Challenge-test.jsonl", "winogrande/winogrande_dev_llmfoundry.jsonl", "gsm8k/test.jsonl"):
        texts += (root / name).read_text(encoding="utf-8").splitlines()
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(
        texts,
        trainer=trainers.BpeTrainer(
            vocab_size=vocab,
            special_tokens=["<s>", "</s>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="</s>")
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=1,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def models_file(folder: Path, model: Path, dtype: str) -> Path:
    """A models file naming ``model`` (dtype ``dtype``) as ``tiny``, written into ``folder``."""
    path = folder / "models.yaml"
    path.write_text(
        f"models:\n  - name: tiny\n    model: {model}\n    dtype: {dtype}\n    train_tokens: 1e9\n"
        "    release_date: 2024-01-01\n"
    )
    return path


def cold_command(tree: Path, arguments: list[str], scratch: Path, env: dict | None = None) -> dict:
    """Run ``densing <arguments>`` cold in ``tree`` (its own process, a fresh ``--out`` under ``scratch``); return
    the phases in seconds (wall, contexts, calls, forward, rest, host)."""
    scratch.mkdir(parents=True, exist_ok=True)
    out = scratch / f"phases-{time.monotonic_ns()}.json"
    store = scratch / f"store-{time.monotonic_ns()}"
    environment = {**os.environ, **(env or {}), "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PHASES, str(out), *arguments, "--out", str(store)],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"cold command failed ({done.returncode}) in {tree}: {done.stderr[-2000:]}")
    sums = json.loads(out.read_text())
    return {
        "wall": wall,
        "contexts": sums["contexts"],
        "calls": sums["calls"],
        "forward": sums["forward"],
        "rest": wall - sums["contexts"] - sums["calls"],
        "host": wall - sums["forward"],
    }
