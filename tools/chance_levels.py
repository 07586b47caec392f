"""The chance levels of MMLU-Pro, the leaderboard's multiple-choice BBH and TruthfulQA mc2, computed from their items.

    python tools/chance_levels.py                 # prints the levels, writes tools/chance_levels.results.txt
    python tools/chance_levels.py extract --mmlu-pro FILE.zip --truthfulqa mc_task.json   # writes the item files

A chance level is what a model with no knowledge of the items scores: it gives every option of an item the same
probability. The three levels and the sources of their items:

- MMLU-Pro (lm-eval ``leaderboard_mmlu_pro``, one letter per option of the item): c = (1/n) Σᵢ 1/kᵢ over the n items,
  kᵢ options each; the options per item are ``results/benchmark_items/mmlu_pro_options.csv``.
- BBH (lm-eval ``leaderboard_bbh``, the mean over all items of 24 subtasks): c = Σₛ nₛ/kₛ / Σₛ nₛ over subtasks of nₛ
  items and kₛ options (``densing/data/leaderboard_v2_subtasks.csv``), nₛ counted in the BIG-Bench-Hard task files
  under ``$DENSING_SHARED_DATA/benchmarks/bbh/bbh``. Sensitivity figure: answering each subtask's most frequent
  target scores Σₛ mₛ / Σₛ nₛ (mₛ the items whose target is the subtask's most frequent one).
- TruthfulQA mc2 (lm-eval ``truthfulqa_mc2``): an item scores the probability mass on its true answers, Σ_true p / Σ p
  (Lin et al. 2022, the MC2 score); equal probabilities give tᵢ/(tᵢ + fᵢ) for tᵢ true and fᵢ false answers, and
  c = (1/n) Σᵢ tᵢ/(tᵢ + fᵢ); the counts per item are ``results/benchmark_items/truthfulqa_mc2_answers.csv``.

Each level is computed exactly (fractions) and printed as a reduced fraction and a decimal; the registry
(``densing/data/benchmarks.py``) holds the fraction and ``tests/data/test_chance_levels.py`` recomputes it.

``extract`` writes the two item files from their sources (``results/benchmark_items/README.md`` names them): the
MMLU-Pro test split as TIGER-AI-Lab/MMLU-Pro's evaluation read it (a zip of one JSON list of items with ``question_id``,
``category`` and ``options``), and TruthfulQA's ``mc_task.json`` (a JSON list of items with ``mc2_targets``, a mapping
of answer to 1 for true, 0 for false).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import zipfile
from collections import Counter
from fractions import Fraction
from pathlib import Path

from densing.errors import InputError
from densing.paths import SHARED_DATA

REPO = Path(__file__).resolve().parent.parent
ITEMS = REPO / "results" / "benchmark_items"
MMLU_PRO_OPTIONS = ITEMS / "mmlu_pro_options.csv"
TRUTHFULQA_ANSWERS = ITEMS / "truthfulqa_mc2_answers.csv"
SUBTASKS = REPO / "densing" / "data" / "leaderboard_v2_subtasks.csv"
RESULTS = Path(__file__).with_suffix(".results.txt")
COMMAND = "python tools/chance_levels.py"


def _read_csv(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the CSV file ``path``, which must hold ``columns``; a missing file or column is an InputError."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
        return list(reader)


def _whole_number(path: Path, row: int, field: str, text: str, least: int) -> int:
    """The whole number ``text`` of ``field`` in row ``row`` of ``path``, at least ``least``, or an InputError."""
    if not text.strip().isdigit() or int(text) < least:
        raise InputError(f"{path}: row {row}, field {field!r}: expected a whole number ≥ {least}, got {text!r}")
    return int(text)


def mmlu_pro_chance(path: Path = MMLU_PRO_OPTIONS) -> tuple[Fraction, Counter]:
    """MMLU-Pro's chance level c = (1/n) Σᵢ 1/kᵢ over its n items of kᵢ options (lm-eval ``leaderboard_mmlu_pro``
    offers one letter per option of the item; Wang et al. 2024, arXiv 2406.01574), and the count of items per k."""
    rows = _read_csv(path, ("question_id", "category", "options"))
    options = Counter()
    for number, row in enumerate(rows, start=2):
        options[_whole_number(path, number, "options", row["options"], 2)] += 1
    if len({row["question_id"] for row in rows}) != len(rows):
        raise InputError(f"{path}: field 'question_id': an item is listed twice")
    total = sum(options.values())
    return sum((Fraction(count, k) for k, count in options.items()), Fraction(0)) / total, options


def _bbh_subtasks(path: Path = SUBTASKS) -> dict[str, int]:
    """Options per subtask of the leaderboard's multiple-choice BBH (``leaderboard_v2_subtasks.csv``)."""
    rows = _read_csv(path, ("benchmark", "subtask", "choices"))
    return {
        row["subtask"]: _whole_number(path, number, "choices", row["choices"], 2)
        for number, row in enumerate(rows, start=2)
        if row["benchmark"] == "leaderboard_bbh"
    }


def _bbh_targets(folder: Path, subtask: str) -> list[str]:
    """The targets of the items of one BIG-Bench-Hard task file (``{"examples": [{"input", "target"}]}``)."""
    path = folder / f"{subtask}.json"
    if not path.is_file():
        raise InputError(f"{path}: no such file (the BIG-Bench-Hard task files, benchmarks/bbh/bbh of the shared data)")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not a JSON document ({error})") from None
    examples = document.get("examples") if isinstance(document, dict) else None
    if not isinstance(examples, list) or not all(isinstance(e, dict) and "target" in e for e in examples):
        raise InputError(f"{path}: field 'examples': expected a list of items with a 'target'")
    return [str(example["target"]) for example in examples]


def bbh_chance(folder: Path | None = None) -> tuple[Fraction, Fraction, int]:
    """The leaderboard BBH's chance level Σₛ nₛ/kₛ / Σₛ nₛ (a uniform guess among each item's kₛ options, averaged over
    all items as lm-eval's group score is), the majority-label score Σₛ mₛ / Σₛ nₛ (each subtask answered with its
    most frequent target, mₛ items), and the item count Σₛ nₛ, over the 24 subtasks (Suzgun et al. 2022)."""
    folder = SHARED_DATA / "benchmarks" / "bbh" / "bbh" if folder is None else folder
    uniform, majority, items = Fraction(0), 0, 0
    for subtask, options in sorted(_bbh_subtasks().items()):
        targets = _bbh_targets(folder, subtask)
        uniform += Fraction(len(targets), options)
        majority += Counter(targets).most_common(1)[0][1]
        items += len(targets)
    return uniform / items, Fraction(majority, items), items


def truthfulqa_mc2_chance(path: Path = TRUTHFULQA_ANSWERS) -> tuple[Fraction, int, int]:
    """TruthfulQA mc2's chance level c = (1/n) Σᵢ tᵢ/(tᵢ + fᵢ): the MC2 score Σ_true p / Σ p (Lin et al. 2022) of a
    model with equal probability on each answer, averaged over the n items (tᵢ true, fᵢ false answers); also the
    counts of items and of answers."""
    rows = _read_csv(path, ("item", "true_answers", "false_answers"))
    total, answers = Fraction(0), 0
    for number, row in enumerate(rows, start=2):
        true = _whole_number(path, number, "true_answers", row["true_answers"], 1)
        false = _whole_number(path, number, "false_answers", row["false_answers"], 1)
        total += Fraction(true, true + false)
        answers += true + false
    return total / len(rows), len(rows), answers


def report() -> list[str]:
    """The printed lines: each level as a fraction and a decimal, with its counts."""
    pro, options = mmlu_pro_chance()
    n_pro = sum(options.values())
    uniform, majority, n_bbh = bbh_chance()
    mc2, n_mc2, answers = truthfulqa_mc2_chance()
    per_k = ", ".join(f"{k}: {options[k]}" for k in sorted(options))
    return [
        f"mmlu_pro: {n_pro} items, items per option count {{{per_k}}}; ten options: {options[10] / n_pro:.4f} of items",
        f"mmlu_pro chance (1/n) sum 1/k = {pro.numerator}/{pro.denominator} = {float(pro):.6f}",
        f"leaderboard_bbh: {n_bbh} items in {len(_bbh_subtasks())} subtasks",
        f"leaderboard_bbh chance sum n/k / sum n = {uniform.numerator}/{uniform.denominator} = {float(uniform):.6f}",
        f"leaderboard_bbh majority label per subtask (sensitivity) = {majority.numerator}/{majority.denominator} "
        f"= {float(majority):.6f}",
        f"truthfulqa_mc2: {n_mc2} items, {answers} mc2 answers",
        f"truthfulqa_mc2 chance (1/n) sum t/(t+f) = {float(mc2)!r} ({float(mc2):.6f})",
    ]


def _read_json(path: Path):
    """The JSON document of ``path``, or of the one ``.json`` member of the zip file ``path``."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        if path.suffix != ".zip":
            return json.loads(path.read_text(encoding="utf-8"))
        with zipfile.ZipFile(path) as archive:
            members = [name for name in archive.namelist() if name.endswith(".json")]
            if len(members) != 1:
                raise InputError(f"{path}: expected one .json member, found {len(members)}")
            return json.loads(archive.read(members[0]))
    except (json.JSONDecodeError, UnicodeDecodeError, zipfile.BadZipFile) as error:
        raise InputError(f"{path}: not a JSON document or a zip of one ({error})") from None


def _write_rows(path: Path, header: list[str], rows: list[list]) -> None:
    """Write ``rows`` under ``header`` to ``path`` through a temporary file, so a failed write leaves no half file."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    partial.replace(path)


def extract(mmlu_pro: Path, truthfulqa: Path) -> None:
    """Write the options per MMLU-Pro item and the true and false answers per TruthfulQA item from the source files."""
    items = _read_json(mmlu_pro)
    if not isinstance(items, list) or not all(
        isinstance(i, dict) and {"question_id", "category", "options"} <= i.keys() for i in items
    ):
        raise InputError(f"{mmlu_pro}: expected a list of items with question_id, category and options")
    pro_rows = sorted([int(i["question_id"]), i["category"], len(i["options"])] for i in items)
    questions = _read_json(truthfulqa)
    if not isinstance(questions, list) or not all(isinstance(q, dict) and "mc2_targets" in q for q in questions):
        raise InputError(f"{truthfulqa}: expected a list of items with mc2_targets")
    mc2_rows = [
        [
            number,
            sum(1 for v in q["mc2_targets"].values() if v == 1),
            sum(1 for v in q["mc2_targets"].values() if v == 0),
        ]
        for number, q in enumerate(questions)
    ]
    ITEMS.mkdir(parents=True, exist_ok=True)
    _write_rows(MMLU_PRO_OPTIONS, ["question_id", "category", "options"], pro_rows)
    _write_rows(TRUTHFULQA_ANSWERS, ["item", "true_answers", "false_answers"], mc2_rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    pull = commands.add_parser("extract", help="write the item files from their sources")
    pull.add_argument("--mmlu-pro", type=Path, required=True, help="the MMLU-Pro items (.zip or .json)")
    pull.add_argument("--truthfulqa", type=Path, required=True, help="TruthfulQA's mc_task.json")
    args = parser.parse_args(argv)
    try:
        if args.command == "extract":
            extract(args.mmlu_pro, args.truthfulqa)
            return 0
        lines = report()
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    RESULTS.write_text("\n".join([f"# {COMMAND}", *lines]) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
