"""A render is the same as the deployed revision on content: not on formatting, not on re-rolled randomness."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.inputs import from_render
from ansible_collections.helmless.core.plugins.module_utils.actions.sameness import (
    differs, record_of, same_content)
from ansible_collections.helmless.core.plugins.module_utils.render import render_release

RANDOM_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    "values.yaml": "size: 1\n",
    "templates/secret.yaml": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-s\n"
        "  annotations:\n    kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
        "data:\n  password: {{ randAlphaNum 16 | b64enc | quote }}\n"
        "{{- $ca := genCA \"ca\" 365 }}\n"
        "  ca.crt: {{ $ca.Cert | b64enc | quote }}\n"
        "  config: {{ printf \"size=%v\\nid=%s\\nname=%s\" .Values.size uuidv4 .Release.Name | b64enc | quote }}\n"),
    "templates/deploy.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
        "spec:\n  replicas: {{ .Values.size }}\n"
        "  template:\n    metadata:\n      annotations:\n"
        "        day: {{ now | date \"2006-01-02T15:04:05\" | quote }}\n"
        "        pem: |\n{{ (genCA \"x\" 1).Cert | indent 10 }}\n"),
    "templates/test.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test-{{ randAlphaNum 5 | lower }}\n"
        "  annotations:\n    helm.sh/hook: test\nspec:\n  containers: [{name: c, image: busybox}]\n"),
    "templates/NOTES.txt": "Token: {{ randAlphaNum 8 }}\nRelease {{ .Release.Name }}\n",
}


@pytest.fixture
def chart(tmp_path):
    for rel, text in RANDOM_CHART.items():
        path = tmp_path / "app" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path / "app")


def _render(chart, vary=False, **kw):
    kw.setdefault("values", {"size": 2})
    kw.setdefault("kube_version", "v1.35.4")
    return from_render(render_release(chart, name="r", namespace="ns", vary=vary, **kw))


def _stored(inp):
    record = record_of(inp)
    record["info"] = {"status": "deployed", "notes": inp.notes}
    return record


MANIFEST = ("---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
            "data:\n  k: \"v\"\n  n: \"1\"\n")


def _record(manifest, **extra):
    rel = {"manifest": manifest, "hooks": [], "info": {"notes": ""}, "config": {"x": 1},
           "chart": {"metadata": {"name": "c", "version": "0.1.0"}}}
    rel.update(extra)
    return rel


def test_formatting_of_the_stored_manifest_never_counts():
    trimmed = MANIFEST.replace("\ndata:", "\n\ndata:").rstrip("\n")        # Helm 3: documents trimmed
    spaced = MANIFEST.replace("---\n# Source", "\n---\n# Source") + "\n"   # Helm 4.3: a blank line after each
    restyled = MANIFEST.replace('k: "v"', "k: v  # comment").replace('n: "1"', "n: '1'")
    for other in (trimmed, spaced, restyled):
        assert same_content(_record(MANIFEST), _record(other))


def test_a_manifest_byte_for_byte_the_deployed_one_is_the_same_without_parsing(monkeypatch):
    from ansible_collections.helmless.core.plugins.module_utils import goyaml

    def refuse(*args, **kwargs):
        raise AssertionError("parsed a manifest equal to the deployed one")
    monkeypatch.setattr(goyaml, "iter_documents", refuse)
    text = MANIFEST.replace("name: a", "name: never-parsed")
    assert same_content(_record(text), _record(text))
    assert not same_content(_record(text), _record(text, config={"x": 2}))


def test_any_change_of_a_value_a_document_the_config_or_the_chart_metadata_counts():
    base = _record(MANIFEST)
    assert not same_content(base, _record(MANIFEST.replace('n: "1"', "n: 1")))   # a string is not a number
    assert not same_content(base, _record(MANIFEST + "---\n# Source: c/templates/b.yaml\n"
                                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"))
    assert not same_content(base, _record(MANIFEST, config={"x": 2}))
    assert not same_content(base, _record(MANIFEST, chart={"metadata": {"name": "c", "version": "0.2.0"}}))


def test_the_render_records_the_nondeterministic_functions_a_chart_calls(chart):
    assert _render(chart).nondeterministic == ("genCA", "now", "randAlphaNum", "uuidv4")


def test_output_that_only_randomness_and_the_clock_changed_is_the_same_release(chart):
    deployed = _stored(_render(chart, vary=True))  # other random values, and rendered "a year ago"
    again = _render(chart)
    assert not same_content(deployed, record_of(again))
    assert not differs(deployed, again, probe=lambda: _render(chart, vary=True))


def test_other_values_are_a_change_even_where_only_random_output_shows_them(chart):
    deployed = _stored(_render(chart, vary=True))
    assert differs(deployed, _render(chart, values={"size": 3}), probe=lambda: _render(chart, vary=True))


def test_what_capabilities_decide_still_counts_in_a_random_chart(chart):
    deployed = _stored(_render(chart, vary=True))
    newer = _render(chart, kube_version="v1.36.0")
    assert differs(deployed, newer, probe=lambda: _render(chart, kube_version="v1.36.0", vary=True))


def test_a_changed_chart_is_a_change_even_when_its_output_is_random(chart, tmp_path):
    deployed = _stored(_render(chart, vary=True))
    with open(tmp_path / "app" / "README.md", "w") as fh:
        fh.write("a file the templates do not read\n")
    assert differs(deployed, _render(chart), probe=lambda: _render(chart, vary=True))


def test_without_a_probe_random_output_is_a_change(chart):
    deployed = _stored(_render(chart, vary=True))
    assert differs(deployed, _render(chart))


LOOKUP_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    "templates/_pw.tpl": (
        "{{- define \"pw\" -}}\n{{- $s := lookup \"v1\" \"Secret\" .Release.Namespace \"app-s\" }}\n"
        "{{- if $s }}{{ index $s \"data\" \"pw\" }}{{ else }}{{ randAlphaNum 12 | b64enc }}{{ end }}\n"
        "{{- end }}\n"),
    "templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-s\ndata:\n"
                             "  pw: {{ include \"pw\" . | quote }}\n",
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-c\n  annotations:\n"
                         "    checksum/secret: {{ include \"pw\" . | sha256sum }}\ndata:\n  k: {{ .Values.k | quote }}\n",
}


def test_a_chart_that_generates_only_until_lookup_finds_its_secret_is_the_same_on_its_second_run(tmp_path):
    for rel, text in LOOKUP_CHART.items():
        path = tmp_path / "app" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    chart = str(tmp_path / "app")
    first = render_release(chart, name="r", namespace="ns", values={"k": "v"})
    deployed = _stored(from_render(first))
    secret = next(o for o in first.resources if o["kind"] == "Secret")

    def render(vary=False, values=None, live=True):
        lookup = (lambda *_: secret) if live and not vary else None
        return from_render(render_release(chart, name="r", namespace="ns", values=values or {"k": "v"},
                                          lookup=lookup, vary=vary))
    second = render()
    assert second.nondeterministic == () and not same_content(deployed, record_of(second))  # checksum moved
    assert not differs(deployed, second, probe=lambda: render(vary=True))
    assert differs(deployed, render(values={"k": "w"}), probe=lambda: render(vary=True, values={"k": "w"}))
