"""A fake lm-eval model registered as ``densing-test-fake`` (one module, so that it is registered once however many
test files use it): deterministic answers, no model behind them."""

from __future__ import annotations

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

NAME = "densing-test-fake"


@register_model(NAME)
class FakeLM(LM):
    """Deterministic answers with no model behind them: a continuation's log-likelihood is minus its length (and
    minus ``answer_nats`` more, from the models file's ``model_args``: a model as weak as wished), every generation
    is " five"."""

    made: list[dict] = []

    def __init__(self, **arguments) -> None:
        super().__init__()
        FakeLM.made.append(arguments)
        self.answer_nats = float(arguments.get("answer_nats", 0))

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return [(-self.answer_nats - float(len(request.args[1])), False) for request in requests]

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        return [-float(len(request.args[0])) for request in requests]

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [" five" for _ in requests]


def fake_models_file(tmp_path, model_args: str = "{temperature: 0}"):
    """A models file of one model, ``fake``, that the fake backend answers for (``model_args``: its YAML mapping)."""
    path = tmp_path / "models.yaml"
    path.write_text(
        f"models:\n  - name: fake\n    model: org/fake-model\n    params: 1.2e8\n    model_args: {model_args}\n"
    )
    return path
