"""The on-disk parse cache: a fresh process reuses parse trees; any doubt means parsing again."""
import os

import pytest

import corpuskit
from gotemplate.oracle import oracle, ours
from ansible_collections.helmless.core.plugins.module_utils.gotemplate import TemplateSet, parsecache, template
from ansible_collections.helmless.core.plugins.module_utils.gotemplate.parser import Parser
from ansible_collections.helmless.core.plugins.module_utils.render import outputcache, render_release

TEXT = '{{ define "x" }}X{{ .a | printf "%s" }}{{ end }}{{ range $i, $v := .items }}{{ $i }}={{ template "x" $v }};{{ end }}'
DATA = {"items": [{"a": "p"}, {"a": "q"}]}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """An empty cache, as a fresh process sees it (no in-memory parse cache either)."""
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(parsecache, "_state", {})
    fresh_process()
    return tmp_path


def fresh_process():
    template._PARSE_CACHE.clear()
    parsecache._state.pop("store", None)
    outputcache._state.pop("store", None)  # rendered output: the store of this test's directory, not an earlier one's


def render(text=TEXT, funcs=None):
    return TemplateSet(funcs).parse("t", text).execute("t", DATA)


def forbid_parsing(monkeypatch):
    def refuse(*args):
        raise AssertionError("parsed although the cache holds this template")
    monkeypatch.setattr(template, "Parser", refuse)


def test_a_fresh_process_renders_a_template_parsed_before_from_the_cache_without_parsing(cache_dir, monkeypatch):
    expected = render()
    assert len(os.listdir(cache_dir / "templates")) == 1
    fresh_process()
    forbid_parsing(monkeypatch)
    assert render() == expected == "0=Xp;1=Xq;"


def test_a_different_engine_version_does_not_reuse_entries(cache_dir, monkeypatch):
    render()
    fresh_process()
    monkeypatch.setitem(parsecache._state, "engine", "0" * 64)
    render()
    assert len(os.listdir(cache_dir / "templates")) == 2


def test_the_engine_version_covers_every_module_of_the_template_engine():
    module_utils = os.path.dirname(os.path.dirname(parsecache.__file__))
    files = {package: {name[:-3] for name in os.listdir(os.path.join(module_utils, package)) if name.endswith(".py")}
             for package in ("gotemplate", "govalue")}
    assert {package: set(modules) for package, modules in parsecache.ENGINE_MODULES.items()} == files, (
        "parsecache.ENGINE_MODULES must list every gotemplate and govalue module so a change to any of them "
        "invalidates cached parse trees")


def test_a_corrupt_entry_is_parsed_again_with_the_same_output(cache_dir):
    expected = render()
    (entry,) = list((cache_dir / "templates").iterdir())
    data = entry.read_bytes()
    entry.write_bytes(data[:len(data) // 2])
    fresh_process()
    assert render() == expected
    funcs = template._builtins()
    assert parsecache.load("t", TEXT, ("break" in funcs, "continue" in funcs), funcs) is not None  # rewritten


@pytest.mark.parametrize("text, values", [
    # variables of outer scopes read inside parenthesized pipelines, in a range and in a with
    ('{{ $n := "x" }}{{ range $i, $v := .Values.items }}{{ printf "%s%d<%q>" $n $i (print $v) }}'
     '{{ with $v }}{{ (print $n $i) | len }}{{ end }}{{ end }}', {"items": ["a", "b"]}),
    # an error inside a nested pipeline of a branch taken: its line, column and the node it quotes
    ('{{ $x := 3 }}\n{{ if .Values.go }}\n  {{ (index $x 1) | print }}\n{{ end }}', {"go": True}),
    # the same action text twice, the second in another scope with a variable of its own
    ('{{ $a := 1 }}{{ (print $a) }}{{ range $a := .Values.items }}{{ (print $a) }}{{ end }}', {"items": [7]}),
])
def test_a_tree_read_from_the_cache_renders_and_fails_as_helm_does(cache_dir, monkeypatch, text, values):
    """Pipelines of simple actions are stored as the lexer's recipes with their variables' slots, and built
    only when an action first runs: parsed or read from the cache, output and errors are Helm's."""
    expected = oracle(text, values)
    assert ours(text, values) == expected
    fresh_process()
    forbid_parsing(monkeypatch)
    assert ours(text, values) == expected


def test_a_cached_tree_using_a_function_the_template_set_lacks_fails_as_parsing_would(cache_dir):
    text = "{{ shout .a }}"
    assert TemplateSet({"shout": lambda s: s + "!"}).parse("t", text).execute("t", {"a": "x"}) == "x!"
    fresh_process()
    with pytest.raises(Exception, match='function "shout" not defined'):
        TemplateSet().parse("t", text)


def test_with_the_cache_off_nothing_is_written_and_rendering_is_unchanged(cache_dir, monkeypatch):
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    assert render() == "0=Xp;1=Xq;"
    assert not (cache_dir / "templates").exists()


def test_a_corpus_chart_renders_the_same_with_the_cache_cold_warm_and_off(cache_dir, monkeypatch):
    chart = corpuskit.archive("podinfo")
    cold = render_release(chart, name="rel", namespace="ns").manifest
    fresh_process()
    parser = template.Parser
    forbid_parsing(monkeypatch)
    warm = render_release(chart, name="rel", namespace="ns").manifest
    monkeypatch.setattr(template, "Parser", parser)
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    fresh_process()
    off = render_release(chart, name="rel", namespace="ns").manifest
    assert cold == warm == off


def test_a_chart_s_templates_are_one_entry_and_a_damaged_one_is_parsed_again_and_rewritten(cache_dir, monkeypatch):
    chart = corpuskit.archive("podinfo")
    expected = render_release(chart, name="rel", namespace="ns").manifest
    (entry,) = list((cache_dir / "templates").iterdir())
    data = entry.read_bytes()
    entry.write_bytes(data[:-7] + bytes(7))
    fresh_process()
    assert render_release(chart, name="rel", namespace="ns").manifest == expected
    assert entry.read_bytes() == data
    fresh_process()
    forbid_parsing(monkeypatch)
    assert render_release(chart, name="rel", namespace="ns").manifest == expected


def _uncached(chart, name, monkeypatch):
    with monkeypatch.context() as scoped:
        scoped.setenv("HELMLESS_CACHE", "off")
        fresh_process()
        return render_release(chart, name=name, namespace="ns").manifest


def test_the_texts_a_chart_s_templates_parse_with_tpl_are_one_entry_the_next_process_reads(cache_dir, monkeypatch):
    chart = corpuskit.archive("vault")  # its templates pass five texts to tpl
    parsed = []
    monkeypatch.setattr(template, "Parser", lambda name, text, funcs: parsed.append(name) or Parser(name, text, funcs))
    render_release(chart, name="rel", namespace="ns")
    assert parsed.count("gotpl") > 1
    assert len(os.listdir(cache_dir / "templates")) == 2  # the chart's templates, and what tpl parsed
    expected = _uncached(chart, "other", monkeypatch)
    fresh_process()
    forbid_parsing(monkeypatch)
    assert render_release(chart, name="other", namespace="ns").manifest == expected  # no output cached for it


def test_a_damaged_entry_of_tpl_texts_is_parsed_again_and_rewritten(cache_dir, monkeypatch):
    chart = corpuskit.archive("vault")
    render_release(chart, name="rel", namespace="ns")
    entries = list((cache_dir / "templates").iterdir())
    assert len(entries) == 2  # the chart's templates, and the smaller one: what tpl parsed
    pack = min(entries, key=lambda path: path.stat().st_size)
    data = pack.read_bytes()
    pack.write_bytes(data[:-5] + bytes(5))
    expected = _uncached(chart, "other", monkeypatch)
    fresh_process()
    assert render_release(chart, name="other", namespace="ns").manifest == expected
    assert pack.read_bytes() == data


def test_a_chart_whose_templates_changed_is_not_read_from_the_old_entry(cache_dir, monkeypatch):
    items = [("c/templates/a.yaml", "{{ .a }}"), ("c/templates/b.yaml", "{{ .b }}")]
    funcs = template._builtins()
    flags = ("break" in funcs, "continue" in funcs)
    keep = TemplateSet().preload(items)
    for name, text in items:
        TemplateSet().parse(name, text, disk=False)
    keep()
    changed = [items[0], ("c/templates/b.yaml", "{{ .c }}")]
    assert parsecache.load_bundle(parsecache.bundle_key(items, flags), items, funcs) is not None
    assert parsecache.load_bundle(parsecache.bundle_key(changed, flags), changed, funcs) is None
    assert parsecache.load_bundle(parsecache.bundle_key(items[:1], flags), items[:1], funcs) is None


def test_a_parsed_set_leaves_no_lexer_memo_to_live_through_its_execution(cache_dir):
    from ansible_collections.helmless.core.plugins.module_utils.gotemplate import lexer
    items = [("c/templates/a.yaml", "{{ .a }}{{ .a | printf \"%q\" }}"), ("c/templates/b.yaml", "{{- if .b }}b{{ end }}")]
    for attempt in ("parsed anew", "read from the entry written", "in this process already"):
        keep = TemplateSet().preload(items)
        TemplateSet().parse("c/templates/pre.yaml", "{{ .%s }}" % attempt.split()[0], disk=False)
        assert lexer._RECIPES and lexer._OPERANDS
        for name, text in items:
            TemplateSet().parse(name, text, disk=False)
        keep()
        assert not lexer._RECIPES and not lexer._OPERANDS
        assert TemplateSet().parse(*items[0]).execute(items[0][0], {"a": "x"}) == 'x"x"'
        if attempt == "parsed anew":
            fresh_process()
