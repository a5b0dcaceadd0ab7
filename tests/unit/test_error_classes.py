"""The engine's exception classes: one base, one name each.

The Ansible layer reports any ``HelmlessError`` as a clean task failure, so an engine error class
outside the base would surface as a defect; and two classes of one name make ``except X`` mean
different things depending on an import line.
"""
import gc
import importlib
import inspect
import json
import pkgutil

import pytest
from ansible.module_utils import basic

import ansible_collections.helmless.core.plugins.module_utils as module_utils
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_module
from ansible_collections.helmless.core.plugins.module_utils.chart.errors import ChartError
from ansible_collections.helmless.core.plugins.module_utils.errors import HelmlessError

# Exceptions used as control flow inside one package, never shown to a user.
SIGNALS = {
    "actions.base.Moved",  # the history changed under a read: plan again
    "chart.schemav6.Unsupported",  # the schema needs the jsonschema package: fall back to it
    "chart.strvals._EOF",  # Go's io.EOF between parser steps
    "chart.strvals._NotList",  # "not a list index": the caller tries the map form
    "chart.strvals._Panic",  # a Go panic that strvals' own recover turns into an error
    "gotemplate.calls._NeedsEval",  # an argument that cannot be folded at compile time
    "gotemplate.calls._CallError",  # the ``call`` builtin's checks, reported as ``error calling call``
    "gotemplate.exec._Break",  # {{break}}
    "gotemplate.exec._Continue",  # {{continue}}
    "gotemplate.parser._Fallback",  # an action the fast path cannot parse: the token path parses it
    "goyaml.loader._Deeper",  # libyaml refused the nesting depth: the document is read again with a raised limit
    "goyaml.loader._Fail",  # a decode error go-yaml reports only if the document parses
    "kube.blockyaml._Outside",  # a kubeconfig outside the block subset: PyYAML reads it
    "kube.http.ProtocolError",  # an answer that is not HTTP/1.x: the kube client retries where safe, then reports it
    "kube.http.Unsent",  # no connection could be opened: the kube client resends, then raises Unreachable
    "render.outputcache._Uncacheable",  # an input the output cache cannot digest: it renders without the cache
}


def _exception_classes():
    for info in pkgutil.walk_packages(module_utils.__path__, module_utils.__name__ + "."):
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if inspect.isclass(cls) and issubclass(cls, BaseException) and cls.__module__ == module.__name__:
                yield module.__name__.split(".module_utils.", 1)[1] + "." + cls.__name__, cls


def test_every_engine_error_class_derives_from_helmless_error():
    outside = sorted(name for name, cls in _exception_classes()
                     if not issubclass(cls, HelmlessError) and name not in SIGNALS)
    assert outside == []


def test_no_two_engine_exception_classes_share_a_name():
    by_name = {}
    for name, cls in _exception_classes():
        by_name.setdefault(cls.__name__, []).append(name)
    assert {short: places for short, places in by_name.items() if len(places) > 1} == {}


@pytest.mark.ansible_core
def test_an_engine_error_reaching_the_module_boundary_fails_the_task_with_its_own_message(monkeypatch, capsys):
    monkeypatch.setattr(basic, "_ANSIBLE_ARGS", json.dumps({"ANSIBLE_MODULE_ARGS": {}}).encode())
    monkeypatch.setattr(basic, "_ANSIBLE_PROFILE", "legacy")
    module = basic.AnsibleModule(argument_spec={})

    def run(_params):
        raise ChartError("Chart.yaml file is missing")
    try:
        with pytest.raises(SystemExit):
            run_module(module, run)
    finally:
        gc.unfreeze()  # run_module freezes what a one-task module process has imported
    result = json.loads(capsys.readouterr().out)
    assert (result["failed"], result["msg"], "exception" in result) == (True, "Chart.yaml file is missing", False)
