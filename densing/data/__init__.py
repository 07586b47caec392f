"""Tidy results tables: schema, validation and readers."""
from densing.data.readers import (
    attach_metadata,
    is_pythia_evals,
    read_lm_eval_dir,
    read_lm_eval_json,
    read_pythia_evals,
    read_table,
    write_table,
)
from densing.data.formats import read_reference_data, read_results
from densing.data.schema import COLUMNS, REQUIRED_COLUMNS, validate_results
from densing.numbers import format_count, parse_count, parse_date

__all__ = [
    "COLUMNS",
    "REQUIRED_COLUMNS",
    "attach_metadata",
    "is_pythia_evals",
    "read_reference_data",
    "format_count",
    "parse_count",
    "parse_date",
    "read_lm_eval_dir",
    "read_lm_eval_json",
    "read_pythia_evals",
    "read_results",
    "read_table",
    "validate_results",
    "write_table",
]
