"""Members brought to one training budget D0 through a stated loss law (densing.laws.forms)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from densing.errors import InputError
from densing.laws.forms import BESIROGLU_2024, HOFFMANN_2022, LOSS_LAWS, translate_members


def _log_uniform(low_exponent, high_exponent):
    return st.floats(low_exponent, high_exponent).map(lambda exponent: 10.0**exponent)


@settings(max_examples=200, deadline=None)
@given(
    params=_log_uniform(7, 12),
    tokens=_log_uniform(9, math.log10(2e13)),
    d0_tokens=_log_uniform(10, 13),
    law=st.sampled_from(list(LOSS_LAWS.values())),
)
def test_translated_size_reaches_the_members_loss_at_d0(params, tokens, d0_tokens, law):
    """The planted law: N' on D0 tokens reaches the loss N reaches on D, or no size does."""
    size = float(law.size_at(params, tokens, d0_tokens))
    member_loss = float(law.loss(params, tokens))
    if math.isnan(size):
        assert member_loss <= law.E + law.B * d0_tokens**-law.beta
    else:
        assert float(law.loss(size, d0_tokens)) == pytest.approx(member_loss, rel=1e-9)


@pytest.mark.parametrize("law", [HOFFMANN_2022, BESIROGLU_2024])
def test_same_budget_keeps_the_size_and_more_data_shrinks_it(law):
    params = np.array([1e8, 1e9, 7e9, 7e10])
    tokens = np.array([3e11, 1e12, 2e12, 1.4e12])
    same_budget, reasons = translate_members(params, 1e12, 1e12, law)
    assert same_budget == pytest.approx(params, rel=1e-12) and reasons == []
    larger_budget = law.size_at(params, tokens, 1e13)
    assert np.all(larger_budget < params)


@pytest.mark.parametrize("law", [HOFFMANN_2022, BESIROGLU_2024])
def test_size_is_monotone_in_params(law):
    params = np.logspace(7, 12, 50)
    sizes = law.size_at(params, 3e11, 1e12)
    assert np.all(np.isfinite(sizes)) and np.all(np.diff(sizes) > 0)


def test_no_solution_is_nan_with_a_reason_naming_the_member():
    params = [1e8, 1e9, 7e10]
    tokens = [2e11, 1e12, 2e13]  # member 2: 70B on 20T tokens, a loss no size reaches on 1e11 tokens
    from densing.present.words import unreachable_words

    sizes, unreachable = translate_members(params, tokens, 1e11)
    assert np.isfinite(sizes[:2]).all() and math.isnan(sizes[2])
    assert [(u.member, u.params, u.tokens, u.d0) for u in unreachable] == [(2, 7e10, 2e13, 1e11)]  # values
    said = unreachable_words(unreachable[0])  # the words are densing.present.words'
    assert said.startswith("member 2 (N = 70B, D = 20T): its loss ")
    assert "D0 = 100B" in said
    floor = HOFFMANN_2022.E + HOFFMANN_2022.B * 1e11**-HOFFMANN_2022.beta
    assert float(HOFFMANN_2022.loss(7e10, 2e13)) <= floor


def test_members_with_a_solution_carry_no_reason():
    sizes, reasons = translate_members([1e9, 7e9], 1e12, 1e12)
    assert sizes == pytest.approx([1e9, 7e9], rel=1e-12) and reasons == []


@pytest.mark.parametrize("bad", [0.0, -1e9, float("nan"), float("inf")])
@pytest.mark.parametrize("field", ["params", "tokens", "d0"])
def test_bad_inputs_raise_an_input_error_naming_the_field(field, bad):
    arguments = {"params": [1e9, 7e9], "tokens": [1e12, 2e12], "d0": 1e12}
    arguments[field] = bad if field == "d0" else [1e9, bad]
    with pytest.raises(InputError, match=f"'{field}'"):
        translate_members(arguments["params"], arguments["tokens"], arguments["d0"])


def test_mismatched_shapes_and_text_raise_an_input_error():
    with pytest.raises(InputError, match="'params' and 'tokens'"):
        HOFFMANN_2022.size_at([1e9, 7e9], [1e12, 2e12, 3e12], 1e12)
    with pytest.raises(InputError, match="'params'"):
        HOFFMANN_2022.size_at(["7B"], 1e12, 1e12)
    with pytest.raises(InputError, match="'d0'"):
        HOFFMANN_2022.size_at(1e9, 1e12, [1e12, 2e12])


def test_published_constants_and_their_sources():
    assert (HOFFMANN_2022.E, HOFFMANN_2022.A, HOFFMANN_2022.B, HOFFMANN_2022.alpha, HOFFMANN_2022.beta) == (
        1.69,
        406.4,
        410.7,
        0.34,
        0.28,
    )
    assert (BESIROGLU_2024.E, BESIROGLU_2024.A, BESIROGLU_2024.B, BESIROGLU_2024.alpha, BESIROGLU_2024.beta) == (
        1.8172,
        482.01,
        2085.43,
        0.3478,
        0.3658,
    )
    assert "2203.15556" in HOFFMANN_2022.source and "2404.10102" in BESIROGLU_2024.source
    assert LOSS_LAWS == {"hoffmann_2022": HOFFMANN_2022, "besiroglu_2024": BESIROGLU_2024}
