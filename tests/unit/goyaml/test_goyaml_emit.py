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


TOML_CASES = [i for i, c in enumerate(CASES) if isinstance(c, dict)]


@pytest.fixture(scope="module")
def helm():
    out = dict(render_values("emit", CASES, FUNCS))
    toml = render_values("toml", [CASES[i] for i in TOML_CASES], ["toToml"])
    out.update({(i, "toToml"): toml[(j, "toToml")] for j, i in enumerate(TOML_CASES)})
    return out


def _ours(fn, v):
    try:
        out = fn(v)
    except (goyaml.YAMLError, goyaml.JSONError):
        return ""
    except goyaml.TOMLError as exc:  # toToml renders the error text
        return str(exc)
    if fn is goyaml.to_toml:
        return out
    return out[:-1] if out.endswith("\n") else out


OURS = {"toYaml": goyaml.to_yaml, "toYamlPretty": goyaml.to_yaml_pretty, "toJson": goyaml.to_json,
        "toToml": goyaml.to_toml}


@pytest.mark.parametrize("i", range(len(CASES)), ids=[_id(c) for c in CASES])
def test_serialisers_print_what_helm_prints(helm, i):
    """toYaml, toYamlPretty, toJson (and toToml for maps) of one value."""
    funcs = FUNCS + (["toToml"] if isinstance(CASES[i], dict) else [])
    ours = {f: _ours(OURS[f], CASES[i]) for f in funcs}
    theirs = {f: helm[(i, f)] for f in funcs}
    assert ours == theirs
