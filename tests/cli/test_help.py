"""Every command's --help exits 0, shows no type on flags and keeps default paths whole."""

from __future__ import annotations

import pytest

COMMANDS = [
    [],
    ["fit"],
    ["convert"],
    ["validate"],
    ["density"],
    ["trend"],
    ["report"],
    ["measure"],
    ["eval"],
    ["eval", "ingest"],
    ["overlap"],
    ["overlap", "analyze"],
    ["overlap", "skew"],
    ["overlap", "compare"],
    ["overlap", "whatif"],
    ["overlap", "run"],
    ["overlap", "validate"],
    ["overlap", "convergence"],
    ["ladder"],
    ["ladder", "fit"],
    ["ladder", "check"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "densing")
def test_help_exits_zero(run_cli, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "60")
    code, out, err = run_cli(*command, "--help")
    assert code == 0, err
    assert "Usage: densing" in out
    assert "<bool>" not in out
    assert "…" not in out  # nothing cut


def test_help_keeps_paths_and_documents_d0(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    _, out, _ = run_cli("density", "--help")
    assert "results/public_models.csv" in out
    _, out, _ = run_cli("report", "--help")
    assert "--d0" in out and "Tokens D0" in out
    _, out, _ = run_cli("validate", "--help")
    assert "3e9" in out


@pytest.mark.parametrize(
    "command",
    [[], ["fit"], ["trend"], ["eval"], ["overlap", "run"], ["ladder", "check"]],
    ids=lambda c: " ".join(c) or "densing",
)
def test_help_imports_no_heavy_module(command):
    import subprocess
    import sys

    code = (
        "import sys; from densing.cli import main\n"
        f"try:\n    main({command + ['--help']!r})\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('pandas', 'numpy', 'scipy', 'statsmodels', 'plotly', 'torch', 'lm_eval', "
        "'transformers', 'densing.eval', 'densing.laws', 'densing.trend', 'densing.overlap', 'rich') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "", f"imported for --help: {out.splitlines()[-1]}"


@pytest.mark.parametrize("command", [["fit"], ["overlap", "validate"], ["eval"], ["ladder", "check"]], ids=" ".join)
def test_fast_help_matches_typer(capsys, command):
    """main() prints --help from the command tree; it is the same text typer prints after parsing."""
    from densing.cli import main
    from densing.cli.app import app

    main([*command, "--help"])
    fast = capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        app(args=[*command, "--help"], prog_name="densing")
    assert exit_info.value.code == 0
    assert fast == capsys.readouterr().out and fast.startswith("Usage: densing " + " ".join(command))


@pytest.mark.parametrize(
    "command, words",
    [
        (["overlap", "analyze"], "A trace file (.json/.json.gz)"),
        (["eval", "ingest"], "Directory of lm-eval outputs"),
    ],
)
def test_positional_arguments_keep_their_help(run_cli, command, words):
    """Each positional argument with help text shows it once under 'Arguments' (click 8.5 erased it)."""
    code, out, _ = run_cli(*command, "--help")
    assert code == 0 and out.count("Arguments:") <= 1 and "Positional arguments:" not in out
    assert words in out


def _commands_of(command, path=()):
    """(path, click command) for the typer app and every command below it."""
    import click

    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands_of(sub, (*path, name))


def test_every_option_says_what_it_does():
    """Walks the whole typer app: every visible option of every command has a description; every --format and
    --seed says the same thing everywhere it is; --format lists its choices; --limit says it is a count."""
    import click
    import typer

    from densing.cli.app import app

    tree = list(_commands_of(typer.main.get_command(app)))
    options = [(path, p) for path, c in tree for p in c.params if isinstance(p, click.Option) and not p.hidden]
    assert len(tree) > 20 and len(options) > 150
    missing = [f"densing {' '.join(path)} {p.opts[0]}" for path, p in options if not (p.help or "").strip()]
    assert not missing, missing
    formats = [(path, p) for path, p in options if "--format" in p.opts]
    assert len({p.help for _, p in formats}) == 1 and len(formats) > 15
    for path, option in formats:
        choices = option.type.choices if isinstance(option.type, click.Choice) else option.metavar
        assert choices is not None and all(f in str(choices) for f in ("table", "json", "csv")), path
    seeds = [p for path, p in options if "--seed" in p.opts]
    assert seeds and all("seed" in p.help.lower() for p in seeds)
    for path, option in options:
        if "--limit" in option.opts:
            assert option.metavar == "N" and "at most n items" in option.help.lower(), path


@pytest.mark.parametrize("command", [["eval"], ["measure"]], ids=" ".join)
def test_limit_and_format_read_as_what_they_take(run_cli, command):
    code, out, _ = run_cli(*command, "--help")
    assert code == 0 and "--limit N" in out and "--limit FLOAT" not in out
    if command == ["eval"]:
        assert "--format [table|json|csv]" in out


@pytest.mark.parametrize("group", [[], ["eval"], ["overlap"], ["ladder"]], ids=lambda c: " ".join(c) or "densing")
def test_group_help_gives_each_command_its_whole_summary(run_cli, monkeypatch, group):
    """No summary is cut with "..." (click's cut of a summary it makes itself); ``densing --help`` opens with a quick
    start of four lines, each a command that exists with the options it shows, one of them on the second table."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(*group, "--help")
    assert code == 0 and "..." not in out.split("Commands:", 1)[-1]
    if not group:
        start = out.split("Quick start:", 1)[1].split("\n\n", 1)[0].splitlines()
        lines = [line.split() for line in start if line.strip().startswith("densing ")]
        assert len(lines) == 4 and ["densing", "trend", "--table", "openllm_v2"] in [words[:4] for words in lines]
        for words in lines:
            code, shown, _ = run_cli(words[1], "--help")
            assert code == 0 and all(w in shown for w in words[2:] if w.startswith("--")), words
