"""A release record too large for one Secret (or ConfigMap) fails before anything is written."""
import base64
import os

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError
from ansible_collections.helmless.core.plugins.module_utils.release.storage import MAX_RECORD_BYTES

from test_release_support import client_for, configmap, literal_input, opts


def _noise(n):
    """Incompressible text: gzip cannot shrink it below the limit."""
    return base64.b64encode(os.urandom(n)).decode()


def _big_docs(tag):
    return [configmap("small", {"k": tag})] + [configmap("big%d" % i, {"blob": _noise(300000)}) for i in range(3)]


@pytest.mark.parametrize("kind", ["Secret", "ConfigMap"])
def test_our_limit_is_the_api_servers(kubeconfig, namespace, kind):
    client = client_for(kubeconfig)
    for size, accepted in ((MAX_RECORD_BYTES, True), (MAX_RECORD_BYTES + 1, False)):
        data = "x" * size
        if kind == "Secret":
            data = base64.b64encode(data.encode()).decode()
        obj = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "s%d" % size}, "data": {"release": data}}
        if accepted:
            client.create(obj, namespace)
        else:
            with pytest.raises(ApiError, match="Too long"):
                client.create(obj, namespace)


@pytest.mark.parametrize("driver", ["secret", "configmap"])
def test_an_oversize_install_fails_before_any_write_naming_size_and_limit(kubeconfig, namespace, driver):
    engine = ReleaseEngine(client_for(kubeconfig), "rel", namespace, driver=driver)
    kind = "Secret" if driver == "secret" else "ConfigMap"
    for check_mode in (True, False):
        with pytest.raises(OperationError, match=r"release rel revision 1 is too large to store: its record is "
                                                 r"\d+ bytes in a %s \(gzip \+ base64\), over the API server's "
                                                 r"limit of 1048576 bytes; nothing was changed. Largest parts "
                                                 r"\(JSON before gzip\): chart templates \d+ bytes" % kind):
            engine.present(literal_input(_big_docs("v1")), opts(check_mode=check_mode))
    assert engine.client.count(writes_only=True, include_dry_run=False) == 0
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "small", namespace) is None
    assert client.list("v1", kind, namespace, "owner=helm") == []


@pytest.mark.parametrize("driver", ["secret", "configmap"])
def test_an_oversize_upgrade_leaves_objects_and_history_unchanged(kubeconfig, namespace, driver):
    ReleaseEngine(client_for(kubeconfig), "rel", namespace, driver=driver).present(
        literal_input([configmap("small", {"k": "v1"})]), opts())
    engine = ReleaseEngine(client_for(kubeconfig), "rel", namespace, driver=driver)
    with pytest.raises(OperationError, match="release rel revision 2 is too large to store"):
        engine.present(literal_input(_big_docs("v2")), opts())
    assert engine.client.count(writes_only=True, include_dry_run=False) == 0
    history = ReleaseEngine(client_for(kubeconfig), "rel", namespace, driver=driver).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "deployed")]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "small", namespace)["data"] == {"k": "v1"}
