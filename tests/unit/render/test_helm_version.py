"""The engine emulates exactly the Helm the tests' oracle is built from (scripts/versions.env HELM4_VERSION);
the conformance harness cannot silently shrink."""
import helm_oracle
import pytest

from ansible_collections.helmless.core.plugins.module_utils.chart.capabilities import (
    DEFAULT_KUBE_VERSION, HELM_KUBE_CLIENT_VERSION, HELM_VERSION, Capabilities)


def test_the_emulated_helm_version_is_the_pinned_one():
    assert HELM_VERSION == helm_oracle.HELM_VERSION
    assert helm_oracle.built_version() == HELM_VERSION


def test_default_capabilities_are_the_pinned_helms():
    """KubeVersion, the API version list and HelmVersion (but the Go toolchain the oracle was built with)."""
    expected = helm_oracle.capabilities()
    caps = Capabilities()
    assert expected["KubeVersion"] == {"Version": DEFAULT_KUBE_VERSION, "Major": caps.KubeVersion.Major,
                                       "Minor": caps.KubeVersion.Minor}
    assert list(caps.APIVersions) == expected["APIVersions"]
    helm = dict(expected["HelmVersion"], go_version=caps.HelmVersion.GoVersion)
    assert caps.HelmVersion.go_json_value() == helm
    assert helm["kube_client_version"] == HELM_KUBE_CLIENT_VERSION


@pytest.mark.parametrize("state", ["missing", "empty"])
def test_a_missing_or_empty_corpus_fails_the_conformance_suite_instead_of_emptying_it(tmp_path, monkeypatch, state):
    import corpuskit
    import render_corpus
    corpus = tmp_path / "corpus"
    if state == "empty":
        (corpus / "values").mkdir(parents=True)
    monkeypatch.setattr(corpuskit, "CORPUS", str(corpus))
    with pytest.raises(RuntimeError, match="corpus is missing or empty"):
        render_corpus.cases()
