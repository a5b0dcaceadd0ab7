#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.release_info: read a Helm release (or list releases) without the helm binary."""

DOCUMENTATION = r"""
module: release_info
short_description: Describe a Helm release or list the releases of a namespace
version_added: 0.1.0
description:
  - Reads Helm's release records (written by helm v3/v4 or by this collection) and the live objects.
  - For one release returns status, values, the manifest as objects, hooks with their last run, notes,
    the revision history and drift (fields where live objects differ from the deployed revision).
  - Without I(release_name), lists the latest revision of every release in the namespace, as C(helm list).
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.connection
  - helmless.core.release_info
  - helmless.core.attributes
"""

EXAMPLES = r"""
- name: Describe a release
  helmless.core.release_info:
    name: web
    namespace: web
  register: web

- name: List every release of the namespace, whatever its state
  helmless.core.release_info:
    namespace: web
    release_state: [all]

- name: List the releases labelled team=web (installed with labels, or helm install --labels)
  helmless.core.release_info:
    namespace: web
    selector: team=web
"""

RETURN = r"""
status:
  description: The release (absent when it does not exist).
  returned: when release_name is given and the release exists
  type: dict
  contains:
    manifest: {description: "The release's objects.", type: list, elements: dict, returned: always}
    hooks: {description: "The hook objects.", type: list, elements: dict, returned: always}
    hook_runs: {description: "Each hook's events, weight and last_run (test runs included).", type: list, elements: dict,
                returned: always}
    labels: {description: "The release's labels.", type: dict, returned: always}
    history: {description: "All stored revisions, oldest first.", type: list, elements: dict, returned: always}
    drift: {description: "Objects whose live state differs from the deployed revision.", type: list, elements: dict, returned: always}
    notes: {description: "Rendered NOTES.txt.", type: str, returned: always}
releases:
  description: Without release_name, one status entry per release.
  returned: when release_name is not given
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (
    CONNECTION, RELEASE_INFO, argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_info, run_module


def main():
    module = AnsibleModule(argument_spec=argument_spec(CONNECTION, RELEASE_INFO), supports_check_mode=True)
    require_libraries(module)
    run_module(module, run_info)


if __name__ == "__main__":
    main()
