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
  - Renders a chart with a pure-Python Helm 4 engine and returns the rendered templates, the
    manifest exactly as Helm would store it, the notes, hooks, CRDs and the parsed resources.
  - Options follow C(kubernetes.core.helm_template); a task written for it needs only its FQCN
    changed. Options that only make sense for a helm binary are accepted and ignored with a warning.
  - Charts can come from Helm chart repositories or URLs (fetched, verified against the index digest and
    cached as Helm 4 does).
  - No cluster is contacted, so C(lookup) returns an empty map and C(.Capabilities) are Helm 4.2's
    defaults unless I(kube_version)/I(api_versions) are given.
options:
  chart_ref:
    description:
      - The chart, as for M(helmless.core.release) - a local chart directory or archive (C(.tgz)), a chart
        name with I(chart_repo_url), C(repo_name/chart_name) of a repository added with
        M(helmless.core.repository) or C(helm repo add), an C(https://) or C(http://) URL of a C(.tgz), or
        an OCI reference C(oci://host/path/chart) (optionally C(:version)).
    type: path
    required: true
  chart_version:
    description:
      - For a repository chart, the version to render - a version or semver constraint like C(helm --version)
        (default - the newest version that is not a prerelease).
      - For a local chart, the version expected; a chart of another version is rendered anyway, with a warning.
    type: str
  chart_repo_url:
    description:
      - URL of the chart repository; I(chart_ref) is then a chart name in its C(index.yaml).
    type: str
  repo_username:
    description:
      - Username for a chart repository with Basic authentication.
    type: str
    aliases: [username]
  repo_password:
    description:
      - Password for a chart repository with Basic authentication.
    type: str
    aliases: [password]
  pass_credentials:
    description:
      - Send the repository credentials to every host, not only the repository's scheme, host and port.
    type: bool
    default: false
  ca_file:
    description:
      - CA bundle to verify the chart repository's certificate.
    type: path
  cert_file:
    description:
      - Client certificate for the chart repository (mutual TLS).
    type: path
  key_file:
    description:
      - Key of I(cert_file).
    type: path
  release_name:
    description:
      - Release name (C(.Release.Name)).
    type: str
    default: release-name
    aliases: [name]
  release_namespace:
    description:
      - Release namespace (C(.Release.Namespace)).
    type: str
    default: default
    aliases: [namespace]
  release_values:
    description:
      - Values to pass to the chart, applied after I(values_files).
    type: dict
    default: {}
    aliases: [values]
  values_files:
    description:
      - Value files (YAML) applied in order, before I(release_values).
    type: list
    elements: str
    default: []
  set_values:
    description:
      - Values as with C(--set) and friends. Helm applies them by type, in the order json, raw,
        string, file, literal.
    type: list
    elements: dict
    suboptions:
      value:
        description:
          - The expression, e.g. C(image.tag=1.2).
        type: str
        required: true
      value_type:
        description:
          - C(raw) is C(--set), C(string) C(--set-string), C(json) C(--set-json), C(file) C(--set-file),
            C(literal) C(--set-literal).
        type: str
        default: raw
        choices: [raw, string, json, file, literal]
  include_crds:
    description:
      - Put the chart's and subcharts' C(crds/) files first in the output.
    type: bool
    default: false
  show_only:
    description:
      - Only output the documents of these templates (paths relative to the chart, globs allowed),
        like C(helm template --show-only).
    type: list
    elements: str
  output_dir:
    description:
      - Also write each template's documents to C(<output_dir>/<template path>), like C(--output-dir).
    type: path
  disable_hook:
    description:
      - Leave hooks out of the output (C(--no-hooks)).
    type: bool
    default: false
  dependency_update:
    description:
      - Before loading a local chart directory, fetch its C(Chart.yaml) dependencies into C(charts/) and
        write C(Chart.lock), like C(helm dependency update).
    type: bool
    default: false
    aliases: [dep_up]
  is_upgrade:
    description:
      - Render as an upgrade (C(.Release.IsUpgrade) true, C(.Release.IsInstall) false).
    type: bool
    default: false
  kube_version:
    description:
      - Kubernetes version for C(.Capabilities.KubeVersion) (default v1.36.0, as Helm 4.2).
    type: str
  api_versions:
    description:
      - Extra API versions for C(.Capabilities.APIVersions), e.g. C(monitoring.coreos.com/v1).
    type: list
    elements: str
  post_renderer:
    description:
      - Post-renderers applied in order (executables, C(kustomize:) transformers, kustomize plugin configs).
    type: list
    elements: raw
  enable_plugins:
    description:
      - Allow kustomize exec plugins in I(post_renderer).
    type: bool
    default: false
  binary_path:
    description:
      - Ignored (no helm binary is used).
    type: path
  update_repo_cache:
    description:
      - With I(chart_ref=repo_name/chart_name), download the repository index again first.
    type: bool
    default: false
  insecure_registry:
    description:
      - Do not verify the chart repository's TLS certificate (C(--insecure-skip-tls-verify)).
    type: bool
    default: false
  plain_http:
    description:
      - Talk plain HTTP to the OCI registry of an C(oci://) I(chart_ref).
    type: bool
    default: false
author:
  - helmless.core founders (@helmless)
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
rendered:
  description: Template path to its output, exactly as Helm's engine renders it (partials omitted).
  returned: success
  type: dict
manifest:
  description: The release manifest exactly as Helm stores it (C(---), C(# Source:) headers, install order).
  returned: success
  type: str
stdout:
  description: What C(helm template) prints (manifest then hooks, filtered by I(show_only)).
  returned: success
  type: str
notes:
  description: The rendered NOTES.txt of the chart.
  returned: success
  type: str
hooks:
  description: Hook documents with name, kind, path, manifest, events, weight and delete policies.
  returned: success
  type: list
  elements: dict
crds:
  description: The C(crds/) files of the chart and its subcharts (path and content).
  returned: success
  type: list
  elements: dict
resources:
  description: The non-hook documents of the manifest, parsed.
  returned: success
  type: list
  elements: dict
files:
  description: Files written under I(output_dir).
  returned: when output_dir is set
  type: list
  elements: str
"""

import traceback

import yaml

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.helmless.core.plugins.module_utils.render.template import (
    TemplateError, run_template,
)

_SPEC_KEYS = ("type", "required", "default", "choices", "aliases", "elements", "no_log")


def _spec(options):
    """Argument spec derived from the option docs, so the two cannot drift."""
    spec = {}
    for name, doc in options.items():
        entry = {key: doc[key] for key in _SPEC_KEYS if key in doc}
        entry.setdefault("type", "str")
        if "suboptions" in doc:
            entry["options"] = _spec(doc["suboptions"])
        spec[name] = entry
    return spec


def argument_spec():
    spec = _spec(yaml.safe_load(DOCUMENTATION)["options"])
    spec["repo_password"]["no_log"] = True
    spec["pass_credentials"]["no_log"] = False
    return spec


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    options = dict(module.params, check_mode=module.check_mode)
    try:
        result, warnings = run_template(options)
    except TemplateError as exc:
        module.fail_json(msg=str(exc))
    except Exception as exc:  # a defect of ours: a clear message, the traceback only with -vvv
        module.fail_json(msg="template failed unexpectedly: %s" % exc, exception=traceback.format_exc())
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=bool(result.get("files")) and not module.check_mode, **result)


if __name__ == "__main__":
    main()
