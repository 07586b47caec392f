"""D0 (the reference model's training tokens): positive, finite and at most MAX_D0_TOKENS (1e15), checked before any
data is read; ``densing fit --family`` refuses it (the family law has no data term)."""

from __future__ import annotations

import math

import pytest

from densing.errors import InputError
from densing.validation import D0_TOKENS, MAX_D0_TOKENS, validate
from tests.cli_run import run

BAD_D0 = ["1e30", "1e16", "2e15", "0", "-5", "nan", "inf"]


def refused(tmp_path, capsys, argv):
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert "d0" in err, err
    assert sorted(tmp_path.rglob("*")) == before
    return err


@pytest.mark.parametrize("d0", BAD_D0)
@pytest.mark.parametrize("command", ["fit", "density"])
def test_a_d0_outside_its_domain_is_one_line_before_the_data_is_read(tmp_path, capsys, command, d0):
    # the data do not exist: a D0 checked only after reading them would say so instead
    argv = {
        "fit": [
            "fit",
            "--data",
            str(tmp_path / "absent.csv"),
            "--benchmark",
            "mmlu",
            "--out",
            str(tmp_path / "fit.json"),
        ],
        "density": ["density", "--targets", str(tmp_path / "absent.csv"), "--fit", str(tmp_path / "absent.json")],
    }[command]
    err = refused(tmp_path, capsys, argv + ["--d0", d0])
    assert "absent" not in err


def test_the_largest_d0_is_accepted_and_one_above_it_is_not():
    validate({"d0": [D0_TOKENS]}, d0=MAX_D0_TOKENS)
    validate({"d0": [D0_TOKENS]}, d0=1e12)
    for bad in (MAX_D0_TOKENS * 1.000001, 1e30, 0.0, -1.0, math.nan, math.inf):
        with pytest.raises(InputError, match="^d0: "):
            validate({"d0": [D0_TOKENS]}, d0=bad)


@pytest.mark.parametrize("d0", [2e12, 1e13])
def test_a_family_fit_refuses_a_d0_it_has_no_data_term_for(tmp_path, capsys, d0):
    err = refused(
        tmp_path,
        capsys,
        ["fit", "--data", str(tmp_path / "absent.csv"), "--benchmark", "mmlu", "--family", "pythia", "--d0", f"{d0:g}"],
    )
    assert "--family" in err and "no data term" in err


def test_the_library_refuses_it_where_the_law_is_inverted_and_fitted():
    import pandas as pd

    from densing.laws.density import compute_density
    from densing.laws.reference import fit_reference
    from densing.laws.reference_fit import ReferenceFit
    from densing.paths import REFERENCE_FITS

    fit = ReferenceFit.load(sorted(REFERENCE_FITS.glob("pythia_*.json"))[0])
    with pytest.raises(InputError, match="^d0: "):
        fit.effective_params([0.5], d0=1e30)
    with pytest.raises(InputError, match="^d0: "):
        compute_density(pd.DataFrame(), [fit], d0=1e30)
    with pytest.raises(InputError, match="^d0: "):
        fit_reference(pd.DataFrame(), "mmlu", d0=1e30)
