#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.repository: add or remove a Helm chart repository without the helm binary."""

DOCUMENTATION = r"""
module: repository
short_description: Add or remove a Helm chart repository (no helm binary)
version_added: 0.1.0
description:
  - Writes Helm's repositories file (C($HELM_REPOSITORY_CONFIG) or C(~/.config/helm/repositories.yaml)) and
    downloads the repository index into Helm's cache, as C(helm repo add) does; C(repo_state=absent) is
    C(helm repo remove). Both C(helm) and M(helmless.core.release) (C(chart_ref=repo_name/chart)) see the result.
  - Options follow M(kubernetes.core.helm_repository); a playbook needs only the FQCN changed.
  - Idempotent, unlike C(helm repo add --force-update); C(changed) is true only when the repositories file or
    the cached index changed. Check mode writes nothing.
  - The cluster connection options are accepted (for C(module_defaults) of the C(helm) group) and not used.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.repository
  - helmless.core.attributes
"""

EXAMPLES = r"""
- name: Add a repository
  helmless.core.repository:
    name: example
    repo_url: https://charts.example.com/stable

- name: Add a private repository
  helmless.core.repository:
    name: private
    repo_url: https://charts.example.internal
    repo_username: deploy
    repo_password: "{{ vault_chart_password }}"

- name: Install from it
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: example/nginx

- name: Remove a repository
  helmless.core.repository:
    name: example
    state: absent
"""

RETURN = r"""
repo_name:
  description: Name of the repository.
  returned: always
  type: str
repo_url:
  description: URL of the repository.
  returned: always
  type: str
stdout:
  description: What C(helm repo add)/C(remove) would print.
  returned: always
  type: str
  sample: '"example" has been added to your repositories'
stderr:
  description: Warnings, one a line; on failure also C(Error - <message>).
  returned: always
  type: str
command:
  description: The equivalent C(helm repo add)/C(remove) command line (informational, nothing runs it; passwords masked).
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import REPOSITORY, argument_spec
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module, run_repository


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(REPOSITORY),
        required_if=[("repo_state", "present", ["repo_url"])],
        required_together=[("repo_username", "repo_password")],
        supports_check_mode=True,
    )
    require_libraries(module, ("yaml",))
    run_module(module, run_repository, module.check_mode)


if __name__ == "__main__":
    main()
