"""``.Capabilities``: Helm's offline defaults and the ``--kube-version``/``--api-versions`` options."""


from ..govalue.values import GoStruct
from .errors import ChartError
from ..regexcache import regex

# The Helm release the engine renders, plans and stores exactly like (scripts/versions.env HELM4_VERSION is the
# test oracle's pin; a test keeps the two equal). Modules report it as ``helm_version``; templates see it as
# .Capabilities.HelmVersion.Version, as the helm CLI stamps it.
HELM_VERSION = "v4.3.2"
# Helm 4.3's defaults come from the client-go it is built with (k8s.io/client-go v0.37).
DEFAULT_KUBE_VERSION = "v1.37.0"
HELM_KUBE_CLIENT_VERSION = "v1.37"
# runtime.Version() of the helm binary: Helm's release builds use Go 1.27 (.github/env GOLANG_VERSION); the
# patch release of the official binary is not knowable from the source, so the tests do not compare it.
HELM_GO_VERSION = "go1.27.0"

# client-go's scheme.Scheme.PrioritizedVersionsAllGroups() plus apiextensions
# v1beta1/v1, in Helm 4.3's order (pkg/chart/common/capabilities.go allKnownVersions).
DEFAULT_API_VERSIONS = (
    "v1",
    "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1", "apps/v1beta1", "apps/v1beta2",
    "authentication.k8s.io/v1", "authentication.k8s.io/v1alpha1", "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1", "authorization.k8s.io/v1beta1",
    "autoscaling/v1", "autoscaling/v2",
    "batch/v1", "batch/v1beta1",
    "certificates.k8s.io/v1", "certificates.k8s.io/v1beta1", "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2", "coordination.k8s.io/v1beta1", "coordination.k8s.io/v1",
    "discovery.k8s.io/v1", "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1", "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
    "lifecycle.k8s.io/v1alpha1",
    "networking.k8s.io/v1", "networking.k8s.io/v1beta1",
    "node.k8s.io/v1", "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1",
    "policy/v1", "policy/v1beta1",
    "rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1beta1", "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1", "storage.k8s.io/v1", "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1", "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1",
)

# k8s.io/apimachinery util/version ParseGeneric: up to 3 numeric components, then anything.
_GENERIC_RE = regex(r"^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$")


class KubeVersion(GoStruct):
    """``common.KubeVersion``; prints through ``String()`` (the normalized version)."""

    GO_TYPE = "common.KubeVersion"
    GO_FIELDS = ("Version", "Major", "Minor")
    GO_METHODS = ("String", "GitVersion")
    # What %v shows: the struct also holds the unexported normalized version.
    GO_PRINT_FIELDS = ("Version", "normalizedVersion", "Major", "Minor")
    # String() has a pointer receiver and the template holds the struct value: %v prints the fields.
    GO_STRINGER = False

    def __init__(self, version, normalized, major, minor):
        self.Version = version
        self.normalizedVersion = normalized
        self.Major = major
        self.Minor = minor

    def String(self):
        return self.normalizedVersion or self.Version

    def GitVersion(self):
        return self.Version

    def go_json_value(self):
        return {"Version": self.Version, "Major": self.Major, "Minor": self.Minor}


def parse_kube_version(text):
    """Helm's ``ParseKubeVersion`` (k8s ``ParseGeneric``): ``1.33.4-gke.1`` prints as ``v1.33.4``,
    ``1.30`` as ``v1.30``; ``Version`` keeps the input (with a ``v``)."""
    match = _GENERIC_RE.match(text)
    if not match:
        raise ChartError("could not parse %s as version" % _quote(text))
    parts = match.group(1).split(".")
    if len(parts) < 2:
        raise ChartError("illegal version string %s" % _quote(text))
    if len(parts[0]) > 1 and parts[0][0] == "0":
        raise ChartError("illegal zero-prefixed version component %s in %s" % (_quote(parts[0]), _quote(text)))
    version = text if text.startswith("v") else "v" + text
    normalized = "v" + ".".join(str(int(p)) for p in parts)
    return KubeVersion(version, normalized, str(int(parts[0])), str(int(parts[1])))


def _quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


class VersionSet(list):
    """``common.VersionSet`` ([]string with ``Has``)."""

    GO_TYPE = "common.VersionSet"
    GO_METHODS = ("Has",)

    def go_method(self, name):
        return getattr(self, name) if name in self.GO_METHODS else None

    def Has(self, api_version):
        return api_version in self


class HelmVersion(GoStruct):
    """``version.BuildInfo`` as the helm CLI reports it."""

    GO_TYPE = "version.BuildInfo"
    GO_FIELDS = ("Version", "GitCommit", "GitTreeState", "GoVersion", "KubeClientVersion")

    def __init__(self, version=HELM_VERSION, git_commit="", git_tree_state="", go_version=HELM_GO_VERSION,
                 kube_client_version=HELM_KUBE_CLIENT_VERSION):
        self.Version = version
        self.GitCommit = git_commit
        self.GitTreeState = git_tree_state
        self.GoVersion = go_version
        self.KubeClientVersion = kube_client_version

    def go_json_value(self):
        out = {"version": self.Version}
        if self.GitCommit:
            out["git_commit"] = self.GitCommit
        if self.GitTreeState:
            out["git_tree_state"] = self.GitTreeState
        if self.GoVersion:
            out["go_version"] = self.GoVersion
        out["kube_client_version"] = self.KubeClientVersion
        return out


class Capabilities(GoStruct):
    """``*common.Capabilities``.

    ``kube_version`` (e.g. ``"1.30"`` or ``"v1.30.2"``) replaces the default v1.37.0;
    ``api_versions`` are appended to the default API version list, as Helm's
    ``--kube-version``/``--api-versions`` do.
    """

    GO_TYPE = "*common.Capabilities"
    GO_FIELDS = ("KubeVersion", "APIVersions", "HelmVersion")

    def __init__(self, kube_version=None, api_versions=None, helm_version=None):
        self.KubeVersion = parse_kube_version(kube_version or DEFAULT_KUBE_VERSION)
        self.APIVersions = VersionSet(DEFAULT_API_VERSIONS)
        self.APIVersions.extend(api_versions or ())
        self.HelmVersion = helm_version or HelmVersion()

    def go_json_value(self):
        """``json.Marshal`` form; keys in struct order (Go does not sort struct fields)."""
        return {"KubeVersion": self.KubeVersion.go_json_value(), "APIVersions": list(self.APIVersions),
                "HelmVersion": self.HelmVersion.go_json_value()}
