"""The YAML diff's text (actions/difftext.py): helm-diff headers, context lines, hunk locations, summary.
What the callback prints of it on a real release is checked in tests/integration/test_release_diff_output.py."""
import copy

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.difftext import (header, object_diff, summary,
                                                                                   yaml_path)
from ansible_collections.helmless.core.plugins.module_utils.goyaml import to_yaml

DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "1"}},
          "spec": {"replicas": 1, "template": {"spec": {"containers": [
              {"name": "side", "image": "b", "ports": [{"containerPort": 1}, {"containerPort": 2, "protocol": "TCP"}]},
              {"name": "app", "image": "nginx:1", "args": ["x", "y"], "env": [{"name": "A", "value": "1"}]}]}}},
          "data": {"config.yaml": "server:\n  port: 80\n  host: a\nother: 1\n"}}


def test_the_header_names_namespace_name_kind_and_group_as_helm_diff():
    assert header("apps/v1", "Deployment", "web", "prod") == "prod, web, Deployment (apps)"
    assert header("v1", "ConfigMap", "cfg", "prod") == "prod, cfg, ConfigMap (v1)"
    assert header("rbac.authorization.k8s.io/v1", "ClusterRole", "view", "") == "view, ClusterRole (rbac.authorization.k8s.io)"


@pytest.mark.parametrize("path, where", [
    (("metadata", "labels", "a"), "metadata.labels"),
    (("spec", "replicas"), "spec"),
    (("spec", "template", "spec", "containers", 0, "ports", 1, "protocol"),
     "spec.template.spec.containers[name=side].ports[1]"),
    (("spec", "template", "spec", "containers", 1, "image"), "spec.template.spec.containers[name=app]"),
    (("spec", "template", "spec", "containers", 1, "args", 1), "spec.template.spec.containers[name=app].args"),
    (("spec", "template", "spec", "containers", 1, "env", 0, "value"),
     "spec.template.spec.containers[name=app].env[name=A]"),
])
def test_each_hunk_names_where_its_first_change_is(path, where):
    after = copy.deepcopy(DEPLOY)
    node = after
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = "changed"
    text = object_diff("ns, web, Deployment (apps)", DEPLOY, after, 1)
    hunks = [line for line in text.splitlines() if line.startswith("@@")]
    assert len(hunks) == 1 and hunks[0].split(" @@")[1].strip() == where, text


def test_a_change_inside_a_block_text_is_located_in_the_text_too():
    after = copy.deepcopy(DEPLOY)
    after["data"]["config.yaml"] = after["data"]["config.yaml"].replace("80", "81")
    hunk = object_diff("t", DEPLOY, after, 1).splitlines()[1]
    assert hunk.startswith("@@ ") and hunk.endswith(" @@ data.config.yaml.server")


def test_context_lines_and_the_whole_object():
    after = copy.deepcopy(DEPLOY)
    after["spec"]["replicas"] = 2
    one = object_diff("t", DEPLOY, after, 1).splitlines()
    assert one[0] == "t has changed:" and [line[:1] for line in one[2:]] == [" ", "-", "+", " "]
    whole = object_diff("t", DEPLOY, after, -1).splitlines()
    assert len(whole) == 2 + len(to_yaml(DEPLOY).splitlines()) + 1
    assert object_diff("t", {}, DEPLOY).startswith("t has been added:\n@@ -0,0 +1,")
    assert object_diff("t", DEPLOY, {}).startswith("t has been removed:\n@@ -1,")


def test_the_summary_line():
    assert summary({"add": 2, "change": 3, "destroy": 1, "unchanged": 4}) == \
        "Plan: 2 to add, 3 to change, 1 to destroy, 4 unchanged"
