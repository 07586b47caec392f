"""Every output path is created or replaced only where it names a regular file or nothing (:mod:`densing.io`).

A directory, a named pipe, a socket and a device are refused in one line (exit 2 from the command line) before any
work; a symbolic link is written through (the file it points to is replaced, the link stays); a name longer than the
file system takes is refused in one line. Run as root too, where a device node could be replaced."""

from __future__ import annotations

import os
import socket
import stat
import sys
import time

import pytest

from densing.errors import InputError
from densing.io import atomic_write_text, check_writable, check_writable_folder, write_file_set

pytestmark = pytest.mark.skipif(sys.platform.startswith("win"), reason="named pipes and sockets")


@pytest.fixture
def specials(tmp_path):
    """A folder holding one of each thing that is not a regular file, and links to them."""
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    os.symlink(tmp_path / "pipe", tmp_path / "link-to-pipe")
    os.symlink(tmp_path / "folder", tmp_path / "link-to-folder")
    os.symlink(tmp_path / "loop-a", tmp_path / "loop-b")
    os.symlink(tmp_path / "loop-b", tmp_path / "loop-a")
    yield tmp_path
    sock.close()


REFUSED = {
    "pipe": "is a named pipe",
    "sock": "is a socket",
    "folder": "is a directory",
    "link-to-pipe": "is a named pipe",
    "link-to-folder": "is a directory",
    "loop-a": "Too many levels of symbolic links",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_is_not_a_regular_file_is_refused_and_left_as_it_was(name, specials):
    path = specials / name
    kind = os.lstat(path).st_mode
    with pytest.raises(InputError, match=REFUSED[name]) as exc:
        atomic_write_text(path, "text")
    assert "\n" not in str(exc.value) and str(path) in str(exc.value)
    assert os.lstat(path).st_mode == kind
    assert not [p for p in specials.iterdir() if p.name.endswith(".tmp")]


def _device(folder):
    """A character device node of the machine's null device, made in ``folder`` (root only): a test never aims a write
    at /dev/null itself, which a write that does not check would replace for every process on the machine."""
    if os.geteuid() != 0:
        pytest.skip("making a device node takes root")
    path = folder / "null"
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("no right to make a device node here")
    return path


def test_a_device_is_refused(tmp_path):
    null = _device(tmp_path)
    with pytest.raises(InputError, match="null: is a character device"):
        atomic_write_text(null, "text")
    os.symlink(null, tmp_path / "link")
    with pytest.raises(InputError, match="a link to .*null.*: is a character device"):
        check_writable(tmp_path / "link")
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_a_symbolic_link_is_written_through(tmp_path):
    (tmp_path / "real.html").write_text("old")
    os.symlink("real.html", tmp_path / "latest.html")
    os.symlink("made.html", tmp_path / "dangling.html")
    assert atomic_write_text(tmp_path / "latest.html", "new") == tmp_path / "latest.html"
    assert os.path.islink(tmp_path / "latest.html") and (tmp_path / "real.html").read_text() == "new"
    atomic_write_text(tmp_path / "dangling.html", "made")
    assert os.path.islink(tmp_path / "dangling.html") and (tmp_path / "made.html").read_text() == "made"


def test_a_set_of_files_through_a_link_and_with_a_pipe_in_it(specials):
    (specials / "real.csv").write_text("old")
    os.symlink("real.csv", specials / "a.csv")
    with pytest.raises(InputError, match="pipe: is a named pipe"):
        write_file_set(specials, {"a.csv": "new", "pipe": "x"})
    assert (specials / "real.csv").read_text() == "old"  # none of the set was written
    write_file_set(specials, {"a.csv": "new", "b.csv": "b"})
    assert os.path.islink(specials / "a.csv") and (specials / "real.csv").read_text() == "new"
    assert not [p for p in specials.iterdir() if p.name.endswith(".tmp")]


def test_names_too_long_are_refused_in_one_line_and_the_longest_allowed_is_written(tmp_path):
    for path in (tmp_path / ("x" * 300), tmp_path / ("d" * 256) / "out.csv", tmp_path / ("é" * 130)):
        with pytest.raises(InputError, match="name of .* bytes; the file system takes at most 255"):
            atomic_write_text(path, "text")
        with pytest.raises(InputError, match="at most 255"):
            check_writable_folder(path)
    longest = tmp_path / ("y" * 255)
    atomic_write_text(longest, "text")  # its temporary file's name is cut to fit
    assert longest.read_text() == "text" and [p.name for p in tmp_path.iterdir()] == [longest.name]
    deep = tmp_path.joinpath(*["z" * 250] * 17, "out.csv")
    with pytest.raises(InputError, match="a path of .* bytes"):
        check_writable(deep)


def test_a_folder_output_that_is_a_pipe_is_refused(specials):
    with pytest.raises(InputError, match="exists and is not a folder"):
        check_writable_folder(specials / "pipe")


@pytest.mark.parametrize("name", ["pipe", "sock", "folder", "link-to-pipe", "device"])
def test_report_refuses_before_any_work(name, specials, run_cli):
    """``densing report --out`` on each: one line, exit 2, in well under a report's time, nothing replaced."""
    path = _device(specials) if name == "device" else specials / name
    kind = os.lstat(path).st_mode
    started = time.perf_counter()
    code, out, err = run_cli("report", "--out", path)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith(f"error: {path}"), err
    assert time.perf_counter() - started < 5  # refused before the trend is measured (seconds of CPU)
    assert os.lstat(path).st_mode == kind


def test_report_and_convert_refuse_a_name_too_long(tmp_path, run_cli):
    for argv in (
        ("report", "--out", tmp_path / ("r" * 300)),
        ("convert", "--data", tmp_path / "none.csv", "--out", tmp_path / ("c" * 300)),
    ):
        code, out, err = run_cli(*argv)
        assert code == 2 and err.count("\n") == 1 and "at most 255" in err, err


def test_convert_refuses_a_pipe_before_reading(specials, run_cli):
    code, out, err = run_cli("convert", "--data", specials / "no-such-table.csv", "--out", specials / "pipe")
    assert code == 2 and "is a named pipe" in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "argv",
    [
        ["overlap", "run", "{path}", "--strategies", "ddp"],
        ["ladder", "fit", "--data", "{data}", "--out-dir", "{path}"],
        ["ladder", "check", "--data", "{data}", "--out-dir", "{path}"],
    ],
    ids=["overlap run", "ladder fit", "ladder check"],
)
def test_a_folder_output_that_is_a_pipe_or_a_name_too_long_is_one_line(argv, specials, run_cli):
    """Run folders and the ladder's outputs: refused before any work, one line naming the path."""
    from tests.conftest import OLMO_LADDER

    for path, words in ((specials / "pipe", "exists and is not a folder"), (specials / ("r" * 300), "at most 255")):
        code, out, err = run_cli(*[a.format(path=path, data=OLMO_LADDER) for a in argv])
        assert code == 2 and err.count("\n") == 1 and words in err, err
        assert stat.S_ISFIFO(os.lstat(specials / "pipe").st_mode)


#: Every output option of the command line (command path, option name): each makes the folders its path names that
#: are missing, and its help says so.
OUTPUT_OPTIONS = [
    (("report",), "--out"),
    (("fit",), "--out"),
    (("convert",), "--out"),
    (("measure",), "--out"),
    (("measure",), "--csv"),
    (("measure",), "--template"),
    (("eval",), "--out"),
    (("eval", "ingest"), "--out"),
    (("ladder", "fit"), "--out-dir"),
    (("ladder", "check"), "--out-dir"),
    (("overlap", "run"), "OUT"),
]


@pytest.mark.parametrize("path, option", OUTPUT_OPTIONS)
def test_every_output_option_says_that_missing_folders_are_made(path, option):
    import typer.main

    from densing.cli.app import app

    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    found = [p for p in command.params if option in getattr(p, "opts", ()) or p.human_readable_name == option]
    assert len(found) == 1, (path, option)
    assert "missing folders are made" in " ".join(found[0].help.split()), (path, option, found[0].help)


def test_report_out_into_a_missing_folder_makes_it(tmp_path, run_cli):
    page = tmp_path / "site" / "pages" / "report.html"
    code, out, err = run_cli("report", "--out", page, "--n-boot", "40")
    assert code == 0, err
    assert page.is_file() and page.read_text().lstrip().lower().startswith("<!doctype html")
