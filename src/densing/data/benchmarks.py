"""Facts about benchmarks that the laws use: each one's chance level.

The eval side's registry of how to *run* a benchmark is :mod:`densing.eval.benchmarks`; the
item counts of benchmark splits (for binomial standard errors) are :mod:`densing.data.item_counts`.
The chance levels of the leaderboard-v2 benchmarks with subtasks derive from
``leaderboard_v2_subtasks.csv`` beside this module (:func:`micro_average_chance`).
"""
from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

#: Per-subtask options and items of the Open LLM Leaderboard v2 benchmarks with subtasks (BBH,
#: MuSR, GPQA): benchmark, subtask, lm_eval_task, choices, items, source.
SUBTASK_TABLE = Path(__file__).with_name("leaderboard_v2_subtasks.csv")

#: Chance level (the score of random guessing) of common benchmarks, used as the performance
#: law's floor d when asked for: k-way multiple choice gives 1/k; open-vocabulary tasks 0.
CHANCE_LEVELS: dict[str, float] = {
    "arc_easy": 0.25,
    "arc_challenge": 0.25,
    "piqa": 0.5,
    "sciq": 0.25,
    "winogrande": 0.5,
    "hellaswag": 0.25,
    "mmlu": 0.25,
    "lambada_openai": 0.0,
    "lambada": 0.0,
    "truthfulqa_mc2": 0.0,
    "gsm8k": 0.0,
    "humaneval": 0.0,
    "mbpp": 0.0,
    "math": 0.0,
    "bbh": 0.0,
    # Open LLM Leaderboard v2 columns of the public table (raw lm-eval metrics, fractions; lm-eval's
    # tasks/leaderboard configs): MMLU-Pro 10 options (Wang et al. 2024, arXiv 2406.01574; up to
    # 10: an item with fewer options puts its own chance a little higher); GPQA 4 options (Rein et
    # al. 2023, arXiv 2311.12022); MATH-hard generative exact match (MATH level 5, Hendrycks et al.
    # 2021).
    "mmlu_pro": 0.1,
    "gpqa": 0.25,
    "math_hard": 0.0,
    # BBH and MuSR of the leaderboard are multiple choice with a different number of options per
    # subtask. lm-eval's group score (acc_norm, `aggregation: mean, weight_by_size: true`) is the
    # mean over all items, so the chance level is the item-weighted mean of 1/k over subtasks
    # (micro average; leaderboard_v2_subtasks.csv, micro_average_chance): BBH 24 subtasks, 5,761
    # items; MuSR 2, 5 and 3 options on 250, 256 and 250 items. (The leaderboard's own normalised
    # 0-100 scores instead normalise each subtask and average the subtasks.) "bbh" above is the
    # chain-of-thought exact match of densing eval, whose floor is 0: the leaderboard's multiple-
    # choice BBH is registered under lm-eval's group name "leaderboard_bbh".
    "leaderboard_bbh": 109422332 / 379275435,
    "musr": 3893 / 11340,
    # IFEval (leaderboard_ifeval) has no chance level: its score is the share of verifiable
    # formatting instructions followed in free generation, which random guessing does not define.
    # OLMES ranked-classification tasks of AI2's OLMo ladder (densing.data.olmo): 1/k for k choices
    "olmes_mmlu": 0.25,
    "olmes_hellaswag": 0.25,
    "olmes_arc_easy": 0.25,
    "olmes_arc_challenge": 0.25,
    "olmes_piqa": 0.5,
    "olmes_socialiqa": 1 / 3,
    "olmes_csqa": 0.2,
    "olmes_openbookqa": 0.25,
    "olmes_boolq": 0.5,
    "olmes_winogrande": 0.5,
    # The Swallow LLM Leaderboard's English tasks of pre-trained models (results/swallow/, task files of
    # swallow-llm/leaderboard): MMLU 5-shot is 4-way multiple choice scored by accuracy; BBH 3-shot chain of
    # thought, MATH 4-shot (Minerva prompt), GSM8K 4-shot are generated answers scored by exact match, and
    # HumanEval 0-shot by pass@1: open-ended, floor 0.
    "swallow_mmlu": 0.25,
    "swallow_bbh": 0.0,
    "swallow_math": 0.0,
    "swallow_gsm8k": 0.0,
    "swallow_humaneval": 0.0,
}

#: How each Swallow benchmark relates to the other tables' benchmark of the same data, and why it keeps its own
#: name: one name means one protocol (data, harness, prompt, shots, format, metric).
SWALLOW_PROTOCOL_MAPPING: dict[str, tuple[str, str]] = {
    "swallow_mmlu": ("mmlu", "same test split and 5 shots as the public table's MMLU (Open LLM Leaderboard v1 "
                             "via ObsScaling), but lm-eval 0.4.2 and Swallow's prompt, not the v1 leaderboard's "
                             "harness version and prompt; olmes_mmlu_mc is OLMES's multiple-choice format"),
    "swallow_bbh": ("leaderboard_bbh", "same BIG-Bench Hard data, but 3-shot chain of thought scored by exact "
                                       "match on 27 subtasks; leaderboard_bbh is multiple choice (acc_norm) on "
                                       "24 subtasks, with a chance level above 0"),
    "swallow_math": ("math_hard", "MATH-500, 500 problems of MATH's test split at every level (4-shot Minerva "
                                  "prompt); math_hard is the level-5 subset of the whole test split"),
    "swallow_gsm8k": ("gsm8k", "same test split, but 4 shots and Swallow's prompt; the public table's GSM8K is "
                               "the Open LLM Leaderboard v1's 5-shot"),
    "swallow_humaneval": ("humaneval", "same 164 problems, but the bigcode harness's humaneval-unstripped (the "
                                       "prompt's final newline kept), pass@1 over 10 samples; ObsScaling's "
                                       "HumanEval is its own run"),
}


def micro_average_chance(benchmark: str, table: str | Path = SUBTASK_TABLE) -> Fraction:
    """Chance level of ``benchmark``'s item-weighted aggregate: Σ nᵢ/kᵢ / Σ nᵢ over its subtasks.

    nᵢ items and kᵢ options per subtask come from ``table`` (:data:`SUBTASK_TABLE`); an exact
    fraction. KeyError if the table has no subtasks of ``benchmark``.
    """
    with open(table, newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["benchmark"] == benchmark]
    if not rows:
        raise KeyError(f"{benchmark!r}: no subtasks in {Path(table).name}")
    items = sum(int(row["items"]) for row in rows)
    return sum((Fraction(int(row["items"]), int(row["choices"])) for row in rows), Fraction(0)) / items
