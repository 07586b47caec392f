"""`densing eval ingest`: the Pythia 0.3 evaluations, and lm-eval 0.4 results with samples."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from densing.cli import main
from densing.data import read_pythia_evals, read_results
from densing.data.schema import COLUMNS
from densing.eval.ingest import ingest
from densing.eval.store import read_store
from tests.conftest import PYTHIA


@pytest.fixture()
def pythia_root(tmp_path):
    if not PYTHIA.is_dir():
        pytest.skip("../shared/data/pythia_evals not present")
    root = tmp_path / "pythia-v1"
    root.mkdir()
    for name in ("pythia-70m", "pythia-160m-deduped", "pythia-160m-0.5MtokBS"):
        (root / name).symlink_to(PYTHIA / name, target_is_directory=True)
    return root


def _key(frame):
    columns = list(COLUMNS) + ["stderr"]
    return frame[columns].sort_values(["model", "benchmark", "metric", "n_shot"]).reset_index(drop=True)


def test_pythia_ingest_gives_the_rows_the_fits_use(tmp_path, pythia_root, capsys):
    store = tmp_path / "store"
    main(["eval", "ingest", str(pythia_root), "--out", str(store)])
    assert "written" in capsys.readouterr().out
    stored = read_results(store)  # what `densing fit --data STORE` reads
    for suite, family in (("standard", "pythia"), ("deduped", "pythia-deduped")):
        for shots, n_shot in (("zero-shot", 0), ("five-shot", 5)):
            expected = read_pythia_evals(pythia_root, suite=suite, shots=shots)
            got = stored[(stored.family == family) & (stored.n_shot == n_shot)]
            pd.testing.assert_frame_equal(_key(got), _key(expected))
    lambada = stored[
        (stored.model == "pythia-70m@step143000") & (stored.benchmark == "lambada_openai") & (stored.n_shot == 0)
    ]
    acc = lambada[lambada.metric == "acc"].iloc[0]
    ppl = lambada[lambada.metric == "ppl"].iloc[0]
    assert acc.loss == pytest.approx(math.log(ppl.value))
    assert acc.params == 70_426_624 and acc.train_tokens == 143000 * 2_097_152
    for task in ("arc_easy", "arc_challenge", "piqa", "sciq", "winogrande"):
        assert ((stored.benchmark == task) & (stored.metric == "acc")).any()
    assert not stored.model.str.contains("0.5MtokBS").any()  # ablation runs are not ingested

    # a second ingest of the same files writes nothing
    before = {p: p.stat().st_mtime_ns for p in store.rglob("*.parquet")}
    main(["eval", "ingest", str(pythia_root), "--out", str(store)])
    assert " 0 written" in capsys.readouterr().out
    assert before == {p: p.stat().st_mtime_ns for p in store.rglob("*.parquet")}


def test_bad_results_file_leaves_store_untouched(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "results_2024-01-01T00-00-00.json").write_text(
        '{"results": {"arc_easy": {"acc,none": 0.5}}, "config": {"model_num_parameters": 1000}}'
    )
    (runs / "results_2024-01-02T00-00-00.json").write_text('{"results": ')
    store = tmp_path / "store"
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "ingest", str(runs), "--out", str(store)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "results_2024-01-02T00-00-00.json" in err[0] and "malformed JSON" in err[0]
    assert not store.exists()


@pytest.mark.eval
def test_lm_eval_04_samples_give_the_same_loss_as_eval(tmp_path, tiny_models, tiny_tasks, reference_store):
    """Run plain lm-eval with its own output files, ingest them, compare with `densing eval`."""
    pytest.importorskip("torch")
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    output = tmp_path / "lm_eval_out"
    tracker = EvaluationTracker(output_path=str(output))
    manager = TaskManager(include_path=[str(tiny_tasks)], include_defaults=False)
    lm = HFLM(pretrained=str(tiny_models[0]), device="cpu", batch_size=1)
    results = lm_eval.simple_evaluate(
        model=lm,
        model_args=f"pretrained={tiny_models[0]}",  # names the model in the output, as the lm-eval CLI does
        tasks=["tiny_mc", "tiny_gen_loss"],
        task_manager=manager,
        bootstrap_iters=0,
        evaluation_tracker=tracker,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task, task_samples in samples.items():
        tracker.save_results_samples(task_name=task, samples=task_samples)
    assert list(output.rglob("samples_tiny_mc_*.jsonl"))

    metadata = pd.DataFrame({"model": [str(tiny_models[0])], "params": [12345.0]})
    frame = ingest(output, tmp_path / "store", metadata=metadata)
    evaluated = read_store(reference_store)
    for task, benchmark in (("tiny_mc", "tiny_mc"), ("tiny_gen_loss", "tiny_gen")):
        ingested = frame[frame.benchmark == task].iloc[0]
        reference = evaluated[(evaluated.model == "tiny-0") & (evaluated.benchmark == benchmark)].iloc[0]
        assert ingested.loss == pytest.approx(reference.loss, abs=1e-6)
        assert ingested.loss_per_byte == pytest.approx(reference.loss_per_byte, abs=1e-6)
        assert ingested.loss_bytes == reference.loss_bytes and ingested.loss_samples == reference.loss_samples
    mc = frame[(frame.benchmark == "tiny_mc") & (frame.metric == "acc")].iloc[0]
    assert (
        mc.value
        == evaluated[
            (evaluated.model == "tiny-0") & (evaluated.benchmark == "tiny_mc") & (evaluated.metric == "acc")
        ].value.iloc[0]
    )
    assert mc.model == str(tiny_models[0])
    assert mc.params == 12345.0  # the models file wins over the count lm-eval wrote
