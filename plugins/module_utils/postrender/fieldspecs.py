"""kustomize v5's default field specs (api/konfig/builtinpluginconsts), as data.

Each tuple is (path, kind, group, version, create); group/version None match any.
"""
from .resources import fs

_WORKLOADS = (("ReplicationController", None, "v1"), ("Deployment", None, None),
              ("ReplicaSet", None, None), ("DaemonSet", None, None),
              ("StatefulSet", "apps", None), ("Job", "batch", None))


def _meta_specs(field):
    specs = [fs("metadata/" + field, create=True)]
    for kind, group, version in _WORKLOADS:
        specs.append(fs("spec/template/metadata/" + field, kind, group, version, True))
        if kind == "StatefulSet" and field == "labels":
            specs.append(fs("spec/volumeClaimTemplates[]/metadata/labels", kind, group, None, True))
    specs.append(fs("spec/jobTemplate/metadata/" + field, "CronJob", "batch", None, True))
    specs.append(fs("spec/jobTemplate/spec/template/metadata/" + field, "CronJob", "batch", None, True))
    return specs


TEMPLATE_LABELS = _meta_specs("labels")
COMMON_ANNOTATIONS = _meta_specs("annotations")

_AFFINITY = [
    "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
    "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
    "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
    "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
    "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
]

SELECTOR_LABELS = (
    [fs("spec/selector", "Service", None, "v1", True),
     fs("spec/selector", "ReplicationController", None, "v1", True),
     fs("spec/selector/matchLabels", "Deployment", create=True)]
    + [fs(p, "Deployment", "apps") for p in _AFFINITY]
    + [fs("spec/selector/matchLabels", "ReplicaSet", create=True),
       fs("spec/selector/matchLabels", "DaemonSet", create=True),
       fs("spec/selector/matchLabels", "StatefulSet", "apps", create=True),
       fs("spec/volumeClaimTemplates[]/metadata/labels", "StatefulSet", "apps", create=True)]
    + [fs(p, "StatefulSet", "apps") for p in _AFFINITY]
    + [fs("spec/selector/matchLabels", "Job", "batch"),
       fs("spec/jobTemplate/spec/selector/matchLabels", "CronJob", "batch"),
       fs("spec/selector/matchLabels", "PodDisruptionBudget", "policy"),
       fs("spec/podSelector/matchLabels", "NetworkPolicy", "networking.k8s.io"),
       fs("spec/ingress/from/podSelector/matchLabels", "NetworkPolicy", "networking.k8s.io"),
       fs("spec/egress/to/podSelector/matchLabels", "NetworkPolicy", "networking.k8s.io")]
)

COMMON_LABELS = SELECTOR_LABELS + TEMPLATE_LABELS

NAMESPACE_EXTRA = [
    fs("metadata/name", "Namespace", create=True),
    fs("spec/service/namespace", "APIService", "apiregistration.k8s.io", create=True),
    fs("spec/conversion/webhook/clientConfig/service/namespace", "CustomResourceDefinition",
       "apiextensions.k8s.io"),
]

REPLICAS = [fs("spec/replicas", k, create=True)
            for k in ("Deployment", "ReplicationController", "ReplicaSet", "StatefulSet")]

IMAGES = [fs(p, create=True) for p in (
    "spec/containers[]/image", "spec/initContainers[]/image", "spec/volumes[]/image/reference",
    "spec/template/spec/containers[]/image", "spec/template/spec/initContainers[]/image",
    "spec/template/spec/volumes[]/image/reference")]

# Kinds the prefix/suffix transformer leaves alone.
PREFIX_SKIP = (("CustomResourceDefinition", None), ("APIService", "apiregistration.k8s.io"),
               ("Namespace", None))

# --- name references: referral kind → fields of other kinds that hold its name ---------------

_POD_HOLDERS = (("Pod", "spec/", "v1"), ("PodTemplate", "template/spec/", None),
                ("Deployment", "spec/template/spec/", None),
                ("ReplicaSet", "spec/template/spec/", None),
                ("DaemonSet", "spec/template/spec/", None),
                ("StatefulSet", "spec/template/spec/", None),
                ("Job", "spec/template/spec/", None),
                ("CronJob", "spec/jobTemplate/spec/template/spec/", None))


def _pod_refs(suffixes, holders=_POD_HOLDERS):
    return [fs(prefix + s, kind, None, version) for kind, prefix, version in holders for s in suffixes]


_CM_POD = ("volumes/configMap/name", "containers/env/valueFrom/configMapKeyRef/name",
           "initContainers/env/valueFrom/configMapKeyRef/name", "containers/envFrom/configMapRef/name",
           "initContainers/envFrom/configMapRef/name", "volumes/projected/sources/configMap/name")
_SECRET_POD = ("volumes/secret/secretName", "containers/env/valueFrom/secretKeyRef/name",
               "initContainers/env/valueFrom/secretKeyRef/name", "containers/envFrom/secretRef/name",
               "initContainers/envFrom/secretRef/name", "imagePullSecrets/name",
               "volumes/projected/sources/secret/name")
_SA_HOLDERS = (("Pod", "spec/"), ("StatefulSet", "spec/template/spec/"), ("Deployment", "spec/template/spec/"),
               ("ReplicationController", "spec/template/spec/"), ("CronJob", "spec/jobTemplate/spec/template/spec/"),
               ("Job", "spec/template/spec/"), ("DaemonSet", "spec/template/spec/"))
_HPA = [fs("spec/scaleTargetRef/name", "HorizontalPodAutoscaler")]

# (referral kind, referral group or None, [referrer field specs])
NAME_REFERENCES = [
    ("Deployment", None, _HPA), ("ReplicationController", None, _HPA),
    ("ReplicaSet", None, _HPA), ("StatefulSet", None, _HPA),
    ("ConfigMap", "", _pod_refs(_CM_POD) + [
        fs("spec/configSource/configMap", "Node"),
        fs("rules/resourceNames", "Role"), fs("rules/resourceNames", "ClusterRole"),
        fs("metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", "Ingress")]),
    ("Secret", "", _pod_refs(_SECRET_POD) + [
        fs("spec/tls/secretName", "Ingress"),
        fs("metadata/annotations/ingress.kubernetes.io\\/auth-secret", "Ingress"),
        fs("metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret", "Ingress"),
        fs("metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret", "Ingress"),
        fs("imagePullSecrets/name", "ServiceAccount"),
        fs("parameters/secretName", "StorageClass"), fs("parameters/adminSecretName", "StorageClass"),
        fs("parameters/userSecretName", "StorageClass"), fs("parameters/secretRef", "StorageClass"),
        fs("rules/resourceNames", "Role"), fs("rules/resourceNames", "ClusterRole"),
        fs("spec/template/spec/containers/env/valueFrom/secretKeyRef/name", "Service",
           "serving.knative.dev", "v1"),
        fs("spec/azureFile/secretName", "PersistentVolume")]),
    ("Service", "", [
        fs("spec/serviceName", "StatefulSet", "apps"),
        fs("spec/rules/http/paths/backend/serviceName", "Ingress"),
        fs("spec/backend/serviceName", "Ingress"),
        fs("spec/rules/http/paths/backend/service/name", "Ingress"),
        fs("spec/defaultBackend/service/name", "Ingress"),
        fs("spec/service/name", "APIService", "apiregistration.k8s.io"),
        fs("webhooks/clientConfig/service", "ValidatingWebhookConfiguration", "admissionregistration.k8s.io"),
        fs("webhooks/clientConfig/service", "MutatingWebhookConfiguration", "admissionregistration.k8s.io"),
        fs("spec/rules/backendRefs/name", "HTTPRoute")]),
    ("Role", "rbac.authorization.k8s.io", [fs("roleRef/name", "RoleBinding", "rbac.authorization.k8s.io")]),
    ("ClusterRole", "rbac.authorization.k8s.io", [
        fs("roleRef/name", "RoleBinding", "rbac.authorization.k8s.io"),
        fs("roleRef/name", "ClusterRoleBinding", "rbac.authorization.k8s.io")]),
    ("ServiceAccount", "", [
        fs("subjects", "RoleBinding", "rbac.authorization.k8s.io"),
        fs("subjects", "ClusterRoleBinding", "rbac.authorization.k8s.io")]
     + [fs(prefix + "serviceAccountName", kind) for kind, prefix in _SA_HOLDERS]),
    ("PersistentVolumeClaim", "", [
        fs(prefix + "volumes/persistentVolumeClaim/claimName", kind) for kind, prefix in _SA_HOLDERS]),
    ("PersistentVolume", "", [fs("spec/volumeName", "PersistentVolumeClaim"),
                              fs("rules/resourceNames", "ClusterRole")]),
    ("StorageClass", "storage.k8s.io", [
        fs("spec/storageClassName", "PersistentVolume"),
        fs("spec/storageClassName", "PersistentVolumeClaim"),
        fs("spec/volumeClaimTemplates/spec/storageClassName", "StatefulSet")]),
    ("PriorityClass", "scheduling.k8s.io", [
        fs(prefix + "priorityClassName", kind) for kind, prefix in _SA_HOLDERS]),
    # kustomize spells this group "networking.k8s.io/v1", so the reference never matches.
    ("IngressClass", "networking.k8s.io/v1", [fs("spec/ingressClassName", "Ingress")]),
]
