"""Two Ansible forks rendering the same new chart at once: both succeed and leave one valid entry for its templates
and one for their output."""
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.helmless.core.plugins.module_utils import codecache, diskcache
from ansible_collections.helmless.core.plugins.module_utils.gotemplate import parsecache
from ansible_collections.helmless.core.plugins.module_utils.render import outputcache

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TEMPLATES = 12


def write_chart(path):
    (path / "templates").mkdir(parents=True)
    (path / "Chart.yaml").write_text("apiVersion: v2\nname: forked\nversion: 0.1.0\n")
    (path / "values.yaml").write_text("n: 3\n")
    (path / "templates" / "_helpers.tpl").write_text('{{- define "forked.name" -}}{{ .Chart.Name }}{{- end -}}\n')
    for i in range(TEMPLATES - 1):
        (path / "templates" / ("cm%d.yaml" % i)).write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"forked.name\" . }}-%d\ndata:\n"
            "{{- range $i := until (int .Values.n) }}\n  k{{ $i }}: {{ printf \"%%d-%%s\" $i $.Release.Name | quote }}\n"
            "{{- end }}\n" % i)
    return str(path)


def test_two_forks_rendering_one_new_chart_at_once_both_succeed_and_leave_one_valid_entry(tmp_path):
    chart = write_chart(tmp_path / "forked")
    cache = tmp_path / "cache"
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  hosts:\n    fork-a: {}\n    fork-b: {}\n  vars:\n    ansible_connection: local\n"
                         "    ansible_python_interpreter: %s\n" % sys.executable)
    play = tmp_path / "play.yml"
    play.write_text("- hosts: all\n  gather_facts: false\n  tasks:\n    - helmless.core.template:\n"
                    "        chart_ref: %s\n      register: out\n    - copy:\n        content: \"{{ out | to_json }}\"\n"
                    "        dest: %s/{{ inventory_hostname }}.json\n" % (chart, tmp_path))
    env = dict(os.environ, HELMLESS_CACHE_DIR=str(cache), ANSIBLE_LOCALHOST_WARNING="false",
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"))
    env.pop("HELMLESS_CACHE", None)
    proc = subprocess.run(["ansible-playbook", "-i", str(inventory), "-f", "2", str(play)], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    outputs = [json.loads((tmp_path / ("%s.json" % h)).read_text())["stdout"] for h in ("fork-a", "fork-b")]
    assert outputs[0] == outputs[1] and outputs[0].count("kind: ConfigMap") == TEMPLATES - 1

    templates = sorted(os.listdir(cache / "templates"))
    assert len(templates) == 1 and not [n for n in templates if n.endswith(".tmp")]  # the chart's bundle
    store = diskcache.Store("templates", parsecache.MAX_BYTES, str(cache))
    assert all(store.get(name) is not None for name in templates)
    code = diskcache.Store("code", codecache.MAX_BYTES, str(cache))
    names = os.listdir(cache / "code")
    assert names and not [n for n in names if n.endswith(".tmp")] and all(code.get(n) is not None for n in names)
    rendered = diskcache.Store("rendered", outputcache.MAX_BYTES, str(cache))
    names = [n for n in os.listdir(cache / "rendered") if not n.endswith(".pruned")]
    assert len(names) == 1 and rendered.get(names[0]) is not None  # both forks' output, under one key
