"""Chart directories for the differential harness: a generated chart spec (differential_gen) on disk.

Both sides get the same chart, except for the CRD of ``crds/``: CRDs are cluster-wide, so each side's
is named after its namespace (``widgets.<namespace>.example.com``), which the comparison normalizes away.
"""
import json
import os

import yaml

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{group}
spec:
  group: {group}
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
    singular: widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""
WIDGET = """apiVersion: {{ .Release.Namespace }}.example.com/v1
kind: Widget
metadata:
  name: widget
spec:
  size: {{ len .Values.message }}
"""
VALUES_CMS = """{{- range $name, $data := .Values.cms }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: v-{{ $name }}
data:
  {{- toYaml $data | nindent 2 }}
{{- end }}
"""
NOTES = "{{ .Release.Name }} revision {{ .Release.Revision }} says {{ .Values.message }}\n"
UNSCHEDULABLE = {"helmless.test/no-such-node": "true"}


def crd_group(namespace):
    return "%s.example.com" % namespace


def body(kind, name, variant=0, keep=False, bad=False):
    """The object a chart (or a hand edit creating one) declares for ``kind``/``name``."""
    meta = {"name": name, "labels": {"variant": "v%d" % variant}}
    if keep:
        meta["annotations"] = {"helm.sh/resource-policy": "keep"}
    doc = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    if kind == "ConfigMap":
        doc["data"] = {"variant": "v%d" % variant, "message": "MESSAGE"}
        if bad:
            doc["data"]["not a valid key"] = "x"
    elif kind == "Secret":
        doc["stringData"] = {"password": "p%d" % variant}
    elif kind == "Service":
        doc["spec"] = {"selector": {"app": name}, "ports": [{"name": "http", "port": 80 + variant}]}
    elif kind == "ServiceAccount":
        doc["automountServiceAccountToken"] = variant % 2 == 0
    elif kind == "Deployment":
        doc["apiVersion"] = "apps/v1"
        doc["spec"] = {"replicas": 1 + variant % 2, "selector": {"matchLabels": {"app": name}},
                       "template": {"metadata": {"labels": {"app": name}},
                                    "spec": {"containers": [{"name": "app", "image": "nginx:1.%d" % variant}]}}}
    return doc


def hook_body(hook):
    ann = {"helm.sh/hook": ",".join(hook["events"]), "helm.sh/hook-weight": str(hook["weight"])}
    if hook["policies"]:
        ann["helm.sh/hook-delete-policy"] = ",".join(hook["policies"])
    meta = {"name": hook["name"], "annotations": ann}
    if hook["kind"] == "ConfigMap":
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"weight": str(hook["weight"])}}
    command = ["sh", "-c", "exit 1" if hook["fail"] else "true"]
    pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": command}]}
    if hook["kind"] == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod}
    spec = {"backoffLimit": 0, "template": {"spec": pod}}
    if hook["fail"]:  # kwok completes every Job pod it runs: this one is never scheduled, and fails at its deadline
        spec["activeDeadlineSeconds"] = 2
        pod["nodeSelector"] = UNSCHEDULABLE
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def _text(doc):
    text = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    return text.replace("message: MESSAGE", "message: {{ .Values.message | quote }}")


def write(root, chart, namespace):
    """Chart directory ``root/demo`` for ``chart`` (a differential_gen spec), CRDs named for ``namespace``."""
    path = os.path.join(root, "demo")
    os.makedirs(os.path.join(path, "templates"))
    files = {"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.%d\nappVersion: \"1.%d\"\n"
                           % (chart["version"], chart["version"]),
             "values.yaml": yaml.safe_dump(chart["defaults"], sort_keys=True),
             "templates/NOTES.txt": NOTES, "templates/values-cms.yaml": VALUES_CMS}
    for obj in chart["objects"]:
        files["templates/%s-%s.yaml" % (obj["kind"].lower(), obj["name"])] = _text(
            body(obj["kind"], obj["name"], obj["variant"], obj["keep"], obj["bad"]))
    for hook in chart["hooks"]:
        files["templates/%s.yaml" % hook["name"]] = json.dumps(hook_body(hook), indent=1) + "\n"
    if chart.get("refuse"):  # a chart version that does not render (Sprig's fail)
        files["templates/refuse.yaml"] = '{{ fail (printf "chart version %s refuses to render" .Chart.Version) }}\n'
    if chart["crds"]:
        files["crds/widgets.yaml"] = CRD.format(group=crd_group(namespace))
        if chart["custom"]:
            files["templates/widget.yaml"] = WIDGET
    for name, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(path, name)), exist_ok=True)
        with open(os.path.join(path, name), "w") as handle:
            handle.write(text)
    return path
