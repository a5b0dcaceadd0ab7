"""A render leaves its survivors out of the young GC generations (no pass over them when collection
resumes); a one-task (module) process keeps them, and what it loaded, out of the collector entirely."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_CHILD = r"""
import gc, json, sys
sys.path.insert(0, %(collections)r)
from ansible_collections.helmless.core.plugins.module_utils import gcpolicy
from ansible_collections.helmless.core.plugins.module_utils.render import render_release
if %(one_task)r:
    gcpolicy.one_task_process()
frozen = gc.get_freeze_count()
render_release(%(chart)r, name="rel", namespace="ns")
young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
print(json.dumps({"young": young, "frozen_before": frozen, "frozen_after": gc.get_freeze_count(),
                  "enabled": gc.isenabled()}))
"""


def _render_in_child(one_task):
    code = _CHILD % {"collections": os.path.join(ROOT, ".build", "collections"), "one_task": one_task,
                     "chart": os.path.join(ROOT, "tests", "corpus", "grafana.tgz")}
    env = dict(os.environ, HELMLESS_CACHE="off")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_render_leaves_nothing_in_the_youngest_generation_and_collection_back_on():
    found = _render_in_child(False)
    assert found["enabled"]
    assert found["young"] < 5000  # without it some 40000 survivors of the render stay young
    # Nothing stays frozen. Python 3.12 starts with a few hundred of its own objects in the permanent
    # generation (frozen_before); the render's unfreeze returns those to the oldest generation too.
    assert found["frozen_after"] == 0


def test_a_one_task_process_freezes_what_a_render_leaves():
    found = _render_in_child(True)
    assert found["young"] < 5000
    assert found["frozen_after"] > found["frozen_before"] + 10000
