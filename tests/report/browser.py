"""Drive a real headless Chromium (Debian's `chromium`) for report tests.

``find_chromium()`` returns its path, or None with one line naming the command that installs it: the suite installs
nothing on the machine it runs on (``.ci/run`` installs the browser before it runs the README's test command).
``render(page)`` loads a file, lets its scripts run, and returns the DOM after they ran, the console log and a
screenshot.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]

#: The command that installs the browser the report's browser tests need (``.ci/run`` runs it).
INSTALL = "apt-get install chromium"


def find_chromium() -> tuple[str | None, str]:
    """(path, "") of Debian's Chromium, or (None, why the browser tests skip: the command that installs it)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found, ""
    return None, f"chromium is not installed: the browser tests skip (install it with `{INSTALL}`, as .ci/run does)"


@dataclass
class Rendered:
    dom: str
    console: str
    screenshot: Path


def render(
    chromium: str, page: Path, workdir: Path, *, width: int = 1280, height: int = 4000, budget_ms: int = 8000
) -> Rendered:
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir))
    url = page.resolve().as_uri()
    common = [
        chromium,
        *FLAGS,
        f"--user-data-dir={profile}",
        f"--virtual-time-budget={budget_ms}",
        f"--window-size={width},{height}",
    ]
    dom = subprocess.run(
        [*common, "--enable-logging=stderr", "--v=0", "--dump-dom", url], capture_output=True, text=True, timeout=180
    )
    shot = workdir / "screenshot.png"
    subprocess.run([*common, f"--screenshot={shot}", url], capture_output=True, text=True, timeout=180)
    return Rendered(dom=dom.stdout, console=dom.stderr, screenshot=shot)
