"""Every Sprig case of this package, rendered by our template engine with Helm's function
map, prints exactly what Helm prints (catches calling-convention and type-check mismatches
between the functions and the executor)."""
import importlib

import pytest

from sprig_oracle import oracle_render, _as_yaml_numbers, _Values, as_helm_text
from ansible_collections.helmless.core.plugins.module_utils.gotemplate import TemplateSet
from ansible_collections.helmless.core.plugins.module_utils.render.engine import base_funcs

MODULES = ["test_sprig_strings", "test_sprig_data", "test_sprig_regex", "test_sprig_semver",
           "test_sprig_edges", "test_sprig_conversions", "test_sprig_dates", "test_sprig_merge"]


def _render(funcs, case, values):
    ts = TemplateSet(dict(funcs), missingkey="zero")
    try:
        ts.parse("c/templates/t.txt", "{{ %s }}" % case)
        out = ts.execute("c/templates/t.txt", {"Values": _Values(_as_yaml_numbers(values))})
    except Exception as exc:
        text = str(exc)
        return "ERROR " + text.split("error calling ", 1)[1] if "error calling " in text else text
    return as_helm_text(out.replace("<no value>", ""))


@pytest.mark.parametrize("module", MODULES)
def test_sprig_cases_render_through_the_engine_like_helm(module, tmp_path):
    mod = importlib.import_module(module)
    values = getattr(mod, "VALUES", {})
    expected = oracle_render(tmp_path, mod.CASES, values)
    funcs = base_funcs()
    wrong = [(c, _render(funcs, c, values), expected[c]) for c in mod.CASES
             if _render(funcs, c, values) != expected[c]]
    assert wrong == []
