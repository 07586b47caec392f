"""Local-data loaders for densing's offline lm-eval tasks, and the OLMES few-shot examples.

The task YAMLs in ``densing/eval/tasks/local`` (lm-eval's own prompts and metrics) and
``densing/eval/tasks/olmes`` (the OLMES ranked-classification 5-shot format of AI2's OLMo ladder)
read the original benchmark splits from a data folder instead of the Hugging Face Hub, through
lm-eval's ``custom_dataset`` hook: ``custom_dataset(**metadata, **dataset_kwargs)`` returns a
``datasets.DatasetDict``. The folder is ``<root>/benchmarks`` with ``root`` from the task metadata
key ``densing_data_root`` (set by ``densing eval --data-root``), else ``$DENSING_SHARED_DATA``, else
``../shared/data`` beside the repository (see that folder's ``benchmarks/README.md`` for every
file's source and licence). Nothing here downloads anything.

Data layouts read (as shipped in that folder; sources as its README gives them, repository @ commit):

- ``arc/ARC-{Easy,Challenge}-test.jsonl``: the HF ``allenai/ai2_arc`` layout
  (zhaoxlpku/HKU-DASC7606-A2 @fcca017; CC BY-SA 4.0);
- ``piqa/valid.jsonl`` + ``piqa/valid-labels.lst``: the original PIQA dev split and its labels
  (declare-lab/TEAM @e43753f; AFL-3.0);
- ``winogrande/winogrande_dev_llmfoundry.jsonl``: the WinoGrande dev split in MosaicML's
  ``context_options / continuation / gold`` layout, i.e. lm-eval's partial scoring already applied
  (``context_options[i]`` = the sentence up to the blank with option i, ``continuation`` = the rest)
  (mosaicml/llm-foundry @8c8dd48; CC BY);
- ``lambada/lambada_test.jsonl``: the OpenAI LAMBADA test file of lm-eval's ``lambada_openai``
  (cybertronai/bflm @620fff7; CC BY 4.0);
- ``mmlu/{dev,test}/<subject>_{dev,test}.csv``: question, choice0..3, answer (index 0-3)
  (HaeChan0305/MLILAB-FedLLM @d92730e; MIT);
- ``humaneval/HumanEval.jsonl.gz``: the original 164 problems (task_id, prompt, canonical_solution,
  test, entry_point) (openai/human-eval @6d43fb9; MIT);
- ``mbpp/mbpp.jsonl``: the original 974 problems (task_id, text, code, test_list, test_setup_code,
  challenge_test_list), split by task_id as the HF ``mbpp`` "full" config splits them
  (deepseek-ai/DeepSeek-Coder @2f9fd85; CC BY 4.0);
- ``bbh/bbh/<task>.json``: ``{"examples": [{input, target}]}`` for each of the 27 BBH tasks
  (suzgunmirac/BIG-Bench-Hard @9ee07bd; MIT); the CoT exemplars are lm-eval's, embedded in the
  task YAMLs (written by ``tools/task_configs.py``), not read from ``bbh/cot-prompts``;
- ``gsm8k/test.jsonl``: the original test split (question, answer) (openai/grade-school-math
  @3101c7d; MIT).

One split ships with densing itself rather than in the data folder, read whatever the data root is:

- ``densing/eval/tasks/data/math``: the MATH test split (Hendrycks et al. 2021; MIT), 5,000 problems
  (problem, level, type, solution, idx) as ``MATH_test.jsonl.gz``, and ``math500.tsv``, the 500 problems of
  MATH-500 (Lightman et al. 2023) by their ``unique_id`` and their ``idx`` in that file, in MATH-500's order
  (sources in that folder's README).

The code-executing tasks (HumanEval, MBPP) score pass@1 with :mod:`densing.eval.tasks.code_eval`
(lm-eval's own metric loads HF ``evaluate``'s ``code_eval`` from the Hub).

The OLMES few-shot examples (data: ``olmes_fewshot.json`` beside this module) are copied from ``FEWSHOT_SOURCES`` in allenai/olmes
``oe_eval/tasks/fewshot_sources.py`` (Apache-2.0; read from the goodfire-ai/olmes fork at commit
acbb746), keys ``OLMES:ARC-Easy``, ``OLMES:ARC-Challenge``, ``OLMES:piqa``, ``OLMES:winogrande``;
OLMES takes the first ``num_shots`` (5) of each list. They are training-split items of ARC
(CC BY-SA 4.0), PIQA (AFL-3.0) and WinoGrande (CC-BY). MMLU's OLMES few-shot examples are the five
dev-split questions of the same subject, read from the data folder.
"""
from __future__ import annotations

import copy
import csv
import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

def data_root(metadata: dict[str, Any]) -> Path:
    """The task metadata's ``densing_data_root``, else ``$DENSING_SHARED_DATA``, else ``../shared/data``."""
    root = metadata.get("densing_data_root")
    if not root:
        from densing.paths import SHARED_DATA

        root = SHARED_DATA
    return Path(root)


def _file(metadata: dict[str, Any], *parts: str) -> Path:
    path = data_root(metadata).joinpath("benchmarks", *parts)
    if not path.is_file():
        from densing.errors import InputError

        raise InputError(
            f"{path}: benchmark file not found (set --data-root or DENSING_SHARED_DATA to the folder holding benchmarks/)"
        )
    return path


def _jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file (gzip-compressed where it ends ``.gz``)."""
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _fields(rows: list[dict], keys: tuple[str, ...]) -> list[dict]:
    return [{k: r[k] for k in keys} for r in rows]


def _dataset(**splits: list[dict]) -> Any:
    import datasets

    return datasets.DatasetDict({name: datasets.Dataset.from_list(rows) for name, rows in splits.items()})


def load_arc(subset: str = "ARC-Easy", **metadata: Any) -> Any:
    """ARC test split (``subset`` ARC-Easy or ARC-Challenge) in the HF ``allenai/ai2_arc`` layout."""
    return _dataset(test=_jsonl(_file(metadata, "arc", f"{subset}-test.jsonl")))


def load_piqa(**metadata: Any) -> Any:
    """PIQA dev split (lm-eval's ``validation``) with its labels joined on."""
    docs = _jsonl(_file(metadata, "piqa", "valid.jsonl"))
    labels = [int(line) for line in _file(metadata, "piqa", "valid-labels.lst").read_text().split()]
    if len(labels) != len(docs):
        from densing.errors import InputError

        raise InputError(f"piqa: {len(docs)} questions but {len(labels)} labels in valid-labels.lst")
    rows = [{"goal": d["goal"], "sol1": d["sol1"], "sol2": d["sol2"], "label": label} for d, label in zip(docs, labels)]
    return _dataset(validation=rows)


def load_winogrande(**metadata: Any) -> Any:
    """WinoGrande dev split (lm-eval's ``validation``), partial-scoring layout."""
    rows = [
        {"context_options": d["context_options"], "continuation": d["continuation"], "gold": int(d["gold"])}
        for d in _jsonl(_file(metadata, "winogrande", "winogrande_dev_llmfoundry.jsonl"))
    ]
    return _dataset(validation=rows)


def load_lambada(**metadata: Any) -> Any:
    """The OpenAI LAMBADA test file (lm-eval's ``lambada_openai``)."""
    return _dataset(test=_fields(_jsonl(_file(metadata, "lambada", "lambada_test.jsonl")), ("text",)))


def _mmlu_rows(path: Path, subject: str) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return [
            {
                "question": r["question"],
                "subject": subject,
                "choices": [r["choice0"], r["choice1"], r["choice2"], r["choice3"]],
                "answer": int(r["answer"]),
            }
            for r in csv.DictReader(handle)
        ]


def load_mmlu(subject: str = "abstract_algebra", **metadata: Any) -> Any:
    """One MMLU subject: its ``test`` questions and its five ``dev`` questions (the few-shot pool)."""
    return _dataset(
        test=_mmlu_rows(_file(metadata, "mmlu", "test", f"{subject}_test.csv"), subject),
        dev=_mmlu_rows(_file(metadata, "mmlu", "dev", f"{subject}_dev.csv"), subject),
    )


def load_humaneval(**metadata: Any) -> Any:
    """The 164 HumanEval problems (the HF ``openai/openai_humaneval`` fields: task_id, prompt,
    canonical_solution, test, entry_point), as lm-eval's ``humaneval`` test split."""
    keys = ("task_id", "prompt", "canonical_solution", "test", "entry_point")
    return _dataset(test=_fields(_jsonl(_file(metadata, "humaneval", "HumanEval.jsonl.gz")), keys))


#: The HF ``mbpp`` "full" config's splits, by task_id (inclusive ranges), as in the MBPP paper:
#: few-shot prompt 1-10, test 11-510, validation 511-600, train 601-974.
MBPP_SPLITS = {"train": (601, 974), "test": (11, 510), "validation": (511, 600), "prompt": (1, 10)}


def load_mbpp(**metadata: Any) -> Any:
    """The original 974 MBPP problems split by task_id as the HF ``mbpp`` "full" config splits them
    (fields task_id, text, code, test_list, test_setup_code, challenge_test_list)."""
    keys = ("task_id", "text", "code", "test_list", "test_setup_code", "challenge_test_list")
    rows = sorted(_jsonl(_file(metadata, "mbpp", "mbpp.jsonl")), key=lambda r: int(r["task_id"]))
    return _dataset(
        **{
            split: _fields([r for r in rows if low <= int(r["task_id"]) <= high], keys)
            for split, (low, high) in MBPP_SPLITS.items()
        }
    )


#: The 27 BIG-Bench Hard tasks (the files ``bbh/bbh/<task>.json``; lm-eval's ``bbh_cot_fewshot_<task>``).
BBH_TASKS = (
    "boolean_expressions", "causal_judgement", "date_understanding", "disambiguation_qa", "dyck_languages",
    "formal_fallacies", "geometric_shapes", "hyperbaton", "logical_deduction_five_objects",
    "logical_deduction_seven_objects", "logical_deduction_three_objects", "movie_recommendation",
    "multistep_arithmetic_two", "navigate", "object_counting", "penguins_in_a_table",
    "reasoning_about_colored_objects", "ruin_names", "salient_translation_error_detection", "snarks",
    "sports_understanding", "temporal_sequences", "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects", "tracking_shuffled_objects_three_objects", "web_of_lies",
    "word_sorting",
)


def load_bbh(bbh_task: str = "boolean_expressions", **metadata: Any) -> Any:
    """One BBH task's examples (input, target) as the ``test`` split (lm-eval's ``SaylorTwift/bbh``)."""
    with open(_file(metadata, "bbh", "bbh", f"{bbh_task}.json"), encoding="utf-8") as handle:
        examples = json.load(handle)["examples"]
    return _dataset(test=_fields(examples, ("input", "target")))


def load_gsm8k(**metadata: Any) -> Any:
    """The GSM8K test split (question, answer), as lm-eval's ``openai/gsm8k`` "main" test split."""
    return _dataset(test=_fields(_jsonl(_file(metadata, "gsm8k", "test.jsonl")), ("question", "answer")))


#: The MATH test split shipped with densing (module docstring).
MATH_FOLDER = Path(__file__).with_name("data") / "math"


def math_test_rows() -> list[dict]:
    """The 5,000 MATH test problems (problem, level, type, solution, idx), in the shipped file's order."""
    return _jsonl(MATH_FOLDER / "MATH_test.jsonl.gz")


def math500_ids() -> list[tuple[str, int]]:
    """MATH-500's problems as (``unique_id``, ``idx`` in :func:`math_test_rows`), in MATH-500's order."""
    with open(MATH_FOLDER / "math500.tsv", encoding="utf-8", newline="") as handle:
        return [(r["unique_id"], int(r["idx"])) for r in csv.DictReader(handle, delimiter="\t")]


def load_math500(**metadata: Any) -> Any:
    """MATH-500 as the ``test`` split of the HF ``HuggingFaceH4/MATH-500`` (problem, solution, level, type as
    subject, unique_id), in its order, from the shipped MATH test split."""
    rows = math_test_rows()
    test = [
        {"problem": rows[i]["problem"], "solution": rows[i]["solution"], "subject": rows[i]["type"],
         "level": int(rows[i]["level"].removeprefix("Level ")), "unique_id": uid}
        for uid, i in math500_ids()
    ]
    return _dataset(test=test)


# ---------------------------------------------------------------------------------------------
# WinoGrande in the partial-scoring layout (lm-eval's winogrande: the choices are the contexts)


def winogrande_doc_to_text(doc: dict) -> int:
    return int(doc["gold"])


def winogrande_doc_to_target(doc: dict) -> str:
    return str(doc["continuation"]).strip()


def winogrande_doc_to_choice(doc: dict) -> list[str]:
    return list(doc["context_options"])


# ---------------------------------------------------------------------------------------------
# OLMES curated few-shot examples (first 5 of each FEWSHOT_SOURCES list; see the module docstring)


#: The examples themselves, as data: ``olmes_fewshot.json`` beside this module (shipped as package data).
OLMES_FEWSHOT_FILE = Path(__file__).with_name("olmes_fewshot.json")


@lru_cache(maxsize=1)
def _olmes_fewshot() -> dict:
    return json.loads(OLMES_FEWSHOT_FILE.read_text(encoding="utf-8"))


def olmes_arc_easy_fewshot() -> list[dict]:
    return copy.deepcopy(_olmes_fewshot()["arc_easy"])


def olmes_arc_challenge_fewshot() -> list[dict]:
    return copy.deepcopy(_olmes_fewshot()["arc_challenge"])


def olmes_piqa_fewshot() -> list[dict]:
    return copy.deepcopy(_olmes_fewshot()["piqa"])


def olmes_winogrande_fewshot() -> list[dict]:
    """The OLMES WinoGrande examples in the partial-scoring layout (as lm-eval's winogrande splits them)."""
    rows = []
    for example in _olmes_fewshot()["winogrande"]:
        sentence = example["sentence"]
        blank = sentence.index("_")
        rows.append(
            {
                "context_options": [sentence[:blank] + example["option1"], sentence[:blank] + example["option2"]],
                "continuation": sentence[blank + 1:].strip(),
                "gold": int(example["answer"]) - 1,
            }
        )
    return rows
