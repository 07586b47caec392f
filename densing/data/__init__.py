"""Tidy results tables: schema, validation and readers."""

from densing.data.formats import read_reference_data, read_results
from densing.data.readers import read_lm_eval_json, read_pythia_evals, read_table, write_table
from densing.data.schema import validate_results
from densing.numbers import parse_count

__all__ = [
    "parse_count",
    "read_lm_eval_json",
    "read_pythia_evals",
    "read_reference_data",
    "read_results",
    "read_table",
    "validate_results",
    "write_table",
]
