"""Drive a real headless Chromium (Debian's `chromium`) for report tests.

``ensure_chromium()`` installs Debian's package where it is missing (as root, non-interactive) and
returns its path, or None with the reason when it cannot be had. ``render(page)`` loads a file,
lets its scripts run, and returns the DOM after they ran, the console log and a screenshot.
"""
from __future__ import annotations

import os
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


def ensure_chromium() -> tuple[str | None, str]:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found, ""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None, "chromium is not installed and this user cannot apt-get install it"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, check=True, capture_output=True, timeout=900)
    except (subprocess.SubprocessError, OSError) as exc:
        return None, f"apt-get install chromium failed: {exc}"
    found = shutil.which("chromium")
    return (found, "") if found else (None, "chromium still missing after apt-get install")


@dataclass
class Rendered:
    dom: str
    console: str
    screenshot: Path


def render(chromium: str, page: Path, workdir: Path, *, width: int = 1280, height: int = 4000, budget_ms: int = 8000) -> Rendered:
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir))
    url = page.resolve().as_uri()
    common = [chromium, *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}", f"--window-size={width},{height}"]
    dom = subprocess.run(
        [*common, "--enable-logging=stderr", "--v=0", "--dump-dom", url], capture_output=True, text=True, timeout=180
    )
    shot = workdir / "screenshot.png"
    subprocess.run([*common, f"--screenshot={shot}", url], capture_output=True, text=True, timeout=180)
    return Rendered(dom=dom.stdout, console=dom.stderr, screenshot=shot)
