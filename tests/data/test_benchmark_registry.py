"""A benchmark is one record in one registry (:data:`densing.data.benchmarks.BENCHMARKS`): one ``register`` call makes
it known to the laws (chance level), the standard errors (item count), the trend's rows (capability group), the wide
tables' reader (column) and ``densing eval`` (its runs); unregistering it takes it out of every one of them."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from densing.data import benchmarks
from densing.data.benchmarks import BENCHMARKS, Benchmark, BenchmarkRecord
from densing.errors import InputError, RegistryError

TOY = BenchmarkRecord(
    "toy_bench",
    chance=0.25,
    chance_source="4-way multiple choice",
    items=400,
    split="test",
    items_source="a test's own 400 items",
    capability="knowledge",
    columns=("ToyBench",),
    shots=3,
    runs=(
        Benchmark("toy_bench", "toy_task", 3, "toy_task_loss", note="3-shot"),
        Benchmark("toy_protocol_bench", "toy_task", 5, metric="acc", note="5-shot, another protocol"),
    ),
)


@pytest.fixture
def toy():
    benchmarks.register(TOY)
    try:
        yield TOY
    finally:
        BENCHMARKS.unregister(TOY.name)


def _known_everywhere(name: str) -> dict[str, bool]:
    from densing.data.benchmarks import WIDE_COLUMNS, WIDE_SHOTS, item_counts
    from densing.eval import benchmarks as eval_benchmarks
    from densing.laws.reference import _resolve_chance
    from densing.trend import capability

    def chance_resolves() -> bool:
        try:
            return _resolve_chance("auto", [name]) is not None
        except InputError:
            return False

    return {
        "chance": name in benchmarks.CHANCE_LEVELS and chance_resolves(),
        "item count": name in set(item_counts()["benchmark"]),
        "capability row": name in capability.CAPABILITY,
        "wide column": name in WIDE_COLUMNS.values() and name in WIDE_SHOTS,
        "eval": name in eval_benchmarks.KNOWN_BENCHMARKS
        and name in set(eval_benchmarks.benchmark_table()["benchmark"]),
    }


def test_one_register_call_makes_a_benchmark_known_everywhere(toy, tmp_path):
    from densing.data.benchmarks import binomial_stderr, item_count, with_stderr
    from densing.data.readers import is_wide_csv, read_wide_csv
    from densing.eval import benchmarks as eval_benchmarks
    from densing.trend import capability

    assert all(_known_everywhere(toy.name).values()), _known_everywhere(toy.name)
    # the laws' floor and the binomial standard error
    assert benchmarks.CHANCE_LEVELS["toy_bench"] == 0.25
    assert item_count("toy_bench") == 400
    assert binomial_stderr(0.5, "toy_bench") == pytest.approx(math.sqrt(0.25 / 400))
    filled = with_stderr(pd.DataFrame({"benchmark": ["toy_bench"], "value": [0.5]}))
    assert filled["stderr"].iloc[0] == pytest.approx(0.025)
    # a row of its own in `densing trend --by benchmark`, after the shipped ones
    assert capability.CAPABILITY["toy_bench"] == "knowledge" and tuple(capability.CAPABILITY)[-1] == "toy_bench"
    # the wide tables' column, with the record's shots
    wide = tmp_path / "wide.csv"
    pd.DataFrame({"model": ["m"], "params": [1e9], "ToyBench": [0.5]}).to_csv(wide, index=False)
    assert is_wide_csv(wide)
    tidy = read_wide_csv(wide)
    assert list(tidy["benchmark"]) == ["toy_bench"] and list(tidy["n_shot"]) == [3]
    # densing eval runs each of its protocols by name, and knows whose score each is
    assert eval_benchmarks.KNOWN_BENCHMARKS.get("toy_bench").score_task == "toy_task"
    assert eval_benchmarks.KNOWN_BENCHMARKS.get("toy_protocol_bench").num_fewshot == 5
    assert benchmarks.record_of_run("toy_protocol_bench") is toy


def test_unregistering_the_record_takes_it_out_of_every_view(toy):
    BENCHMARKS.unregister(toy.name)
    assert not any(_known_everywhere(toy.name).values())
    from densing.eval import benchmarks as eval_benchmarks

    with pytest.raises(InputError, match="expected one of"):
        eval_benchmarks.KNOWN_BENCHMARKS.get("toy_protocol_bench")
    benchmarks.register(toy)  # the fixture unregisters it again


def test_a_record_whose_name_column_or_run_is_taken_is_refused():
    shipped = BENCHMARKS.names()
    for taken in (
        BenchmarkRecord("mmlu"),
        BenchmarkRecord("toy_bench", columns=("MMLU",)),
        BenchmarkRecord("toy_bench", runs=(Benchmark("openllm_v1_mmlu", "mmlu", 5),)),
    ):
        with pytest.raises(RegistryError):
            benchmarks.register(taken)
    assert BENCHMARKS.names() == shipped


def test_eval_register_adds_a_run_to_the_record_of_its_name_and_takes_it_out_again():
    from densing.eval import benchmarks as eval_benchmarks

    before = BENCHMARKS["sciq"]
    run = Benchmark("sciq", "sciq", 0)
    assert eval_benchmarks.register(run) is run
    try:
        assert BENCHMARKS["sciq"].runs == (run,) and BENCHMARKS["sciq"].chance == 0.25
        assert eval_benchmarks.KNOWN_BENCHMARKS.get("sciq") is run
    finally:
        eval_benchmarks.KNOWN_BENCHMARKS.unregister("sciq")
    assert BENCHMARKS["sciq"] == before and "sciq" not in eval_benchmarks.KNOWN_BENCHMARKS


def test_every_record_states_the_source_of_each_fact_it_has():
    for record in BENCHMARKS.values():
        if record.chance is not None:
            assert 0.0 <= record.chance < 1.0 and record.chance_source.strip(), record.name
        if record.items is not None:
            assert record.items > 0 and record.split and record.items_source.strip(), record.name
        if record.shots is not None:
            assert record.columns, record.name
        if record.same_data_as is not None:
            assert record.same_data_as[0] in BENCHMARKS, record.name
        for run in record.runs:
            assert benchmarks.record_of_run(run.name) is record


def test_a_field_a_record_lacks_is_a_key_error_to_the_mapping_and_one_line_to_a_user():
    assert "toy_unknown" not in benchmarks.ITEM_COUNTS
    assert benchmarks.ITEM_COUNTS.get("toy_unknown") is None
    with pytest.raises(InputError, match=r"^benchmark 'toy_unknown': no item count in the benchmark registry$"):
        benchmarks.ITEM_COUNTS["toy_unknown"]
    with pytest.raises(KeyError):
        benchmarks.CHANCE_LEVELS["toy_unknown"]


def test_a_family_fit_on_a_benchmark_without_an_item_count_is_refused_by_name():
    from densing.laws.family import fit_family

    table = pd.DataFrame(
        {
            "model": ["a", "b", "c"],
            "family": "F",
            "benchmark": "toy_no_items",
            "metric": "acc",
            "value": [0.3, 0.4, 0.5],
            "params": [1e8, 1e9, 1e10],
            "train_tokens": 1e12,
        }
    )
    BENCHMARKS.register("toy_no_items", BenchmarkRecord("toy_no_items", chance=0.25, chance_source="4-way"))
    try:
        with pytest.raises(InputError, match="toy_no_items.*no item count"):
            fit_family(table, "F", "toy_no_items")
    finally:
        BENCHMARKS.unregister("toy_no_items")


def test_a_set_row_is_named_by_its_benchmarks_registered_names_as_its_label_lists_them():
    """A set's reader name comes from its benchmarks' records (never from its label), and every set label that lists
    its benchmarks in parentheses lists exactly those names, in order: the label and the registry say the same."""
    from densing.present.forest import row_names, shown_name
    from densing.registry import tables
    from densing.trend.capability import Row, RowSpec

    for table in tables().values():
        for key, (label, members) in table.sets.items():
            if "(" in label:
                listed = [p.strip() for p in label[label.find("(") + 1 : label.rfind(")")].split(";")[0].split(",")]
                assert listed == [shown_name(b) for b in members], (table.name, key)
    rows = [
        Row(RowSpec("gsm8k", "gsm8k", "reasoning & math", ("gsm8k",)), (), None),
        Row(RowSpec.of_set("mine", "my set", ("mmlu", "swallow_bbh", "no_such_benchmark")), (), None),
    ]
    assert row_names(rows) == {"gsm8k": "gsm8k", "mine": "MMLU + BBH CoT + NO_SUCH_BENCHMARK [mine]"}
