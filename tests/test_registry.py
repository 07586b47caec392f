"""Every extension point is a :class:`densing.registry.Registry`: an unknown name is one InputError of one shape,
a duplicate one RegistryError, and a new entry is found by name (and put back afterwards)."""

import re
from dataclasses import replace

import pytest

from densing.errors import InputError, RegistryError
from densing.registry import Registry


def _rules():
    from densing.trend import rules

    return rules.RULES, rules.register, rules.get, replace(rules.RULES["quantile"], name="quantile_copy")


def _tables():
    from densing import registry

    return (
        registry.TABLES,
        registry.register_table,
        registry.table,
        replace(registry.leading_table(), name="public_copy", leads=False),
    )


def _strategies():
    from densing.overlap.strategies import registry

    return registry._REGISTRY, registry.register, registry.get, replace(registry.get("sync"), name="sync_copy")


def _data_formats():
    from densing.data import formats

    return (
        formats.FORMATS,
        formats.register_format,
        formats.FORMATS.get,
        replace(formats.FORMATS["table"], name="table_copy", sniff=lambda p: False),
    )


def _output_formats():
    from densing.cli import output

    def write(frame, **_):
        return None

    write.name = "write_copy"
    return output.OUTPUTS, lambda w: output.OUTPUTS.register(w.name, w), output.OUTPUTS.get, write


def _benchmarks():
    from densing.eval import benchmarks

    known = benchmarks.KNOWN_BENCHMARKS
    return known, benchmarks.register, known.get, replace(known.get("mmlu"), name="mmlu_copy")


def _benchmark_records():
    from densing.data import benchmarks

    return (
        benchmarks.BENCHMARKS,
        benchmarks.register,
        benchmarks.BENCHMARKS.get,
        replace(benchmarks.BENCHMARKS.get("sciq"), name="sciq_copy"),
    )


def _backends():
    import densing.eval.backends.hf  # noqa: F401  (the records of lm-eval's HF names; no lm-eval import)
    from densing.eval.backends import BACKENDS, Backend

    return BACKENDS, lambda b: BACKENDS.register(b.name, b), BACKENDS.get, Backend("hf_copy")


REGISTRIES = {
    "frontier rules": _rules,
    "target tables": _tables,
    "overlap strategies": _strategies,
    "data formats": _data_formats,
    "output formats": _output_formats,
    "benchmarks": _benchmarks,
    "benchmark records": _benchmark_records,
    "evaluation backends": _backends,
}


@pytest.fixture(params=list(REGISTRIES))
def registry(request):
    return REGISTRIES[request.param]()


def test_each_is_a_registry(registry):
    assert isinstance(registry[0], Registry)


def test_an_unknown_name_is_one_input_error_naming_the_known_ones(registry):
    reg, _, get, _ = registry
    with pytest.raises(InputError) as caught:
        get("no_such_name")
    assert not isinstance(caught.value, RegistryError)
    message = str(caught.value)
    assert re.fullmatch(rf"{re.escape(reg.what)}: expected one of .+, got 'no_such_name'", message)
    assert "\n" not in message and ", ".join(reg.names()) in message


def test_a_duplicate_is_a_registry_error(registry):
    reg, register, _, item = registry
    name = item.name
    register(item)
    try:
        with pytest.raises(RegistryError, match=f"{re.escape(reg.what)}: '{name}' is already registered"):
            register(item)
        assert reg.names().count(name) == 1
    finally:
        reg.unregister(name)
    assert name not in reg


def test_a_new_entry_is_found_by_name(registry):
    reg, register, get, item = registry
    before = reg.names()
    assert register(item) is item
    try:
        assert get(item.name) is item and item.name in reg.names()
        assert set(reg) == set(before) | {item.name}
    finally:
        reg.unregister(item.name)
    assert reg.names() == before


def test_a_registry_keeps_registration_order_and_can_put_one_first():
    reg = Registry("thing", [("b", 2), ("a", 1)])
    reg.register("c", 3)
    reg.register("z", 0, first=True)
    assert list(reg) == ["z", "b", "a", "c"] == list(reg.names()) and list(reg.values()) == [0, 2, 1, 3]
    assert reg.get("a") == 1 and reg["c"] == 3 and len(reg) == 4 and "b" in reg
    with pytest.raises(InputError, match=r"^thing: expected one of z, b, a, c, got 'y'$"):
        reg.get("y")
    with pytest.raises(RegistryError, match=r"^thing: 'a' is already registered$"):
        reg.register("a", 5)
    assert isinstance(RegistryError("x"), ValueError)


def test_resolve_table_is_the_one_way_from_a_path_or_a_name_to_the_table_measured(tmp_path):
    """A name reads its table's file; a registered file is its table, whichever way the path is written; any other file
    is read by the leading table unless a name is given; a TrendTable passes as it is."""
    from pathlib import Path

    from densing import registry

    leading = registry.leading_table()
    assert registry.resolve_table() == (leading, leading.path)
    for found in registry.tables().values():
        assert registry.resolve_table(table=found.name) == (found, found.path)
        assert registry.resolve_table(table=found) == (found, found.path)
        relative = Path(found.path).relative_to(Path.cwd()) if found.path.is_relative_to(Path.cwd()) else found.path
        for written in (found.path, str(found.path), relative):
            assert registry.resolve_table(written).table is found
    copy = tmp_path / "copy.csv"
    assert registry.resolve_table(copy) == (leading, copy)
    assert registry.resolve_table(copy, "openllm_v2") == (registry.table("openllm_v2"), copy)
    assert registry.resolve_table(leading.path, "openllm_v2").table.name == "openllm_v2"  # the name decides


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (
            {"table": "openllm_v3"},
            r"^--table: expected one of public, openllm_v2, swallow, swallow_2026, got 'openllm_v3'$",
        ),
        ({"table": 2}, r"^--table: expected a table's name, one of .*, got 2$"),
        ({"results": ""}, r"^results: an empty path"),
        ({"results": 3.5}, r"^results: expected a path"),
    ],
)
def test_resolve_table_refuses_what_is_no_table_in_one_line(kwargs, message):
    from densing import registry

    with pytest.raises(InputError, match=message):
        registry.resolve_table(**kwargs)


def test_a_table_resolved_once_is_handed_down_as_it_is():
    """A function given ``target`` (a command's one resolution of its table) reads that table as it is; given a name
    or a path instead, it resolves them; given both, or a ``target`` that is no resolved table, it refuses in one
    line."""
    from densing import registry

    resolved = registry.resolve_table(table="openllm_v2")
    assert registry.given_or_resolved(resolved) is resolved
    assert registry.given_or_resolved(None, table="openllm_v2") == resolved
    assert registry.given_or_resolved(None) == registry.resolve_table()
    with pytest.raises(InputError, match=r"^target: a table resolved already .*; give one or the other$"):
        registry.given_or_resolved(resolved, table="public")
    with pytest.raises(InputError, match=r"^target: expected a table resolved by .*, got 'openllm_v2'$"):
        registry.given_or_resolved("openllm_v2")
