#!/usr/bin/python
# Copyright: helmless.core contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""helmless.core.pull: download a chart archive like helm pull, without the helm binary."""

DOCUMENTATION = r"""
module: pull
short_description: Download a Helm chart from a repository, URL or OCI registry (no helm binary)
version_added: 0.1.0
description:
  - Writes the chart archive into I(destination) under the name C(helm pull) gives it, or with I(untar_chart)
    the chart's files into C(<destination>/<chart name>/), as C(helm pull --untar) does.
  - Options follow M(kubernetes.core.helm_pull); a playbook needs only the FQCN changed.
  - Idempotent, unlike C(helm pull) - C(changed) is false when the same archive bytes (or the same untarred
    files) are already there. Check mode writes nothing into I(destination).
  - The chart is fetched and verified (against the repository index digest) before I(destination) is touched;
    files are written under a temporary name and renamed, so a failed pull leaves I(destination) as it was.
  - I(verify_chart) checks the chart's provenance (C(.prov)) as C(helm pull --verify) does, before anything is
    written; I(provenance) fetches the C(.prov) without checking it. Both write it beside the archive.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.pull
  - helmless.core.attributes
"""

EXAMPLES = r"""
- name: Download the newest release of a chart
  helmless.core.pull:
    chart_ref: nginx
    repo_url: https://charts.example.com/stable
    destination: /tmp/charts

- name: Download a version range from a repository added with helmless.core.repository, untarred
  helmless.core.pull:
    chart_ref: example/nginx
    chart_version: ">=1.2.0 <2.0.0"
    destination: /srv/charts
    untar_chart: true

- name: Download from an OCI registry
  helmless.core.pull:
    chart_ref: oci://registry.example.com/charts/nginx
    chart_version: 1.2.3
    destination: /tmp/charts
"""

RETURN = r"""
chart:
  description: Name of the chart (from its C(Chart.yaml)).
  returned: success
  type: str
  sample: nginx
version:
  description: Version of the chart pulled.
  returned: success
  type: str
  sample: 1.2.3
path:
  description: Path of the archive written, or of the chart directory with I(untar_chart).
  returned: success
  type: str
  sample: /tmp/charts/nginx-1.2.3.tgz
digest:
  description: sha256 (hex) of the chart archive.
  returned: success
  type: str
stdout:
  description: What C(helm pull) prints (an OCI pull's C(Pulled:)/C(Digest:) lines, I(verify_chart)'s C(Signed by:),
    C(Using Key With Fingerprint:) and C(Chart Hash Verified:) lines).
  returned: always
  type: str
stderr:
  description: Warnings, one a line; on failure also C(Error - <message>).
  returned: always
  type: str
rc:
  description: C(0), or C(1) when the task fails (the exit code helm would have).
  returned: always
  type: int
command:
  description: The equivalent C(helm pull) command line (informational, nothing runs it; passwords masked).
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import PULL, argument_spec
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module, run_pull


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(PULL),
        required_together=[("repo_username", "repo_password")],
        supports_check_mode=True,
    )
    require_libraries(module, ("yaml",))
    run_module(module, run_pull, module.check_mode)


if __name__ == "__main__":
    main()
