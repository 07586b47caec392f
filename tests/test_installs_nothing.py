"""The test suite changes nothing on the machine it runs on: no test or helper of the suite runs a package manager.

A browser the report's tests need is installed by ``.ci/run`` (or by the command ``tests/report/browser.py`` names);
without it those tests skip with that one line."""

import re

from tests.conftest import REPO_ROOT

#: A package manager's install step, as a command line or an argument list would spell it.
INSTALLING = re.compile(r"""(apt-get|apt|dnf|yum|apk|brew|pip3?|conda|npm)["',\s]+(-\S+["',\s]+)*(install|add)\b""")


#: A line that starts a process (subprocess, os.system, pexpect …).
STARTS = re.compile(r"\b(run|Popen|call|check_call|check_output|system|spawn)\(")


def test_no_test_runs_a_package_manager():
    here = REPO_ROOT / "tests" / "test_installs_nothing.py"
    found = []
    for path in sorted((REPO_ROOT / "tests").rglob("*.py")):
        if path == here:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if STARTS.search(code) and INSTALLING.search(code):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not found, "the suite runs a package manager:\n" + "\n".join(found)


def test_the_pattern_finds_an_install_step():
    manager = "apt-get"  # the samples are built, so that no line of this file spells a package manager's call
    for line in (
        f'subprocess.run([{manager!r}, "install", "-y", "chromium"])',
        "os.system('pip install foo')",
        f'subprocess.check_call([{manager!r}, "-qq", "install", "x"])',
    ):
        assert STARTS.search(line) and INSTALLING.search(line)
    assert not INSTALLING.search('subprocess.run(["chromium", "--headless"])')
    assert not STARTS.search('pytest.skip("x is not installed (pip install x)")')
