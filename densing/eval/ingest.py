"""Ingest existing lm-eval outputs into a results store (``densing eval ingest DIR``), one part per results file (a
file already ingested with the same content is skipped): the Pythia suite's published evaluations
(:func:`densing.data.read_pythia_evals`), or lm-eval results JSON (0.3 or 0.4), parameter counts from the JSON or a
models file. Beside a 0.4 ``results_<date>.json``, its ``samples_<task>_<date>.jsonl`` give the conditional loss
−log P(answer | prompt) (Xiao et al. 2024, §2.2) of the gold continuations: ``loss`` (mean per sample),
``loss_per_byte`` and the byte counts (per-token losses need the model's tokenizer).
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from collections.abc import Callable
from pathlib import Path

import orjson
import pandas as pd

import densing
from densing.data.formats import sniff_format
from densing.data.readers import attach_metadata, pythia_runs, read_lm_eval_results, read_pythia_evals
from densing.errors import InputError
from densing.eval.loss import EMPTY, LossTotals, continuation_byte_count
from densing.eval.store import is_done, write_part

_DATE_SUFFIX = re.compile(r"_(\d{4}-\d{2}-\d{2}T[\d\-.:]+)$")


def _response_log_likelihood(response: object) -> float:
    if isinstance(response, str):
        response = ast.literal_eval(response)
    while isinstance(response, (list, tuple)):
        response = response[0]
    return float(response)  # type: ignore[arg-type]


def _arguments(sample: dict) -> list[tuple[str, str]]:
    arguments = sample.get("arguments")
    if isinstance(arguments, dict):  # 0.4 JSONL: {"gen_args_0": {"arg_0": ctx, "arg_1": cont}, ...}
        ordered = sorted(arguments.items(), key=lambda kv: int(kv[0].rsplit("_", 1)[-1]))
        return [(str(a.get("arg_0", "")), a.get("arg_1")) for _, a in ordered]
    return [(str(a[0]), a[1]) for a in arguments or []]


def _gold_index(target: object, continuations: list[str]) -> int:
    """The gold choice's position: a choice index, the choice's text or its index as text; -1 where none."""
    if isinstance(target, int) and not isinstance(target, bool):
        return target
    if not isinstance(target, str):
        return -1
    text = target.strip()
    if text in continuations:
        return continuations.index(text)
    if text.isdigit():
        return int(text)
    return -1


def samples_loss(path: Path, output_type: str) -> LossTotals:
    """Conditional loss from a 0.4 samples JSONL of a multiple-choice or loglikelihood task (``output_type``): the
    gold request is the sample's ``target``; samples whose gold cannot be told (Winogrande-style) are skipped."""
    total = EMPTY
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            sample = orjson.loads(line)
            arguments = _arguments(sample)
            responses = sample["filtered_resps"]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: line {number}: not an lm-eval samples record ({exc})") from None
        if output_type == "loglikelihood":
            index = 0
        elif output_type == "multiple_choice":
            continuations = [str(c) for _, c in arguments]
            if len(set(continuations)) < len(continuations):
                continue
            index = _gold_index(sample.get("target"), [c.strip() for c in continuations])
            if not 0 <= index < len(arguments):
                continue
        context, continuation = arguments[index]
        try:
            log_likelihood = _response_log_likelihood(responses[index])
        except (ValueError, SyntaxError, IndexError, TypeError) as exc:
            raise InputError(f"{path}: line {number}: field 'filtered_resps': {exc}") from None
        total = total + LossTotals(-log_likelihood, 0, continuation_byte_count(context, str(continuation)), 1)
    return total


def _samples_files(results_path: Path) -> dict[str, Path]:
    match = _DATE_SUFFIX.search(results_path.stem)
    if not match:
        return {}
    date = match.group(1)
    return {
        path.stem[len("samples_") : -len(f"_{date}")]: path
        for path in results_path.parent.glob(f"samples_*_{date}.jsonl")
    }


def _ingest_lm_eval_file(path: Path, metadata: pd.DataFrame | None) -> pd.DataFrame:
    frame, data = read_lm_eval_results(path)
    config = data.get("config") or {}
    if metadata is not None:  # the user's metadata first, then the count lm-eval wrote
        frame = attach_metadata(frame, metadata, source=str(path))
    count = config.get("model_num_parameters")
    if isinstance(count, (int, float)) and count > 0:
        frame["params"] = frame["params"].where(frame["params"].notna(), float(count))
    if frame["params"].isna().any():
        raise InputError(
            f"{path}: model {frame['model'].iloc[0]!r}: no parameter count (not in the results JSON; "
            "pass --models FILE with a 'params' field for this model name)"
        )
    configs = data.get("configs") or {}
    for column in ("loss_per_byte", "loss_per_sample", "loss_total", "loss_bytes", "loss_samples"):
        frame[column] = math.nan
    for task, samples_path in _samples_files(path).items():
        output_type = (configs.get(task) or {}).get("output_type")
        if output_type not in ("multiple_choice", "loglikelihood"):
            continue
        totals = samples_loss(samples_path, output_type)
        if totals.samples == 0:
            continue
        for column, value in (
            ("loss", totals.loss_per_sample),
            ("loss_per_sample", totals.loss_per_sample),
            ("loss_per_byte", totals.loss_per_byte),
            ("loss_total", totals.loss_total),
            ("loss_bytes", totals.bytes),
            ("loss_samples", totals.samples),
        ):
            frame.loc[frame["benchmark"] == task, column] = value
    return frame


def ingest(
    directory: str | Path,
    store: str | Path,
    *,
    metadata: pd.DataFrame | None = None,
    on_progress: Callable[[str, str], None] | None = None,
) -> pd.DataFrame:
    """Read and validate the lm-eval outputs under ``directory``, then write them into ``store``; return their rows.
    ``on_progress(source, status)`` gets ``"skipped"`` or ``"written"``."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"{root}: no such directory of lm-eval outputs")
    from densing.io import check_writable_folder

    check_writable_folder(store)  # before any output is read
    pythia = sniff_format(root).name == "pythia_evals"
    if pythia:  # already validated by read_pythia_evals
        frames = [
            read_pythia_evals(root, suite=suite, shots=shots)
            for suite in ("standard", "deduped")
            for shots in ("zero-shot", "five-shot")
            if pythia_runs(root, suite=suite, shots=shots)
        ]
        if not frames:
            raise InputError(f"{root}: no Pythia result files found")
        parts = [(Path(source), part) for source, part in pd.concat(frames, ignore_index=True).groupby("source")]
    else:
        files = sorted(p for p in root.rglob("*.json") if not p.name.startswith("samples_"))
        if not files:
            raise InputError(f"{root}: no lm-eval results JSON files found")
        parts = [(path, _ingest_lm_eval_file(path, metadata)) for path in files]
    planned = []
    for source, frame in parts:
        models = frame["model"].unique()
        if len(models) != 1:
            raise InputError(f"{source}: expected one model per results file, found {len(models)}")
        extra = _samples_files(source) if source.suffix == ".json" else {}
        key = f"ingest {source.relative_to(root) if source.is_relative_to(root) else source.name}"
        meta_text = "" if metadata is None else metadata.to_json()
        digest = hashlib.sha256(f"densing {densing.__version__}\x1f{meta_text}".encode())
        for path in (source, *sorted(extra.values())):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        value = digest.hexdigest()[:16]
        frame = frame.assign(source=str(source), config_hash=value, ingested_from=str(source.relative_to(root)))
        planned.append((str(models[0]), key, frame, value))
    from densing.data.schema import validate_results

    # validate everything before writing anything
    if not pythia:
        planned = [(m, k, validate_results(f, source=str(f["source"].iloc[0])), v) for m, k, f, v in planned]
    for model, key, frame, value in planned:
        done = is_done(store, model, key, value)
        if not done:
            write_part(store, model, key, frame, value, validated=True)
        if on_progress:
            on_progress(str(frame["source"].iloc[0]), "skipped" if done else "written")
    return pd.concat([frame for _, _, frame, _ in planned], ignore_index=True)
