"""The shipped data is found with or without a source tree (a non-editable install has none)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel a non-editable `pip install .` installs (built once for this module)."""
    pytest.importorskip("hatchling")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO_ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (found,) = out.glob("densing-*.whl")
    return found


@pytest.mark.slow
def test_shipped_folders_fall_back_to_the_package_copy(wheel, tmp_path):
    """Installed from the wheel, with no source tree beside the package, densing finds the copies under _shipped/."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import densing, densing.paths as p; print(densing.__file__); print(p.REFERENCE_FITS); "
        "print(len(list(p.REFERENCE_FITS.glob('*.json')))); print((p.RESULTS / 'public_models.csv').is_file())"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "DENSING_HOME"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PYTHONPATH": str(site)},
    )
    assert done.returncode == 0, done.stderr[-500:]
    module, fits, count, table = done.stdout.split("\n")[:4]
    assert Path(module).resolve().is_relative_to(site.resolve())
    assert Path(fits).parts[-2:] == ("_shipped", "reference_fits")
    assert int(count) == len(list((REPO_ROOT / "reference_fits").glob("*.json"))) and table == "True"


@pytest.mark.slow
def test_the_wheel_carries_the_shipped_data(wheel):
    """What a non-editable `pip install .` installs: every shipped fit and result file."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("reference_fits", "results"):
        shipped = {
            f"densing/_shipped/{folder}/{p.relative_to(REPO_ROOT / folder).as_posix()}"
            for p in (REPO_ROOT / folder).rglob("*")
            if p.is_file()
        }
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
    assert (
        paths.shipped_hint("results/no_such_table.csv") == ""
        and paths.shipped_hint(tmp_path / "public_models.csv") == ""
    )


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
    for missing in (
        tmp_path / "no_folder" / "family_llama-3.1_mmlu.json",
        tmp_path / "llama-3.1_mmlu",
        "family_llama-3.1_mmlu.json",
    ):
        with pytest.raises(densing.InputError, match=r"no such file \(a path is read as given"):
            paths.resolve_fit(missing)


def test_the_source_commit_is_twelve_hex_digits_and_says_in_words_when_files_differ():
    """The report's footer cites it: never a bare ``+`` after hex digits (which reads as an exponent, ``8e+``)."""
    import re

    from densing.paths import source_commit

    assert re.fullmatch(r"[0-9a-f]{12}( with changes)?|not a git checkout|unknown", source_commit())
