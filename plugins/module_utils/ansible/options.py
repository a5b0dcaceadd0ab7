"""The single source of every module option: argument specs AND documentation come from these tables.

Names, aliases, defaults and ``K8S_AUTH_*`` fallbacks follow kubernetes.core.helm / helm_info so a
playbook needs only its FQCN changed. ``doc_fragment()`` renders a table as the YAML ``options:`` that
``plugins/doc_fragments/*`` expose; ``argument_spec()`` turns the same tables into AnsibleModule specs.
"""
import copy

# ``env`` becomes an env_fallback in the spec and a sentence in the docs.
CONNECTION = {
    "kubeconfig": {
        "type": "raw", "aliases": ["kubeconfig_path"], "env": "K8S_AUTH_KUBECONFIG",
        "description": ["Path to a kubeconfig file, or the kubeconfig content as a dictionary.",
                        "Defaults to C(KUBECONFIG) or C(~/.kube/config), then the in-cluster service account."]},
    "context": {
        "type": "str", "aliases": ["kube_context"], "env": "K8S_AUTH_CONTEXT",
        "description": ["The kubeconfig context to use."]},
    "host": {
        "type": "str", "env": "K8S_AUTH_HOST",
        "description": ["URL of the Kubernetes API server; overrides the kubeconfig."]},
    "api_key": {
        "type": "str", "no_log": True, "env": "K8S_AUTH_API_KEY",
        "description": ["Bearer token to authenticate with the API server."]},
    "ca_cert": {
        "type": "path", "aliases": ["ssl_ca_cert"], "env": "K8S_AUTH_SSL_CA_CERT",
        "description": ["Path to a CA certificate used to verify the API server."]},
    "validate_certs": {
        "type": "bool", "aliases": ["verify_ssl"], "env": "K8S_AUTH_VERIFY_SSL",
        "description": ["Whether to verify the API server's TLS certificate.",
                        "Defaults to the kubeconfig's setting (verify unless it says insecure-skip-tls-verify)."]},
    "impersonate_user": {
        "type": "str", "env": "K8S_AUTH_IMPERSONATE_USER",
        "description": ["Act as this user (the API server's impersonation, kubectl's C(--as)): every request of "
                        "the task has the rights of that user, not the connection's own. The connection's user "
                        "needs the C(impersonate) verb on it.",
                        "Overrides the kubeconfig user's C(as); the kubeconfig's C(as-groups), C(as-uid) and "
                        "C(as-user-extra) are honoured as kubectl honours them, each unless set here."]},
    "impersonate_groups": {
        "type": "list", "elements": "str", "env": "K8S_AUTH_IMPERSONATE_GROUPS",
        "description": ["Groups to act as (kubectl's C(--as-group)); needs a user to impersonate. Without "
                        "them, a ServiceAccount user gets its groups from the API server."]},
    "impersonate_uid": {
        "type": "str",
        "description": ["UID to act as (kubectl's C(--as-uid)); needs a user to impersonate."]},
    "impersonate_extra": {
        "type": "dict",
        "description": ["Extra fields of the impersonated user, C(key: value) or C(key: [values]) (kubeconfig's "
                        "C(as-user-extra)); needs a user to impersonate."]},
    "service_account": {
        "type": "str",
        "description": ["Act as this ServiceAccount: C(namespace/name), or a name in the release namespace. "
                        "Short for I(impersonate_user) C(system:serviceaccount:<namespace>:<name>), as Flux's "
                        "C(serviceAccountName) runs a HelmRelease with a tenant's rights."]},
    "binary_path": {
        "type": "path",
        "description": ["Accepted for compatibility with kubernetes.core and ignored with a warning (no helm binary "
                        "is used)."]},
    "storage_driver": {
        "type": "str", "default": "secret", "choices": ["secret", "secrets", "configmap", "configmaps", "sql"],
        "env": "HELM_DRIVER",
        "description": ["Where release records are kept, as Helm's C(HELM_DRIVER).",
                        "C(sql) keeps them in PostgreSQL, in Helm's tables (needs psycopg 3 on the controller and "
                        "I(sql_connection_string))."]},
    "sql_connection_string": {
        "type": "str", "no_log": True, "env": "HELM_DRIVER_SQL_CONNECTION_STRING",
        "description": ["PostgreSQL connection string (libpq URL or key=value) of the C(sql) storage driver, as "
                        "Helm's C(HELM_DRIVER_SQL_CONNECTION_STRING).",
                        "Without C(sslmode), TLS is required, as Helm's driver requires it."]},
}

# The connection options that choose who a task acts as (impersonation).
IDENTITY = ("impersonate_user", "impersonate_groups", "impersonate_uid", "impersonate_extra", "service_account")

# How to reach a chart repository (release, template and repository modules).
REPO_ACCESS = {
    "repo_username": {"type": "str", "aliases": ["username"],
                      "description": ["Username for a chart repository with Basic authentication."]},
    "repo_password": {"type": "str", "no_log": True, "aliases": ["password"],
                      "description": ["Password for a chart repository with Basic authentication."]},
    "pass_credentials": {"type": "bool", "default": False, "no_log": False,
                         "description": ["Send the repository credentials to every host (chart archives served "
                                         "from another host than the repository included), as Helm's "
                                         "C(--pass-credentials). By default they only go to the repository's "
                                         "scheme, host and port."]},
    "insecure_skip_tls_verify": {"type": "bool", "default": False, "aliases": ["skip_tls_certs_check"],
                                 "description": ["Do not verify the chart repository's TLS certificate."]},
    "ca_file": {"type": "path", "description": ["CA bundle to verify the chart repository's certificate."]},
    "cert_file": {"type": "path", "description": ["Client certificate for the chart repository (mutual TLS)."]},
    "key_file": {"type": "path", "description": ["Key of I(cert_file)."]},
}

_NAME = {
    "release_name": {"type": "str", "required": True, "aliases": ["name"],
                     "description": ["Name of the release (Helm's rules: lowercase DNS-1123, at most 53 characters)."]},
    "release_namespace": {"type": "str", "required": True, "aliases": ["namespace"],
                          "description": ["Namespace of the release; its records are stored there."]},
}
_TIMING = {
    "wait": {"type": "raw", "default": False,
             "description": ["How to wait before marking the revision deployed, as Helm 4's C(--wait).",
                             "C(watcher) (or C(true), as Helm 4's bare C(--wait)) waits until every object is "
                             "ready by kstatus rules (Helm 4's watcher): workloads by their replica counts and "
                             "conditions, and any other object - custom resources included - once it has "
                             "observed its latest C(metadata.generation), has no C(Reconciling) or C(Stalled) "
                             "condition set and no C(Ready) condition other than C(True). An object that is "
                             "C(Failed) (C(Stalled=True), a failed Job) fails the wait.",
                             "C(legacy) uses Helm 3's readiness rules (a custom resource is ready once it exists).",
                             "C(hookOnly) (or C(false), the default) waits only for hooks."]},
    "wait_for_jobs": {"type": "bool", "default": False,
                      "description": ["While waiting (I(wait) C(watcher) or C(legacy)), also wait until Jobs have "
                                      "completed (Helm's C(--wait-for-jobs)); a failed Job fails the wait."]},
    "cleanup_on_fail": {"type": "bool", "default": False,
                        "description": ["When an upgrade or rollback fails, delete the objects it created (Helm's "
                                        "C(--cleanup-on-fail)); objects it changed stay as they are."]},
    "wait_timeout": {"type": "str",
                     "description": ["How long to wait for readiness and for each hook, as a Go duration "
                                     "(C(5m0s)) or seconds. Alias of I(timeout), kept for compatibility."]},
    "timeout": {"type": "str",
                "description": ["Time allowed for each hook and for I(wait), as a Go duration or seconds "
                                "(default C(5m0s))."]},
    "disable_hook": {"type": "bool", "default": False, "description": ["Do not run hooks (Helm's C(--no-hooks))."]},
    "history_max": {"type": "int", "default": 10,
                    "description": ["Keep at most this many revisions (0: no limit), pruned as Helm does."]},
    "show_secrets": {"type": "bool", "default": False,
                     "description": ["Show Secret data in diffs and returned objects instead of redacting it."]},
}
# How --diff shows the plan (release and rollback).
_DIFF = {
    "diff_format": {"type": "str", "default": "yaml", "choices": ["yaml", "json"],
                    "description": ["How the diff of a run with C(--diff) shows each object that changes.",
                                    "C(yaml): a header naming namespace, name, kind and group (as helm-diff), over a "
                                    "unified diff of the object's YAML (C(kubectl get -o yaml) form), then the "
                                    "C(Plan:) summary line; each entry is Ansible's C(prepared) text.",
                                    "C(json): Ansible's C(before)/C(after) pair of objects per entry, which the "
                                    "callback prints as JSON and a playbook can read field by field."]},
    "diff_context": {"type": "int", "default": 3,
                     "description": ["Lines of context around each change in the C(yaml) diff; C(-1) shows the "
                                     "whole object."]},
}
_STRATEGY = {
    "apply_strategy": {
        "type": "str", "choices": ["chart-delta", "helm3", "server-side"],
        "description": [
            "What is sent to update existing objects (default C(chart-delta), also for rollback).",
            "C(chart-delta) sends only what the chart changed between the deployed revision and the new one, so "
            "changes made outside the chart are kept. It runs over the apply method I(server_side) selects: "
            "client-side, a patch of the chart's changes; server-side, an apply of the new manifest without the "
            "unchanged fields someone else has taken over (field manager C(helm), the chart's changes forced).",
            "C(helm3) is Helm 3's client-side three-way merge (hand edits to chart fields are reverted); the "
            "revision is recorded with C(apply_method: csa).",
            "C(server-side) is Helm 4's server-side apply of the whole manifest with field manager C(helm) "
            "(conflicts with other managers fail unless I(force_conflicts)); recorded with C(apply_method: ssa)."]},
    "server_side": {"type": "str", "choices": ["auto", "true", "false"],
                    "description": [
                        "Helm 4's C(--server-side): how C(chart-delta) applies (default C(auto)).",
                        "C(auto): an install applies server-side; an upgrade keeps the apply method recorded in "
                        "the release's last revision (C(apply_method), none means client-side, as Helm 3 wrote "
                        "it); a rollback the one of the revision it returns to.",
                        "C(true)/C(false) choose server-side/client-side apply; the revision records it. Moving "
                        "to server-side first turns C(helm)'s client-side managedFields entries into its Apply "
                        "entry, as Helm 4 does.",
                        "C(force) (replace) is client-side only."]},
    "force_conflicts": {"type": "bool", "default": False,
                        "description": ["With server-side apply, take over fields owned by other field managers."]},
    "force": {"type": "bool", "default": False,
              "description": ["Replace objects (PUT) instead of patching them, like Helm's C(--force-replace)."]},
}

# Ignore rules (release, releases items, release_info): Flux's driftDetection.ignore (docs/flux-controls.md).
_IGNORE = {
    "ignore": {
        "type": "list", "elements": "dict",
        "description": ["Fields another controller owns (an HPA's C(/spec/replicas), a webhook C(caBundle) "
                        "cert-manager injects), with the semantics of Flux's C(driftDetection.ignore): on an object "
                        "that exists, an ignored field is left out of C(drift), the plan, C(--diff) and C(changed), "
                        "and no strategy writes it (neither patched nor applied), also when the chart changes it. "
                        "A new object is still created with the chart's values.",
                        "Each rule has I(paths) and an optional I(target); a rule without a target applies to every "
                        "object of the release. A pointer or selector that is wrong is refused before anything is "
                        "read or written, naming the rule."],
        "options": {
            "paths": {"type": "list", "elements": "str", "required": True,
                      "description": ["JSON pointers (RFC 6901), e.g. C(/spec/replicas) or "
                                      "C(/webhooks/0/clientConfig/caBundle) (C(~1) stands for C(/) in a key); "
                                      "C(\"\") ignores the whole object."]},
            "target": {"type": "dict",
                       "description": ["The objects the rule applies to; every field given must match. "
                                       "I(group), I(version), I(kind), I(name) and I(namespace) are anchored "
                                       "(Go) regular expressions; I(label_selector) and I(annotation_selector) "
                                       "Kubernetes label selectors (C(app=web,tier in (a,b)))."],
                       "options": {
                           "group": {"type": "str", "description": [
                               "API group, e.g. C(apps) (core objects have none: select them by I(kind))."]},
                           "version": {"type": "str", "description": ["API version (C(v1))."]},
                           "kind": {"type": "str", "description": ["Kind (C(Deployment|StatefulSet))."]},
                           "name": {"type": "str", "description": ["Object name."]},
                           "namespace": {"type": "str", "description": ["Object namespace."]},
                           "label_selector": {"type": "str", "aliases": ["labelSelector"],
                                              "description": ["Selector on the object's labels."]},
                           "annotation_selector": {"type": "str", "aliases": ["annotationSelector"],
                                                   "description": ["Selector on the object's annotations."]}}}}},
}

# Health checks, remediation, tests after deploy and the forced reconcile (release, releases items).
_CONTROLS = dict(copy.deepcopy(_IGNORE), **{
    "health_checks": {
        "type": "list", "elements": "dict",
        "description": ["CEL expressions that decide when custom resources of a group (and kind) are ready while "
                        "waiting, instead of kstatus (Flux's C(healthCheckExprs)): evaluated on the live object, "
                        "C(in_progress), C(failed) and C(current) in that order, the first one true decides, none "
                        "true is in progress; an object whose C(status.observedGeneration) lags its "
                        "C(metadata.generation) is in progress. They apply with I(wait) C(true), C(watcher) or "
                        "C(legacy).",
                        "An expression that reads a field the object does not have yet waits; one that cannot be "
                        "evaluated otherwise fails the wait, naming the object and the expression. One that does not "
                        "compile is refused before anything is read or written. Needs the Python package "
                        "C(common-expression-language) on the controller."],
        "options": {
            "api_version": {"type": "str", "required": True, "aliases": ["apiVersion"],
                            "description": ["C(group/version) of the objects; only the group is matched, so every "
                                            "served version is."]},
            "kind": {"type": "str",
                     "description": ["Kind of the objects; without it the entry applies to every kind of the group "
                                     "(an entry with the kind takes precedence)."]},
            "current": {"type": "str", "required": True,
                        "description": ["True when the object is ready, e.g. C(status.phase == 'Ready')."]},
            "failed": {"type": "str", "description": ["True when the object has failed (the wait fails)."]},
            "in_progress": {"type": "str", "aliases": ["inProgress"],
                            "description": ["True while the object is still being reconciled."]}}},
    "retries": {"type": "int", "default": 0,
                "description": ["How many more attempts to make after an install or upgrade fails (hooks, apply, "
                                "wait or, with I(test), its tests). Each attempt is a revision recorded as Helm "
                                "records it; a later one renders and writes a new revision even when the content is "
                                "the same. The result lists them in C(attempts). A failure before anything is "
                                "written (bad input, a refused plan) is not retried."]},
    "retry_delay": {"type": "str",
                    "description": ["Time between attempts, as a Go duration or seconds (default none)."]},
    "remediation": {"type": "str", "choices": ["rollback", "uninstall", "none"],
                    "description": ["What happens after the last failed attempt (Flux's install and upgrade "
                                    "remediation). C(rollback) rolls an upgrade back to the last revision that was "
                                    "deployed (an install has none and is uninstalled); C(uninstall) uninstalls the "
                                    "release; both keep the history, so C(helm history) shows every attempt. "
                                    "C(none) leaves the failed revision. The task fails either way.",
                                    "Default C(rollback) with I(atomic) or I(rollback_on_failure) (which then "
                                    "uninstall a failed install with its history, as Helm's), else C(none).",
                                    "Check mode returns C(remediation): the strategy, retries and the action and "
                                    "revision a failure would lead to."]},
    "test": {"type": "bool", "default": False,
             "description": ["After a successful install or upgrade, run the release's tests (C(helm test)); a failed "
                             "test fails the revision (recorded C(failed), its description naming the test) and "
                             "counts as a failed attempt, unless I(ignore_test_failures). Results are in C(tests)."]},
    "test_filter": {"type": "list", "elements": "str",
                    "description": ["Which tests I(test) runs, as M(helmless.core.release_test)'s I(filter) "
                                    "(C(name=<test>), C(!name=<test>))."]},
    "ignore_test_failures": {"type": "bool", "default": False,
                             "description": ["With I(test), a failed test only warns; the revision stays deployed."]},
    "force_reconcile": {"type": "bool", "default": False,
                        "description": ["Write a new revision and run the upgrade hooks even when nothing changed, as "
                                        "C(helm upgrade) always does (Flux's C(reconcile.fluxcd.io/forceAt), C(flux "
                                        "reconcile helmrelease --force)): the chart is rendered anew, so what it "
                                        "generates (random secrets, a C(rollme) pod annotation) is generated again, "
                                        "and drift is repaired as the strategy does. "
                                        "Not Helm's C(--force) (replace), which is I(force)."]},
})

# values_files entries may be URLs in release and template alike.
_VALUES_URL = ("An entry may be an C(https://) or C(http://) URL, like Helm's C(-f <url>): it is fetched (before "
               "anything touches the cluster) with the chart's TLS options and credentials (sent to the "
               "I(chart_repo_url) host, or to the URL itself without one); a failure names the URL and the HTTP "
               "status.")

# The user-supplied values of release and template, merged as Helm merges them (one text for both modules).
_VALUES = {
    "values_from": {
        "type": "list", "elements": "dict", "default": [], "aliases": ["valuesFrom"],
        "description": [
            "Values that live in the cluster, as Flux's HelmRelease C(valuesFrom): each entry names a ConfigMap or "
            "Secret and one of its keys, read (also in check mode) before anything is planned or written. In "
            "order, the key's YAML is merged over the values so far, or, with I(target_path), its text is set at "
            "that path as C(--set path=<text>) sets it. They come first: then I(values_files), "
            "I(release_values), I(set_values).",
            "Values taken from a Secret are masked wherever the task reports them (diffs, plan, messages, "
            "logs), unless I(show_secrets).",
            "A missing object or key that is not I(optional), a key whose YAML does not parse, or a read the "
            "API server refuses fails the task naming the entry; nothing is written.",
            "On M(helmless.core.template), the connection options name the cluster to read from."],
        "options": {
            "kind": {"type": "str", "required": True, "choices": ["ConfigMap", "Secret"],
                     "description": ["Kind of the object holding the values."]},
            "name": {"type": "str", "required": True, "description": ["Name of the object."]},
            "namespace": {"type": "str", "description": ["Its namespace (default: the release namespace)."]},
            "values_key": {"type": "str", "default": "values.yaml", "aliases": ["valuesKey"], "no_log": False,
                           "description": ["The key holding the values (YAML), or the single value with "
                                           "I(target_path)."]},
            "target_path": {"type": "str", "aliases": ["targetPath"],
                            "description": ["Set the key's text at this path (C(--set) syntax: C(a.b), "
                                            "C(list[0])): typed like C(--set), a quoted text as a string."]},
            "optional": {"type": "bool", "default": False,
                         "description": ["Skip the entry when the object or key does not exist (other failures "
                                         "still fail)."]},
            "literal": {"type": "bool", "default": False,
                        "description": ["With I(target_path), set the text as it is (C(--set-literal))."]}}},
    "values_files": {"type": "list", "elements": "str", "default": [],
                     "description": ["Values files (YAML, like C(-f)), merged in order before I(release_values).",
                                     _VALUES_URL]},
    "release_values": {"type": "dict", "default": {}, "aliases": ["values"],
                       "description": ["Values to pass to the chart, merged over I(values_files)."]},
    "set_values": {"type": "list", "elements": "dict",
                   "description": ["Values like C(--set), C(--set-string), C(--set-json), C(--set-file), "
                                   "C(--set-literal), applied last. Helm applies them by type, in the order json, "
                                   "raw, string, file, literal."],
                   "options": {
                       "value": {"type": "str", "required": True,
                                 "description": ["The C(key=value) expression, e.g. C(image.tag=1.2)."]},
                       "value_type": {"type": "str", "default": "raw",
                                      "choices": ["raw", "string", "json", "file", "literal"],
                                      "description": ["C(raw) is C(--set), C(string) C(--set-string), C(json) "
                                                      "C(--set-json), C(file) C(--set-file), C(literal) "
                                                      "C(--set-literal)."]}}},
}

# cosign verification of OCI charts (release, template, releases and pull).
_COSIGN = ("A cosign public key (the path of C(cosign.pub), or the PEM itself): the C(oci://) chart must carry a "
           "signature by it, made by C(cosign sign --key) for the digest of the manifest that is pulled (stored "
           "by cosign 2 at the tag C(sha256-<digest>.sig), or by cosign 3 as a Sigstore bundle referring to the "
           "digest), checked before anything else happens. An unsigned chart, one signed by another key, or one "
           "whose tag moved to other content after signing fails, naming the reference and the reason. Only "
           "key-based signatures: keyless ones need Fulcio and Rekor, and transparency-log entries are not "
           "checked (as C(cosign verify --insecure-ignore-tlog)). Needs the Python package securesystemslib.")

# How release and template find, fetch and check a chart (one text for both modules).
_CHART_FETCH = {
    "devel": {"type": "bool", "default": False,
              "description": ["Without I(chart_version), consider prerelease versions of a repository chart too "
                              "(Helm's C(--devel), the constraint C(>0.0.0-0))."]},
    "enable_plugins": {"type": "bool", "default": False,
                       "description": ["Allow kustomize exec plugins in I(post_renderer) to run (they run arbitrary "
                                       "code; kustomize's C(--enable-alpha-plugins))."]},
    "dependency_update": {"type": "bool", "default": False, "aliases": ["dep_up"],
                          "description": ["Before loading a local chart directory, fetch the dependencies of its "
                                          "C(Chart.yaml) into C(charts/) and write C(Chart.lock), like C(helm "
                                          "dependency update) (repositories as URLs, C(@name) or C(file://) paths)."]},
    "update_repo_cache": {"type": "bool", "default": False,
                          "description": ["With I(chart_ref=repo_name/chart_name), download the repository's index "
                                          "again first (C(helm repo update) for that repository)."]},
    "verify": {"type": "bool", "default": False,
               "description": ["Verify the chart's provenance before anything else happens, as C(helm --verify): a "
                               "packaged chart (local C(.tgz) with its C(.prov) beside it, a repository or URL chart "
                               "with C(<chart URL>.prov), an OCI chart with its provenance layer) must be signed by a "
                               "key of I(keyring) and match the SHA-256 listed in the C(.prov). Chart directories "
                               "cannot be verified (as in Helm)."]},
    "keyring": {"type": "path",
                "description": ["Keyring of trusted public keys for I(verify) (binary C(pubring.gpg), GnuPG "
                                "C(pubring.kbx) or ASCII-armored keys); default C($GNUPGHOME/pubring.gpg) (or "
                                "C(~/.gnupg)), as Helm."]},
    "plain_http": {"type": "bool", "default": False,
                   "description": ["Talk plain HTTP to the OCI registry of an C(oci://) I(chart_ref)."]},
    "cosign_key": {"type": "str", "no_log": False,
                   "description": [_COSIGN]},
}

RELEASE = dict(copy.deepcopy(_NAME), **{
    "release_state": {"type": "str", "default": "present", "choices": ["present", "absent"], "aliases": ["state"],
                      "description": ["C(present) installs or upgrades the release; C(absent) uninstalls it."]},
    "chart_ref": {"type": "path",
                  "description": ["The chart: a local chart directory or packaged chart (C(.tgz)), a chart name with "
                                  "I(chart_repo_url), C(repo_name/chart_name) of a repository added with "
                                  "M(helmless.core.repository) or C(helm repo add), an C(https://) or C(http://) URL of a "
                                  "C(.tgz), or an OCI reference C(oci://host/path/chart) (optionally C(:version)). "
                                  "Required when I(release_state=present)."]},
    "chart_version": {"type": "str",
                      "description": ["For a repository chart, the version to install: a version or a semver "
                                      "constraint such as C(~1.2) or C(>=2.0.0 <3.0.0), like C(helm --version); the "
                                      "default is the newest version that is not a prerelease.",
                                      "For a local chart, the expected version; the task fails if the chart's "
                                      "version differs."]},
    "chart_repo_url": {"type": "str",
                       "description": ["URL of the chart repository; I(chart_ref) is then a chart name in its "
                                       "C(index.yaml). Archives are verified against the index digest and cached "
                                       "in Helm's content cache (C($HELM_CACHE_HOME/content))."]},
    "reuse_values": {"type": "bool",
                     "description": ["Merge the new values over the deployed revision's values.",
                                     "Ignored while I(reset_values) is true, as in kubernetes.core.helm and Helm."]},
    "reset_values": {"type": "bool", "default": True,
                     "description": ["Use only the values given in this task (the default, as kubernetes.core.helm)."]},
    "reset_then_reuse_values": {"type": "bool", "default": False,
                                "description": ["Like I(reuse_values): the deployed values with the new ones merged over.",
                                                "Ignored while I(reset_values) is true, as in Helm."]},
    "atomic": {"type": "bool", "default": False,
               "description": ["Helm 3's name of I(rollback_on_failure), kept working."]},
    "rollback_on_failure": {"type": "bool", "default": False,
                            "description": ["On failure, uninstall a new install or roll an upgrade back to the last "
                                            "successful revision (Helm 4's C(--rollback-on-failure)). It implies "
                                            "I(wait=watcher) when I(wait) is C(hookOnly)."]},
    "labels": {"type": "dict",
               "description": ["Labels of the release, stored as Helm 4 stores C(--labels): on the release's "
                               "storage Secret (or ConfigMap), where C(helm list --selector) and "
                               "M(helmless.core.release_info)'s I(selector) find them.",
                               "On upgrade they are merged over the deployed revision's labels; a value of "
                               "C(null) (the string) removes a label. Helm's own label names (name, owner, "
                               "status, version, createdAt, modifiedAt) are refused."]},
    "create_namespace": {"type": "bool", "default": False,
                         "description": ["Create the release namespace if it does not exist."]},
    "skip_crds": {"type": "bool", "default": False, "description": ["Do not install the chart's C(crds/)."]},
    "crds": {"type": "str", "default": "install", "choices": ["install", "upgrade", "skip"],
             "description": ["C(install): create missing CRDs from C(crds/) on install (Helm); C(upgrade): also "
                             "apply them on upgrade; C(skip): like I(skip_crds)."]},
    "take_ownership": {"type": "bool", "default": False,
                       "description": ["Adopt existing objects that belong to no release or another release."]},
    "install_only": {"type": "bool", "default": False,
                     "description": ["Only install: a release that has a deployed revision is left as it is "
                                     "(C(changed=false), C(status) describes that revision; the chart is not even "
                                     "fetched or rendered), a release without one is installed as usual.",
                                     "For releases that are handed over once installed (to an operator, or to "
                                     "people who change them by hand)."]},
    "purge": {"type": "bool", "default": True,
              "description": ["With I(release_state=absent), delete all revision records (false: keep history)."]},
    "post_renderer": {"type": "raw",
                      "description": ["A post-renderer executable, or a list of post-renderers (executables, "
                                      "C(kustomize:) transformers, kustomize plugin configs) applied in order."]},
    "description": {"type": "str", "description": ["Custom description of the new revision."]},
    "skip_schema_validation": {"type": "bool", "default": False,
                               "description": ["Do not validate the values against the charts' C(values.schema.json) "
                                               "(Helm's C(--skip-schema-validation))."]},
    "replace": {"type": "bool", "default": False,
                "description": ["Accepted for compatibility: an uninstalled release name is always reusable."]},
}, **copy.deepcopy(_VALUES), **copy.deepcopy(_CHART_FETCH), **copy.deepcopy(REPO_ACCESS), **copy.deepcopy(_TIMING),
   **copy.deepcopy(_STRATEGY), **copy.deepcopy(_DIFF), **copy.deepcopy(_CONTROLS))

ROLLBACK = dict(copy.deepcopy(_NAME), **{
    "revision": {"type": "int", "default": 0,
                 "description": ["Revision to roll back to; C(0) (default) is the one before the current revision."]},
    "description": {"type": "str",
                    "description": ["Custom description of the new revision, at most 256 characters (Helm 4.3's "
                                    "C(helm rollback --description)); default C(Rollback to <revision>)."]},
}, **copy.deepcopy(_TIMING), **copy.deepcopy(_STRATEGY), **copy.deepcopy(_DIFF))

RELEASE_TEST = dict(copy.deepcopy(_NAME), **{
    "filter": {"type": "list", "elements": "str", "default": [], "aliases": ["filters"],
               "description": ["Which tests to run, as Helm's C(--filter): C(name=<test>) runs only the named tests, "
                               "C(!name=<test>) skips them; several values (or C(name=a,name=b)) combine.",
                               "A filter that matches no test fails the task and runs nothing."]},
    "timeout": {"type": "str",
                "description": ["Time allowed for each test to finish, as a Go duration or seconds (default "
                                "C(5m0s)); a test still running then fails the task and is recorded C(Failed)."]},
    "logs": {"type": "bool", "default": False,
             "description": ["Return the logs of the test Pods (C(helm test --logs)), read after the tests end and "
                             "before their delete policies remove them. Where the cluster cannot serve a "
                             "container's log, the test's C(logs.error) says why."]},
})

RELEASE_INFO = {
    "release_name": {"type": "str", "aliases": ["name"],
                     "description": ["Release to describe. Without it, the releases of the namespace are listed."]},
    "release_namespace": {"type": "str", "required": True, "aliases": ["namespace"],
                          "description": ["Namespace of the release(s)."]},
    "release_state": {"type": "list", "elements": "str", "default": [],
                      "choices": ["all", "deployed", "failed", "pending", "superseded", "uninstalled", "uninstalling"],
                      "description": ["Only releases whose latest revision is in one of these states, as C(helm list) "
                                      "filters (default: deployed and failed). With I(release_name), a release "
                                      "filtered out (or missing, or uninstalled with its history kept) returns no "
                                      "C(status), as kubernetes.core.helm_info."]},
    "revision": {"type": "int", "description": ["Describe this revision instead of the latest."]},
    "get_all_values": {"type": "bool", "default": False,
                       "description": ["Return the chart's default values coalesced with the user values."]},
    "selector": {"type": "str", "aliases": ["label_selector"],
                 "description": ["With no I(release_name): only list releases whose labels (I(labels) of "
                                 "M(helmless.core.release), C(helm install --labels)) match this label selector, "
                                 "as C(helm list --selector) (C(key=value), C(key!=value), comma-separated)."]},
    "show_secrets": _TIMING["show_secrets"],
    "ignore": dict(copy.deepcopy(_IGNORE["ignore"]), description=[
        "Fields left out of C(drift), as the same option of M(helmless.core.release) leaves them out "
        "(Flux's C(driftDetection.ignore)); objects whose rule ignores C(\"\") are not listed."]),
}


def _unused(opt):
    """A connection option a module accepts only for module_defaults: same type, no env fallback."""
    out = {key: copy.deepcopy(value) for key, value in opt.items() if key not in ("env", "description")}
    out["description"] = ["Accepted so that C(module_defaults) of the C(helm) action group apply; not used."]
    return out


def _unused_connection(*except_):
    """The group's connection options for a module that does not talk to a cluster: accepted (one
    ``module_defaults`` block for ``group/helmless.core.helm`` serves every module) and not used;
    ``binary_path`` keeps its own description (it warns everywhere)."""
    out = {name: _unused(opt) for name, opt in CONNECTION.items() if name not in except_ and name != "binary_path"}
    if "binary_path" not in except_:
        out["binary_path"] = copy.deepcopy(CONNECTION["binary_path"])
    return out


# The connection options template uses to read values_from (the rest of the group's it only accepts).
_CLUSTER_READ = ("kubeconfig", "context", "host", "api_key", "ca_cert", "validate_certs") + IDENTITY

TEMPLATE = dict({
    "chart_ref": {"type": "path", "required": True,
                  "description": ["The chart, as for M(helmless.core.release) - a local chart directory or archive "
                                  "(C(.tgz)), a chart name with I(chart_repo_url), C(repo_name/chart_name) of a "
                                  "repository added with M(helmless.core.repository) or C(helm repo add), an "
                                  "C(https://) or C(http://) URL of a C(.tgz), or an OCI reference "
                                  "C(oci://host/path/chart) (optionally C(:version))."]},
    "chart_version": {"type": "str",
                      "description": ["For a repository chart, the version to render - a version or semver constraint "
                                      "like C(helm --version) (default - the newest version that is not a prerelease).",
                                      "For a local chart, the version expected; a chart of another version is "
                                      "rendered anyway, with a warning."]},
    "chart_repo_url": {"type": "str",
                       "description": ["URL of the chart repository; I(chart_ref) is then a chart name in its "
                                       "C(index.yaml)."]},
    "release_name": {"type": "str", "aliases": ["name"],
                     "description": ["Release name (C(.Release.Name)); C(release-name) when not given, as Helm."]},
    "release_namespace": {"type": "str", "default": "default", "aliases": ["namespace"],
                          "description": ["Release namespace (C(.Release.Namespace))."]},
    "include_crds": {"type": "bool", "default": False,
                     "description": ["Put the chart's and subcharts' C(crds/) files first in the output."]},
    "show_only": {"type": "list", "elements": "str",
                  "description": ["Only output the documents of these templates (paths relative to the chart, globs "
                                  "allowed), like C(helm template --show-only)."]},
    "output_dir": {"type": "path",
                   "description": ["Write each template's documents to C(<output_dir>/<template path>) instead of "
                                   "returning them in C(stdout), laid out byte for byte as C(helm template "
                                   "--output-dir) writes them into an empty directory; C(stdout) then holds helm's "
                                   "C(wrote <file>) lines.",
                                   "Only files whose content differs are written (the task is C(changed) then), so a "
                                   "rerun changes nothing (helm appends the hooks to the files of an earlier run "
                                   "again). With I(show_only), only the matching templates' files are written (helm "
                                   "refuses the pair)."]},
    "extra_results": {"type": "list", "elements": "str", "default": [],
                      "choices": ["manifest", "rendered", "resources", "crds", "hooks", "all"],
                      "description": ["What to return beyond C(stdout) and C(notes) (each repeats the rendered "
                                      "documents in another form, which a large chart pays for in Ansible's result "
                                      "handling): C(manifest) the release manifest as Helm stores it, C(rendered) each "
                                      "template's output, C(resources) the parsed non-hook documents, C(crds) the "
                                      "C(crds/) files, C(hooks) the hook documents with their settings.",
                                      "C(all) returns all of them, as the module did before this option existed."]},
    "disable_hook": {"type": "bool", "default": False,
                     "description": ["Leave hooks out of the output (C(--no-hooks))."]},
    "is_upgrade": {"type": "bool", "default": False,
                   "description": ["Render as an upgrade (C(.Release.IsUpgrade) true, C(.Release.IsInstall) false)."]},
    "kube_version": {"type": "str",
                     "description": ["Kubernetes version for C(.Capabilities.KubeVersion) (default v1.37.0, as "
                                     "Helm 4.3)."]},
    "api_versions": {"type": "list", "elements": "str",
                     "description": ["Extra API versions for C(.Capabilities.APIVersions), e.g. "
                                     "C(monitoring.coreos.com/v1)."]},
    "post_renderer": {"type": "list", "elements": "raw",
                      "description": ["Post-renderers applied in order (executables, C(kustomize:) transformers, "
                                      "kustomize plugin configs)."]},
    "insecure_registry": {"type": "bool", "default": False,
                          "description": ["Do not verify the chart repository's TLS certificate "
                                          "(C(--insecure-skip-tls-verify))."]},
}, **copy.deepcopy(_VALUES), **copy.deepcopy(_CHART_FETCH),
   **{k: copy.deepcopy(v) for k, v in REPO_ACCESS.items() if k != "insecure_skip_tls_verify"},
   **{k: copy.deepcopy(CONNECTION[k]) for k in _CLUSTER_READ}, **_unused_connection(*_CLUSTER_READ))

REPOSITORY = dict({
    "repo_name": {"type": "str", "required": True, "aliases": ["name"],
                  "description": ["Name of the repository (what C(repo_name/chart) references use)."]},
    "repo_url": {"type": "str", "aliases": ["url"],
                 "description": ["URL of the chart repository. Required when I(repo_state=present)."]},
    "repo_state": {"type": "str", "default": "present", "choices": ["present", "absent"], "aliases": ["state"],
                   "description": ["C(present) adds the repository and downloads its index, like C(helm repo add); "
                                   "C(absent) removes it and its cached index, like C(helm repo remove)."]},
    "force_update": {"type": "bool", "default": False, "aliases": ["force"],
                     "description": ["Replace a repository of the same name with another URL, and download the "
                                     "index again even when the entry is unchanged (C(helm repo add "
                                     "--force-update)); always reported as a change, as kubernetes.core does."]},
}, **copy.deepcopy(REPO_ACCESS), **_unused_connection())

# kubernetes.core.helm_pull's names: chart_* TLS files, skip_tls_certs_check; the repository module's
# ca_file/cert_file/key_file are aliases.
PULL = {
    "chart_ref": {"type": "str", "required": True,
                  "description": ["The chart to pull - a chart name with I(repo_url), C(repo_name/chart_name) of a "
                                  "repository added with M(helmless.core.repository) or C(helm repo add), an "
                                  "C(https://) or C(http://) URL of a C(.tgz), or an OCI reference "
                                  "C(oci://host/path/chart) (optionally C(:version))."]},
    "chart_version": {"type": "str", "aliases": ["version"],
                      "description": ["A version or semver constraint, like C(helm pull --version) (default - the "
                                      "newest version that is not a prerelease, see I(chart_devel))."]},
    "destination": {"type": "path", "required": True,
                    "description": ["Directory to write the chart archive C(<name>-<version>.tgz) into (named as "
                                    "C(helm pull) names it), created if missing."]},
    "repo_url": {"type": "str", "aliases": ["url", "chart_repo_url"],
                 "description": ["URL of the chart repository; I(chart_ref) is then a chart name in its "
                                 "C(index.yaml)."]},
    "repo_username": {"type": "str", "aliases": ["username", "chart_repo_username"],
                      "description": ["Username for a chart repository or OCI registry."]},
    "repo_password": {"type": "str", "no_log": True, "aliases": ["password", "chart_repo_password"],
                      "description": ["Password for a chart repository or OCI registry."]},
    "pass_credentials": copy.deepcopy(REPO_ACCESS["pass_credentials"]),
    "skip_tls_certs_check": {"type": "bool", "default": False, "aliases": ["insecure_skip_tls_verify"],
                             "description": ["Do not verify the chart repository's TLS certificate."]},
    "chart_devel": {"type": "bool", "default": False,
                    "description": ["Without I(chart_version), consider prerelease versions too (C(helm pull "
                                    "--devel), the constraint C(>0.0.0-0))."]},
    "untar_chart": {"type": "bool", "default": False,
                    "description": ["Write the chart's files into C(<destination>/<chart name>/), as C(helm pull "
                                    "--untar) lays them out, instead of the archive. Unlike Helm, an existing "
                                    "directory of that name is replaced when its files differ (and left alone "
                                    "when they match)."]},
    "chart_ca_cert": {"type": "path", "aliases": ["ca_file"],
                      "description": ["CA bundle to verify the chart repository's certificate."]},
    "chart_ssl_cert_file": {"type": "path", "aliases": ["cert_file"],
                            "description": ["Client certificate for the chart repository (mutual TLS)."]},
    "chart_ssl_key_file": {"type": "path", "aliases": ["key_file"],
                           "description": ["Key of I(chart_ssl_cert_file)."]},
    "plain_http": {"type": "bool", "default": False,
                   "description": ["Talk plain HTTP to the OCI registry of an C(oci://) I(chart_ref)."]},
    "verify_chart": {"type": "bool", "default": False,
                     "description": ["Verify the chart's provenance before writing anything, as C(helm pull --verify): "
                                     "the C(.prov) (C(<chart URL>.prov), or the OCI provenance layer) must be signed "
                                     "by a key of I(verify_chart_keyring) and list the archive's SHA-256. The C(.prov) "
                                     "is written beside the archive and C(stdout) says who signed, as helm prints it."]},
    "verify_chart_keyring": {"type": "path",
                             "description": ["Keyring of trusted public keys for I(verify_chart) (binary C(pubring.gpg), "
                                             "GnuPG C(pubring.kbx) or ASCII-armored keys, as Helm 4 reads them); "
                                             "default C($GNUPGHOME/pubring.gpg) (or C(~/.gnupg)), as Helm."]},
    "provenance": {"type": "bool", "default": False,
                   "description": ["Also fetch the chart's C(.prov) file and write it beside the archive, without "
                                   "verifying it (C(helm pull --prov)); the task fails when there is none."]},
    "cosign_key": {"type": "str", "no_log": False, "description": [_COSIGN]},
    "force": {"type": "bool", "default": False,
              "description": ["Download the chart again (not from Helm's content cache) and write it even when "
                              "I(destination) already holds the same archive or files, reported as a change, as "
                              "kubernetes.core.helm_pull's I(force). With I(untar_chart), the chart's directory "
                              "is replaced."]},
}
PULL.update(_unused_connection())

# kubernetes.core.helm_registry_auth's names; the cluster connection options (but host, which is the
# registry here) are accepted so module_defaults for the helm group apply, and are not used.
REGISTRY_AUTH = dict({
    "host": {"type": "str", "required": True, "aliases": ["registry_url"],
             "description": ["The registry, C(host) or C(host:port) as in C(oci://host:port/path/chart) (a "
                             "leading C(oci://), C(https://) or C(http://) and a trailing path are dropped)."]},
    "username": {"type": "str", "aliases": ["repo_username"],
                 "description": ["Registry username. Required with I(state=present)."]},
    "password": {"type": "str", "no_log": True, "aliases": ["repo_password"],
                 "description": ["Registry password or token. Required with I(state=present)."]},
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"],
              "description": ["C(present) checks the credentials against the registry and stores them, like C(helm "
                              "registry login); C(absent) removes them, like C(helm registry logout)."]},
    "insecure": {"type": "bool", "default": False,
                 "description": ["Do not verify the registry's TLS certificate."]},
    "ca_file": {"type": "path", "description": ["CA bundle to verify the registry's certificate."]},
    "cert_file": {"type": "path", "description": ["Client certificate for the registry (mutual TLS)."]},
    "key_file": {"type": "path", "description": ["Key of I(cert_file)."]},
    "plain_http": {"type": "bool", "default": False,
                   "description": ["Talk plain HTTP to the registry (C(helm registry login --plain-http))."]},
}, **_unused_connection("host"))


def _release_item():
    """One release of helmless.core.releases: the release module's options, plus the role's ``chart`` and ``needs``."""
    item = copy.deepcopy(RELEASE)
    item["chart_ref"]["aliases"] = ["chart"]
    item["labels"]["description"].append("I(select) matches them, with C(name), C(namespace) and C(chart) (the last "
                                         "part of I(chart_ref)) as if they were labels too.")
    for name in IDENTITY:  # a release's own identity, over the task's (a tenant's ServiceAccount per release)
        item[name] = {k: copy.deepcopy(v) for k, v in CONNECTION[name].items() if k != "env"}
    item["needs"] = {"type": "list", "elements": "str", "default": [],
                     "description": ["Names (or C(namespace/name)) of releases of I(releases) this one needs: it "
                                     "starts once each of them succeeded, and is skipped when one did not.",
                                     "Uninstalls (C(state=absent)) run the other way round: a release is "
                                     "uninstalled after the releases that need it.",
                                     "A name that is not in I(releases), names two of them, a cycle, or a "
                                     "release to install that needs one to uninstall fail the task before "
                                     "anything is read or written."]}
    return item


RELEASES = {
    "releases": {
        "type": "list", "elements": "dict", "required": True, "options": _release_item(),
        "required_if": [("release_state", "present", ["chart_ref"])],
        "mutually_exclusive": [("wait_timeout", "timeout"), ("force", "server_side"), ("force", "force_conflicts")],
        "description": ["The releases, each with the options of M(helmless.core.release) (C(chart) is an alias of "
                        "I(chart_ref)); uninstalls are ordinary items with C(state=absent).",
                        "Uninstalls run first (the releases I(prune) finds, then C(state=absent) items, dependants "
                        "first), then installs and upgrades, each as soon as the releases it I(needs) succeeded. "
                        "Results and diffs come back in the order of this list (pruned releases first), whatever "
                        "order the releases ran in.",
                        "A release that fails does not stop the others; the ones that I(needs) it are skipped."]},
    "concurrency": {
        "type": "int", "default": 4,
        "description": ["How many releases run at the same time (C(1): one after another, in list order).",
                        "Waiting (I(wait), hooks, the API server) costs no CPU: releases run on threads of the "
                        "module's process, and only beyond 16 in flight on forked worker processes too (one per "
                        "16, on at most half the controller's cores); the fleets guide has the measurements.",
                        "The default suits a two-core controller and an API server that other clients use too; "
                        "fleets whose releases mostly wait go faster with 8 or more."]},
    "select": {
        "type": "raw",
        "description": ["Run only the releases whose I(labels) match this label selector (C(tier=web), "
                        "C(tier!=db), C(tier in (web,api)), C(!canary), comma-separated requirements all "
                        "apply), as C(helmfile -l) and C(helm list --selector). C(name), C(namespace) and "
                        "C(chart) match as labels too.",
                        "A list of selectors selects the releases any of them matches (C(helmfile -l a -l b)).",
                        "A selected release that I(needs) one not selected does not run it: that one must "
                        "have a deployed revision, or the selected release is skipped."]},
    "fleet": {
        "type": "str",
        "description": ["Name of the set of releases this task manages: every release it installs or upgrades "
                        "gets the release label C(fleet=<fleet>) (C(helm list -l fleet=<fleet>) lists them).",
                        "An item whose own I(labels) set C(fleet) to another value fails the task before "
                        "anything is written."]},
    "prune": {
        "type": "bool", "default": False,
        "description": ["Uninstall the releases labelled C(fleet=<fleet>) that are not in I(releases), in the "
                        "namespaces of the releases the task runs (with I(select), only those the selector "
                        "matches). Needs I(fleet).",
                        "They are uninstalled first, as C(state=absent) items would be; check mode and C(--diff) "
                        "show them first. Without I(prune) nothing is uninstalled unless an item says so."]},
}

IGNORED = ("binary_path", "replace")
# Every option (name and aliases) whose value is a secret: masked wherever a task reports text (secrets.py).
NO_LOG = frozenset(alias for table in (CONNECTION, REPO_ACCESS, RELEASE, TEMPLATE, REPOSITORY, PULL, REGISTRY_AUTH)
                   for name, opt in table.items() if opt.get("no_log")
                   for alias in [name] + list(opt.get("aliases") or ()))


def argument_spec(*tables):
    """AnsibleModule argument_spec for the union of option tables."""
    from ansible.module_utils.basic import env_fallback  # lazy: doc fragments load this table too

    def convert(opt):
        spec = {k: copy.deepcopy(v) for k, v in opt.items() if k not in ("description", "env", "options")}
        if "env" in opt:
            spec["fallback"] = (env_fallback, [opt["env"]])
        if "options" in opt:
            spec["options"] = {name: convert(sub) for name, sub in opt["options"].items()}
        return spec

    out = {}
    for table in tables:
        for name, opt in table.items():
            out[name] = convert(opt)
    return out


def doc_fragment(*tables):
    """The ``options:`` YAML documenting the same tables (for ansible-doc via doc fragments, on the controller)."""
    import yaml  # lazy: module_utils import without PyYAML; only ansible-doc needs this

    def convert(opt):
        doc = {"description": list(opt["description"])}
        if "env" in opt:
            doc["description"].append("If not set, the environment variable C(%s) is used." % opt["env"])
        for key in ("type", "required", "default", "choices", "aliases", "elements"):
            if key in opt:
                doc[key] = copy.deepcopy(opt[key])
        if doc.get("required") is False:
            del doc["required"]
        if "options" in opt:
            doc["suboptions"] = {name: convert(sub) for name, sub in opt["options"].items()}
        return doc

    options = {}
    for table in tables:
        for name, opt in table.items():
            options[name] = convert(opt)
    return yaml.safe_dump({"options": options}, sort_keys=True, default_flow_style=False)
