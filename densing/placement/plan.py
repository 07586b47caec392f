"""``densing measure``'s first step: every input checked before any evaluation (:func:`plan`), and a Hub id's local
copy checked where the Hub is offline (:func:`check_offline_source`)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from densing.errors import EvalError, InputError

_TRUE = {"1", "on", "yes", "true"}


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) asks for no Hub access."""
    return any(os.environ.get(name, "").strip().lower() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def check_offline_source(spec) -> None:
    """EvalError when ``spec`` names a Hub id whose files are not in the local cache while the Hub is offline."""
    from densing.eval.loading import check_model_source
    from densing.eval.models import PACKAGE_PREFIX

    check_model_source(spec)  # a missing local path or GGUF file, an uninstalled package
    if spec.model.startswith(PACKAGE_PREFIX) or Path(spec.model).expanduser().exists() or not hub_offline():
        return
    from huggingface_hub import try_to_load_from_cache

    wanted = spec.gguf_file or "config.json"
    try:
        found = try_to_load_from_cache(spec.model, wanted, revision=spec.revision)
    except Exception:  # an id the Hub client rejects (two slashes, odd characters)
        found = None
    if not isinstance(found, str):
        raise EvalError(f"model {spec.name!r}: {spec.model}: no local copy of {wanted} and HF_HUB_OFFLINE is set "
                        "(download it first, or give a local path)")


@dataclass(frozen=True)
class Plan:
    """What :func:`measure` will run, every input checked."""

    specs: tuple
    suite: str
    benchmarks: tuple[str, ...]
    left_out: tuple[str, ...]
    limit: float | None
    data_root: Path | None


def plan(models, suite: str, *, limit: float | None = None, local_data: bool = False,
         data_root: str | Path | None = None, backend: str = "hf", device: str | None = None,
         store: str | Path | None = None) -> Plan:
    """Check every input of :func:`measure` (docs/measure.md, step 1) without evaluating anything.

    A model with a part in ``store`` for each of the suite's benchmarks has its source checked by the sweep instead,
    once the parts' config hashes are read (still before anything is evaluated): a model whose pairs are all in the
    store is not needed, and need not be installed."""
    from densing.eval.benchmarks import PUBLIC_TABLE_BENCHMARKS, suite_benchmarks, suite_table
    from densing.eval.loading import SWEEP_CONSTRAINTS
    from densing.eval.runner import as_model_specs
    from densing.paths import RESULTS
    from densing.validation import validate

    if not isinstance(models, (str, Path, list, tuple)):
        raise InputError(f"models: expected a models file or a list of model specs, got {models!r}")
    if isinstance(models, (str, Path)) and not Path(models).is_file():
        raise InputError(f"{models}: no such models file")
    specs = as_model_specs(models)
    if not isinstance(suite, str):
        raise InputError(f"suite: expected a suite name, got {suite!r}")
    names, left_out = suite_benchmarks(suite.strip(), local_data=local_data)
    validate({k: SWEEP_CONSTRAINTS[k] for k in ("limit", "device")}, limit=limit, device=device)
    from densing.eval.store import part_path

    for spec in specs:  # before the backend's name, which imports lm-eval (seconds) to read its registry
        if store is None or not all(part_path(store, spec.name, name).is_file() for name in names):
            check_offline_source(spec)
    validate({"backend": SWEEP_CONSTRAINTS["backend"]}, backend=backend)
    root = None
    if local_data:
        from densing.paths import SHARED_DATA

        root = Path(data_root if data_root is not None else SHARED_DATA)
        if not (root / "benchmarks").is_dir():
            raise InputError(f"{root}: --data-root has no benchmarks/ folder (the local benchmark splits)")
    table = suite_table(suite.strip())
    if not table.is_file():  # a suite of another table than the public one (SUITE_TABLES) needs that table shipped
        raise InputError(f"--suite {suite.strip()}: its target table results/{table.relative_to(RESULTS).as_posix()} "
                         "is not shipped, so there is no table to place the models against")
    # the headline is measured on the first benchmark set that rule v3 gives a reference (the table's sets)
    from densing.registry import table_for_path as for_path

    inverted = {b for _, members in for_path(table).sets.values() for b in members}
    if not inverted & {PUBLIC_TABLE_BENCHMARKS[b] for b in names}:
        raise InputError(f"--suite {suite.strip()}: none of its benchmarks ({', '.join(names)}) is in a benchmark set the "
                         f"headline is measured on ({', '.join(sorted(inverted))}), so no score could be inverted")
    return Plan(tuple(specs), suite.strip(), tuple(names), tuple(left_out), None if limit is None else float(limit), root)
