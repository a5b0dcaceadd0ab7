"""The on-disk template cache: a fresh process reuses compiled templates; any doubt means parsing again."""
import marshal
import multiprocessing
import os

import pytest

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils import diskcache
from ansible_collections.helmless.core.plugins.module_utils.gotemplate import TemplateSet, codegen, parsecache, template
from ansible_collections.helmless.core.plugins.module_utils.render import render_release

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


def render(text=TEXT, funcs=None):
    return TemplateSet(funcs).parse("t", text).execute("t", DATA)


def forbid_parsing(monkeypatch):
    def refuse(*args):
        raise AssertionError("parsed although the cache holds this template")
    monkeypatch.setattr(template, "Parser", refuse)


def flags():
    funcs = template._builtins()
    return ("break" in funcs, "continue" in funcs), funcs


def test_a_fresh_process_renders_a_template_parsed_before_from_the_cache_without_parsing(cache_dir, monkeypatch):
    expected = render()
    assert len(os.listdir(cache_dir / "templates")) == 1
    fresh_process()
    forbid_parsing(monkeypatch)
    assert render() == expected == "0=Xp;1=Xq;"


def test_a_cached_template_runs_without_compiling_or_reading_its_node_table(cache_dir, monkeypatch):
    expected = render()
    fresh_process()

    def refuse(*args):
        raise AssertionError("compiled or read the node table although the cached code renders without")
    monkeypatch.setattr(codegen, "compile_file", refuse)
    monkeypatch.setattr(codegen.Source, "node", refuse)
    monkeypatch.setattr(codegen, "compile", refuse, raising=False)
    assert render() == expected


def test_an_error_from_a_cached_template_reads_as_from_a_parsed_one(cache_dir, monkeypatch):
    text = TEXT + '{{ define "y" }}{{ range .items }}{{ .a.nope.x | printf "%d" }}{{ end }}{{ end }}{{ template "y" . }}'
    with pytest.raises(Exception) as parsed:
        render(text)
    fresh_process()
    forbid_parsing(monkeypatch)
    with pytest.raises(Exception) as cached:
        render(text)
    assert str(cached.value) == str(parsed.value) and "t:1:155: executing \"y\" at <.a.nope.x>" in str(parsed.value)


@pytest.mark.parametrize("payload", [
    marshal.dumps(((), [("t", 1, [0, 0, []])])),  # an older entry format
    marshal.dumps(((), [("t", 1, False)], "not code", (None,), marshal.dumps([]))),
    marshal.dumps(((), [("t", 1, False)], compile("", "t", "exec"), (None,), marshal.dumps([]))),  # no tree function
], ids=["old-format", "no-code", "no-function"])
def test_an_entry_of_another_shape_is_a_miss_and_rewritten(cache_dir, payload):
    expected = render()
    (flag, funcs) = flags()
    store = diskcache.Store("templates", parsecache.MAX_BYTES)
    store.put(parsecache.key("t", TEXT, flag), payload)
    fresh_process()
    assert parsecache.load("t", TEXT, flag, funcs) is None
    fresh_process()
    assert render() == expected
    assert parsecache.load("t", TEXT, flag, funcs) is not None


def _render_at(barrier, queue):
    fresh_process()
    barrier.wait()
    queue.put(render())


def test_two_processes_writing_one_entry_at_once_both_succeed_and_leave_one_valid_entry(cache_dir):
    context = multiprocessing.get_context("fork")
    barrier, queue = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_render_at, args=(barrier, queue)) for _ in range(2)]
    for worker in workers:
        worker.start()
    outputs = [queue.get(timeout=60), queue.get(timeout=60)]
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0] and outputs == ["0=Xp;1=Xq;"] * 2
    assert os.listdir(cache_dir / "templates") == [parsecache.key("t", TEXT, flags()[0])]
    fresh_process()
    assert parsecache.load("t", TEXT, *flags()) is not None


def test_an_unwritable_cache_directory_is_bypassed(cache_dir, monkeypatch):
    blocker = cache_dir / "file"
    blocker.write_text("")
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(blocker / "cache"))
    fresh_process()
    assert render() == "0=Xp;1=Xq;"
    fresh_process()
    assert parsecache.load("t", TEXT, *flags()) is None and render() == "0=Xp;1=Xq;"


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
    assert parsecache.load("t", TEXT, *flags()) is not None  # rewritten


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
