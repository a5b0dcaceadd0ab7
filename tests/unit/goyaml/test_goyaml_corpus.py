"""Every values file of the chart corpus loads and re-serialises exactly as in Helm."""
import json

import pytest

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils import goyaml
from goyaml_oracle import render_batch

TEXTS = corpuskit.values_texts()
FILES = sorted(TEXTS)
TEMPLATES = {
    "toYaml.txt": "{{ toYaml .Values }}",
    "toJson.txt": "{{ toJson .Values }}",
    "toYamlPretty.txt": "{{ toYamlPretty .Values }}",
}


def _read(path):
    return TEXTS[path]


def _drop_nulls(v):
    """Helm coalesces a chart's own values with nothing, which removes null entries."""
    if isinstance(v, dict):
        return {k: _drop_nulls(x) for k, x in v.items() if x is not None}
    return v


def _helm(path):
    return render_batch("corpus:" + path, _read(path), TEMPLATES)


def test_the_corpus_is_there():
    assert len(FILES) > 40


@pytest.mark.parametrize("path", FILES)
def test_corpus_values_load_like_helm(path):
    ours = _drop_nulls(goyaml.load_values(_read(path), path))
    helm = json.loads(_helm(path)["toJson.txt"])
    assert goyaml.to_json(ours) == goyaml.to_json(helm) and json.loads(goyaml.to_json(ours)) == helm


@pytest.mark.parametrize("path", FILES)
def test_corpus_values_to_yaml_matches_helm(path):
    ours = _drop_nulls(goyaml.load_values(_read(path), path))
    assert goyaml.to_yaml(ours)[:-1] == _helm(path)["toYaml.txt"]


@pytest.mark.parametrize("path", FILES)
def test_corpus_values_to_yaml_pretty_matches_helm(path):
    ours = _drop_nulls(goyaml.load_values(_read(path), path))
    assert goyaml.to_yaml_pretty(ours)[:-1] == _helm(path)["toYamlPretty.txt"]


@pytest.mark.parametrize("path", FILES)
def test_corpus_values_to_json_matches_helm(path):
    ours = _drop_nulls(goyaml.load_values(_read(path), path))
    assert goyaml.to_json(ours) == _helm(path)["toJson.txt"]
