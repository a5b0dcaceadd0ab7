#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.release_test: run a Helm release's tests (helm test) without the helm binary."""

DOCUMENTATION = r"""
module: release_test
short_description: Run the tests of a Helm release, as helm test does (no helm binary)
version_added: 0.2.0
description:
  - Runs the C(test) hooks of the release's latest revision (chart templates whose C(helm.sh/hook)
    annotation names C(test)) in Helm's order - weight, then name, then kind - each created, then waited for
    (a Pod until C(Succeeded), a Job until C(Complete); a C(Failed) one fails the task), and removed as its
    C(helm.sh/hook-delete-policy) says (C(before-hook-creation) when it names none).
  - Each test's run (start, completion, phase) is recorded in the release as Helm 4 records it, so
    C(helm status) shows the test suite; runs recorded by C(helm test) are read the same way by
    M(helmless.core.release_info). The release's status and revision never change.
  - Works on releases installed by helm v3/v4 or by M(helmless.core.release).
  - Check mode lists the tests that would run and writes nothing.
  - A failed test fails the task with the test named and why (for a Pod, the containers' exit codes);
    C(tests) still lists every test's phase.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.connection
  - helmless.core.release_test
  - helmless.core.attributes
  - helmless.core.attributes.no_diff
"""

EXAMPLES = r"""
- name: Run every test of a release
  helmless.core.release_test:
    name: web
    namespace: web

- name: Run one test with its pod logs, allowing two minutes
  helmless.core.release_test:
    name: web
    namespace: web
    filter:
      - name=web-service-test
    timeout: 2m
    logs: true
  register: tested

- name: Run all tests but one
  helmless.core.release_test:
    name: web
    namespace: web
    filter: ["!name=web-slow-test"]
"""

RETURN = r"""
tests:
  description: The tests selected, in the order they run (also returned when a test fails).
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: "Test (hook object) name.", type: str, returned: always}
    kind: {description: "Its kind (Pod, Job...).", type: str, returned: always}
    path: {description: "Template it comes from.", type: str, returned: always}
    weight: {description: "Its helm.sh/hook-weight.", type: int, returned: always}
    phase: {description: "Succeeded, Failed or Running, as recorded; empty before its first run.", type: str,
            returned: always}
    started_at: {description: "When its last run started (RFC 3339).", type: str, returned: always}
    completed_at: {description: "When its last run ended (RFC 3339).", type: str, returned: always}
    ran: {description: "Whether this task ran it (false in check mode and after an earlier test failed).",
          type: bool, returned: always}
    logs:
      description: With I(logs=true), for a Pod test, its containers' logs by container name; C(error)
        when the cluster could not serve some of them.
      type: dict
      returned: when logs is true and the test is a Pod
  sample:
    - {name: web-service-test, kind: Pod, path: templates/tests/service.yaml, weight: 0, phase: Succeeded,
       started_at: "2026-12-01T08:00:01.25Z", completed_at: "2026-12-01T08:00:03.5Z", ran: true}
status:
  description: The tested revision (as helmless.core.release returns it); its status is not changed by testing.
  returned: always
  type: dict
stdout:
  description: What C(helm test) prints - the release's status with its C(TEST SUITE) (each test's last start,
    completion and phase).
  returned: always
  type: str
command:
  description: The equivalent helm command line (informational, nothing runs it).
  returned: always
  type: str
progress:
  description: Timestamped phases of the run (each test created, succeeded or failed); C(-v) shows them.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (
    CONNECTION, RELEASE_TEST, argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module, run_release_test


def main():
    module = AnsibleModule(argument_spec=argument_spec(CONNECTION, RELEASE_TEST), supports_check_mode=True)
    require_libraries(module)
    run_module(module, run_release_test, module.check_mode)


if __name__ == "__main__":
    main()
