"""Helm's releaseutil rules for hooks, kind order and ``helm template`` output selection.

Byte-level manifest output is checked against the oracle in test_engine_cases.py; these
cover what the oracle's client dry-run does not expose (hook records, --show-only).
"""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.render.manifest import (
    INSTALL_ORDER, RenderManifestError, sort_manifests, template_output, assemble,
)

HOOK = """apiVersion: batch/v1
kind: %s
metadata:
  name: %s
  annotations:
    helm.sh/hook: %s
    helm.sh/hook-weight: %s
    helm.sh/hook-delete-policy: %s
"""


def test_hook_events_weights_and_delete_policies_are_read_as_helm_reads_them():
    files = {"c/templates/h.yaml": HOOK % ("Job", "j", " Pre-Install , test-success", '"-5"',
                                           "Hook-Succeeded, before-hook-creation")}
    hooks, manifests = sort_manifests(files)
    assert manifests == []
    (hook,) = hooks
    assert (hook.name, hook.kind, hook.path) == ("j", "Job", "c/templates/h.yaml")
    assert hook.events == ["pre-install", "test"]
    assert hook.weight == -5
    assert hook.delete_policies == ["hook-succeeded", "before-hook-creation"]


def test_a_hook_weight_that_is_not_an_integer_counts_as_zero():
    files = {"c/templates/h.yaml": HOOK % ("Job", "j", "post-install", '" 5"', "hook-failed")}
    (hook,), _ = sort_manifests(files)
    assert hook.weight == 0


def test_a_document_with_an_unknown_hook_event_is_dropped_entirely():
    files = {"c/templates/h.yaml": HOOK % ("Job", "j", "pre-install,sometime", '"1"', "x")}
    assert sort_manifests(files) == ([], [])


def test_hooks_and_resources_are_stable_sorted_by_install_order_unknown_kinds_last():
    docs = ["kind: Zeta", "kind: Service", "kind: Alpha", "kind: Namespace", "kind: Service\nx: 2"]
    files = {"c/templates/a.yaml": "\n---\n".join(docs)}
    _, manifests = sort_manifests(files)
    assert [m.head.kind for m in manifests] == ["Namespace", "Service", "Service", "Alpha", "Zeta"]
    assert manifests[2].content.endswith("x: 2")
    assert INSTALL_ORDER[-2:] == ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


def test_a_document_that_is_not_yaml_names_its_template():
    with pytest.raises(RenderManifestError) as err:
        sort_manifests({"c/templates/bad.yaml": "a: [1\n"})
    assert str(err.value).startswith("YAML parse error on c/templates/bad.yaml: ")


def _rendered():
    files = {"c/templates/a.yaml": "kind: ConfigMap\nmetadata:\n  name: a\n",
             "c/templates/b.yaml": "kind: Secret\nmetadata:\n  name: b\n",
             "c/templates/h.yaml": HOOK % ("Job", "j", "pre-install", '"1"', "hook-failed")}
    hooks, manifests = sort_manifests(files)
    return assemble(manifests), hooks


def test_helm_template_output_is_the_manifest_then_the_hooks():
    manifest, hooks = _rendered()
    out = template_output(manifest, hooks)
    assert out == manifest.strip() + "\n" + "---\n# Source: c/templates/h.yaml\n" + hooks[0].manifest + "\n"
    assert template_output(manifest, hooks, disable_hooks=True) == manifest.strip() + "\n"


def test_show_only_keeps_matching_templates_in_pattern_order():
    manifest, hooks = _rendered()
    out = template_output(manifest, hooks, show_only=["templates/b.yaml", "templates/[ah].yaml"])
    sources = [line for line in out.splitlines() if line.startswith("# Source:")]
    assert sources == ["# Source: c/templates/b.yaml", "# Source: c/templates/a.yaml",
                       "# Source: c/templates/h.yaml"]


def test_show_only_with_a_pattern_matching_nothing_fails_as_helm_does():
    manifest, hooks = _rendered()
    with pytest.raises(RenderManifestError) as err:
        template_output(manifest, hooks, show_only=["templates/nope.yaml"])
    assert str(err.value) == "could not find template templates/nope.yaml in chart"
