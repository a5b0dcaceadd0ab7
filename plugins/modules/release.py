#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.release: install, upgrade or uninstall a Helm release without the helm binary."""

DOCUMENTATION = r"""
module: release
short_description: Install, upgrade or uninstall a Helm chart release (no helm binary)
version_added: 0.1.0
description:
  - Renders a chart (a local directory or archive, a chart from a Helm chart repository, or a C(.tgz) URL)
    exactly as Helm 4 does, plans the change against the release's stored revision
    and the live objects, and applies it, storing revisions in Helm's own format so C(helm list),
    C(history), C(upgrade), C(rollback) and C(uninstall) keep working.
  - Options and the C(status) return follow M(kubernetes.core.helm); a playbook needs only the FQCN changed.
    Options that only make sense to a helm binary are accepted and ignored with a warning.
  - Check mode runs the same plan as a real run and makes no write; C(changed) is what the real run reports
    and, with C(--diff), each object's C(after) is the API server's dry-run answer, shown as a YAML diff
    with helm-diff's headers (I(diff_format), I(diff_context)). See docs/check-mode-and-diff.md.
  - A second identical run reports C(changed=false) and sends no write request. Whether a run changes the
    release is decided on content (parsed documents, hooks, notes, values, chart metadata), never on the
    manifest's formatting, so a release last written by C(helm) 3 or 4 with the same chart and values is a
    no-op.
  - Output that only random or clock functions changed (C(randAlphaNum), C(genCA), C(uuidv4), C(now)...) is
    not a change when the chart and the values are those of the deployed revision and everything else the
    chart reads renders the same; the run then plans against the deployed manifest (drift is still reported
    or repaired) and rotates nothing. See docs/check-mode-and-diff.md.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.connection
  - helmless.core.release
  - helmless.core.attributes
  - helmless.core.attributes.diff
"""

EXAMPLES = r"""
- name: Install or upgrade a chart from a directory
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: ./charts/webapp
    create_namespace: true
    values:
      replicaCount: 2
    wait: true

- name: Install a chart from a chart repository (newest 15.x)
  helmless.core.release:
    name: cache
    namespace: cache
    chart_ref: redis
    chart_repo_url: https://charts.example.com/stable
    chart_version: "~15"

- name: Install repo_name/chart from a repository added with helmless.core.repository
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: example/nginx
    update_repo_cache: true

- name: Preview an upgrade (no write) with per-object before/after
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: ./charts/webapp-1.2.0.tgz
    values_files: [prod.yaml]
    set_values:
      - value: image.tag=1.2.0
        value_type: string
  check_mode: true
  diff: true

- name: Revert hand edits to chart-managed fields on every run (Helm 3 three-way merge)
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: ./charts/webapp
    apply_strategy: helm3

- name: Upgrade, waiting for every object (custom resources too) to be ready by Helm 4's kstatus rules;
    roll back if it fails
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: ./charts/webapp
    labels:
      team: web
    wait: watcher
    wait_for_jobs: true
    rollback_on_failure: true

- name: Leave the replicas to the HPA and the webhook CA bundle to cert-manager; judge the operator's custom
    resources by their own status; retry a flaky migration hook once, run the tests, roll back on failure
  helmless.core.release:
    name: shop
    namespace: shop
    chart_ref: ./charts/shop
    apply_strategy: helm3
    ignore:
      - paths: [/spec/replicas]
        target: {kind: Deployment}
      - paths: [/webhooks/0/clientConfig/caBundle]
        target: {kind: MutatingWebhookConfiguration}
    wait: true
    health_checks:
      - api_version: acid.example.com/v1
        kind: Postgres
        current: "status.phase == 'Running'"
        failed: "status.phase == 'SyncFailed'"
    retries: 1
    test: true
    remediation: rollback

- name: Write a new revision (regenerating the chart's random secrets, running its upgrade hooks) though
    nothing changed
  helmless.core.release:
    name: shop
    namespace: shop
    chart_ref: ./charts/shop
    force_reconcile: true

- name: Uninstall, keeping the revision history
  helmless.core.release:
    name: web
    namespace: web
    state: absent
    purge: false
"""

RETURN = r"""
helm_version:
  description: The Helm release this collection emulates (rendering, planning and release storage), so the
    C(helm) CLI of that version reads, upgrades and rolls back the release.
  returned: success
  type: str
  sample: v4.3.2
status:
  description: The release after the operation (for check mode, as it would be), as kubernetes.core.helm.
  returned: when the release exists or would exist
  type: dict
  contains:
    name: {description: "Release name.", type: str, returned: always}
    namespace: {description: "Release namespace.", type: str, returned: always}
    revision: {description: "Revision number (a string, as helm list prints it).", type: str, returned: always}
    status: {description: "Helm status (deployed, failed, superseded, uninstalled...).", type: str, returned: always}
    updated: {description: "Time of the last deployment, as helm list prints it.", type: str, returned: always}
    chart: {description: "Chart name-version.", type: str, returned: always}
    app_version: {description: "Chart appVersion.", type: str, returned: always}
    description: {description: "Revision description as Helm writes it.", type: str, returned: always}
    notes: {description: "Rendered NOTES.txt.", type: str, returned: always}
    values: {description: "User-supplied values of the revision.", type: dict, returned: always}
    release_values: {description: "Same as values (kubernetes.core.helm name).", type: dict, returned: always}
    apply_method: {description: "csa or ssa (Helm 4's field).", type: str, returned: always}
    labels: {description: "The release's labels (I(labels), Helm 4's C(--labels)).", type: dict, returned: always}
plan:
  description:
    - Per object what the run does (create, patch, apply, replace, delete, unchanged, drift, keep, skip).
    - C(skip) is an object an uninstall leaves because another release owns it or its ownership cannot be read.
    - An update lists its changed C(fields) as JSON pointers (C(op), C(path), C(before), C(after), and C(cause)
      C(chart), C(drift) or C(server)); an object whose request the API server refuses has C(refused) (the
      server's message) and C(replacement) (an immutable field - only re-creating the object applies it).
    - C(ignored) lists the JSON pointers an I(ignore) rule kept at their live value where the chart has another.
  returned: always
  type: list
  elements: dict
summary:
  description: The plan in one line.
  returned: always
  type: str
  sample: "Plan: 2 to add, 3 to change, 1 to destroy, 4 unchanged"
diff:
  description:
    - With C(--diff) and I(diff_format=yaml), C(prepared) - per object that changes a helm-diff style header and
      the diff of its YAML, then the C(summary) line; absent when nothing changes.
    - With I(diff_format=json), a list of C(before_header), C(before), C(after_header), C(after) per object.
  returned: with --diff
  type: raw
drift:
  description: Objects whose live state differs from the deployed revision (paths of differing fields).
  returned: always
  type: list
  elements: dict
hooks:
  description: Names of the hooks this run executes (or would, in check mode).
  returned: always
  type: list
  elements: str
attempts:
  description:
    - With I(retries), I(remediation) or I(test), each install or upgrade attempt that wrote a revision -
      C(attempt), C(operation), C(revision), C(status) (deployed or failed), C(error), C(tests).
  returned: with retries, remediation or test (not in check mode)
  type: list
  elements: dict
remediation:
  description:
    - What the remediation did after the last failed attempt (C(strategy), C(action) rollback or uninstall,
      C(target_revision), C(revision)); in check mode, what a failure would lead to (C(retries), C(strategy),
      C(action), C(target_revision)).
  returned: in check mode with retries, remediation or test; after a remediation
  type: dict
tests:
  description: With I(test), the results of the tests run after the last attempt (as M(helmless.core.release_test)).
  returned: when I(test) ran tests, or would in check mode
  type: list
  elements: dict
api_requests:
  description: Requests sent to the API server (total, and real writes).
  returned: always
  type: dict
stdout:
  description:
    - What C(helm upgrade --install) (or C(helm uninstall), C(helm rollback)) prints for the operation, notes
      included, as kubernetes.core.helm returns it - empty in check mode and when nothing changed (no helm
      command would run then).
  returned: always
  type: str
stderr:
  description: Warnings, one a line; on failure also C(Error - <message>) as helm prints it.
  returned: always
  type: str
command:
  description:
    - The equivalent helm command line (C(helm upgrade --install ...) or C(helm uninstall ...)), as kubernetes.core.helm
      returns it. Informational - nothing runs it; I(release_values) appear as C(--values=-), passwords masked.
  returned: always
  type: str
progress:
  description:
    - Timestamped phases of the run (render, plan, record, hook, apply, wait, result); C(-v) shows them.
    - While waiting, every 5 seconds a line names the objects still not ready and why.
    - Also returned when the task fails, up to the failure.
  returned: always
  type: list
  elements: str
  sample:
    - "0.41s render: chart webapp-1.2.0: 3 object(s), 1 hook(s)"
    - "0.52s plan: upgrade: 1 patch, 2 unchanged (chart-delta)"
    - "0.55s record: revision 2 pending-upgrade"
    - "3.10s wait: all ready after 2.5s"
    - "3.14s result: revision 2 deployed"
"""

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (
    CONNECTION, RELEASE, argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release, run_module


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(CONNECTION, RELEASE),
        required_if=[("release_state", "present", ["chart_ref"])],
        mutually_exclusive=[("wait_timeout", "timeout"), ("force", "server_side"), ("force", "force_conflicts")],
        supports_check_mode=True,
    )
    require_libraries(module)
    # As kubernetes.core.helm: only both set to true conflict (reuse_values=false is a valid companion).
    if module.params.get("reuse_values") and module.params.get("reset_then_reuse_values"):
        module.fail_json(msg="reuse_values and reset_then_reuse_values cannot both be true")
    run_module(module, run_release, module.check_mode, module._diff)


if __name__ == "__main__":
    main()
