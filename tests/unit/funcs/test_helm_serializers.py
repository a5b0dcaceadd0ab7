"""Helm's toYaml/toJson/toToml swallow the encoder's own errors (NaN, characters yaml.v2 rejects) and
nothing else: an encoder panic fails the call in Helm, and a defect of ours must not render as ""."""
import pytest

from sprig_oracle import oracle_render
from test_sprig_through_engine import _render
from ansible_collections.helmless.core.plugins.module_utils import goyaml
from ansible_collections.helmless.core.plugins.module_utils.funcs import helm
from ansible_collections.helmless.core.plugins.module_utils.render.engine import base_funcs

CASES = [
    'toYaml (list (float64 "NaN"))',
    'toYaml (dict "a" "x\\x7fy")',
    'toYaml (list 1 "a")',
    'toJson (float64 "+Inf")',
    'toYamlPretty (list (float64 "NaN"))',
    'toToml (dict "a" (list 1 nil))',
    'toToml nil',
]


def test_serializers_render_or_fail_where_helm_does(tmp_path):
    expected = oracle_render(tmp_path, CASES)
    funcs = base_funcs()
    assert {case: _render(funcs, case, {}) for case in CASES} == expected


@pytest.mark.parametrize("name, encoder", [("to_yaml", "to_yaml"), ("to_json", "to_json"), ("to_toml", "to_toml")])
def test_a_defect_in_the_encoder_surfaces_instead_of_rendering_empty(monkeypatch, name, encoder):
    def broken(_value):
        raise AttributeError("a defect of ours")
    monkeypatch.setattr(goyaml, encoder, broken)
    with pytest.raises(AttributeError):
        getattr(helm, name)({"a": 1})
