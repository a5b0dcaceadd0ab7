#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``template`` module: render a chart like ``helm template``, no cluster, no helm binary."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: template
short_description: Render a Helm chart locally, like C(helm template), without the helm binary
version_added: 0.1.0
description:
  - Renders a chart with a pure-Python Helm 4 engine and returns what C(helm template) prints, in RV(stdout) as
    kubernetes.core.helm_template does, and the notes; the release manifest, each template's output, the parsed
    resources, the CRDs and the hooks on request (I(extra_results)).
  - Options follow C(kubernetes.core.helm_template); a task written for it needs only its FQCN
    changed. Options that only make sense for a helm binary are accepted and ignored with a warning.
  - Charts can come from Helm chart repositories or URLs (fetched, verified against the index digest and
    cached as Helm 4 does).
  - Emulates Helm v4.3.2 byte for byte (returned as RV(helm_version)).
  - No cluster is contacted, so C(lookup) returns an empty map and C(.Capabilities) are Helm 4.3's
    defaults unless I(kube_version)/I(api_versions) are given.
author:
  - helmless.core founders (@helmless)
extends_documentation_fragment:
  - helmless.core.template
"""

EXAMPLES = r"""
- name: Render a chart
  helmless.core.template:
    chart_ref: ./charts/podinfo
    release_name: web
    release_namespace: apps
    release_values:
      replicaCount: 2
  register: out

- name: Write the manifest to a file
  ansible.builtin.copy:
    dest: /tmp/podinfo.yaml
    content: "{{ out.stdout }}"

- name: Render and read the objects
  helmless.core.template:
    chart_ref: ./charts/podinfo
    extra_results: [resources]
  register: rendered

- name: Write each template's documents under a directory, as helm template --output-dir
  helmless.core.template:
    chart_ref: ./charts/podinfo
    output_dir: /tmp/podinfo

- name: Render a chart from a chart repository
  helmless.core.template:
    chart_ref: podinfo
    chart_repo_url: https://stefanprodan.github.io/podinfo
    chart_version: ">=6.0.0 <7.0.0"

- name: Only the deployment, with CRDs and a --set
  helmless.core.template:
    chart_ref: ./charts/traefik-41.3.0.tgz
    include_crds: true
    show_only: [templates/deployment.yaml]
    set_values:
      - value: image.tag=v3.5.0
        value_type: string
"""

RETURN = r"""
stdout:
  description:
    - What C(helm template) prints, byte for byte - the documents (manifest then hooks, filtered by I(show_only)), as
      kubernetes.core.helm_template returns them.
    - With I(output_dir), helm's C(wrote <file>) lines instead (the documents are in the files).
  returned: always
  type: str
stderr:
  description: Warnings, one a line (as helm prints them to its stderr); on failure also C(Error - <message>).
  returned: always
  type: str
rc:
  description: C(0), or C(1) when the task fails (the exit code helm would have).
  returned: always
  type: int
command:
  description:
    - The equivalent C(helm template) command line, as kubernetes.core.helm_template returns it.
    - Informational - nothing runs it. I(release_values) appear as C(--values=-) (helm reads that file from stdin).
  returned: always
  type: str
helm_version:
  description: The Helm release this collection renders exactly like (the C(helm) CLI of that version
    renders the same manifest).
  returned: success
  type: str
  sample: v4.3.2
notes:
  description: The rendered NOTES.txt of the chart.
  returned: success
  type: str
files:
  description: The files of the output under I(output_dir) (whether or not this run had to write them), sorted.
  returned: when output_dir is set
  type: list
  elements: str
manifest:
  description: The release manifest exactly as Helm stores it (C(---), C(# Source:) headers, install order).
  returned: when extra_results names it
  type: str
rendered:
  description: Template path to its output, exactly as Helm's engine renders it (partials omitted).
  returned: when extra_results names it
  type: dict
resources:
  description: The non-hook documents of the manifest, parsed.
  returned: when extra_results names it
  type: list
  elements: dict
crds:
  description: The C(crds/) files of the chart and its subcharts (path and content).
  returned: when extra_results names it
  type: list
  elements: dict
hooks:
  description: Hook documents with name, kind, path, manifest, events, weight and delete policies.
  returned: when extra_results names it
  type: list
  elements: dict
"""

import traceback

from ansible.module_utils.basic import AnsibleModule

# First: the module_utils imported after it load compiled code from the code cache (see codecache).
from ansible_collections.helmless.core.plugins.module_utils import codecache  # noqa: F401 pylint: disable=unused-import
from ansible_collections.helmless.core.plugins.module_utils.ansible.libraries import RENDER, require_libraries
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import TEMPLATE, argument_spec
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module, run_template_task


def main():
    module = AnsibleModule(argument_spec=argument_spec(TEMPLATE), supports_check_mode=True)
    require_libraries(module, RENDER)
    try:
        run_module(module, run_template_task, module.check_mode)
    except Exception as exc:  # a defect of ours: a clear message, the traceback only with -vvv
        module.fail_json(msg="template failed unexpectedly: %s" % exc, exception=traceback.format_exc())


if __name__ == "__main__":
    main()
