"""Facts about benchmarks that the laws use: each one's chance level.

The eval side's registry of how to *run* a benchmark is :mod:`densing.eval.benchmarks`; the
item counts of benchmark splits (for binomial standard errors) are :mod:`densing.data.item_counts`.
"""
from __future__ import annotations

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
    # tasks/leaderboard configs): MMLU-Pro 10 options (Wang et al. 2024, arXiv 2406.01574); GPQA 4
    # options (Rein et al. 2023, arXiv 2311.12022); MATH-hard generative exact match (MATH level 5,
    # Hendrycks et al. 2021). The table's BBH and MuSR are multiple choice with a different number
    # of options per subtask; their aggregate chance level is not registered (and "bbh" above is the
    # chain-of-thought exact match of densing eval, whose floor is 0).
    "mmlu_pro": 0.1,
    "gpqa": 0.25,
    "math_hard": 0.0,
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
}
