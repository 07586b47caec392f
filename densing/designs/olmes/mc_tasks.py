"""The four OLMES multiple-choice tasks of the MC reference (:mod:`densing.designs.olmes.mc_reference`): each one's chance
level, the names of its in-loop and offline rows, and the OLMo-2 rows of the recipe (never targets)."""
from __future__ import annotations

from densing.errors import InputError

#: task → chance level of its MC format (1/k for k options), the fixed floor d of the score law.
MC_CHANCE: dict[str, float] = {"arc_challenge": 0.25, "hellaswag": 0.25, "winogrande": 0.5, "mmlu": 0.25}
#: The OLMES table's benchmark name of each task (the targets' names, :data:`densing.designs.olmes.data.OLMES_BENCHMARKS`).
OFFLINE_BENCHMARK: dict[str, str] = {task: f"olmes_{task}_mc" for task in MC_CHANCE}
#: The in-loop rows' names (:func:`densing.data.olmo.read_olmo_mc_runs`).
INLOOP_BENCHMARK: dict[str, str] = {task: f"olmes_{task}_mc_inloop" for task in MC_CHANCE}
#: The OLMES table's rows of the runs the score law is fitted on (they define the offset).
OFFSET_ROWS: dict[str, str] = {"olmo-2-7b": "OLMo-2-1124-7B", "olmo-2-13b": "OLMo-2-1124-13B"}
#: Every OLMo-2 row of the OLMES table: the reference's recipe, never a target.
OLMO2_MODELS: tuple[str, ...] = ("OLMo-2-1124-7B", "OLMo-2-1124-13B", "OLMo-2-0324-32B")
#: OLMo-2-0325-32B for the held-out chain: N counted as the ladder counts it is not published; the
#: nominal 32e9 is used (the 0.5e9 input embedding it would exclude is 1.6% of it), D = 6e12 (models.csv).
HELD_OUT_32B = {"model": "OLMo-2-0324-32B", "params": 32e9, "train_tokens": 6e12}


def check_task(task: str) -> str:
    """``task`` when it has an MC reference (a key of :data:`MC_CHANCE`); an input error naming the known ones if not."""
    if task not in MC_CHANCE:
        raise InputError(f"task: no MC reference for {task!r} (known: {', '.join(MC_CHANCE)})")
    return task
