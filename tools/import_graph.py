"""The package-level import graph of densing: packages, edges, circles, imports up the pipeline, private names.

    python tools/import_graph.py [ROOT]          # ROOT: a checkout's root (default this one)

Every ``import``/``from … import`` anywhere in a module counts (a lazy import inside a function
is an edge all the same: it is where the hidden loops live). A *package* is a subpackage of
``densing`` (``densing.laws``), or a top-level module (``densing.errors``). Printed:

- packages (with their modules and lines) and the package-to-package edges, with how many imports make each;
- circles: strongly connected sets of packages, and of modules;
- upward imports: the pipeline runs data → laws → trend → designs → placement → present → report, with eval and
  overlap beside it and cli on top; the designs (densing/designs, one folder each) hold what each design computes,
  and its section and its printing stand in report and cli; the shared base (errors, paths, io,
  validation, results, the private helpers) under all. The presentation layer (present) stands above every result it
  renders, and nothing under it imports it.
  An import is upward when its target stands later in the pipeline than its source, when the
  base imports a package, when anything but cli imports cli, or when eval/overlap and the
  pipeline import each other (allowed: eval → data, as eval writes the results data reads, and
  report → overlap, as the report is the page of both branches: it lays out overlap's figures, and
  placement → eval, as placement evaluates a user's models and places them against the trend);
- private names imported across packages: ``from densing.a.b import _x`` (or ``mod._x`` on an
  imported module) where the importer lives in another package.

:func:`graph` returns the same as a dict, which ``tests/test_import_graph.py`` checks.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

#: Pipeline rank; the base (rank 0) may be imported by all, cli (rank 9) by none. The designs (densing/designs, one
#: folder each) hold what a design computes and read data, laws and trend; what a design shows stands above them, in
#: report (its section) and cli (its printing).
PIPELINE = {"data": 1, "laws": 2, "trend": 3, "designs": 4, "placement": 5, "present": 6, "report": 7}
BESIDE = {"eval", "overlap"}
#: Imports between the pipeline and the packages beside it that are allowed (source, target).
ALLOWED_ACROSS = {("eval", "data"), ("report", "overlap"), ("placement", "eval")}


def _modules(root: Path) -> dict[str, Path]:
    top = root / "src" if (root / "src" / "densing").is_dir() else root  # the src layout, or a flat tree
    base = top / "densing"
    out = {}
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(top).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "densing"


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The longest densing module that ``name`` starts with."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def graph(root: Path) -> dict:
    modules = _modules(root)
    module_edges: dict[tuple[str, str], int] = defaultdict(int)
    private: list[str] = []
    lines = {}
    for module, path in modules.items():
        source = path.read_text()
        lines[module] = source.count("\n")
        tree = ast.parse(source)
        is_package = path.name == "__init__.py"
        aliases: dict[str, str] = {}  # local name → densing module it names
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _target(alias.name, modules)
                    if target:
                        targets.append(target)
                        if alias.asname:
                            aliases[alias.asname] = target
            elif isinstance(node, ast.ImportFrom):
                origin = _resolve(module, is_package, node)
                if not origin.startswith("densing"):
                    continue
                for alias in node.names:
                    submodule = _target(f"{origin}.{alias.name}", modules)
                    target = submodule or _target(origin, modules)
                    if not target:
                        continue
                    targets.append(target)
                    if submodule == f"{origin}.{alias.name}":
                        aliases[alias.asname or alias.name] = submodule
                    elif (
                        alias.name.startswith("_")
                        and not alias.name.startswith("__")
                        and package_of(target) != package_of(module)
                    ):
                        private.append(f"{module} imports {target}.{alias.name}")
            for target in targets:
                if target != module:
                    module_edges[(module, target)] += 1
        for node in ast.walk(tree):  # mod._x on a module imported from another package
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and package_of(aliases[node.value.id]) != package_of(module)
            ):
                private.append(f"{module} uses {aliases[node.value.id]}.{node.attr}")
    package_edges: dict[tuple[str, str], int] = defaultdict(int)
    for (a, b), n in module_edges.items():
        pa, pb = package_of(a), package_of(b)
        if pa != pb and pb != "densing":
            package_edges[(pa, pb)] += n
    packages = sorted({package_of(m) for m in modules})
    return {
        "packages": {
            p: (sum(1 for m in modules if package_of(m) == p), sum(lines[m] for m in modules if package_of(m) == p))
            for p in packages
        },
        "edges": dict(sorted(package_edges.items())),
        "package_cycles": _cycles(packages, package_edges),
        "module_cycles": _cycles(sorted(modules), module_edges),
        "upward": sorted(f"{a} -> {b} ({n})" for (a, b), n in package_edges.items() if _upward(a, b)),
        "private": sorted(set(private)),
        "lines": lines,
    }


def _rank(package: str) -> int | None:
    if package == "cli":
        return 9
    if package in PIPELINE:
        return PIPELINE[package]
    if package in BESIDE:
        return None
    return 0  # the shared base: errors, paths, io, validation, _html, …


def _upward(source: str, target: str) -> bool:
    rs, rt = _rank(source), _rank(target)
    if rt == 0:
        return False
    if target == "cli":
        return source != "cli"
    if rs == 0:
        return True
    if source in BESIDE or target in BESIDE:
        return (
            source != "cli" and (source, target) not in ALLOWED_ACROSS and not (source in BESIDE and target == source)
        )
    return rt > rs


def _cycles(nodes: list[str], edges) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    succ = defaultdict(list)
    for a, b in edges:
        if a != b:
            succ[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out)


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]).resolve()
    g = graph(root)
    print(f"densing import graph of {Path(root).resolve().name}/ (a checkout)")
    print(f"packages: {len(g['packages'])}")
    for p, (n, l) in g["packages"].items():
        print(f"  {p:12s} {n:3d} modules {l:6d} lines")
    print(f"package edges: {len(g['edges'])}")
    for (a, b), n in g["edges"].items():
        print(f"  {a} -> {b} ({n})")
    layers = [(a, b) for (a, b) in g["edges"] if _rank(a) != 0 and _rank(b) != 0]
    print(
        f"edges between the subpackages (data, laws, trend, report, eval, overlap, cli; the base left out): "
        f"{len(layers)}: " + ", ".join(f"{a}->{b}" for a, b in layers)
    )
    print(f"package circles: {len(g['package_cycles'])}")
    for c in g["package_cycles"]:
        print("  " + " <-> ".join(c))
    print(f"module circles: {len(g['module_cycles'])}")
    for c in g["module_cycles"]:
        print("  " + " <-> ".join(c))
    print(f"upward imports: {len(g['upward'])}")
    for u in g["upward"]:
        print("  " + u)
    print(f"private names imported across packages: {len(g['private'])}")
    for p in g["private"]:
        print("  " + p)
    print("largest modules (lines):")
    for m, n in sorted(g["lines"].items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {n:5d} {m}")


if __name__ == "__main__":
    main()
