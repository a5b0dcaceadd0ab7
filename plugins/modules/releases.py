#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.releases: install, upgrade or uninstall many Helm releases in one task."""

DOCUMENTATION = r"""
module: releases
short_description: Install, upgrade or uninstall many Helm releases in one task (no helm binary)
version_added: 0.2.0
description:
  - Runs each release of I(releases) exactly as M(helmless.core.release) does (the same options, check mode,
    C(--diff), result and failure), in one module process.
  - Releases run as a graph, I(concurrency) at a time - uninstalls first (dependants before what they need), then
    each install or upgrade as soon as the releases it I(needs) succeeded - on threads, and on forked worker
    processes where the controller has the cores for them. Results and diffs come in the order of I(releases),
    whatever finished first.
  - A loop over M(helmless.core.release) starts a new process per release, which imports the engine and parses the
    chart's templates again each time; here that happens once per task, so a fleet of releases of few charts
    costs a fraction (the C(helmless.core.releases) role uses this module).
  - I(select) runs the releases whose labels match a selector; I(fleet) labels the releases the task installs or
    upgrades, and I(prune) uninstalls that fleet's releases that are no longer listed.
  - A release that fails does not stop the others; releases that I(needs) it are skipped. The task fails when any
    release failed or was skipped, with every release's result.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.connection
  - helmless.core.releases
  - helmless.core.attributes
  - helmless.core.attributes.diff
"""

EXAMPLES = r"""
- name: A database and the application that needs it, in one task
  helmless.core.releases:
    context: prod
    releases:
      - name: db
        namespace: shop
        chart: ./charts/postgresql
        create_namespace: true
      - name: web
        namespace: shop
        chart: ./charts/webapp
        values:
          replicaCount: 3
        needs: [db]

- name: Uninstall an old release in the same task
  helmless.core.releases:
    releases:
      - name: legacy
        namespace: shop
        state: absent

- name: A fleet, eight at a time; releases removed from the list are uninstalled
  helmless.core.releases:
    concurrency: 8
    fleet: shop
    prune: true
    releases: "{{ shop_releases }}"

- name: Only the front end (its needs must be deployed already)
  helmless.core.releases:
    select: tier=front
    releases: "{{ shop_releases }}"
"""

RETURN = r"""
results:
  description:
    - One entry per release run, in the order of I(releases) (the ones I(prune) uninstalled first) - what
      M(helmless.core.release) returns for it (C(status), C(plan), C(drift), C(hooks), C(api_requests), C(stdout),
      C(stderr), C(command), C(progress)), plus C(release) (namespace/name) and, for a pruned release,
      C(pruned=true). Releases I(select) leaves out are not listed.
    - A release that failed has C(failed=true) and C(msg); one skipped because a release it needs did not succeed
      (or, not selected, has no deployed revision) has C(skipped=true) and C(msg).
  returned: always
  type: list
  elements: dict
progress:
  description:
    - One line as each release starts and as it ends (C(changed), C(ok) or C(failed), with its duration), or is
      skipped, stamped with the seconds since the task started; C(-v) shows it.
  returned: always
  type: list
  elements: str
diff:
  description:
    - With C(--diff), the diff of every release, in order, as the release module returns it.
    - Each part names its release; the C(yaml) text starts with C(Release namespace/name:), the C(json) headers with
      C(namespace/name:).
  returned: when diff mode is on
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import item_credentials, run_releases
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (
    CONNECTION, RELEASES, argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module


def main():
    module = AnsibleModule(argument_spec=argument_spec(CONNECTION, RELEASES), supports_check_mode=True)
    require_libraries(module)
    for item in module.params["releases"]:
        # As the release module: only both set to true conflict (reuse_values=false is a valid companion).
        if item.get("reuse_values") and item.get("reset_then_reuse_values"):
            module.fail_json(msg="releases: %s/%s: reuse_values and reset_then_reuse_values cannot both be true"
                             % (item["release_namespace"], item["release_name"]))
    module.no_log_values.update(item_credentials(module.params))
    run_module(module, run_releases, module.check_mode, module._diff)


if __name__ == "__main__":
    main()
