"""Reader for AI2's OLMo model ladder (allenai/OLMo ``scripts/scaling/data/peteish-moreeval/``; docs/method.md, "The
OLMo ladder reference"): one recipe at five sizes × five token budgets (0.5 to 10 × the Chinchilla budget), every
checkpoint evaluated in the OLMES ranked-classification 5-shot format (Bhagia et al. 2024, arXiv 2412.04403), plus the
full OLMo-2 1B, 7B and 13B runs in the same columns. :func:`read_olmo_ladder` gives one tidy row per (checkpoint,
task): ``benchmark`` = ``olmes_<task>``, ``metric`` = ``len_norm`` (BoolQ: ``acc``), ``n_shot`` = 5, ``loss`` = the
bits per byte of the correct answer (``eval/downstream_bpb/<task>_rc_5shot_bpb``, ``loss_unit`` = ``bpb``), ``stderr``
binomial on the split's item count, ``model`` = ``<run>@step<N>``, ``params`` = N as the ladder's own fits count it
(``configs/*.json``: the output head counted, the input embedding not), ``train_tokens`` = ``throughput/total_tokens``
or ``_step`` × ``batch_size_in_tokens``. Splits follow AI2's task keys (``src/scripts/paper/figures/chained_main.csv``
in allenai/OLMo-ladder): MMLU, ARC-Easy, ARC-Challenge and OpenBookQA the test split, the rest validation; MMLU is its
four groups weighted by their test-question shares (:data:`MMLU_GROUPS`), for accuracy and loss alike.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from densing.data.benchmarks import item_count
from densing.data.schema import validate_results
from densing.errors import InputError

#: task -> (split, accuracy metric of the ladder files)
TASKS: dict[str, tuple[str, str]] = {
    "mmlu": ("test", "len_norm"),
    "hellaswag": ("val", "len_norm"),
    "arc_easy": ("test", "len_norm"),
    "arc_challenge": ("test", "len_norm"),
    "piqa": ("val", "len_norm"),
    "socialiqa": ("val", "len_norm"),
    "csqa": ("val", "len_norm"),
    "openbookqa": ("test", "len_norm"),
    "boolq": ("val", "acc"),
    "winogrande": ("val", "len_norm"),
}
#: MMLU groups and their share of MMLU's 14,042 test questions (AI2's weights).
MMLU_GROUPS: dict[str, float] = {"stem": 0.215, "humanities": 0.335, "social_sciences": 0.219, "other": 0.231}
PREFIX = "olmes_"
LADDER_FILE = re.compile(r"^(?P<size>\d+[MB])-(?P<mult>[\d.]+)xC(?P<rerun>-rerun)?\.csv$")
#: The full OLMo-2 runs in the folder and the held-out rows AI2 uses for each.
FULL_RUNS: dict[str, dict] = {
    "olmo-2-1b": {"file": "peteish1_eval_final.csv", "last_rows": 1, "like": "1B"},
    "olmo-2-7b": {"file": "peteish7_eval_anneal.csv", "last_rows": 1, "config": "7B-4T"},
    "olmo-2-13b": {"file": "peteish13_eval_final.csv", "last_rows": 5, "config": "13B-5T"},
}


def _task_values(frame: pd.DataFrame, task: str, source: str, form: str = "rc") -> tuple[np.ndarray, np.ndarray]:
    """(accuracy, RC bits per byte of the correct answer) per row of a ladder file for one task (``"mc"``: MC)."""
    split, metric = (MC_TASKS if form == "mc" else TASKS)[task]
    groups = MMLU_GROUPS if task == "mmlu" else {None: 1.0}
    score = np.zeros(len(frame))
    loss = np.zeros(len(frame))
    for group, weight in groups.items():
        name = f"mmlu_{group}" if group else task
        for column, target in (
            (f"eval/downstream/{name}_{split}_{form}_5shot_{metric}", score),
            (f"eval/downstream_bpb/{name}_{split}_rc_5shot_bpb", loss),
        ):
            if column not in frame.columns:
                raise InputError(f"{source}: missing column {column!r}")
            target += weight * pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
    return score, loss


def _opened(folder: str | Path, tasks: list[str] | None, known: dict, unknown_words: str):
    """(the ladder folder, the tasks asked for, :func:`_sizes`); an InputError for no folder or an unknown task."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder (expected the OLMo ladder data)")
    tasks = list(known) if tasks is None else list(tasks)
    if unknown := [t for t in tasks if t not in known]:
        raise InputError(f"tasks: {unknown_words} {', '.join(unknown)} (known: {', '.join(known)})")
    return (folder, tasks, *_sizes(folder))


def _sizes(folder: Path) -> tuple[dict[str, float], dict[str, float]]:
    """N per ladder size label ('190M', '1B', …) and per full-run config label, from configs/*.json."""
    by_file, by_label = {}, {}  # N by file name and by config label
    configs = sorted((folder / "configs").glob("*.json"))
    if not configs:
        raise InputError(f"{folder}: no configs/*.json with the ladder's parameter counts")
    for path in configs:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not readable as JSON ({exc})") from None
        for label, entry in data.items():
            if not isinstance(entry, dict) or "n" not in entry:
                continue
            by_label[label] = float(entry["n"])
            for p in entry.get("paths", []):
                by_file[Path(p).name] = float(entry["n"])
    sized = ((LADDER_FILE.match(name), n) for name, n in by_file.items())
    return {match["size"]: n for match, n in sized if match}, by_label


def _rows(
    frame: pd.DataFrame,
    *,
    run: str,
    params: float,
    tokens: np.ndarray,
    steps: np.ndarray,
    source: str,
    tasks,
    form: str = "rc",
    extra=None,
) -> list[dict]:
    """One checkpoint's tidy row per task (the module docstring's columns) for each row of a ladder file with a score
    and a loss; ``form="mc"``: the MC accuracy as ``olmes_<task>_mc_inloop`` (checkpoints with tokens only: the
    initialisation, step 0, has none), with the columns ``extra(row)`` gives."""
    mc = form == "mc"
    out = []
    for task in tasks:
        score, loss = _task_values(frame, task, source, form)
        split, metric = TASKS[task] if not mc else MC_TASKS[task]
        n_items = item_count(PREFIX + task)
        what = "OLMES MC 5-shot, in-loop" if mc else f"{split} split, OLMES RC 5-shot"
        for i in np.flatnonzero(np.isfinite(score) & np.isfinite(loss) & (tokens > 0 if mc else True)):
            step, value = int(steps[i]), score[i]
            out.append(
                {
                    "model": f"{run}@step{step}",
                    "benchmark": PREFIX + task + (MC_SUFFIX if mc else ""),
                    "metric": "acc" if mc else metric,
                    "value": float(value),
                    "stderr": float(np.sqrt(max(value * (1 - value), 0.0) / n_items)),
                    "loss": float(loss[i]),
                    "loss_unit": "bpb",
                    "params": params,
                    "train_tokens": float(tokens[i]),
                    "n_shot": 5,
                    "run": run,
                    "revision": f"step{step}",
                    "family": "olmo-2",
                    "source": f"allenai/OLMo peteish-moreeval/{source} ({what})",
                    **(extra(i) if extra else {}),
                }
            )
    return out


def read_olmo_ladder(folder: str | Path, *, rerun: bool = True) -> pd.DataFrame:
    """Read the OLMo ladder folder into the tidy table (see the module docstring).

    ``rerun`` takes the ``*-1xC-rerun.csv`` files for the 1×C runs (they log twice as often; the checkpoints they
    share agree); ``rerun=False`` the originals, AI2's published choice. The OLMo-2 rows AI2 uses as held-out targets
    follow (:data:`FULL_RUNS`): 7B's post-anneal row, the mean of 13B's last five rows (at the last row's step), and
    the 1B's final row (the ladder's 1B architecture, so the same N).
    """
    folder, tasks, per_size, per_label = _opened(folder, None, TASKS, "unknown OLMo ladder task(s)")
    rows: list[dict] = []
    chosen: dict[tuple[str, str], Path] = {}
    for path in sorted(folder.glob("*xC*.csv")):
        match = LADDER_FILE.match(path.name)
        if match and (match["mult"] != "1" or bool(match["rerun"]) == rerun):
            chosen[(match["size"], match["mult"])] = path
    if not chosen:
        raise InputError(f"{folder}: no ladder files named like 1B-2xC.csv")
    for (size, mult), path in sorted(chosen.items()):
        if size not in per_size:
            raise InputError(f"{path}: size {size} has no parameter count in configs/*.json")
        frame = _read_csv(path)
        if missing := [c for c in ("_step", "throughput/total_tokens") if c not in frame.columns]:
            raise InputError(f"{path}: missing column {missing[0]!r}")
        rows += _rows(
            frame,
            run=f"olmo-ladder-{size}-{mult}xC",
            params=per_size[size],
            tokens=frame["throughput/total_tokens"].to_numpy(float),
            steps=frame["_step"].to_numpy(float),
            source=path.name,
            tasks=tasks,
        )
    for run, spec in FULL_RUNS.items():
        path = folder / spec["file"]
        if not path.exists():
            continue
        last = spec["last_rows"]
        tail = _read_csv(path).tail(last)  # one averaged row per task from the file's last rows
        params = per_size.get(spec["like"]) if "like" in spec else per_label.get(spec["config"])
        if params is None:
            raise InputError(f"{path}: no parameter count for {run} in configs/*.json")
        steps = tail["_step"].to_numpy(float) if "_step" in tail.columns else np.zeros(len(tail))
        averaged = _rows(
            tail.mean(numeric_only=True).to_frame().T,
            run=run,
            params=params,
            source=path.name,
            tokens=_tokens(tail, path.name)[-1:],
            steps=steps[-1:],
            tasks=tasks,
        )
        suffix = f", mean of the last {last} rows" if last > 1 else ""
        rows += [{**row, "model": run, "source": row["source"] + suffix} for row in averaged]
    return validate_results(pd.DataFrame(rows), source=str(folder))


def _tokens(frame: pd.DataFrame, source: str) -> np.ndarray:
    """Tokens per row: ``throughput/total_tokens`` where the file has it, else ``_step`` × batch size."""
    if "throughput/total_tokens" in frame.columns and frame["throughput/total_tokens"].notna().all():
        return frame["throughput/total_tokens"].to_numpy(float)
    if {"_step", "batch_size_in_tokens"} <= set(frame.columns):
        return frame["_step"].to_numpy(float) * frame["batch_size_in_tokens"].to_numpy(float)
    raise InputError(f"{source}: neither throughput/total_tokens nor _step × batch_size_in_tokens")


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{path}: not a readable CSV ({type(exc).__name__}: {exc})") from None


def ladder_benchmarks() -> dict[str, str]:
    """The ladder's benchmarks in the tidy table and their accuracy metric."""
    return {PREFIX + task: metric for task, (_, metric) in TASKS.items()}


def split_ladder(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the ladder's own runs, the full OLMo-2 runs): a reference never includes its targets."""
    is_ladder = frame["run"].astype(str).str.startswith("olmo-ladder-")
    return frame[is_ladder], frame[~is_ladder]


def ai2_published_setup(frame: pd.DataFrame) -> pd.DataFrame:
    """The runs of AI2's published fit: 190M–1B × {1, 2, 5, 10}×C (their 1×C files: read with ``rerun=False``)."""
    run = frame["run"].astype(str)
    return frame[run.str.startswith("olmo-ladder-") & ~run.str.contains("-3B-") & ~run.str.endswith("-0.5xC")]


def is_olmo_ladder(path: str | Path) -> bool:
    """True for a folder laid out like the OLMo ladder data (configs/*.json beside *xC.csv files)."""
    path = Path(path)
    return (
        path.is_dir() and (path / "configs").is_dir() and any(LADDER_FILE.match(p.name) for p in path.glob("*xC*.csv"))
    )


# ---------------------------------------------------------------------------------------------
# the OLMo-2 runs' multiple-choice (MC) accuracies over training

#: task -> (split, the file's MC accuracy metric): the OLMES multiple-choice format of the tasks
#: AI2's OLMES table reports in MC (:mod:`densing.designs.olmes.data`); MMLU's MC accuracy is per group
#: (``mmlu_<group>_test_mc_5shot_len_norm``), weighted by :data:`MMLU_GROUPS` as its loss is.
MC_TASKS: dict[str, tuple[str, str]] = {
    "arc_challenge": ("test", "acc"),
    "hellaswag": ("val", "acc"),
    "winogrande": ("val", "acc"),
    "mmlu": ("test", "len_norm"),
}
#: The in-loop MC rows' benchmark names: ``olmes_<task>_mc_inloop`` (the offline OLMES table's are
#: ``olmes_<task>_mc``: same items and format, another evaluation harness, :mod:`densing.designs.olmes.mc_reference`).
MC_SUFFIX = "_mc_inloop"
#: The full runs with MC columns: the files that make each, in training order, and the number of last rows that
#: make its in-loop *final* score (as :data:`FULL_RUNS` takes them).
MC_RUNS: dict[str, dict] = {
    "olmo-2-1b": {"files": ("peteish1_eval_final.csv",), "like": "1B", "final_rows": 1},
    "olmo-2-7b": {"files": ("peteish7_eval_full.csv", "peteish7_eval_anneal.csv"), "config": "7B-4T", "final_rows": 1},
    "olmo-2-13b": {"files": ("peteish13_eval_full.csv",), "config": "13B-5T", "final_rows": 5},
}


def _final_marker(first_row: int, final_from: int):
    """``extra`` of :func:`_rows` for a part of a run whose rows start at ``first_row`` of the run: ``final`` where a
    row's place in the run is ``final_from`` or later."""

    def final(i: int) -> dict:
        return {"final": first_row + i >= final_from}

    return final


def read_olmo_mc_runs(folder: str | Path, *, tasks: list[str] | None = None) -> pd.DataFrame:
    """The OLMo-2 1B, 7B and 13B runs' checkpoints with their in-loop MC accuracies, in the tidy table.

    One row per (checkpoint, task) of :data:`MC_RUNS`, as :func:`read_olmo_ladder`'s but ``benchmark`` =
    ``olmes_<task>_mc_inloop``, ``metric`` = ``acc`` and ``value`` the MC accuracy (MMLU: ``len_norm``,
    group-weighted); ``loss`` stays the RC columns' bits per byte (the ladder's loss law's). The column ``final``
    marks the rows that make each run's in-loop final score.
    """
    folder, tasks, per_size, per_label = _opened(folder, tasks, MC_TASKS, "no MC columns for task(s)")
    rows: list[dict] = []
    for run, spec in MC_RUNS.items():
        params = per_size.get(spec["like"]) if "like" in spec else per_label.get(spec["config"])
        if params is None:
            raise InputError(f"{folder}: no parameter count for {run} in configs/*.json")
        parts = []
        for name in spec["files"]:
            path = folder / name
            if not path.exists():
                raise InputError(f"{path}: missing (a file of the {run} run)")
            frame = _read_csv(path)
            tokens = _tokens(frame, name)
            batch = frame["batch_size_in_tokens"].to_numpy(float) if "batch_size_in_tokens" in frame.columns else None
            steps = frame["_step"].to_numpy(float) if "_step" in frame.columns else np.round(tokens / batch)
            parts.append((frame, tokens, steps, name))
        count = sum(len(p[0]) for p in parts)
        position = 0
        for frame, tokens, steps, name in parts:
            rows += _rows(
                frame,
                run=run,
                params=params,
                tokens=tokens,
                steps=steps,
                source=name,
                tasks=tasks,
                form="mc",
                extra=_final_marker(position, count - spec["final_rows"]),
            )
            position += len(frame)
    return validate_results(pd.DataFrame(rows), source=str(folder))
