"""YAML typing of the post-render stage: yaml.v3 (kustomize, Helm 4's kio) on the way in,
quoting that a YAML 1.1 reader cannot misread on the way out."""
import subprocess

from ansible_collections.helmless.core.plugins.module_utils import goyaml
from ansible_collections.helmless.core.plugins.module_utils.postrender import run
from ansible_collections.helmless.core.plugins.module_utils.postrender.yamlio import (
    dump, load_all, load_all_v2)

from kustomize_oracle import kustomize

SCALARS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: scalars
data:
  yes_word: yes
  on_word: on
  y_letter: y
  n_letter: n
  octal: 0755
  int: 42
  float: 1.5
  exp: 1e3
  tilde: ~
  empty:
  true_word: true
"""


def test_scalars_are_typed_as_kustomize_reads_them(tmp_path):
    (tmp_path / "r.yaml").write_text(SCALARS)
    (tmp_path / "kustomization.yaml").write_text("resources: [r.yaml]\n")
    theirs = subprocess.run([kustomize(), "build", str(tmp_path)], capture_output=True, text=True,
                            check=True).stdout
    assert load_all(SCALARS) == load_all(theirs)
    data = load_all(SCALARS)[0]["data"]
    assert (data["yes_word"], data["y_letter"], data["octal"]) == ("yes", "y", 493)


def test_json6902_patches_read_yaml_1_1_booleans():
    assert load_all_v2("- {op: add, path: /a, value: y}\n") == [[{"op": "add", "path": "/a", "value": True}]]


def test_strings_that_look_like_other_types_are_quoted_for_go_yaml_v2():
    text = run("---\n# Source: c/templates/cm.yaml\n" + SCALARS + "  date: 2024-01-01\n", [{"kustomize": {}}])
    data = goyaml.load_all(text)[0]["data"]
    assert (data["yes_word"], data["on_word"], data["y_letter"], data["n_letter"]) == ("yes", "on", "y", "n")
    assert data["date"] == "2024-01-01" and data["true_word"] is True and data["int"] == 42


def test_dump_keeps_key_order_and_unicode():
    assert dump({"b": 1, "a": "ünï"}) == "b: 1\na: ünï\n"
