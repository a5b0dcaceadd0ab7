"""docs/repositories.md: an ``auths`` entry that holds only an ``identitytoken`` gives no credentials."""
import json

from ansible_collections.helmless.core.plugins.module_utils.repo.logins import stored_credentials


def test_an_entry_with_only_an_identity_token_gives_no_credentials_and_a_basic_one_does(tmp_path, monkeypatch):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"auths": {"oauth.example:5000": {"identitytoken": "refresh-tok"},
                                            "basic.example:5000": {"auth": "dTpw"}}}))
    monkeypatch.setenv("HELM_REGISTRY_CONFIG", str(config))
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path / "no-docker"))
    assert stored_credentials("oauth.example:5000") is None
    assert stored_credentials("basic.example:5000") == ("u", "p")
