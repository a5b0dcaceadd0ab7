"""kustomize exec plugins resolved under $XDG_CONFIG_HOME, ours against
``kustomize build --enable-alpha-plugins`` (the pinned kustomize) with the very same plugin programs."""
import os
import stat

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.postrender import PostRenderError, run
from ansible_collections.helmless.core.plugins.module_utils.postrender.yamlio import load_all
from kustomize_oracle import assert_same_objects, chart_manifest, kustomize_build, ours

SHELL_GENERATOR = """#!/bin/sh
# A generator: reads its config file ($1), prints new objects, asks for a hash and a merge.
value=$(sed -n 's/^value: //p' "$1")
cat <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: from-plugin
  namespace: ns
  annotations:
    kustomize.config.k8s.io/needs-hash: "true"
data:
  value: $value
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: rel-grafana
  namespace: ns
  annotations:
    kustomize.config.k8s.io/behavior: merge
data:
  merged-by-plugin: "true"
---
apiVersion: v1
kind: Secret
metadata:
  name: plain-secret
  namespace: ns
  annotations:
    kustomize.config.k8s.io/needs-hash: "false"
stringData:
  k: v
YAML
"""

PY_TRANSFORMER = """#!/usr/bin/env python3
# A transformer: resources on stdin, the changed resources on stdout.
import sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
for d in docs:
    d["metadata"].setdefault("labels", {})[config["label"]] = config["value"]
    if d["kind"] == "Deployment":
        spec = d["spec"]["template"]["spec"]
        spec["containers"][0].setdefault("envFrom", []).append({"configMapRef": {"name": "from-plugin"}})
yaml.safe_dump_all(docs, sys.stdout)
"""

SED_TRANSFORMER = """#!/bin/sh
exec sed 's/imagePullPolicy: IfNotPresent/imagePullPolicy: Always/'
"""

GEN_CONFIG = {"apiVersion": "example.com/v1", "kind": "ShellGen", "metadata": {"name": "g"},
              "value": "hello"}
TX_CONFIG = {"apiVersion": "example.com/v1", "kind": "PyLabel", "metadata": {"name": "t"},
             "label": "touched", "value": "by-plugin"}
SED_CONFIG = {"apiVersion": "example.com/v1beta1", "kind": "SedPull", "metadata": {"name": "s"}}


def _install(home, config, body):
    directory = home / "kustomize" / "plugin" / config["apiVersion"] / config["kind"].lower()
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / config["kind"]
    exe.write_text(body)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    home = tmp_path / "xdg"
    _install(home, GEN_CONFIG, SHELL_GENERATOR)
    _install(home, TX_CONFIG, PY_TRANSFORMER)
    _install(home, SED_CONFIG, SED_TRANSFORMER)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def _kustomize_with_plugins(tmp_path, chart, generators=(), transformers=()):
    work = tmp_path / "k"
    work.mkdir()
    kust = {"generators": [], "transformers": []}
    for field, configs in (("generators", generators), ("transformers", transformers)):
        for num, config in enumerate(configs):
            name = "%s-%d.yaml" % (field, num)
            (work / name).write_text(yaml.safe_dump(config))
            kust[field].append(name)
    return kustomize_build(work, chart_manifest(chart), kust, plugins=True, env=dict(os.environ))


def test_shell_generator_plugin_matches_kustomize(tmp_path, xdg):
    expected = _kustomize_with_plugins(tmp_path, "grafana", generators=[GEN_CONFIG])
    got = ours(chart_manifest("grafana"), [{"generators": [GEN_CONFIG]}], enable_plugins=True)
    assert_same_objects(got, expected)
    names = [o["metadata"]["name"] for o in got]
    assert any(n.startswith("from-plugin-") for n in names) and "plain-secret" in names


def test_python_transformer_plugin_matches_kustomize(tmp_path, xdg):
    expected = _kustomize_with_plugins(tmp_path, "podinfo", transformers=[TX_CONFIG])
    assert_same_objects(ours(chart_manifest("podinfo"), [TX_CONFIG], enable_plugins=True), expected)


def test_generators_then_transformers_with_hash_and_reference_rewrite_match_kustomize(tmp_path, xdg):
    expected = _kustomize_with_plugins(tmp_path, "grafana", generators=[GEN_CONFIG],
                                       transformers=[TX_CONFIG, SED_CONFIG])
    got = ours(chart_manifest("grafana"), [
        {"generators": [GEN_CONFIG], "transformers": [TX_CONFIG, SED_CONFIG]}], enable_plugins=True)
    assert_same_objects(got, expected)
    deploy = next(o for o in got if o["kind"] == "Deployment")
    ref = deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][-1]["configMapRef"]["name"]
    assert ref.startswith("from-plugin-") and len(ref) == len("from-plugin-") + 10


def test_internal_annotations_are_stripped(xdg):
    text = run(chart_manifest("grafana"), [{"generators": [GEN_CONFIG]}], enable_plugins=True)
    assert "kustomize.config.k8s.io/" not in text


def test_a_plugin_config_can_be_a_file_path(tmp_path, xdg):
    (tmp_path / "sed.yaml").write_text(yaml.safe_dump(SED_CONFIG))
    out = load_all(run(chart_manifest("podinfo"), ["sed.yaml"], enable_plugins=True, cwd=str(tmp_path)))
    deploy = next(o for o in out if o["kind"] == "Deployment")
    assert deploy["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"


def test_plugins_need_enable_plugins(xdg):
    with pytest.raises(PostRenderError, match="enable_plugins: true"):
        run(chart_manifest("podinfo"), [TX_CONFIG])


def test_a_missing_plugin_names_where_it_was_looked_for(xdg):
    config = {"apiVersion": "example.com/v1", "kind": "Nowhere", "metadata": {"name": "x"}}
    with pytest.raises(PostRenderError, match=r"kustomize/plugin/example.com/v1/nowhere/Nowhere"):
        run(chart_manifest("podinfo"), [config], enable_plugins=True)


@pytest.mark.parametrize("body,message", [
    ("#!/bin/sh\necho 'plugin exploded' >&2\nexit 2\n", "code 2: plugin exploded"),
    ("#!/bin/sh\ncat >/dev/null\necho '{{{ not yaml'\n", "not valid YAML"),
    ("#!/bin/sh\ncat >/dev/null\necho 'hello world'\n", "not a Kubernetes object"),
])
def test_failing_and_garbage_printing_plugins_are_errors(xdg, body, message):
    config = {"apiVersion": "example.com/v1", "kind": "Broken", "metadata": {"name": "b"}}
    _install(xdg, config, body)
    with pytest.raises(PostRenderError, match=message) as err:
        run(chart_manifest("podinfo"), [config], enable_plugins=True)
    assert "example.com/v1/Broken" in str(err.value)


def test_needs_hash_on_a_kind_without_hash_support_is_an_error(xdg):
    config = {"apiVersion": "example.com/v1", "kind": "BadHash", "metadata": {"name": "b"}}
    _install(xdg, config, "#!/bin/sh\nprintf 'apiVersion: v1\\nkind: Service\\nmetadata:\\n  name: s\\n"
                          "  annotations:\\n    kustomize.config.k8s.io/needs-hash: \"true\"\\n'\n")
    with pytest.raises(PostRenderError, match="only ConfigMap and Secret"):
        run(chart_manifest("podinfo"), [{"generators": [config]}], enable_plugins=True)


def test_xdg_config_home_defaults_to_dot_config(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    _install(tmp_path / ".config", SED_CONFIG, SED_TRANSFORMER)
    out = load_all(run(chart_manifest("podinfo"), [SED_CONFIG], enable_plugins=True))
    assert next(o for o in out if o["kind"] == "Deployment")["spec"]["template"]["spec"][
        "containers"][0]["imagePullPolicy"] == "Always"


RECORDING_RENAMER = """#!/usr/bin/env python3
# Records what it was given, then renames the chart's ConfigMap.
import os, sys, yaml
data = sys.stdin.read()
with open(os.environ["RECORD_TO"], "w") as fh:
    fh.write(data)
docs = [d for d in yaml.safe_load_all(data) if d]
for d in docs:
    if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "rel-grafana":
        d["metadata"]["name"] = "renamed"
yaml.safe_dump_all(docs, sys.stdout)
"""
RENAMER_CONFIG = {"apiVersion": "example.com/v1", "kind": "Renamer", "metadata": {"name": "r"}}


def test_transformer_plugins_see_kustomize_id_annotations_and_renames_match(tmp_path, xdg, monkeypatch):
    _install(xdg, RENAMER_CONFIG, RECORDING_RENAMER)
    monkeypatch.setenv("RECORD_TO", str(tmp_path / "kustomize-input.yaml"))
    expected = _kustomize_with_plugins(tmp_path, "grafana", transformers=[RENAMER_CONFIG])
    monkeypatch.setenv("RECORD_TO", str(tmp_path / "our-input.yaml"))
    got = ours(chart_manifest("grafana"), [RENAMER_CONFIG], enable_plugins=True)
    assert_same_objects(got, expected)

    def ids(path):
        return sorted(o["metadata"]["annotations"]["kustomize.config.k8s.io/id"] for o in load_all(path.read_text()))
    assert ids(tmp_path / "our-input.yaml") == ids(tmp_path / "kustomize-input.yaml")
