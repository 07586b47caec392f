"""``--d0`` of ``densing trend`` (either design) and ``densing report``: a positive number of tokens up to
MAX_D0_TOKENS, refused in one line before any table is read or any file written."""

from __future__ import annotations

import pytest

from densing.cli import main
from densing.errors import InputError

BAD_D0 = ["1e30", "1e16", "0", "-5", "nan", "inf", "lots"]
COMMANDS = {
    "trend --design olmes": ["trend", "--design", "olmes"],
    "trend --design leaderboard": ["trend", "--results", "{tmp}/absent.csv"],
    "report": ["report", "--out", "{tmp}/report.html", "--results", "{tmp}/absent.csv"],
}


@pytest.mark.parametrize("d0", BAD_D0)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_d0_outside_its_domain_is_one_line_and_leaves_nothing_behind(tmp_path, capsys, monkeypatch, command, d0):
    import densing.designs.olmes.trend as olmes

    def no_work(*args, **kwargs):
        raise AssertionError("the OLMES design ran before --d0 was checked")

    monkeypatch.setattr(olmes, "measure_olmes", no_work)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command]] + ["--d0", d0]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert "d0" in err and "absent" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_measure_olmes_refuses_it_before_reading_its_tables():
    from densing.designs.olmes.trend import measure_olmes

    with pytest.raises(InputError, match="^d0: "):
        measure_olmes(d0=1e30, results_dir="absent")
