"""release and releases with ``cosign_key``: a chart signed by the key (the real cosign CLI, a local registry) is
installed; one whose tag moved to other content after signing is refused before the release is read or
written (tests/unit/repo/test_cosign.py has every refusal, for pull and template)."""
import os
import sys

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import run_releases
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import client_for, engine_for, module_params

_UNIT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit")
sys.path[:0] = [_UNIT, os.path.join(_UNIT, "repo")]

from ocikit import oci_registry  # noqa: E402,F401 - fixture
from repokit import helm_home  # noqa: E402,F401 - fixture
from test_cosign import signed  # noqa: E402,F401 - fixture


def test_a_signed_chart_is_installed_and_a_moved_tag_is_refused_with_nothing_written(signed, kubeconfig, namespace):
    _cosign, public, base = signed
    params = module_params(name="web", namespace=namespace, chart_ref=base, chart_version="1.0.0", plain_http=True,
                           cosign_key=public, kubeconfig=kubeconfig)
    result, _ = run_release(params)
    assert result["changed"] and result["status"]["chart"] == "demo-1.0.0"
    for attempt in (lambda: run_release(dict(params, chart_version="2.0.0")),
                    lambda: run_releases({"kubeconfig": kubeconfig,
                                          "releases": [dict(params, chart_version="2.0.0")]})):
        with pytest.raises(ModuleFailure) as refused:
            attempt()
        message = str(refused.value)
        assert "cosign verification of %s:2.0.0 (sha256:" % base in message
        assert "no cosign signature of this digest in the registry" in message
    history = engine_for(kubeconfig, namespace, "web").history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "deployed")]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "web-demo", namespace)["data"]["chart"] == "demo-1.0.0"
