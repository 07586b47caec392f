"""No room below the presentation layer makes a reader's word (issue 106, "values out, displays in"): every f-string
in a room's modules is an exception's message (or a piece of one), a warning, a key or column name, or is listed here
with why it may stay (:data:`ALLOWED`) or what is still to move (:data:`LEFT`). A new f-string that builds a label, a
note or a sentence fails :func:`test_no_room_below_makes_words` until it moves to :mod:`densing.present`.

The rooms scanned are a parameter (:data:`ROOMS`): ``densing/trend``, ``densing/placement``, ``densing/laws``,
``densing/designs`` and ``densing/data`` here; another room joins by adding its folder and its allow-list entries.
Plain string literals are not scanned: a fixed sentence is no value's word, and an f-string is where a value becomes
one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The rooms scanned, as folders of the repository.
ROOMS = ("densing/trend", "densing/placement", "densing/laws", "densing/designs", "densing/data")

#: Callees whose f-string arguments are never a reader's words made here: exceptions, warnings, attribute and module
#: names.
_CALLEES = ("warn", "getattr", "hasattr", "import_module")

#: Why eligibility's reasons stay in the laws: the ``why`` column is a field of the shipped candidate table's file
#: format (``reference_fits/trend_reference_candidates.csv``; :mod:`densing.laws.eligibility`'s docstring).
WHY_COLUMN = "eligibility's why column: a field of the shipped candidates CSV file format"

#: (path, the f-string's source as :func:`ast.unparse` writes it) → why it may stay: an error message's piece built
#: before its ``raise``, an identifier or a key, a file format's field or name, provenance metadata, a ``__repr__``.
ALLOWED = {
    ("densing/trend/bias.py", "f'{path.name} (made by studies/headline_bias.py --write)'"): "an error message's file",
    ("densing/trend/bias.py", "f'{where}: row {i}'"): "an error message's place",
    ("densing/trend/capability.py", "f'{family}:{benchmark}'"): "a reference's key (ReferenceName's form)",
    ("densing/trend/doubling.py", "f\"; close: {', '.join(close)}\""): "the tail of an InputError's message",
    ("densing/trend/doubling.py", "f'reference[{i}]'"): "an error message's place",
    ("densing/trend/forecast.py", "f'forecast {row!r}'"): "an error message's place",
    (
        "densing/trend/measure.py",
        "f'{(record.display if record is not None and record.display else benchmark)} (column {columns})'",
    ): "a piece of require_set_benchmarks' InputError",
    ("densing/trend/plan.py", "f'budget@{self.d0:g}'"): "a job's key",
    ("densing/trend/pooled_bias.py", "f'{path.name} (made by {STUDY} --summary --write)'"): "an error message's file",
    ("densing/trend/pooled_bias.py", "f'{where}: world {i}'"): "an error message's place",
    ("densing/trend/pooled_tables.py", "f'model {m}'"): "the grouping key of a model without a family",
    ("densing/trend/targets.py", "f'\\x00model {i}'"): "the grouping key of a model without a family",
    ("densing/trend/targets.py", "f'{source}: row {i}'"): "an error message's place",
    ("densing/trend/targets.py", "f'row {i}'"): "a row's name in an error message",
    ("densing/trend/targets.py", "f'{name}: item {i}'"): "an error message's place",
    ("densing/trend/uncertainty.py", "f'score:{b}'"): "a column's name",
    (
        "densing/placement/measure.py",
        'f"measuring the headline trend on the suite\'s target table ({draws} draws) …"',
    ): "a progress message (the documented on_progress(line) callback)",
    ("densing/placement/measure.py", "f'{model} / {bench}: '"): (
        "a progress message (the documented on_progress(line) callback)"
    ),
    ("densing/placement/measure.py", "f'--suite {suite}: its'"): "a piece of an InputError's message",
    (
        "densing/placement/measure.py",
        "f'results/{target.path.relative_to(RESULTS).as_posix()}'",
    ): "an InputError's file",
    ("densing/placement/own_scores.py", "f\"--{k.replace('_', '-')}\""): "an InputError's option names",
    (
        "densing/placement/pooled_place.py",
        "f\"the headline benchmarks of {' and '.join(fitting)}\"",
    ): "a piece of an InputError's message",
    ("densing/placement/pooled_place.py", "f'density_ci_{end}'"): "a column's name",
    (
        "densing/data/benchmarks.py",
        'f"AI2\'s offline OLMES MC ARC-Challenge: the test split, not sampled ({_OLMES_MC})"',
    ): "provenance metadata: the benchmark registry's source fields",
    ("densing/data/benchmarks.py", "f'ColumnView({self._columns()!r})'"): "a developer __repr__",
    ("densing/data/benchmarks.py", "f'FieldView({self.field!r}, {dict(self)!r})'"): "a developer __repr__",
    ("densing/data/benchmarks.py", "f'densing_olmes_{_task}'"): "a task's name (the registry's run)",
    ("densing/data/benchmarks.py", "f'olmes_{_task}'"): "a benchmark's name (the registry's key)",
    (
        "densing/data/benchmarks.py",
        "f'{_OBSSCALING} {_what}'",
    ): "provenance metadata: the benchmark registry's source fields",
    ("densing/data/benchmarks.py", "f'{_RC}, {_run}'"): "provenance metadata: a registry run's note",
    ("densing/data/benchmarks.py", "f'{_k} choices'"): "provenance metadata: the benchmark registry's source fields",
    (
        "densing/data/benchmarks.py",
        "f'{_k}-way multiple choice ({_cite})'",
    ): "provenance metadata: the benchmark registry's source fields",
    (
        "densing/data/benchmarks.py",
        "f'{_what} ({_cite})'",
    ): "provenance metadata: the benchmark registry's source fields",
    (
        "densing/data/names.py",
        "f\"; did you mean {' or '.join((repr(c) for c in close))}?\"",
    ): "the tail of an InputError's message",
    ("densing/data/names.py", "f\"{r['_named']} {r['metric']} = {r['value']}\""): "a piece of an InputError's message",
    ("densing/data/names.py", "f'{source}: benchmark'"): "an error message's place",
    ("densing/data/names.py", "f'{source}: column {str(column)!r}'"): "an error message's place",
    (
        "densing/data/olmo.py",
        "f', mean of the last {last} rows'",
    ): "provenance metadata: the ladder table's source column",
    (
        "densing/data/olmo.py",
        "f'allenai/OLMo peteish-moreeval/{source} ({what})'",
    ): "provenance metadata: the ladder table's source column",
    (
        "densing/data/olmo.py",
        "f'eval/downstream/{name}_{split}_{form}_5shot_{metric}'",
    ): "a column's name of the ladder's files",
    (
        "densing/data/olmo.py",
        "f'eval/downstream_bpb/{name}_{split}_rc_5shot_bpb'",
    ): "a column's name of the ladder's files",
    ("densing/data/olmo.py", "f'mmlu_{group}'"): "a task's name in the ladder's columns",
    ("densing/data/olmo.py", "f'olmo-ladder-{size}-{mult}xC'"): "a run's name (the run column's key)",
    ("densing/data/olmo.py", "f'step{step}'"): "a checkpoint's revision (the revision column's key)",
    ("densing/data/olmo.py", "f'{run}@step{step}'"): "a checkpoint's model name (the model column's key)",
    (
        "densing/data/olmo.py",
        "f'{split} split, OLMES RC 5-shot'",
    ): "provenance metadata: the ladder table's source column",
    (
        "densing/data/readers.py",
        "f' (a percentage? lm-eval writes {val / 100:g} for {val:g}%)'",
    ): "the tail of an InputError's message",
    ("densing/data/readers.py", "f', … ({len(have)} in all)'"): "a piece of an InputError's message",
    ("densing/data/readers.py", "f'step{step}'"): "a checkpoint's revision (the revision column's key)",
    ("densing/data/readers.py", "f'{metric},{filt}'"): "a metric's key (lm-eval's metric,filter)",
    ("densing/data/readers.py", "f'{model_dir.name}@step{step}'"): "a checkpoint's model name (the model column's key)",
    ("densing/data/schema.py", "f'{source}: {word} {place}'"): "an error message's place",
    ("densing/data/schema.py", "f'{where}, column {rec[SOURCE_COLUMN]!r}'"): "an error message's place",
    (
        "densing/data/schema.py",
        "f'{word} {one}'",
    ): "an error message's place (both rows of _check_one_lab_a_family's InputError)",
    (
        "densing/data/schema.py",
        "f'{word}s {one} and {two}'",
    ): "an error message's place (both rows of _check_one_lab_a_family's InputError)",
    ("densing/data/wide.py", "f' (found {near[0]!r}: {why})'"): "the tail of an InputError's message",
    ("densing/designs/olmes/data.py", "f\"{where}: field 'release_date'\""): "an error message's place",
    ("densing/designs/olmes/data.py", "f'{path}: row {i} ({model})'"): "an error message's place",
    ("densing/designs/olmes/data.py", "f'{path}: row {i}'"): "an error message's place",
    (
        "densing/designs/olmes/data.py",
        "f'{scores_path} + {models_path}'",
    ): "the source named in validate_results' InputErrors",
    ("densing/designs/olmes/data.py", "f'{where} ({model})'"): "an error message's place",
    ("densing/designs/olmes/mc_reference.py", "f'olmes_{task}_mc'"): "a benchmark's name (the OLMES table's)",
    ("densing/designs/olmes/mc_reference.py", "f'olmes_{task}_mc_inloop'"): "a benchmark's name (the in-loop rows')",
    ("densing/designs/olmes/trend.py", "f'months_d0_{d0 / 1000000000000.0:g}T'"): "a column's name",
    ("densing/designs/swallow/records.py", "f'{stem}.json'"): "a record file's name",
    (
        "densing/laws/density.py",
        "f\"; the targets score them as {', '.join(other)}\"",
    ): "the tail of an InputError's message",
    ("densing/laws/density.py", "f'score:{b}'"): "a column's name",
    (
        "densing/laws/density.py",
        "f'{fit.kind}:{fit.benchmark}'",
    ): "a reference fit's key (kind:benchmark), the reference_fit column's value",
    (
        "densing/laws/eligibility.py",
        "f\"its best member ({row['largest_score']:.3f}) reaches {row['reach_share']:.0%} of the way from chance ({chance:.3g}) to the top-decile score {top:.3f} (need {REACH_SHARE:.0%})\"",
    ): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        "f\"the held-out {held['held_out']} scores {format_number(held['measured'])}, the refit predicts {format_number(held['predicted'])} with no finite standard error (its information matrix is singular)\"",
    ): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        "f\"the held-out {held['held_out']} scores {format_number(held['measured'])}, the refit predicts {format_number(held['predicted'])} ± {format_number(held['predicted_stderr'])}: z = {signed(held['z'])} (allowed ±{format_number(MAX_HELD_OUT_Z)})\"",
    ): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        "f\"the slope's 95% interval [{format_number(row['slope_ci_low'])}, {format_number(row['slope_ci_high'])}] does not lie above zero (the scores do not rise with size beyond their noise)\"",
    ): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        "f\"token counts differ {row['token_ratio']:.3g}× (allowed {MAX_TOKEN_RATIO:g}×)\"",
    ): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        "f\"{counted_noun(row['sizes'], 'size')} with a token count (need {MIN_SIZES})\"",
    ): WHY_COLUMN,
    ("densing/laws/eligibility.py", "f\"{k.replace('_', ' ')}: {', '.join(v)}\""): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        'f"{saturated} of the {top_scores.size} top-decile targets score within {SATURATION_STDERRS:g} standard errors of the law\'s ceiling 1"',
    ): WHY_COLUMN,
    ("densing/laws/eligibility.py", "f'R1/R3 not fitted — {n}'"): WHY_COLUMN,
    ("densing/laws/eligibility.py", "f'held-out refit impossible: {held}'"): WHY_COLUMN,
    ("densing/laws/eligibility.py", "f'the likelihood fit fails: {fitted}'"): WHY_COLUMN,
    (
        "densing/laws/eligibility.py",
        "f'{b} has {fitted} (densing/data), so neither a floor nor a standard error'",
    ): WHY_COLUMN,
    ("densing/laws/eligibility.py", "f'{family}:{b}'"): "a reference's key (ReferenceName's form)",
    ("densing/laws/eligibility.py", "f'{reason[0]}: {reason[1]}'"): WHY_COLUMN,
    ("densing/laws/family.py", "f'family {family!r}, {benchmark}'"): "an error message's place",
    (
        "densing/laws/family.py",
        "f'{HOFFMANN_2022.source}: alpha = {HOFFMANN_2022.alpha}'",
    ): "provenance metadata written to a fit file (alpha_source)",
    (
        "densing/laws/fit_schema.py",
        "f\"a {kind} fit has a {('positive' if kind == 'family' else 'negative')} gamma\"",
    ): "a piece of an InputError's message (the law's domain)",
    (
        "densing/laws/fit_schema.py",
        "f\"c = {p['c']!r}, d = {p['d']!r}, c + d = {p['c'] + p['d']!r}; expected 0 ≤ d < c + d ≤ 1\"",
    ): "a piece of an InputError's message (the law's domain)",
    (
        "densing/laws/fit_schema.py",
        "f\"mean({','.join(benchmarks)})\"",
    ): "a fit's benchmark label (the fit file's 'benchmark' field)",
    (
        "densing/laws/fit_schema.py",
        "f\"mean({','.join(names)})\"",
    ): "a fit's benchmark label (the fit file's 'benchmark' field)",
    (
        "densing/laws/fit_schema.py",
        "f'expected {FIT_DOMAIN[name]}'",
    ): "a piece of an InputError's message (the law's domain)",
    (
        "densing/laws/fit_schema.py",
        "f'in (0, {MAX_D0_TOKENS:g}] tokens'",
    ): "the fit file format's domain of d0 (FIT_DOMAIN), said in InputErrors",
    ("densing/laws/forms.py", "f' (member {bad[0]})'"): "a piece of an InputError's message",
    (
        "densing/laws/inversion.py",
        "f\"joint({','.join(self.benchmarks)}){suffix}\"",
    ): "a reference's name (ReferenceName's benchmark, read back by parse)",
    (
        "densing/laws/inversion.py",
        "f'[in score, weights at the {self.weights_at}: {version} version]'",
    ): "a reference's name (ReferenceName's benchmark, read back by parse)",
    (
        "densing/laws/inversion.py",
        "f'[skill {self.skill}: first version]'",
    ): "a reference's name (ReferenceName's benchmark, read back by parse)",
    ("densing/laws/joint.py", "f', benchmark {fits[at[1]].benchmark}'"): "an error message's place",
    ("densing/laws/joint.py", "f'model {at[0]}'"): "an error message's place",
    ("densing/laws/olmo/check.py", "f\"olmo_{benchmark.removeprefix('olmes_')}_two_step.json\""): "a fit file's name",
    ("densing/laws/olmo/check.py", "f'{m}_mean_error'"): "a column's name",
    ("densing/laws/olmo/ladder.py", "f'{criterion}_error'"): "a column's name",
    ("densing/laws/problems.py", "f' ({distinct[0]:.3g})'"): "a piece of an InputError's message",
    (
        "densing/laws/reference_fit.py",
        "f'ReferenceFit({self.kind}, {self.benchmark!r} ({self.metric}), D0 = {format_count(self.d0)} tokens, {(self.stages[-1].n_points if self.stages else 0)} points, {fit}, {len(self.bootstrap)} bootstrap draws)'",
    ): "a developer __repr__",
    (
        "densing/laws/reference_fit.py",
        "f'R² {stage.law} {stage.r_squared:.3f}'",
    ): "a piece of a developer __repr__ (ReferenceFit's)",
    ("densing/laws/reference_fit.py", "f'{name}[{i}]'"): "an argument's name in an InputError (as_fit's name)",
    ("densing/laws/reference_fit.py", "f'{name}[{key!r}]'"): "an argument's name in an InputError (as_fit's name)",
}

#: Words still made below the layer, to move to :mod:`densing.present` (each a value with its words made there): none
#: left in the rooms scanned.
LEFT: dict[tuple[str, str], str] = {}


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _spared(node: ast.JoinedStr, parents: dict) -> bool:
    """Whether the f-string ``node`` is no reader's word: inside a ``raise``, an exception's or a warning's call, a
    key (of a dict, a subscript) or another f-string's format spec."""
    child = node
    while child in parents:
        parent = parents[child]
        if isinstance(parent, ast.Raise):
            return True
        if isinstance(parent, ast.Call) and (
            _callee(parent).endswith(("Error", "Exception", "Warning")) or _callee(parent) in _CALLEES
        ):
            return True
        if (
            (isinstance(parent, ast.Dict) and child in parent.keys)
            or (isinstance(parent, ast.DictComp) and child is parent.key)
            or (isinstance(parent, ast.Subscript) and child is parent.slice)
            or (isinstance(parent, ast.FormattedValue) and child is parent.format_spec)
        ):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        child = parent
    return False


def made_words(room: str, root: Path = ROOT) -> set[tuple[str, str]]:
    """(path, f-string) of every f-string in ``room``'s modules (a folder under ``root``) that is not spared
    (:func:`_spared`)."""
    found = set()
    for path in sorted((root / room).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr) and not _spared(node, parents):
                found.add((str(path.relative_to(root)), ast.unparse(node)))
    return found


@pytest.mark.parametrize("room", ROOMS)
def test_no_room_below_makes_words(room):
    made = made_words(room)
    unlisted = sorted(made - set(ALLOWED) - set(LEFT))
    assert not unlisted, "an f-string below the presentation layer, not in ALLOWED or LEFT:\n" + "\n".join(
        f"{p}: {s}" for p, s in unlisted
    )


@pytest.mark.parametrize("room", ROOMS)
def test_every_listed_f_string_is_still_there(room):
    made = made_words(room)
    stale = sorted(k for k in (*ALLOWED, *LEFT) if k[0].startswith(room + "/") and k not in made)
    assert not stale, "listed but no longer made (take it off the list):\n" + "\n".join(f"{p}: {s}" for p, s in stale)


def test_the_scan_finds_a_label_made_below(tmp_path):
    """A planted label, returned and assigned, is found; its error message and its key are not."""
    room = tmp_path / "densing" / "room"
    room.mkdir(parents=True)
    (room / "m.py").write_text(
        "def label(x):\n"
        '    said = f"{x} at D0"\n'
        '    if not x:\n        raise ValueError(f"x: {x!r}")\n'
        '    return {f"k_{x}": said, "v": f"{x}, the law"}\n',
        encoding="utf-8",
    )
    assert {s for _, s in made_words("densing/room", tmp_path)} == {"f'{x} at D0'", "f'{x}, the law'"}
