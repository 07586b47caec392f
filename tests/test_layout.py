"""The design card's layout: the package at the top level of the project, beside reference_fits/, results/, tests/,
cli.py, pyproject.toml and README.md. The editable install puts the project root on sys.path (hatchling's .pth file),
so a folder named ``densing`` in a working directory (an empty one, or the clone seen from its parent folder) cannot
shadow the package, and a wheel carries the shipped data."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CARD = [
    "densing",
    "reference_fits",
    "results",
    "tests",
    "cli.py",
    "pyproject.toml",
    "README.md",
    "docs",
    "bench",
    "studies",
    "tools",
]


def _imported_from(cwd: Path) -> Path:
    code = "import densing; densing.read_results; print(densing.__file__)"
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    return Path(done.stdout.strip()).resolve()


def test_the_top_level_is_the_design_card():
    assert (REPO_ROOT / "densing" / "__init__.py").is_file()
    assert not (REPO_ROOT / "src").exists()
    missing = [name for name in CARD if not (REPO_ROOT / name).exists()]
    assert missing == []


def test_an_empty_folder_named_densing_in_the_working_directory_does_not_shadow_the_package(tmp_path):
    (tmp_path / "densing").mkdir()
    assert _imported_from(tmp_path) == (REPO_ROOT / "densing" / "__init__.py").resolve()


def test_the_clone_seen_from_its_parent_folder_gives_the_real_package():
    assert _imported_from(REPO_ROOT.parent) == (REPO_ROOT / "densing" / "__init__.py").resolve()


@pytest.mark.skipif(shutil.which("git") is None, reason="the wheel is built from a git checkout's files")
def test_a_wheel_carries_the_package_and_the_shipped_data(tmp_path):
    pytest.importorskip("hatchling")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO_ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-1000:]
    (wheel,) = tmp_path.glob("densing-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "densing/__init__.py" in names and "densing/trend/pooling.py" in names
    assert "densing/_shipped/results/public_models.csv" in names
    assert any(n.startswith("densing/_shipped/reference_fits/") and n.endswith(".json") for n in names)
    assert any(n.startswith("densing/eval/tasks/data/") for n in names)
    assert not any(n.startswith(("tests/", "src/")) for n in names)
