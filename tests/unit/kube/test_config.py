"""Kubeconfig reading: contexts, credentials, relative paths, explicit overrides and clear errors."""
import base64

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.kube.config import Identity, load_connection
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import KubeConfigError


def _kubeconfig(tmp_path, **user):
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "a",
           "clusters": [{"name": "c1", "cluster": {"server": "https://one:6443", "certificate-authority": "ca.crt"}},
                        {"name": "c2", "cluster": {"server": "https://two:6443", "insecure-skip-tls-verify": True}}],
           "users": [{"name": "u", "user": user or {"token": "tok"}}],
           "contexts": [{"name": "a", "context": {"cluster": "c1", "user": "u"}},
                        {"name": "b", "context": {"cluster": "c2", "user": "u"}}]}
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_the_current_context_selects_server_ca_and_token(tmp_path):
    conn = load_connection(_kubeconfig(tmp_path))
    assert conn.host == "https://one:6443"
    assert conn.ca_file == str(tmp_path / "ca.crt")
    assert conn.verify and conn.authorization() == "Bearer tok"


def test_an_explicit_context_and_options_override_the_kubeconfig(tmp_path):
    conn = load_connection(_kubeconfig(tmp_path), context="b", api_key="other", validate_certs=True)
    assert conn.host == "https://two:6443" and conn.verify
    assert conn.authorization() == "Bearer other"
    assert load_connection(_kubeconfig(tmp_path), context="b").verify is False


def test_inline_certificate_data_is_written_to_private_files(tmp_path):
    pem = b"-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"
    conn = load_connection(_kubeconfig(tmp_path, **{"client-certificate-data": base64.b64encode(pem).decode(),
                                                    "client-key-data": base64.b64encode(b"key").decode()}))
    with open(conn.cert_file, "rb") as fh:
        assert fh.read() == pem
    assert conn.authorization() is None


def test_a_kubeconfig_given_as_a_dict_is_accepted(tmp_path):
    doc = yaml.safe_load(open(_kubeconfig(tmp_path)))
    assert load_connection(doc, context="b").host == "https://two:6443"


def test_broken_kubeconfigs_fail_with_the_file_and_the_reason(tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("clusters: [ {\n")
    with pytest.raises(KubeConfigError, match="invalid kubeconfig %s" % bad):
        load_connection(str(bad))
    with pytest.raises(KubeConfigError, match='context "nope" does not exist'):
        load_connection(_kubeconfig(tmp_path), context="nope")
    with pytest.raises(KubeConfigError, match="no such file|No such file"):
        load_connection(str(tmp_path / "missing"))


@pytest.mark.parametrize("proxy", ["https://proxy:3128", "socks5://proxy:1080"])
def test_a_proxy_url_other_than_http_fails_naming_cluster_and_url(tmp_path, proxy):
    doc = yaml.safe_load(open(_kubeconfig(tmp_path)))
    doc["clusters"][0]["cluster"]["proxy-url"] = proxy
    with pytest.raises(KubeConfigError, match="cluster 'c1' proxy-url %s: only http:// proxies" % proxy):
        load_connection(doc)
    doc["clusters"][0]["cluster"]["proxy-url"] = "http://proxy:3128"
    assert load_connection(doc).proxy == "http://proxy:3128"


def test_the_kubeconfig_as_family_is_overridden_field_by_field_as_kubectl_flags_do(tmp_path):
    path = _kubeconfig(tmp_path, token="tok", **{"as": "jane", "as-groups": ["devs"], "as-uid": "42",
                                                 "as-user-extra": {"scopes": ["view", "edit"]}})
    assert load_connection(path).impersonation_headers() == {
        "Impersonate-User": "jane", "Impersonate-Uid": "42", "Impersonate-Group": ["devs"],
        "Impersonate-Extra-scopes": ["view", "edit"]}
    joe = load_connection(path, identity=Identity(user="joe"))
    assert joe.impersonation_headers()["Impersonate-User"] == "joe"
    assert joe.impersonation_headers()["Impersonate-Group"] == ["devs"]  # kept from the kubeconfig
    assert load_connection(_kubeconfig(tmp_path)).impersonation_headers() == {}


def test_impersonation_extra_keys_are_escaped_and_groups_without_a_user_are_refused(tmp_path):
    conn = load_connection(_kubeconfig(tmp_path), identity=Identity(user="u", extra={"ex ample.io/k%": "v"}))
    assert conn.impersonation_headers()["Impersonate-Extra-ex%20ample.io%2Fk%25"] == ["v"]
    with pytest.raises(KubeConfigError, match="groups, uid and extra need a user to impersonate"):
        load_connection(_kubeconfig(tmp_path), identity=Identity(groups=("g",)))
    with pytest.raises(KubeConfigError, match=r"kubeconfig user 'u': .*need a user"):
        load_connection(_kubeconfig(tmp_path, token="t", **{"as-groups": ["g"]}))
