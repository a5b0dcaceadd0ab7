"""Install/upgrade/rollback/uninstall on the real control plane: storage, idempotence, check mode == real run."""
import base64

from ansible_collections.helmless.core.plugins.module_utils.actions.report import release_status
from ansible_collections.helmless.core.plugins.module_utils.release.codec import decode_release

from test_release_support import (client_for, configmap, deployment, engine_for, literal_input, opts, strip)


def _secret(client, namespace, version, name="rel"):
    return client.get("v1", "Secret", "sh.helm.release.v1.%s.v%d" % (name, version), namespace)


def _records(client, namespace):
    return client.list("v1", "Secret", namespace, "owner=helm")


def _assert_prediction_came_true(kubeconfig, outcome):
    """Every object the check run said would change now looks exactly as its dry-run ``after`` said."""
    client = client_for(kubeconfig)
    predicted = [c for c in outcome.changes if c.changes]
    assert predicted
    for change in predicted:
        res = change.resource
        live = client.get(res.api_version, res.kind, res.name, change.namespace or None)
        if change.action == "delete":
            assert live is None or live["metadata"].get("deletionTimestamp"), res.label()
        else:
            assert strip(live) == strip(change.after), res.label()


def test_install_writes_helm_secret_and_ownership_markers(kubeconfig, namespace):
    out = engine_for(kubeconfig, namespace).present(
        literal_input([configmap("a", {"k": "v"}), deployment("web")], config={"x": 1.0}), opts())
    assert out.changed
    client = client_for(kubeconfig)
    secret = _secret(client, namespace, 1)
    assert secret["type"] == "helm.sh/release.v1"
    labels = secret["metadata"]["labels"]
    assert {k: labels[k] for k in ("name", "owner", "status", "version")} == {
        "name": "rel", "owner": "helm", "status": "deployed", "version": "1"}
    assert labels["createdAt"].isdigit()
    rel = decode_release(base64.b64decode(secret["data"]["release"]).decode())
    assert rel["info"]["status"] == "deployed" and rel["info"]["description"] == "Install complete"
    assert rel["config"] == {"x": 1} and rel["apply_method"] == "ssa"
    assert rel["manifest"].startswith("---\n# Source: demo/templates/")
    cm = client.get("v1", "ConfigMap", "a", namespace)
    assert cm["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    assert cm["metadata"]["annotations"]["meta.helm.sh/release-name"] == "rel"
    assert cm["metadata"]["annotations"]["meta.helm.sh/release-namespace"] == namespace


def test_an_identical_rerun_reports_no_change_and_sends_no_write(kubeconfig, namespace):
    inp = literal_input([configmap("a", {"k": "v"}), deployment("web")])
    engine_for(kubeconfig, namespace).present(inp, opts())
    again = engine_for(kubeconfig, namespace)
    assert not again.present(inp, opts()).changed
    assert again.client.count(writes_only=True) == 0
    third = engine_for(kubeconfig, namespace)
    assert not third.present(inp, opts()).changed
    assert third.client.count(writes_only=True) == 0
    assert third.client.count() <= 2 + 3, third.client.requests
    assert len(_records(client_for(kubeconfig), namespace)) == 1


def test_check_mode_install_writes_nothing_and_predicts_the_install(kubeconfig, namespace):
    inp = literal_input([configmap("a", {"k": "v"}), deployment("web", env={"A": "1"})])
    check_engine = engine_for(kubeconfig, namespace)
    check = check_engine.present(inp, opts(check_mode=True))
    assert check.changed
    assert check_engine.client.count(writes_only=True, include_dry_run=False) == 0
    client = client_for(kubeconfig)
    assert _records(client, namespace) == []
    assert client.get("v1", "ConfigMap", "a", namespace) is None
    real = engine_for(kubeconfig, namespace).present(inp, opts())
    assert real.changed == check.changed
    assert [c.summary() for c in real.changes] == [c.summary() for c in check.changes]
    _assert_prediction_came_true(kubeconfig, check)


def test_check_mode_upgrade_predicts_value_template_and_object_changes(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(
        literal_input([configmap("a", {"k": "v"}), configmap("gone", {"x": "z"}), deployment("web")]), opts())
    new = literal_input([configmap("a", {"k": "v2"}), configmap("added", {"n": "1"}),
                         deployment("web", replicas=2, env={"B": "2"})], config={"k": "v2"})
    check_engine = engine_for(kubeconfig, namespace)
    check = check_engine.present(new, opts(check_mode=True))
    assert check.changed
    assert check_engine.client.count(writes_only=True, include_dry_run=False) == 0
    assert {c.resource.name: c.action for c in check.changes} == {
        "a": "apply", "added": "apply", "web": "apply", "gone": "delete"}
    assert len(_records(client_for(kubeconfig), namespace)) == 1
    real = engine_for(kubeconfig, namespace).present(new, opts())
    assert real.changed and [c.summary() for c in real.changes] == [c.summary() for c in check.changes]
    _assert_prediction_came_true(kubeconfig, check)
    statuses = sorted((r["metadata"]["labels"]["version"], r["metadata"]["labels"]["status"])
                      for r in _records(client_for(kubeconfig), namespace))
    assert statuses == [("1", "superseded"), ("2", "deployed")]


def test_check_mode_rollback_predicts_the_rollback(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v1"})]), opts())
    engine_for(kubeconfig, namespace).present(
        literal_input([configmap("a", {"k": "v2"}), configmap("b", {"k": "b"})]), opts())
    check_engine = engine_for(kubeconfig, namespace)
    check = check_engine.rollback(1, opts(check_mode=True))
    assert check.changed and check_engine.client.count(writes_only=True, include_dry_run=False) == 0
    real = engine_for(kubeconfig, namespace).rollback(1, opts())
    assert real.changed and real.release["version"] == 3
    assert real.release["info"]["description"] == "Rollback to 1"
    _assert_prediction_came_true(kubeconfig, check)
    again = engine_for(kubeconfig, namespace)
    assert not again.rollback(1, opts()).changed
    assert again.client.count(writes_only=True) == 0


def test_check_mode_uninstall_writes_nothing_then_uninstall_removes_everything(kubeconfig, namespace):
    inp = literal_input([configmap("a", {"k": "v"}), configmap("kept", {"k": "v"}, **{"helm.sh/resource-policy": "keep"})])
    engine_for(kubeconfig, namespace).present(inp, opts())
    check_engine = engine_for(kubeconfig, namespace)
    check = check_engine.absent(opts(check_mode=True))
    assert check.changed and check_engine.client.count(writes_only=True, include_dry_run=False) == 0
    assert {c.resource.name: c.action for c in check.changes} == {"a": "delete", "kept": "keep"}
    client = client_for(kubeconfig)
    assert len(_records(client, namespace)) == 1
    real = engine_for(kubeconfig, namespace).absent(opts())
    assert real.changed
    predicted, made = (dict(release_status(o.release), updated=None) for o in (check, real))
    assert predicted == made and made["status"] == "uninstalled"  # the release as the run reports it
    assert _records(client, namespace) == []
    assert client.get("v1", "ConfigMap", "a", namespace) is None
    assert client.get("v1", "ConfigMap", "kept", namespace) is not None
    assert not engine_for(kubeconfig, namespace).absent(opts()).changed


def test_uninstall_with_keep_history_leaves_an_uninstalled_record(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v"})]), opts())
    engine_for(kubeconfig, namespace).absent(opts(purge=False))
    records = _records(client_for(kubeconfig), namespace)
    assert [r["metadata"]["labels"]["status"] for r in records] == ["uninstalled"]
    again = engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v"})]), opts())
    assert again.changed and again.release["version"] == 2 and again.release["info"]["status"] == "deployed"


def test_history_max_prunes_the_oldest_revisions(kubeconfig, namespace):
    for i in range(5):
        engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": str(i)})]),
                                                  opts(history_max=3))
    versions = sorted(int(r["metadata"]["labels"]["version"]) for r in _records(client_for(kubeconfig), namespace))
    assert versions == [3, 4, 5]
