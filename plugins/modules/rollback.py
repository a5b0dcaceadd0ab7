#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.rollback: roll a Helm release back to an earlier revision."""

DOCUMENTATION = r"""
module: rollback
short_description: Roll a Helm release back to a previous revision (no helm binary)
version_added: 0.1.0
description:
  - Makes a new revision whose chart, values, manifest and hooks are those of the target revision (no
    re-render), as C(helm rollback) does, running pre/post-rollback hooks.
  - Rolling back to a revision whose content is already deployed changes nothing (C(changed=false)).
  - Check mode plans the same change with no write; C(--diff) shows each object's before and after (as
    M(helmless.core.release), I(diff_format) and I(diff_context) alike).
  - A revision left C(pending-*) by a process that died is recovered instead of blocking forever.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.connection
  - helmless.core.rollback
  - helmless.core.attributes
  - helmless.core.attributes.diff
"""

EXAMPLES = r"""
- name: Roll back to the previous revision
  helmless.core.rollback:
    name: web
    namespace: web

- name: Roll back to revision 3 and wait for readiness
  helmless.core.rollback:
    name: web
    namespace: web
    revision: 3
    wait: true
"""

RETURN = r"""
stdout:
  description: What C(helm rollback) prints (C(Rollback was a success! Happy Helming!)); empty in check mode.
  returned: always
  type: str
stderr:
  description: Warnings, one a line; on failure also C(Error - <message>).
  returned: always
  type: str
command:
  description: The equivalent C(helm rollback) command line (informational, nothing runs it).
  returned: always
  type: str
helm_version:
  description: The Helm release this collection emulates (see M(helmless.core.release)).
  returned: success
  type: str
  sample: v4.3.2
status:
  description: The new revision (as helmless.core.release returns it).
  returned: always
  type: dict
plan:
  description: Per object action of the rollback.
  returned: always
  type: list
  elements: dict
hooks:
  description: Hooks run (or that would run in check mode).
  returned: always
  type: list
  elements: str
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
    CONNECTION, ROLLBACK, argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_rollback, run_module


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(CONNECTION, ROLLBACK),
        mutually_exclusive=[("wait_timeout", "timeout"), ("force", "server_side"), ("force", "force_conflicts")],
        supports_check_mode=True,
    )
    require_libraries(module)
    run_module(module, run_rollback, module.check_mode, module._diff)


if __name__ == "__main__":
    main()
