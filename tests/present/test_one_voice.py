"""One voice: a row's state is said the same way wherever it is shown — the terminal's cell, the rows' table and
JSON, ``summary()``, the report's cards, captions, tables and the forest plot's legend — because every one of them
reads the row's :class:`~densing.states.State` and :mod:`densing.present.words` makes the words."""

from __future__ import annotations

import itertools
import json
import math
import re
from types import SimpleNamespace

import pytest

from densing.present.records import by_benchmark, document
from densing.present.shown import figure, summary, verdict_of
from densing.present.verdict import closing_words
from densing.present.words import (
    CAPTION_CLAUSES,
    CARD_LABELS,
    LINE_NOTES,
    PAPER_MARKS,
    STATE_WORDS,
    row_parts,
    row_record,
    short_statuses,
    status_parts,
    status_words,
    summary_items,
)
from densing.states import EndOpen, ReferenceName, ReferencesDisagree, State
from densing.trend.uncertainty import reasons_of, state_of

#: Two references of one benchmark.
A, B = ReferenceName("A", "mmlu"), ReferenceName("B", "mmlu")
#: The words of a state in running text, the longest first ("not measured" holds "measured").
STATE_PATTERN = re.compile(r"not measured|bounded|(?<![a-z] )(?<![a-z])measured")


def _result(heterogeneous: bool, low: bool, high: bool, low_undecided: bool, high_undecided: bool):
    """A planted trend's numbers: every combination of the heterogeneity test and each end's sign."""
    result = SimpleNamespace(
        heterogeneity_df=1,
        heterogeneity_p=0.001 if heterogeneous else 0.6,
        heterogeneity_q=9.1,
        heterogeneity_draws=1200,
        reference_names=(A, B),
        reference_months={A: 4.6, B: 2.1},
        reference_months_low=(3.0, 1.5),
        reference_months_high=(8.0, 3.0),
        low_determined=low,
        high_determined=high,
        low_undecided=low_undecided and not low,
        high_undecided=high_undecided and not high,
        n_boot=1200,
        level=0.95,
        doubling_time_months=3.4,
        doubling_time_months_ci_low=2.5,
        doubling_time_months_ci_high=6.0,
        months_low_mc_low=2.4,
        months_low_mc_high=2.6,
        months_high_mc_low=5.5,
        months_high_mc_high=6.5,
        slope_per_day=0.0067,
        slope_ci_low=0.0038,
        slope_ci_high=0.009,
        n_models=40,
        n_references=2,
        i_squared=0.8,
        tau_squared=1e-6,
        influence=(),
        most_influential_model="",
        months_without_model=float("nan"),
        share_fit=0.2,
        share_score=0.1,
        share_models=0.6,
        share_reference=0.1,
        n_ceiling_bounds=0,
        months_without_ceilings=3.4,
        n_floor_bounds=0,
        months_without_floors=3.4,
        n_region_bounds=0,
        months_without_region=3.4,
        reference_labs=("Lab A", "Lab B"),
    )
    result.state = state_of(result)
    result.reasons = reasons_of(result) if result.state is not State.MEASURED else ()
    result.largest_influence = lambda: None
    return result


COMBINATIONS = list(itertools.product([False, True], repeat=5))


@pytest.mark.parametrize("combination", COMBINATIONS)
def test_every_state_and_reason_reads_one_state_everywhere(combination):
    result = _result(*combination)
    said = STATE_WORDS[result.state]
    head, reasons = status_parts(result)
    assert head.split(",")[0] == said and status_words(result).startswith(said)
    assert dict(summary_items(result))["state"] == said
    row = SimpleNamespace(
        result=result,
        state=result.state,
        name="r",
        label="r",
        capability="knowledge",
        benchmarks=("mmlu",),
        references=(A, B),
        chance=0.25,
        reason=None,
    )
    assert row_record(row)["state"] == said
    cell = short_statuses([row_parts(row)])[0][0]
    assert set(STATE_PATTERN.findall(cell)) == {said}
    assert set(STATE_PATTERN.findall(status_words(result))) <= {said}  # no reason names another state
    # the reasons are records with their numbers: which end, undecided or not, the draws, the references' Q
    kinds = {type(r) for r in result.reasons}
    assert (ReferencesDisagree in kinds) == (combination[0] and result.state is State.NOT_MEASURED)
    assert all(r.n_draws == 1200 for r in result.reasons if isinstance(r, EndOpen))
    disagree = [r for r in result.reasons if isinstance(r, ReferencesDisagree)]
    assert all(r.draws == 1200 and "Hotelling's T² over 1200 draws: p = " in status_words(result) for r in disagree)


def test_the_heterogeneity_words_name_the_draws_only_where_the_result_holds_them():
    """Q's p-value reads Q against Hotelling's T² of the draws (densing.trend.random_effects.pool_slopes): the words
    name the count where a result holds it, and a count of 0 (a trend made without one) reads Q, df and p alone."""
    from densing.present.words import heterogeneity_text

    held = heterogeneity_text(1.3, 15, 1.0, 0.0, 0.0, 600)
    assert held.startswith("Q = 1.3 on 15 df, Hotelling's T² over 600 draws: p = 1, I² = 0%")
    assert heterogeneity_text(1.3, 15, 1.0, 0.0, 0.0).startswith("Q = 1.3 on 15 df, p = 1, I² = 0%")
    assert heterogeneity_text(math.nan, 0, math.nan, math.nan, 0.0, 600) == "one reference: heterogeneity not testable"


def test_the_report_marks_differ_by_state():
    """Each state's card label, caption clause, the paper table's mark and the density line's note name that state
    and no other (the page read "bounded" in the card and "not measured" in the caption of one number)."""
    for table in (CARD_LABELS, CAPTION_CLAUSES, PAPER_MARKS, LINE_NOTES):
        for state, words in table.items():
            assert set(STATE_PATTERN.findall(words)) <= {STATE_WORDS[state]}, (state, words)


@pytest.fixture(scope="module")
def report():
    from densing.report.render import build_report

    html, measurement, _ = build_report(n_boot=60)
    return html, measurement


def _rows(measurement):
    return [*measurement.benchmark_rows, *measurement.set_rows]


def test_every_shipped_row_says_one_state_in_the_terminal_the_json_and_its_summary(report):
    _, measurement = report
    printed = json.loads(json.dumps(document(measurement)))
    by_row = {r["row"]: r for r in printed["by_benchmark"]}
    cells, _ = short_statuses([row_parts(r) for r in _rows(measurement)])
    for row, cell in zip(_rows(measurement), cells):
        said = STATE_WORDS[row.state]
        assert set(STATE_PATTERN.findall(cell)) == {said}, (row.name, cell)
        assert by_row[row.name]["state"] == said and by_row[row.name]["status"].startswith(said), row.name
        if row.result is not None:
            assert dict(summary(row.result).items)["state"] == said, row.name
    head = printed["headline"]
    assert head["state"] == STATE_WORDS[measurement.state] and head["status"].startswith(head["state"])
    assert set(STATE_PATTERN.findall(closing_words(measurement))) <= {STATE_WORDS[measurement.state]}


def _visible_rows(html: str) -> list[str]:
    """The page's table rows as text (tags dropped, entities kept as written)."""
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    return [re.sub(r"<[^>]+>", " ", row) for row in rows]


def test_the_rendered_report_gives_no_row_two_states(report):
    """Every row of the page's rows table names at most one state; the headline's card, caption, the table beside
    the paper and the density line's note name the headline's state and no other."""
    html, measurement = report
    names = {r.name for r in _rows(measurement)}
    checked = 0
    for text in _visible_rows(html):
        cells = text.split()
        if cells and cells[0] in names:
            found = set(STATE_PATTERN.findall(text))
            assert len(found) <= 1, (cells[0], found)
            checked += 1
    assert checked >= len(names)
    state = measurement.state
    for table in (CARD_LABELS, CAPTION_CLAUSES, PAPER_MARKS, LINE_NOTES):
        for other, words in table.items():
            if words and other is not state:
                assert words not in html.replace("&#x27;", "'"), (other, words)


def test_the_forest_legend_has_one_entry_per_state_shown(report):
    from densing.present.forest import STATE_STYLES

    html, measurement = report
    shown = {
        r.state
        for r in _rows(measurement)
        if r.result is not None and r.result.doubling_time_months == r.result.doubling_time_months
    }
    for state, (name, _, _) in STATE_STYLES.items():
        if state in shown:
            assert json.dumps(name)[1:-1] in html, name


# -- one form for every number: an end printed as its Monte Carlo range is a range on every surface ------------------

#: The second tables' rows the test reads at the terminal, in the JSON, the notebook's frame and the report's cells
#: (None: every row of the table).
SECOND_TABLES = {"openllm_v2": ("v2_native",), "swallow": None}
#: Few draws: the ends' Monte Carlo ranges are wide, so ends printed as ranges occur on every table.
FEW_DRAWS = "60"


def _range_text(record: dict, end: str) -> str:
    from densing.present.words import months_text

    return f"({months_text(record[f'ci_{end}_mc_low'])}–{months_text(record[f'ci_{end}_mc_high'])})"


def _assert_one_form(record: dict, where: str) -> None:
    """A row record's ends: "range" printed as its Monte Carlo range and nothing else, "number" printed as a number;
    its "-fold" a range of ratios exactly where an end is a range."""
    ranged = False
    for end in ("low", "high"):
        form, printed = record[f"ci_{end}_form"], record[f"ci_{end}_printed"]
        assert form in ("range", "number"), (where, record["row"], end, form)
        if form == "range":
            ranged = True
            assert printed == _range_text(record, end), (where, record["row"], end, printed)
        else:
            assert "(" not in printed, (where, record["row"], end, printed)
    if record["state"] == "measured":
        fold = record["status"].split(", ", 1)[1]
        assert ("–" in fold) == ranged, (where, record["row"], record["status"])


def _assert_terminal_line(text: str, record: dict, where: str) -> None:
    """The terminal's table line of a row holds each end as the record prints it."""
    line = next(line for line in text.splitlines() if line.split()[:1] == [record["row"]])
    for end in ("low", "high"):
        assert record[f"ci_{end}_printed"] in line, (where, record["row"], end, line)


def _assert_report_cell(record: dict, where: str) -> None:
    """The report's cell of a stored row (its months and interval) and its forest bar give each end in its form: a range
    end's range, in the one notation ("from a to (b–c)", never a bracket around a range), drawn as its range."""
    from densing.present.forest import drawn_ends
    from densing.report.html import record_cell

    if record["state"] == "not measured":
        return
    cell = record_cell(record)
    ranges = [_range_text(record, end) for end in ("low", "high") if record[f"ci_{end}_form"] == "range"]
    assert all(r in cell for r in ranges) and "[(" not in cell and ")]" not in cell, (where, record["row"], cell)
    assert ("95% CI from" in cell) == bool(ranges), (where, record["row"], cell)
    if math.isfinite(record["ci_low"] or math.nan) and record["ci_high"] is not None:
        drawn = drawn_ends(record)[2]
        assert drawn == [
            (record[f"ci_{end}_mc_low"], record[f"ci_{end}_mc_high"])
            for end in ("low", "high")
            if record[f"ci_{end}_form"] == "range"
        ], (where, record["row"], drawn)


def test_the_public_headline_and_rows_print_each_end_in_one_form_on_every_surface(report):
    """The public table: the notebook's ``by_benchmark()``, the JSON, the terminal's rows table and the report's page
    give every end of every row, and the headline's, in one form; an end printed as its range is a range in each."""
    from html import unescape

    from densing.cli.output import document as output_document
    from densing.present.forest import row_names
    from densing.present.words import ends_shown

    html, measurement = report
    names = row_names(_rows(measurement))
    notebook = by_benchmark(measurement)
    records = json.loads(json.dumps(output_document(notebook)))["rows"]
    terminal = ends_shown(notebook)
    page = unescape(html)
    for record, (_, frame_row), (_, shown) in zip(records, notebook.iterrows(), terminal.iterrows()):
        _assert_one_form(record, "public")
        for end in ("low", "high"):
            assert (frame_row[f"ci_{end}_form"], frame_row[f"ci_{end}_printed"]) == (
                record[f"ci_{end}_form"],
                record[f"ci_{end}_printed"],
            ), (record["row"], end)
            if record[f"ci_{end}_form"] == "range":  # the terminal's cell is the range, placed as a number
                assert str(shown[f"ci_{end}"]) == record[f"ci_{end}_printed"], (record["row"], end)
        label = names[record["row"]]  # the page names a set by its benchmarks (densing.present.forest.row_names)
        row_html = next(text for text in map(unescape, _visible_rows(html)) if label in text)
        assert all(record[f"ci_{end}_printed"] in row_html for end in ("low", "high")), (record["row"], row_html)
    head = document(measurement)["headline"]
    for end in ("low", "high"):
        printed, (low, high) = head[end]["printed"], head[end]["monte_carlo_range"]
        ranged = {
            "low": measurement.rules[measurement.headline_rule].low_precise,
            "high": measurement.rules[measurement.headline_rule].high_precise,
        }[end] is False
        assert head[end]["form"] == ("range" if ranged and head[end]["determined"] else "number"), head[end]
        if head[end]["form"] == "range":
            assert printed == _range_text({"ci_x_mc_low": low, "ci_x_mc_high": high}, "x"), head[end]
        if head[end]["determined"]:
            assert printed in verdict_of(measurement) and printed in page, (end, printed)
    # the headline's own sentences, summary and chart legend: no range inside an interval's brackets, none joined by a
    # dash to the other end (the stored records' sentences on the page are written by the command that makes them)
    said = [
        verdict_of(measurement),
        closing_words(measurement),
        str(summary(measurement)),
        *(trace.name for trace in figure(measurement).data if trace.name),
    ]
    assert not [text for text in said if "[(" in text or "–(" in text], said


@pytest.mark.parametrize("table", sorted(SECOND_TABLES))
def test_a_second_tables_rows_print_each_end_in_one_form_on_every_surface(table, capsys):
    """The second table's declared row and Swallow's rows: ``densing trend --table T --by benchmark`` at the
    terminal and in ``--format json``, the notebook's frame and each row's summary of the same measurement
    (``densing.present.by_benchmark`` and ``densing.present.summary``), and the report's cells and forest bars of those
    records: a range-printed end is a range on each, one state on each, and some end of the table is one."""
    import densing.present
    from densing.data import read_results
    from densing.registry import resolve_table
    from densing.trend.protocol import measure_table
    from tests.cli_run import run

    argv = ["trend", "--table", table, "--by", "benchmark", "--n-boot", FEW_DRAWS]
    code, text, _ = run(argv, capsys)
    assert code == 0
    code, out, _ = run([*argv, "--format", "json"], capsys)
    assert code == 0
    wanted = SECOND_TABLES[table]
    records = [r for r in json.loads(out)["rows"] if wanted is None or r["row"] in wanted]
    profile, path = resolve_table(None, table)
    measured = measure_table(read_results(path), profile.name, n_boot=int(FEW_DRAWS)).measured
    notebook = densing.present.by_benchmark(measured)
    by_row = {r.row: r for r in notebook.itertuples()}
    results = {row.name: row.result for row in (*measured.benchmark_rows, *measured.set_rows)}
    assert records and any("range" in (r["ci_low_form"], r["ci_high_form"]) for r in records), table
    for record in records:
        _assert_one_form(record, table)
        if record["state"] != "not measured":
            _assert_terminal_line(text, record, table)
        _assert_report_cell(record, table)
        frame_row = by_row[record["row"]]
        assert (frame_row.ci_low_printed, frame_row.ci_high_printed) == (
            record["ci_low_printed"],
            record["ci_high_printed"],
        ), record["row"]
        assert frame_row.state == frame_row.status.split(",")[0].split(":")[0] == record["state"], record["row"]
        if results[record["row"]] is not None:
            said = dict(densing.present.summary(results[record["row"]]).items)["state"]
            assert said == record["state"], (record["row"], said)
