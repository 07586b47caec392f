"""Models files: YAML and CSV, with one-line errors naming the file, entry and field."""

from __future__ import annotations

import pytest

from densing.errors import InputError
from densing.eval.models import read_models_file


def test_yaml_and_csv_give_the_same_specs(tmp_path):
    (tmp_path / "m.yaml").write_text(
        "models:\n  - name: a\n    model: org/a\n    revision: step1000\n    params: 7B\n"
        "    train_tokens: 2T\n    release_date: 2023-07-18\n  - model: ./b\n"
    )
    (tmp_path / "m.csv").write_text(
        "name,model,revision,params,train_tokens,release_date\na,org/a,step1000,7B,2T,2023-07-18\n,./b,,,,\n"
    )
    from_yaml = read_models_file(tmp_path / "m.yaml")
    assert from_yaml == read_models_file(tmp_path / "m.csv")
    first, second = from_yaml
    assert (first.params, first.train_tokens, first.release_date, first.revision) == (
        7e9,
        2e12,
        "2023-07-18",
        "step1000",
    )
    assert second.name == "./b" and second.params is None and second.dtype == "auto"
    assert not first.trust_remote_code and not second.trust_remote_code


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("models: [\n", "malformed YAML"),
        ("models:\n  - name: x\n", "models[0]: field 'model' is empty"),
        ("models:\n  - model: a\n    params: seven\n", "models[0]: field 'params'"),
        ("models:\n  - model: a\n    dtype: int3\n", "field 'dtype'"),
        ("models:\n  - model: a\n    colour: red\n", "unknown field(s) colour"),
        ("models:\n  - model: a\n  - model: a\n", "appears twice"),
        ("models:\n  - model: a\n    trust_remote_code: maybe\n", "trust_remote_code"),
        ("{}\n", "non-empty list"),
    ],
)
def test_malformed_models_files_name_the_problem(tmp_path, text, fragment):
    path = tmp_path / "models.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_models_file(path)
    message = str(error.value)
    assert fragment in message and str(path) in message and "\n" not in message


def test_trust_remote_code_only_when_asked(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("- model: a\n- model: b\n  trust_remote_code: true\n")
    assert [s.trust_remote_code for s in read_models_file(path)] == [False, True]


def test_gguf_file_and_package_model(tmp_path):
    from densing.errors import EvalError
    from densing.eval.loading import check_model_source

    (tmp_path / "m.yaml").write_text(
        "models:\n  - name: g\n    model: package:pytest\n    gguf_file: weights.Q8_0.gguf\n    dtype: float32\n"
    )
    (spec,) = read_models_file(tmp_path / "m.yaml")
    assert spec.gguf_file == "weights.Q8_0.gguf" and spec.load_identity()["gguf_file"] == "weights.Q8_0.gguf"
    import pytest as _pytest_package  # any installed package: its directory, found without importing it anew

    assert spec.model_directory() == str(__import__("pathlib").Path(_pytest_package.__file__).parent)
    with pytest.raises(EvalError, match=r"weights.Q8_0.gguf: no such GGUF file"):
        check_model_source(spec)
    (tmp_path / "n.yaml").write_text("models:\n  - model: package:no_such_package_densing\n    gguf_file: x.gguf\n")
    (missing,) = read_models_file(tmp_path / "n.yaml")
    with pytest.raises(EvalError, match="no installed Python package 'no_such_package_densing'"):
        check_model_source(missing)
    # a spec without gguf_file hashes as before (the field is absent from its identity)
    (tmp_path / "o.yaml").write_text("models:\n  - model: org/x\n")
    (plain,) = read_models_file(tmp_path / "o.yaml")
    assert "gguf_file" not in plain.load_identity()


def test_model_args_pass_to_the_backend_and_enter_the_config_hash():
    from densing.eval.models import model_spec_from_mapping

    text = model_spec_from_mapping(
        {
            "model": "m",
            "model_args": "tensor_parallel_size=2,gpu_memory_utilization=0.85,enforce_eager=true,quantization=awq",
        },
        where="m.yaml: model 1",
    )
    mapping = model_spec_from_mapping(
        {
            "model": "m",
            "model_args": {
                "tensor_parallel_size": 2,
                "gpu_memory_utilization": 0.85,
                "enforce_eager": True,
                "quantization": "awq",
            },
        },
        where="x",
    )
    assert (
        text.model_args
        == mapping.model_args
        == (
            ("enforce_eager", True),
            ("gpu_memory_utilization", 0.85),
            ("quantization", "awq"),
            ("tensor_parallel_size", 2),
        )
    )
    plain = model_spec_from_mapping({"model": "m"}, where="x")
    assert "model_args" not in plain.load_identity() and text.load_identity()["model_args"][-1] == [
        "tensor_parallel_size",
        2,
    ]


@pytest.mark.parametrize(
    "value,words",
    [
        ("batch_size=8", "batch_size set by densing"),
        ("tp", "expected k=v,k=v"),
        ({"max_model_len": [1, 2]}, "max_model_len: expected a number"),
    ],
)
def test_bad_model_args_are_one_line_naming_the_entry(value, words):
    from densing.errors import InputError
    from densing.eval.models import model_spec_from_mapping

    with pytest.raises(InputError, match=f"m.yaml: model 1: field 'model_args': .*{words}"):
        model_spec_from_mapping({"model": "m", "model_args": value}, where="m.yaml: model 1")


def test_vllm_gets_the_model_args_auto_batches_and_refuses_gguf_before_loading(monkeypatch):
    """The argument plumbing of the vllm backend, without vLLM or a GPU: what reaches lm-eval's class."""
    from densing.errors import InputError
    from densing.eval import loading
    from densing.eval.models import model_spec_from_mapping

    seen = {}

    class Recorder:
        def __init__(self, **arguments):
            seen.update(arguments)
            raise RuntimeError("recorded")

    monkeypatch.setattr(loading, "registered_model", {"vllm": Recorder}.__getitem__)
    spec = model_spec_from_mapping(
        {
            "model": "org/m",
            "dtype": "bfloat16",
            "model_args": {"tensor_parallel_size": 4, "data_parallel_size": 2, "max_model_len": 4096},
        },
        where="x",
    )
    with pytest.raises(Exception, match="recorded"):
        loading.load_model(spec, backend="vllm", device=None, batch_size=1)
    assert seen["batch_size"] == "auto" and seen["tensor_parallel_size"] == 4 and seen["data_parallel_size"] == 2
    assert seen["max_model_len"] == 4096 and seen["dtype"] == "bfloat16" and "device" not in seen
    gguf = model_spec_from_mapping({"model": "org/m", "gguf_file": "m.gguf"}, where="x")
    seen.clear()
    with pytest.raises(InputError, match="gguf_file: the vllm backend is not given GGUF files"):
        loading.load_model(gguf, backend="vllm", device=None, batch_size=1)
    assert seen == {}


@pytest.mark.parametrize(
    "date, words",
    [
        ("2024-13-45", "cannot parse"),
        ("2024-02-30", "cannot parse"),
        ("2999-01-01", "not between 2018-06-11 and today"),
        ("2001-01-01", "not between 2018-06-11 and today"),
    ],
)
def test_a_models_file_date_is_a_real_day_in_the_window_or_one_line(tmp_path, date, words):
    from densing.errors import InputError
    from densing.eval.models import read_models_file

    path = tmp_path / "models.yaml"
    path.write_text(f"models:\n  - name: m\n    model: gpt2\n    params: 1.2e8\n    release_date: {date}\n")
    with pytest.raises(InputError, match=f"field 'release_date'.*{words}"):
        read_models_file(path)
