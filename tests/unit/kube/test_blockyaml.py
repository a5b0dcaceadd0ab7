"""The kubeconfig reader that skips PyYAML: whatever it reads, it reads exactly as PyYAML's SafeLoader does
(the loader the kubeconfig used before), and it hands everything else back (None) rather than guess."""
import random

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.kube import blockyaml
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection

CERT = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkakNDQVIyZ0F3SUJBZ0lCQURBS0Jn" * 20

# What kubectl (client-go's clientcmd, go-yaml) writes: sequences at their key's indent, {} for empty maps.
KUBECTL = """apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: %s
    server: https://127.0.0.1:6443
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    namespace: default
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: %s
    client-key-data: %s
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - eks
      - get-token
      - --cluster-name
      - "prod"
      command: aws
      env: null
      interactiveMode: IfAvailable
      provideClusterInfo: false
- name: token-user
  user:
    token: 'abc.def-ghi'
    insecure-skip-tls-verify: true
""" % (CERT, CERT, CERT)

# PyYAML's own block style (what our control plane and many scripts write): sequences indented or not.
VARIANTS = [
    KUBECTL,
    yaml.safe_dump(yaml.safe_load(KUBECTL), default_flow_style=False),
    yaml.safe_dump(yaml.safe_load(KUBECTL), default_flow_style=False, sort_keys=False),
    "# written by hand\napiVersion: v1\nkind: Config\n\nclusters:\n  - name: a\n    cluster:\n      server: http://x:1\n"
    "users: []\ncontexts:\n  - name: a\n    context:\n      cluster: a\n      user: ''\ncurrent-context: a\n",
    "a: yes\nb: No\nc: ON\nd: off\ne: True\nf: FALSE\ng: ~\nh:\ni: null\nj: 0\nk: 6443\nl: tRue\nm: \"\"\nn: /p/q\n",
    "list:\n- a\n- 1\n- ~\n- --flag\n- -v\nk: v\n",
]

# Each alone is outside the subset (PyYAML decides): the reader must answer None or PyYAML's exact value.
EDGES = ["k: 0x1F", "k: 1.5", "k: 2001-12-14", "k: 1:20", "k: .inf", "k: 012", "k: 1_000", "k: -1", "k: +1",
         "k: &a x\nl: *a", "k: !!str 1", "k: |\n  text", "k: >\n  text", "k: [a, b]", "k: {a: 1}", "k: a # c",
         "k: a\n  continued", "k: 'it''s'", 'k: "a\\tb"', "k: a: b", "k: a:", "k: =", "<<: {}", "yes: 1",
         "null: 1", "k: 1\nk: 2", "k:\tv", "k: v\r\n", "--- \nk: v", "k: v\n...\n", "? k\n: v", "\"k\": v",
         "1: v", "k: -", "- a\n-  b", "-\n  a", "k: caf\u00e9", "k: a\x01b", "k:  two spaces", "k: @x", "k: `x`",
         "k: %x", "k: ,x", "k: a,b", "k: a]", "k: /", "k: y", "k: n", "K: Null", "k: NULL", "k: ''", "k: '#'",
         "top\n", "[]", "{}", "", "# only a comment\n", "k: v\n  - x", "a:\n  b: 1\n c: 2", "- a: 1\n  - b",
         "- - nested", "k: ---", "k: -.5", "k: -0x1", "k: -"]


def _safe_load(text):
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506  (as kube/config.py)


def _same_or_none(text):
    try:
        expected = _safe_load(text)
    except yaml.YAMLError:
        expected = ValueError
    got = blockyaml.load(text)
    assert got is None or (expected is not ValueError and got == expected and _types(got) == _types(expected)), text


def _types(value):
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value)


@pytest.mark.parametrize("text", VARIANTS)
def test_what_kubectl_and_pyyaml_write_is_read_as_safeloader_reads_it(text):
    got = blockyaml.load(text)
    assert got is not None and got == _safe_load(text) and _types(got) == _types(_safe_load(text))


@pytest.mark.parametrize("text", EDGES)
def test_a_document_outside_the_subset_is_left_to_pyyaml(text):
    _same_or_none(text)
    _same_or_none("apiVersion: v1\nnested:\n  " + text.replace("\n", "\n  ") + "\n")


def test_mutated_kubeconfigs_are_read_exactly_or_not_at_all():
    """Random edits (YAML indicators, spaces, line moves) of real kubeconfigs: never a different value."""
    rng = random.Random(1405)
    pieces = [" ", "  ", "-", "- ", ":", ": ", "#", " #", "'", '"', "{", "}", "[", "]", "&", "*", "!", "|", ">",
              "?", ",", "%", "@", "\\", "\n", "\n  ", "\n- ", "0", "1.5", "yes", "null", "~", "\t", "x"]
    for _mutation in range(3000):
        lines = rng.choice(VARIANTS[:4]).replace(CERT, "LS0tCERT").split("\n")
        for _edit in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            line = lines[i]
            choice = rng.random()
            if choice < 0.6:
                at = rng.randint(0, len(line))
                lines[i] = line[:at] + rng.choice(pieces) + line[at:]
            elif choice < 0.8:
                lines.insert(rng.randrange(len(lines)), line)
            else:
                del lines[i]
        _same_or_none("\n".join(lines))


def test_a_kubeconfig_in_the_subset_connects_without_importing_pyyaml(tmp_path, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_yaml(name, *args, **kwargs):
        if name == "yaml" or name.startswith("yaml."):
            raise AssertionError("PyYAML imported for a kubeconfig kubectl wrote")
        return real_import(name, *args, **kwargs)
    path = tmp_path / "config"
    path.write_text(KUBECTL.replace("insecure-skip-tls-verify: true", "insecure-skip-tls-verify: false"))
    monkeypatch.setattr(builtins, "__import__", no_yaml)
    conn = load_connection(str(path), "kind-kind")
    assert conn.host == "https://127.0.0.1:6443"


def test_a_kubeconfig_outside_the_subset_still_loads_through_pyyaml(tmp_path):
    path = tmp_path / "config"
    path.write_text("apiVersion: v1\nclusters: [{name: a, cluster: {server: 'https://h:1'}}]\nusers: [{name: u, user: "
                    "{token: t}}]\ncontexts: [{name: c, context: {cluster: a, user: u}}]\ncurrent-context: c\n")
    assert blockyaml.load(path.read_text()) is None
    assert load_connection(str(path)).host == "https://h:1"
