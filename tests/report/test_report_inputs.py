"""``densing report``'s own inputs reach every section it computes: ``--results`` (the public table with one family
dropped and another's release dates moved), ``--since`` and ``--seed`` each change the sections that read them,
section by section against the same command without them; the one stored record (the Swallow rows) stays the same
and says on the page that it is a stored record and which command makes it; the model holds the results it shows."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.report import page_text

#: Few draws: the test compares pages, not numbers.
DRAWS = ("--n-boot", "40")
#: The sections each option must change (the rest of the page may change too).
READ_BY_ALL = {
    "Verdict",
    "Capacity density over time",
    "The Densing Law by capability",
    "The measurement in detail",
    "Every eligible reference",
}
STORED = "The paper's protocol, 2023–2025"
OLMES = "A second measurement: the paper's design on AI2's recipe"
POOLED = "One law from three harnesses"
EXPECTED = {
    "results": READ_BY_ALL
    | {"Per-model densities", "Data caveats", STORED, OLMES},  # the two designs: the public rows beside
    "since": READ_BY_ALL | {"Per-model densities", OLMES},
    "seed": READ_BY_ALL | {"Named models", "Per-model densities", OLMES, POOLED},
}
#: The columns of the designs' tables that show the public table's rows (computed from --results and its options).
PUBLIC_COLUMNS = (
    "public table (leaderboard protocol)",
    "public vs Swallow 2025-06",
    "leaderboard-based, months [95% CI]",
    "agreement",
)


#: A family that is a target of the headline (not a reference) and one whose release dates move by 60 days.
DROPPED, MOVED = "Gemma-2", "Mistral"


def _edited_table(folder) -> str:
    from densing import paths

    table = pd.read_csv(paths.RESULTS / "public_models.csv")
    table = table[table["family"] != DROPPED].copy()
    moved = table["family"] == MOVED
    table.loc[moved, "release_date"] = (
        pd.to_datetime(table.loc[moved, "release_date"]) + pd.Timedelta(days=60)
    ).dt.strftime("%Y-%m-%d")
    path = folder / "public_models.csv"
    table.to_csv(path, index=False)
    return str(path)


def _densing(*argv: str) -> tuple[int, str]:
    """``densing argv`` in this process: (exit code, stderr)."""
    import contextlib
    import io

    from densing.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    return code, err.getvalue()


@pytest.fixture(scope="module")
def default():
    """The report's model with the command's defaults (``densing report`` with no option computes this one)."""
    from densing.report.compute import compute_report

    return compute_report(n_boot=int(DRAWS[1]))


@pytest.fixture(scope="module")
def pages(tmp_path_factory, default):
    """The page of ``densing report`` with the defaults, and with each option changed, by section."""
    from densing.report.render import render

    folder = tmp_path_factory.mktemp("inputs")
    variants = {
        "results": ("--results", _edited_table(folder)),
        "since": ("--since", "2023-09-01"),
        "seed": ("--seed", "1"),
    }
    out = {"default": page_text.sections(render(default))}
    for name, options in variants.items():
        path = folder / f"{name}.html"
        code, err = _densing("report", "--out", str(path), *DRAWS, *options)
        assert code == 0, err
        out[name] = page_text.sections(path.read_text(encoding="utf-8"))
    return out


def _own_part(section: str) -> list:
    """A design section's own results: its tables without the columns that show the public table's rows, and its
    figures (the public rows beside it follow the command's options; the design's own numbers do not all)."""
    own = []
    for table in page_text.tables(section):
        keep = [i for i, header in enumerate(table[0]) if header not in PUBLIC_COLUMNS]
        own.append([[row[i] for i in keep if i < len(row)] for row in table])
    return [own, sorted(page_text.figure_data(section).items())]


@pytest.mark.slow
@pytest.mark.parametrize("option", sorted(EXPECTED))
def test_each_option_changes_the_sections_that_read_it(pages, option):
    before, after = pages["default"], pages[option]
    assert list(before) == list(after)  # the same sections, in the same order
    unchanged = {title for title in EXPECTED[option] if before[title] == after[title]}
    assert not unchanged, f"--{option} does not reach {sorted(unchanged)}"


@pytest.mark.slow
@pytest.mark.parametrize("option", sorted(EXPECTED))
def test_the_stored_record_stays_whatever_the_options(pages, option):
    """The Swallow record's own columns, verdicts and forecast tables are the stored ones under every option."""
    assert _own_part(pages["default"][STORED]) == _own_part(pages[option][STORED])
    words = [p for p in pages["default"][STORED].split("</table>")[1:] if "Doubling time" in p or "doubles every" in p]
    assert words and all(p in pages[option][STORED] for p in words)


@pytest.mark.slow
def test_the_olmes_design_reads_its_own_table_not_results(pages):
    """``--results`` changes only the public rows beside the OLMES design; ``--seed`` its own intervals too."""
    assert _own_part(pages["default"][OLMES]) == _own_part(pages["results"][OLMES])
    assert _own_part(pages["default"][OLMES]) != _own_part(pages["seed"][OLMES])


@pytest.mark.slow
def test_the_edited_table_reaches_the_per_model_rows_and_the_figure(pages):
    before, after = pages["default"]["Per-model densities"], pages["results"]["Per-model densities"]
    assert "gemma-2-9b" in before and "gemma-2-9b" not in after
    mistral = "mistralai/Mistral-7B-v0.1"
    dates = [
        row[page_text.tables(page)[0][0].index("released")]
        for page in (before, after)
        for row in page_text.tables(page)[0][1:]
        if row[0] == mistral
    ]
    assert len(dates) == 2 and (pd.Timestamp(dates[1]) - pd.Timestamp(dates[0])).days == 60


@pytest.mark.slow
def test_sections_not_computed_from_an_option_say_so(pages):
    stored = page_text.text(pages["default"][STORED])
    assert stored.startswith("A stored record, not computed by this command")
    assert (
        "python tools/build_tables.py protocol" in stored and "--results, --since, --seed and --n-boot do not" in stored
    )
    olmes = page_text.text(pages["default"][OLMES])
    assert "Computed by this command" in olmes and "--results reaches only the leaderboard-based column" in olmes


@pytest.mark.slow
def test_the_model_holds_the_results_it_shows(default):
    """The verdict holds the measurement itself (no copy of its fields); the report is a Result whose repr says
    whether the headline is measured; each named model's density per benchmark, inverted alone, is the joint
    inversion's own per-benchmark column wherever it is a value."""
    import numpy as np

    from densing.report import compute as m
    from densing.results import Result

    assert isinstance(default, Result) and default.section(m.VerdictSection).measurement is default.measurement
    from densing.present.words import state_words

    assert state_words(default.measurement.state) in repr(default)  # the state, in the repr
    assert default.conf_int().equals(default.measurement.conf_int())
    named = default.section(m.NamedModelsSection)
    values = named.per_benchmark[named.per_benchmark["bound"] == ""]
    assert len(values) >= 3 * len(named.densities)
    joint = named.densities.set_index("model")
    for row in values.itertuples():
        assert row.density == pytest.approx(joint.loc[row.model, f"density:{row.benchmark}"], rel=1e-9)
        assert row.density_ci_low <= row.density <= row.density_ci_high
    assert np.isfinite(values["density_ci_low"]).all()


def test_the_page_is_the_same_laid_out_by_workers_or_in_one_process(default, monkeypatch):
    """render lays the sections out as jobs of the executor (one process per core); in one process
    (``DENSING_SERIAL``) the page is the same, byte for byte, and every section is on it in the report's order."""
    from densing.report.html import esc
    from densing.report.render import render, renderer

    by_workers = render(default)
    monkeypatch.setenv("DENSING_SERIAL", "1")
    assert render(default) == by_workers
    titles = [renderer(s)(s).title for s in default.sections]
    places = [by_workers.find(f"{esc(title)}</h2>") for title in titles]
    assert all(p >= 0 for p in places) and places == sorted(places)


def test_the_layouts_that_draw_figures_start_first(default):
    """render starts the sections that draw Plotly figures first (a longest-first schedule over the workers), each
    section once; the page keeps the report's order (test above)."""
    from densing.report import compute as m
    from densing.report.render import _DRAWN_FIRST, _layout_order

    order = _layout_order(default.sections)
    assert sorted(order) == list(range(len(default.sections)))
    drawn = [i for i in order if isinstance(default.sections[i], _DRAWN_FIRST)]
    assert order[: len(drawn)] == drawn and len(drawn) >= 3
    assert isinstance(default.sections[order[0]], m.LawsSection)
    rest = order[len(drawn) :]
    assert rest == sorted(rest)
