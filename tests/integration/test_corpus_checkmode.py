"""Every corpus chart: ``--check --diff`` predicts the real install exactly, and then an upgrade with
changed values, or fails exactly when the real run fails, with the same message; both into a namespace that
exists and, with ``create_namespace``, into one that does not exist yet (install only: the upgrade finds it).

The check runs as a user runs it (``show_secrets`` off, so the diff's masking is part of what is
checked; ``diff_format: json`` to read the objects). After each real run every predicted object that is
not a Secret equals the live one on every field, except fields marked as assigned at creation, the
values the chart draws at random (those differ between two renders of the same chart and values: the
check shows one draw, the real run makes another) and an aggregated ClusterRole's ``rules`` (the
aggregation controller fills them after creation). Masking touches nothing else: a masked place must
hold one of the release's Secret values live (the bitnami charts are installed with connection strings
in env values, commands and annotations: ``${VAR}``, ``$(VAR)`` and literal passwords, one of them a
Secret's value). A deleted object is gone. Charts that fail on a bare
cluster (istiod: objects in the namespace ``istio-system`` that does not exist; opentelemetry-kube-stack:
cert-manager kinds; loki and opentelemetry-collector: their values must be set) fail in check mode with
the real run's message and write nothing. One install serves both checks; live objects are read in
parallel. What the chart shares with other tests on the run's one control plane (kept CRDs, cluster-scoped
objects of fixed names) is locked while the test runs and deleted after it (corpus_cluster.py), so no
result depends on test order or on how xdist spreads the tests.
"""
import base64
import re
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils.actions.redaction import MASK
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release
from ansible_collections.helmless.core.plugins.module_utils.plan.changes import field_changes
from ansible_collections.helmless.core.plugins.module_utils.plan.manifest import parse_manifest
from ansible_collections.helmless.core.plugins.module_utils.plan.planner import ASSIGNED
from ansible_collections.helmless.core.plugins.module_utils.render.template import render_release

from corpus_cluster import Claims
from test_release_support import client_for, module_params, strip

# the real helm install fails on these too (test_corpus_releases.py), for these reasons
FAILING = {"istiod": 'in namespace "istio-system": namespaces "istio-system" not found',
           "opentelemetry-kube-stack": 'in version "cert-manager.io/v1"\nensure CRDs are installed first',
           "loki": "Please define loki.storage.bucketNames.chunks",
           "opentelemetry-collector": "'image.repository' must be set"}
MARK = {"helmless.io/upgrade": "1"}
# values that change some objects of each chart (and no set of objects) for the upgrade
UPGRADE = {"argo-cd": {"global": {"podAnnotations": MARK}}, "bitnami-argo-workflows": {"commonLabels": MARK},
           "bitnami-postgresql": {"commonLabels": MARK},
           "bitnami-redis": {"commonLabels": MARK}, "grafana": {"replicas": 2},
           "ingress-nginx": {"commonLabels": MARK}, "jenkins": {"controller": {"podAnnotations": MARK}},
           "kube-prometheus-stack": {"commonLabels": MARK}, "kubernetes-dashboard": {"app": {"labels": MARK}},
           "nats": {"podTemplate": {"merge": {"metadata": {"annotations": MARK}}}},
           "prometheus": {"server": {"podAnnotations": MARK}}, "traefik": {"commonLabels": MARK},
           "vault": {"server": {"annotations": MARK}}}
TIMEOUT = "300s"
PASSWORD = "Lit3ral-Pg-Pass"  # a Secret's value that the chart's user also pastes into a URL


# Connection strings of every form: a preview shows them as they go live, but the pasted Secret value.
ANNOTATIONS = {"helmless.io/shell": "postgresql://postgres:${POSTGRES_PASSWORD}@db:5432/x",
               "helmless.io/pasted": "postgresql://postgres:%s@db:5432/x" % PASSWORD,
               "helmless.io/plain": "mysql://reader:not-a-secret-pw@db/x"}
ENV = [{"name": "DATABASE_URL", "value": "postgresql://postgres:$(POSTGRES_PASSWORD)@127.0.0.1:5432/x"},
       {"name": "WAIT_CMD", "value": "until pg_isready -d postgres://app:${APP_PW}@db; do sleep 1; done"}]
# values of the first install: bitnami charts with those in env values, commands and annotations
INSTALL = {"bitnami-postgresql": {"commonAnnotations": ANNOTATIONS, "auth": {"postgresPassword": PASSWORD},
                                  "primary": {"extraEnvVars": ENV, "command": ["sh", "-c", ENV[1]["value"]]}},
           "bitnami-wordpress": {"commonAnnotations": ANNOTATIONS, "extraEnvVars": ENV,
                                 "mariadb": {"auth": {"password": PASSWORD}}}}


@pytest.fixture
def claims(controlplane, kubeconfig, namespace):
    """What the test's chart shares with other tests, locked; its leftovers deleted (corpus_cluster.py)."""
    held = Claims(controlplane, kubeconfig, namespace)
    yield held
    held.release()


def _writes(result):
    return (result.get("api_requests") or {}).get("writes", 0)  # a chart that fails to render asks nothing


def _run(params, **kw):
    try:
        return run_release(params, **kw)[0], None
    except ModuleFailure as exc:
        return exc.result, str(exc)


def _random_fields(chart, name, namespace, values):
    """{(kind, name): JSON pointers} of the fields two renders of the chart with these values draw apart."""
    def objects():
        rendered = render_release(corpuskit.archive(chart), name=name, namespace=namespace, values=values)
        return {(r.kind, r.name): r.obj for r in parse_manifest(rendered.manifest)}
    first, second = objects(), objects()
    return {key: [f["path"] for f in field_changes(obj, second.get(key))] for key, obj in first.items()
            if obj != second.get(key)}


def _masked_secret(have, want, secrets):
    """Whether ``want`` is ``have`` with some of the release's Secret values masked, and nothing else."""
    pattern = "(.+?)".join(re.escape(part) for part in want.split(MASK))
    match = re.fullmatch(pattern, have)
    return bool(match) and all(group in secrets for group in match.groups())


def _mismatches(live, predicted, ignored, secrets=()):
    """The JSON pointers where ``live`` differs from ``predicted``: ``ASSIGNED`` matches any value, a masked
    place one of the release's Secret values (``secrets``), the ``ignored`` fields (drawn at random) and what
    ``strip`` leaves out are not compared."""
    out = []

    def walk(have, want, path):
        if any(path == p or path.startswith(p + "/") for p in ignored):
            return
        if want == ASSIGNED:
            if have is None:
                out.append(path)
        elif isinstance(want, str) and MASK in want and isinstance(have, str) and have != want:
            if not _masked_secret(have, want, secrets):
                out.append(path)
        elif isinstance(want, dict) and isinstance(have, dict):
            for key in set(want) | set(have):
                walk(have.get(key), want.get(key), path + "/" + str(key).replace("~", "~0").replace("/", "~1"))
        elif isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
            for index, (a, b) in enumerate(zip(have, want)):
                walk(a, b, "%s/%d" % (path, index))
        elif have != want:
            out.append(path)
    walk(strip(live), strip(predicted), "")
    return out


def _secret_values(client, namespace):
    """Every value of the Secrets in ``namespace``, as stored and decoded."""
    out = set()
    for secret in client.list("v1", "Secret", namespace):
        for value in (secret.get("data") or {}).values():
            out.update((value, base64.b64decode(value).decode("utf-8", "replace")))
    return out


def _assert_came_true(client, check, random, namespace):
    """Every object the check said would change is now as predicted (deleted: gone)."""
    entries = [e for e in check["diff"] if (e["after"] or e["before"]).get("kind") != "Secret"]
    assert entries, check["plan"]
    secrets = _secret_values(client, namespace)

    def compare(entry):
        obj = entry["after"] or entry["before"]
        live = client.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], obj["metadata"].get("namespace"))
        if not entry["after"]:
            return [] if live is None or live["metadata"].get("deletionTimestamp") else ["(not deleted)"]
        ignored = list(random.get((obj["kind"], obj["metadata"]["name"]), ()))
        if obj["kind"] == "ClusterRole" and obj.get("aggregationRule"):
            ignored.append("/rules")
        return _mismatches(live, entry["after"], ignored, secrets)
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = {e["after_header"]: wrong for e, wrong in zip(entries, pool.map(compare, entries)) if wrong}
    assert not found, found


@pytest.mark.parametrize("where", ["existing", "new"])
@pytest.mark.parametrize("chart", corpuskit.names())
def test_check_mode_predicts_the_install_and_an_upgrade_or_fails_like_them(kubeconfig, namespace, claims, chart,
                                                                           where):
    name = "c" + uuid.uuid4().hex[:8]
    first = INSTALL.get(chart)
    values = dict(first or {}, **UPGRADE.get(chart, {"podAnnotations": MARK}))
    claims.claim(chart, name, [first, values])
    release_ns = namespace if where == "existing" else namespace + "-new"
    params = module_params(name=name, namespace=release_ns, chart_ref=corpuskit.archive(chart), kubeconfig=kubeconfig,
                           diff_format="json", timeout=TIMEOUT, release_values=first,
                           create_namespace=where == "new")
    client = client_for(kubeconfig)
    check, check_error = _run(params, check_mode=True, diff=True)
    assert _writes(check) == 0
    if where == "new":
        assert client.get("v1", "Namespace", release_ns) is None
    try:
        real, real_error = _run(params)
        assert check_error == real_error
        if real_error is not None:
            assert _writes(real) == 0 and real.get("status") is None and not real.get("changed")
            assert chart in FAILING and FAILING[chart] in real_error, real_error
            return
        assert chart not in FAILING
        _assert_came_true(client, check, _random_fields(chart, name, release_ns, first), release_ns)
        if where == "new":
            return

        upgrade = dict(params, release_values=values)
        check, _ = _run(upgrade, check_mode=True, diff=True)
        assert check["changed"] and _writes(check) == 0
        real, real_error = _run(upgrade)
        assert real_error is None and real["status"]["revision"] == "2"
        _assert_came_true(client, check, _random_fields(chart, name, release_ns, values), release_ns)
    finally:  # cluster-scoped objects (webhooks, cluster roles) must not outlive the test
        if client.get("v1", "Namespace", release_ns) is not None:
            run_release(dict(params, release_state="absent"))
            if where == "new":
                client.delete("v1", "Namespace", release_ns)
