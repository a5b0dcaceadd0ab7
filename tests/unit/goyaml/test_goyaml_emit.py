"""toYaml / toYamlPretty / toJson / toToml output equals real Helm's for generated values."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils import goyaml
from goyaml_cases import structures
from goyaml_oracle import render_values

CASES = structures()
FUNCS = ["toYaml", "toYamlPretty", "toJson"]


def _id(v):
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


@pytest.fixture(scope="module")
def helm():
    return render_values("emit", CASES, FUNCS)


def _ours(fn, v):
    try:
        out = fn(v)
    except (goyaml.YAMLError, goyaml.JSONError):
        return ""
    return out[:-1] if out.endswith("\n") else out


@pytest.mark.parametrize("i", range(len(CASES)), ids=[_id(c) for c in CASES])
def test_to_yaml_prints_what_helm_toyaml_prints(helm, i):
    assert _ours(goyaml.to_yaml, CASES[i]) == helm[(i, "toYaml")]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[_id(c) for c in CASES])
def test_to_yaml_pretty_prints_what_helm_toyamlpretty_prints(helm, i):
    assert _ours(goyaml.to_yaml_pretty, CASES[i]) == helm[(i, "toYamlPretty")]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[_id(c) for c in CASES])
def test_to_json_prints_what_helm_tojson_prints(helm, i):
    assert _ours(goyaml.to_json, CASES[i]) == helm[(i, "toJson")]


TOML_CASES = [c for c in CASES if isinstance(c, dict)]


@pytest.fixture(scope="module")
def helm_toml():
    return render_values("toml", TOML_CASES, ["toToml"])


@pytest.mark.parametrize("i", range(len(TOML_CASES)), ids=[_id(c) for c in TOML_CASES])
def test_to_toml_prints_what_helm_totoml_prints(helm_toml, i):
    assert goyaml.to_toml(TOML_CASES[i]) == helm_toml[(i, "toToml")]
