"""densing.results: the base every result type stands on — to_dict, to_frame, summary, _repr_html_."""

import math
from dataclasses import dataclass

import densing.present as present
from densing import paths
from densing.results import Result


@dataclass(frozen=True)
class _Planted(Result):
    name: str
    months: float
    params: float
    draws: tuple = ()
    _dict_exclude = ("draws",)


def test_the_base_gives_json_a_row_text_and_html_without_the_bulky_fields():
    result = _Planted("quantile", math.nan, 7.0e9, draws=tuple(range(1000)))
    assert result.to_dict() == {"name": "quantile", "months": None, "params": 7.0e9}
    assert list(result.to_frame().columns) == ["name", "months", "params"] and math.isnan(
        result.to_frame()["months"][0]
    )
    text = str(present.summary(result))
    assert text.splitlines() == ["_Planted", "  name    quantile", "  months  —", "  params  7×10⁹"]
    assert "draws" not in text and "draws" not in result._repr_html_()


def test_every_fit_and_trend_result_type_stands_on_the_base():
    from densing.designs.olmes.trend import OlmesTrend
    from densing.laws.fit_schema import StageFit
    from densing.laws.joint import JointInversion
    from densing.laws.reference_fit import ReferenceFit
    from densing.trend.corollaries import CostHalvingFit
    from densing.trend.measurement import Breakpoint, Segment, TrendMeasurement
    from densing.trend.uncertainty import TrendUncertainty

    for kind in (
        StageFit,
        ReferenceFit,
        CostHalvingFit,
        TrendUncertainty,
        Segment,
        Breakpoint,
        TrendMeasurement,
        OlmesTrend,
        JointInversion,
    ):
        assert issubclass(kind, Result), kind
    fit = ReferenceFit.load(paths.REFERENCE_FITS / "family_llama-3.1_mmlu.json")
    table = fit.to_frame()  # its own shape: one row per parameter with its interval
    assert sorted(table["parameter"]) == sorted(fit.params) and set(table["benchmark"]) == {"mmlu"}
    assert "D0 = 15T tokens" in fit._repr_html_() and "e+" not in repr(fit) and len(fit._repr_html_()) < 20_000
    stage = fit.stages[-1]
    assert "r_squared" in str(present.summary(stage)) and "residuals" not in stage.to_frame().columns
