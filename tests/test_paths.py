"""The shipped data is found with or without a source tree (a non-editable install has none)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_shipped_folders_fall_back_to_the_package_copy(tmp_path, monkeypatch):
    from densing import paths

    monkeypatch.delenv("DENSING_HOME", raising=False)
    fits = paths._shipped("reference_fits", root=tmp_path)  # as in site-packages: no reference_fits/ beside the package
    assert fits != tmp_path / "reference_fits" and fits.parts[-2:] == ("_shipped", "reference_fits")
    assert {p.name for p in fits.glob("*.json")} == {p.name for p in (REPO_ROOT / "reference_fits").glob("*.json")}
    assert (paths._shipped("results", root=tmp_path) / "public_models.csv").is_file()


@pytest.mark.slow
def test_the_wheel_carries_the_shipped_data(tmp_path):
    """What a non-editable `pip install .` installs: every shipped fit and result file."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO_ROOT), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("densing-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("reference_fits", "results"):
        shipped = {f"densing/_shipped/{folder}/{p.relative_to(REPO_ROOT / folder).as_posix()}"
                   for p in (REPO_ROOT / folder).rglob("*") if p.is_file()}
        assert shipped <= names, sorted(shipped - names)[:5]


def test_a_missed_relative_path_to_a_shipped_table_says_where_it_is(tmp_path, monkeypatch):
    import densing
    from densing import paths

    monkeypatch.chdir(tmp_path)  # a notebook outside the repository
    with pytest.raises(densing.InputError) as caught:
        densing.read_results("results/public_models.csv")
    message = str(caught.value)
    assert "\n" not in message and "densing.paths.RESULTS / 'public_models.csv'" in message
    assert str(paths.RESULTS / "public_models.csv") in message
    assert densing.read_results(paths.RESULTS / "public_models.csv").shape[0] > 100  # the hint's path reads
    assert paths.shipped_hint("results/no_such_table.csv") == "" and paths.shipped_hint(tmp_path / "public_models.csv") == ""


def test_a_fit_by_its_short_name_resolves_to_the_shipped_file_and_a_miss_names_close_ones(tmp_path):
    import densing
    from densing import paths

    assert paths.resolve_fit("llama-3.1_mmlu") == paths.REFERENCE_FITS / "family_llama-3.1_mmlu.json"
    assert paths.resolve_fit("pythia_lambada_openai") == paths.REFERENCE_FITS / "pythia_lambada_openai_two_step.json"
    given = tmp_path / "mine.json"
    given.write_text("{}")
    assert paths.resolve_fit(given) == given  # a path that exists is taken as given
    with pytest.raises(densing.InputError, match=r"--fit lama-3.1_mmlu: no such file.*close: family_llama-3.1_mmlu"):
        paths.resolve_fit("lama-3.1_mmlu")


def test_the_source_commit_is_twelve_hex_digits_and_says_in_words_when_files_differ():
    """The report's footer cites it: never a bare ``+`` after hex digits (which reads as an exponent, ``8e+``)."""
    import re

    from densing.paths import source_commit

    assert re.fullmatch(r"[0-9a-f]{12}( with changes)?|not a git checkout|unknown", source_commit())
