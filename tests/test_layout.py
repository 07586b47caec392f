"""The package lives under ``src/``: a folder named ``densing`` beside the working directory (the clone, seen from
its parent folder) cannot shadow the installed package."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_a_folder_named_densing_in_the_working_directory_does_not_shadow_the_package(tmp_path):
    (tmp_path / "densing").mkdir()  # what a clone named densing is to a notebook started in its parent folder
    code = "import densing; densing.read_results; print(densing.__file__)"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert Path(done.stdout.strip()).resolve() == (REPO_ROOT / "src" / "densing" / "__init__.py").resolve()


def test_the_package_is_under_src_and_nothing_named_densing_sits_at_the_root():
    assert (REPO_ROOT / "src" / "densing" / "__init__.py").is_file()
    assert not (REPO_ROOT / "densing").exists()
