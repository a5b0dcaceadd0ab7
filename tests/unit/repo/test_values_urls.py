"""``values_files`` entries may be http(s) URLs (Helm's ``-f https://...``), fetched with the chart's TLS and
credential options from a server on 127.0.0.1; failures name the URL and the HTTP status."""
import pytest

from repokit import Server, env, run_module, self_signed, write_chart  # noqa: F401 - env is a fixture

TEMPLATE = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"
                       "  greeting: {{ .Values.greeting | quote }}\n  size: {{ .Values.size | quote }}\n"}


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    (root / "prod.yaml").write_text("greeting: from-url\nsize: large\n")
    return root


def _template(env, tmp_path, **args):
    chart = write_chart(tmp_path / "charts", "web", "1.0.0", templates=TEMPLATE)
    return run_module("template", dict({"chart_ref": chart}, **args), env, tmp_path)[0]


def test_a_values_file_url_is_merged_in_order_with_local_files(served, tmp_path, env):
    local = tmp_path / "local.yaml"
    local.write_text("size: small\n")
    server = Server(served)
    try:
        result = _template(env, tmp_path, values_files=[server.url + "/prod.yaml", str(local)])
    finally:
        server.close()
    assert not result.get("failed"), result
    assert 'greeting: "from-url"' in result["stdout"] and 'size: "small"' in result["stdout"]
    assert "--values=%s/prod.yaml" % server.url in result["command"]


def test_a_missing_values_url_fails_naming_the_url_and_the_status(served, tmp_path, env):
    server = Server(served)
    try:
        result = _template(env, tmp_path, values_files=[server.url + "/nope.yaml"])
    finally:
        server.close()
    assert result["failed"] and result["rc"] == 1
    assert server.url + "/nope.yaml" in result["msg"] and "404" in result["msg"], result["msg"]
    assert result["stderr"].startswith("Error: ")


def test_an_unreachable_values_url_fails_naming_it(served, tmp_path, env):
    server = Server(served)
    url = server.url + "/prod.yaml"
    server.close()
    result = _template(env, tmp_path, values_files=[url])
    assert result["failed"] and url in result["msg"], result


def test_values_urls_use_the_charts_credentials_and_tls_options(served, tmp_path, env):
    cert, key = self_signed(tmp_path)
    server = Server(served, credentials=("ci", "s3cret"), tls=(cert, key))
    try:
        url = server.url + "/prod.yaml"
        denied = _template(env, tmp_path, values_files=[url], ca_file=cert)
        untrusted = _template(env, tmp_path, values_files=[url], repo_username="ci", repo_password="s3cret")
        allowed = _template(env, tmp_path, values_files=[url], ca_file=cert, repo_username="ci",
                            repo_password="s3cret")
        insecure = _template(env, tmp_path, values_files=[url], insecure_registry=True, repo_username="ci",
                             repo_password="s3cret")
    finally:
        server.close()
    assert denied["failed"] and url in denied["msg"] and "401" in denied["msg"], denied["msg"]
    assert untrusted["failed"] and url in untrusted["msg"] and "certificate" in untrusted["msg"], untrusted["msg"]
    assert not allowed.get("failed") and 'greeting: "from-url"' in allowed["stdout"], allowed
    assert not insecure.get("failed"), insecure


def test_a_values_url_with_user_and_password_authenticates_as_helm_does(served, tmp_path, env):
    from provkit import helm

    chart = write_chart(tmp_path / "charts", "web", "1.0.0", templates=TEMPLATE)
    server = Server(served, credentials=("ci", "s3 cr@t"))
    try:
        good = server.url.replace("://", "://ci:s3%20cr%40t@") + "/prod.yaml"
        bad = server.url.replace("://", "://ci:wrong@") + "/prod.yaml"
        theirs = [helm("template", "cm", str(chart), "-f", url, cwd=str(tmp_path)) for url in (good, bad)]
        ours = [_template(env, tmp_path, values_files=[url]) for url in (good, bad)]
    finally:
        server.close()
    assert theirs[0].returncode == 0 and not ours[0].get("failed"), (theirs[0].stderr, ours[0])
    assert ours[0]["stdout"] == theirs[0].stdout
    assert theirs[1].returncode == 1 and "401" in theirs[1].stderr
    assert ours[1]["failed"] and "401" in ours[1]["msg"], ours[1]
    assert "wrong" not in ours[1]["msg"] and "s3 cr@t" not in str(ours)  # the password is masked in the result
