"""The Go types the chart objects show to templates, as Helm's errors and %v printing reveal them."""
import os

import pytest

CHART = "apiVersion: v2\nname: c\nversion: 0.1.0\n"

CASES = {
    "kube_version_prints_its_fields_with_percent_v": 'v: {{ printf "%v" .Capabilities.KubeVersion }}',
    "kube_version_prints_its_string_in_an_action": "v: {{ .Capabilities.KubeVersion }}",
    "files_get_refuses_a_number_as_go_does": "{{ .Files.Get 1 }}",
    "files_glob_refuses_a_bool_as_go_does": "{{ .Files.Glob true }}",
    "top_level_object_is_a_common_values_in_type_errors": '{{ define "x" }}a{{ end }}{{ indent 2 . }}',
}


def _render(path):
    from helm_oracle import Chart, HelmError
    try:
        return Chart.load(path).render({}, name="rel", namespace="ns"), None
    except HelmError as exc:
        return None, str(exc)


def _ours(path):
    from ansible_collections.helmless.core.plugins.module_utils.render import RenderError, render_release
    try:
        return render_release(path, name="rel", namespace="ns").rendered, None
    except RenderError as exc:
        return None, str(exc)


@pytest.mark.parametrize("case", sorted(CASES))
def test_chart_objects_have_helms_go_types(case, tmp_path):
    os.makedirs(str(tmp_path / "templates"))
    (tmp_path / "Chart.yaml").write_text(CHART)
    (tmp_path / "templates" / "t.yaml").write_text(CASES[case])
    assert _ours(str(tmp_path)) == _render(str(tmp_path))
