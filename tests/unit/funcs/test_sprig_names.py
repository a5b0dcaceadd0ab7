"""SPRIG_FUNCS holds exactly Sprig's 211 names minus the two Helm deletes, all known to Helm."""
import pytest

from sprig_oracle import oracle_render
from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import (
    SPRIG_FUNCS, HELM_REMOVED, HELM_OVERRIDDEN,
)


def test_sprig_funcs_has_the_209_names_helm_keeps():
    assert len(SPRIG_FUNCS) == 211 - len(HELM_REMOVED)
    assert not set(HELM_REMOVED) & set(SPRIG_FUNCS)
    assert set(HELM_OVERRIDDEN) <= set(SPRIG_FUNCS)


def test_every_name_is_a_function_helm_defines(tmp_path):
    names = sorted(SPRIG_FUNCS)
    out = oracle_render(tmp_path, ["if false }}{{ %s }}{{ end" % n for n in names], chunk=len(names))
    assert all(v == "" for v in out.values())


@pytest.mark.parametrize("name", HELM_REMOVED)
def test_names_helm_removes_are_undefined_in_helm(name, tmp_path):
    out = oracle_render(tmp_path, ["if false }}{{ %s }}{{ end" % name])
    assert 'function "%s" not defined' % name in list(out.values())[0]
