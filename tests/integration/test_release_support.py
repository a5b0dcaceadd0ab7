"""Helpers for the release integration tests (no tests here): charts on disk, engine and module calls.

Engine-level tests feed literal manifests (as ``# Source:``-headed documents, exactly what Helm stores)
so the planner, executor and storage are verified independently of the renderer; module-level tests
render real chart directories.
"""
import copy
import os

import yaml

from ansible_collections.helmless.core.plugins.module_utils.actions.inputs import ReleaseInput
from ansible_collections.helmless.core.plugins.module_utils.actions.base import Options
from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import CONNECTION, RELEASE, ROLLBACK
from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.plan.planner import ASSIGNED, normalized
from ansible_collections.helmless.core.plugins.module_utils.release.model import chart_record, hook_record

CHART = "demo"


def client_for(kubeconfig):
    return KubeClient(load_connection(kubeconfig))


def engine_for(kubeconfig, namespace, name="rel"):
    return ReleaseEngine(client_for(kubeconfig), name, namespace)


def configmap(name, data, **annotations):
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
    if annotations:
        doc["metadata"]["annotations"] = annotations
    return doc


def deployment(name, replicas=1, image="nginx:1", env=None):
    container = {"name": "app", "image": image}
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}}}


def job(name, events, weight=0, policies=None, fail=False):
    meta = {"name": name, "annotations": {"helm.sh/hook": ",".join(events), "helm.sh/hook-weight": str(weight)}}
    if policies:
        meta["annotations"]["helm.sh/hook-delete-policy"] = ",".join(policies)
    spec = {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
                                                      "containers": [{"name": "c", "image": "busybox"}]}}}
    if fail:
        # its pod can never be scheduled, so the Job controller fails it at the deadline
        spec["activeDeadlineSeconds"] = 2
        spec["template"]["spec"]["nodeSelector"] = {"helmless.test/no-such-node": "true"}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def to_yaml(doc):
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


def literal_input(docs, hooks=(), config=None, version="0.1.0", app_version="1.0", notes=""):
    """A ReleaseInput from objects, as Helm would store them (``# Source:`` per document)."""
    parts = []
    for doc in docs:
        parts.append("---\n# Source: %s/templates/%s.yaml\n%s" % (CHART, doc["metadata"]["name"], to_yaml(doc)))
    hook_records = []
    for doc in hooks:
        ann = doc["metadata"]["annotations"]
        hook_records.append(hook_record(
            doc["metadata"]["name"], doc["kind"], "%s/templates/%s.yaml" % (CHART, doc["metadata"]["name"]),
            "# Source: %s/templates/%s.yaml\n%s" % (CHART, doc["metadata"]["name"], to_yaml(doc)),
            ann["helm.sh/hook"].split(","), int(ann.get("helm.sh/hook-weight", "0")),
            [p for p in ann.get("helm.sh/hook-delete-policy", "").split(",") if p]))
    chart = chart_record({"apiVersion": "v2", "name": CHART, "version": version, "appVersion": app_version},
                         [("templates/%s.yaml" % d["metadata"]["name"], to_yaml(d).encode()) for d in docs],
                         values={})
    return ReleaseInput("".join(parts), hook_records, notes, (), chart, copy.deepcopy(config or {}))


def opts(**kw):
    return Options(**kw)


def strip(obj):
    """An object without what the server sets on its own, to compare predictions with reality."""
    out = normalized(obj)
    if out is None:
        return None
    annotations = {k: v for k, v in (out["metadata"].get("annotations") or {}).items()
                   if not k.startswith("deployment.kubernetes.io/")}  # set by the controller afterwards
    out["metadata"]["annotations"] = annotations
    if out.get("kind") == "Service":
        out["spec"] = {k: v for k, v in out["spec"].items() if k not in ("clusterIP", "clusterIPs")}
    return out


def prediction_matches(live, predicted):
    """``live`` is what check mode predicted: every field equal except those marked ``ASSIGNED`` (any
    value the server assigned), ignoring what ``strip`` leaves out."""
    def match(have, want):
        if want == ASSIGNED:
            return have is not None
        if isinstance(want, dict):
            return isinstance(have, dict) and have.keys() == want.keys() and all(match(have[k], want[k]) for k in want)
        if isinstance(want, list):
            return isinstance(have, list) and len(have) == len(want) and all(map(match, have, want))
        return have == want
    return match(strip(live), strip(predicted))


def write_chart(root, templates, values=None, name=CHART, version="0.1.0", app_version="1.0", crds=None):
    """A chart directory on disk (for the modules and the helm CLIs)."""
    path = os.path.join(str(root), name)
    os.makedirs(os.path.join(path, "templates"), exist_ok=True)
    with open(os.path.join(path, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: %s\nversion: %s\nappVersion: \"%s\"\n" % (name, version, app_version))
    with open(os.path.join(path, "values.yaml"), "w") as fh:
        fh.write(yaml.safe_dump(values or {}))
    for fname, text in templates.items():
        with open(os.path.join(path, "templates", fname), "w") as fh:
            fh.write(text)
    for fname, text in (crds or {}).items():
        os.makedirs(os.path.join(path, "crds"), exist_ok=True)
        with open(os.path.join(path, "crds", fname), "w") as fh:
            fh.write(text)
    return path


def module_params(table_set="release", **kw):
    """Validated-looking params (defaults filled in) for the runner functions, as AnsibleModule gives them."""
    tables = {"release": (CONNECTION, RELEASE), "rollback": (CONNECTION, ROLLBACK)}[table_set]
    params = {}
    for table in tables:
        for name, opt in table.items():
            params[name] = copy.deepcopy(opt.get("default"))
    for key, value in kw.items():
        key = {"name": "release_name", "namespace": "release_namespace", "values": "release_values",
               "state": "release_state"}.get(key, key)
        params[key] = value
    return params
