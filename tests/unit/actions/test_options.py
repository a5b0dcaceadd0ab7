"""Option docs and argument specs come from one table, so they agree by construction; check they do."""
import yaml

from ansible_collections.helmless.core.plugins.doc_fragments import (
    connection, release, release_info, release_test, rollback, template)
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (
    CONNECTION, RELEASE, RELEASE_INFO, RELEASE_TEST, ROLLBACK, TEMPLATE, argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, parse_duration

import pytest


@pytest.mark.parametrize("fragment, table", [(connection, CONNECTION), (release, RELEASE),
                                             (rollback, ROLLBACK), (release_info, RELEASE_INFO),
                                             (release_test, RELEASE_TEST), (template, TEMPLATE)])
def test_documented_options_match_the_argument_spec(fragment, table):
    docs = yaml.safe_load(fragment.ModuleDocFragment.DOCUMENTATION)["options"]
    spec = argument_spec(table)
    assert set(docs) == set(spec)
    for name, opt in spec.items():
        for key in ("type", "default", "choices", "aliases", "elements", "required"):
            assert docs[name].get(key) == opt.get(key), (name, key)


def test_kubernetes_core_helm_names_and_aliases_are_accepted():
    spec = argument_spec(CONNECTION, RELEASE)
    assert spec["release_name"]["aliases"] == ["name"]
    assert spec["release_namespace"]["aliases"] == ["namespace"]
    assert spec["release_values"]["aliases"] == ["values"]
    assert spec["release_state"]["aliases"] == ["state"]
    assert spec["kubeconfig"]["fallback"][1] == ["K8S_AUTH_KUBECONFIG"]
    assert spec["api_key"]["no_log"] is True


@pytest.mark.parametrize("text, seconds", [("5m0s", 300), ("90s", 90), ("1h", 3600), ("30", 30), (None, 300)])
def test_timeouts_accept_go_durations_and_seconds(text, seconds):
    assert parse_duration(text) == seconds


def test_a_malformed_duration_is_a_clear_error():
    with pytest.raises(ModuleFailure, match='invalid duration "5 minutes"'):
        parse_duration("5 minutes")


def test_credentials_inside_an_inline_kubeconfig_are_collected_for_no_log():
    from ansible_collections.helmless.core.plugins.module_utils.ansible.secrets import sensitive_values
    config = {"users": [{"name": "u", "user": {"token": "t0k", "client-key-data": "a2V5"}}],
              "clusters": [{"name": "c", "cluster": {"server": "https://x"}}]}
    assert sensitive_values(config) == {"t0k", "a2V5"}
    assert sensitive_values("/path/to/kubeconfig") == set()
