#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.registry_auth: log in to or out of an OCI registry like helm registry login, without helm."""

DOCUMENTATION = r"""
module: registry_auth
short_description: Log in to or out of an OCI registry for Helm charts (no helm binary)
version_added: 0.1.0
description:
  - C(state=present) checks the credentials against the registry (a request to C(/v2/) with them, following a
    Bearer-token challenge, as C(helm registry login) does) and stores them in Helm's registry config
    (C($HELM_REGISTRY_CONFIG), default C(~/.config/helm/registry/config.json)); C(state=absent) removes
    them, like C(helm registry logout).
  - C(oci://) charts of M(helmless.core.release), M(helmless.core.template), M(helmless.core.pull) and
    I(dependency_update) then use the stored login for that host when the task gives no
    I(repo_username)/I(repo_password), as Helm does; so does C(helm) itself.
  - Options follow M(kubernetes.core.helm_registry_auth); a playbook needs only the FQCN changed.
  - Idempotent, unlike C(helm registry login) - C(changed) is false when the same entry is stored already.
    The credentials are still checked against the registry on every run (also in check mode), so the task
    fails when they stopped working. Wrong credentials fail the task and write nothing.
  - The file is written as Helm writes it (other entries and keys kept, mode 0600, through a temporary
    file). When the file names a Docker credential helper for the host (C(credHelpers) for that registry, else
    C(credsStore)), the login is stored and removed through C(docker-credential-<name> store|erase) from
    C(PATH) instead, as Helm does, and pulls read it with C(get); a helper that fails fails the task naming it.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.registry_auth
  - helmless.core.attributes
"""

EXAMPLES = r"""
- name: Log in to a registry
  helmless.core.registry_auth:
    host: registry.example.com
    username: deploy
    password: "{{ vault_registry_password }}"

- name: Install a chart from it with the stored login
  helmless.core.release:
    name: web
    namespace: web
    chart_ref: oci://registry.example.com/charts/web
    chart_version: 1.2.3

- name: Log out
  helmless.core.registry_auth:
    host: registry.example.com
    state: absent
"""

RETURN = r"""
host:
  description: The registry host the entry is stored under.
  returned: always
  type: str
  sample: registry.example.com
stdout:
  description: What C(helm registry login)/C(logout) prints.
  returned: always
  type: str
  sample: Login Succeeded
stdout_lines:
  description: I(stdout) as a list of lines.
  returned: always
  type: list
  elements: str
stderr:
  description: Warnings, one a line; on failure also C(Error - <message>).
  returned: always
  type: str
command:
  description: The equivalent C(helm registry login)/C(logout) command line (informational; the password masked).
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import REGISTRY_AUTH, argument_spec
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module, run_registry_auth


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(REGISTRY_AUTH),
        required_if=[("state", "present", ["username", "password"])],
        supports_check_mode=True,
    )
    require_libraries(module, ())  # none: the standard library's json and urllib do it all
    run_module(module, run_registry_auth, module.check_mode)


if __name__ == "__main__":
    main()
