"""regexcache: a pattern compiled once on a controller is rebuilt from its SRE code in later processes,
exactly as re.compile builds it; any doubt about the table means compiling again."""
import marshal
import os
import re
import subprocess
import sys

import pytest

from ansible_collections.helmless.core.plugins.module_utils import regexcache
from ansible_collections.helmless.core.plugins.module_utils.regexcache import LazyRegex, regex

COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(regexcache.__file__), "..", "..", "..", "..", ".."))

# Flags, named groups, lookarounds, backreferences, wide Unicode classes (the slow ones to compile), bytes.
PATTERNS = [
    (r"^(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})(?:T(?P<rest>.*))?$", 0),
    (r"(?<!\\)(?:\\\\)*\\/", 0),
    (r"(a+)(b*)\2\1", re.I),
    (r"^---[ \t]*(?:#.*)?$", re.M),
    ("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe-\U0010ffff]", 0),
    (r"([\u0000-\u005b\u005d-\U0010ffff](?:x|y)*)", re.S),
    (r"\bword\b\s+(?=\d)", re.A),
    (r"(?x) a  b # comment", 0),
    (rb"[\x00-\x7f]+(?P<tail>\xff)?", 0),
]
SUBJECTS = ["2024-1T10", "a\\/b\\\\/", "AaBbaA aabbaa", "x\n--- # c\n---\n", "tab\tNUL\x00\U0001f600",
            "\\xyx\\z", "word 7 words 8", "ab a b", "\u00e9\u2028\U0010fffd"]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """An empty cache, as the first process on a controller sees it."""
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path))
    fresh_process(monkeypatch)
    return tmp_path


def fresh_process(monkeypatch):
    monkeypatch.setattr(regexcache, "_state", {})


def forbid_compiling(monkeypatch):
    def refuse(*args):
        raise AssertionError("compiled although the table holds this pattern")
    monkeypatch.setattr(regexcache, "_arguments", refuse)


def behaviour(compiled):
    """Everything a caller can observe of a pattern: its attributes and what it finds in every subject."""
    found = []
    for subject in SUBJECTS:
        text = subject.encode("latin-1", "replace") if isinstance(compiled.pattern, bytes) else subject
        found.append([(m.span(), m.groups(), m.groupdict()) for m in compiled.finditer(text)])
    return compiled.pattern, compiled.flags, compiled.groups, dict(compiled.groupindex), found


def table_files(cache_dir):
    return os.listdir(os.path.join(str(cache_dir), "regexes"))


@pytest.mark.parametrize("pattern,flags", PATTERNS)
def test_a_pattern_behaves_as_re_compile_builds_it_both_compiled_here_and_read_back_from_the_table(
        cache_dir, monkeypatch, pattern, flags):
    expected = behaviour(re.compile(pattern, flags))
    assert behaviour(regex(pattern, flags)) == expected
    regexcache.save()
    assert len(table_files(cache_dir)) == 1
    fresh_process(monkeypatch)
    forbid_compiling(monkeypatch)
    assert behaviour(regex(pattern, flags)) == expected


def test_a_fresh_process_reads_the_patterns_an_earlier_process_compiled_as_it_exited(cache_dir):
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from ansible_collections.helmless.core.plugins.module_utils import regexcache\n"
            "def refuse(*args):\n"
            "    raise SystemExit('compiled again')\n"
            "if sys.argv[1] == 'second':\n"
            "    regexcache._arguments = refuse\n"
            "print(regexcache.regex(r'(?P<k>[a-z]+)=(\\d+)').match('key=42').groupdict())\n" % COLLECTIONS)
    env = dict(os.environ, HELMLESS_CACHE_DIR=str(cache_dir))
    env.pop("HELMLESS_CACHE", None)
    outputs = [subprocess.run([sys.executable, "-c", code, run], capture_output=True, text=True, env=env, check=True)
               .stdout for run in ("first", "second")]
    assert outputs == ["{'k': 'key'}\n"] * 2


def test_a_process_that_compiled_nothing_new_does_not_rewrite_the_table(cache_dir, monkeypatch):
    regex(r"a(b)c")
    regexcache.save()
    path = os.path.join(str(cache_dir), "regexes", table_files(cache_dir)[0])
    os.utime(path, (1, 1))
    fresh_process(monkeypatch)
    regex(r"a(b)c")
    regexcache.save()
    assert os.stat(path).st_mtime == 1


def test_a_later_process_adds_its_patterns_to_those_already_in_the_table(cache_dir, monkeypatch):
    regex(r"first")
    regexcache.save()
    fresh_process(monkeypatch)
    regex(r"second")
    regexcache.save()
    fresh_process(monkeypatch)
    forbid_compiling(monkeypatch)
    assert regex(r"first").pattern == "first" and regex(r"second").pattern == "second"


@pytest.mark.parametrize("damage", ["bad code", "not a table", "bad arguments", "damaged bytes"])
def test_a_damaged_table_or_entry_is_compiled_again_correctly(cache_dir, monkeypatch, damage):
    pattern = r"(x+)y"
    expected = behaviour(re.compile(pattern))
    regex(pattern)
    regexcache.save()
    path = os.path.join(str(cache_dir), "regexes", table_files(cache_dir)[0])
    store, key = regexcache._store(), regexcache._state["key"]
    table = marshal.loads(store.get(key))
    if damage == "bad code":  # well-formed for marshal and the cache, refused by SRE's validation
        flags, code, groups, groupindex, indexgroup = table[(pattern, 0)]
        table[(pattern, 0)] = (flags, [code[0], 99999] + code[2:], groups, groupindex, indexgroup)
    elif damage == "bad arguments":
        table[(pattern, 0)] = ("flags", None)
    if damage == "not a table":
        store.put(key, marshal.dumps(["a", "list"]))
    elif damage == "damaged bytes":
        data = open(path, "rb").read()
        open(path, "wb").write(data[:-3])
    else:
        store.put(key, marshal.dumps(table))
    fresh_process(monkeypatch)
    assert behaviour(regex(pattern)) == expected
    regexcache.save()  # and the table is repaired: the next process reads a good entry
    assert marshal.loads(store.get(key))[(pattern, 0)] == regexcache._arguments(pattern, 0)


def test_an_invalid_pattern_raises_what_re_compile_raises(cache_dir):
    with pytest.raises(re.error) as ours:
        regex(r"(unclosed")
    with pytest.raises(re.error) as theirs:
        re.compile(r"(unclosed")
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError):
        regex(r"x", re.LOCALE)


def test_with_the_cache_off_patterns_compile_and_nothing_is_written(cache_dir, monkeypatch):
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    assert regex(r"a+").match("aa").group() == "aa"
    regexcache.save()
    assert not os.path.exists(os.path.join(str(cache_dir), "regexes"))


def test_an_unwritable_cache_is_a_silent_miss(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(blocker / "cache"))
    fresh_process(monkeypatch)
    assert regex(r"b+").match("bb").group() == "bb"
    regexcache.save()


def test_another_interpreter_does_not_read_this_ones_table(cache_dir, monkeypatch):
    regex(r"shared")
    regexcache.save()
    fresh_process(monkeypatch)
    monkeypatch.setattr(regexcache.sys, "version", sys.version + " (another build)")
    forbid_compiling(monkeypatch)
    with pytest.raises(AssertionError, match="compiled although"):
        regex(r"shared")


def test_the_table_is_bounded(cache_dir, monkeypatch):
    monkeypatch.setattr(regexcache, "MAX_ENTRIES", 3)
    for name in ("a", "b", "c"):
        regex(name)
    regexcache.save()
    fresh_process(monkeypatch)
    regex("d")
    regex("e")
    regexcache.save()
    assert set(marshal.loads(regexcache._store().get(regexcache._state["key"]))) == {("d", 0), ("e", 0)}
    for name in ("f", "g", "h", "i"):
        regex(name)
    assert len(regexcache._state["memo"]) <= 3


def test_a_lazy_regex_compiles_on_first_use_only(cache_dir):
    lazy = LazyRegex(r"(l)azy", re.I)
    assert "_compiled" not in lazy.__dict__
    assert lazy.match("LAZY").group(1) == "L"
    assert lazy.pattern == "(l)azy" and lazy.flags & re.I


def test_the_lazy_patterns_a_process_declared_enter_the_table_as_it_exits_though_never_used(cache_dir, monkeypatch):
    monkeypatch.setattr(regexcache, "_LAZY", [])
    LazyRegex(r"(u)nused", re.I)
    regex(r"used")
    regexcache.save()
    fresh_process(monkeypatch)
    forbid_compiling(monkeypatch)
    assert LazyRegex(r"(u)nused", re.I).match("UNUSED").group(1) == "U"


def test_a_table_lacking_a_declared_lazy_pattern_gains_it_from_a_process_that_compiled_nothing_new(
        cache_dir, monkeypatch):
    monkeypatch.setattr(regexcache, "_LAZY", [])
    regex(r"used")
    regexcache.save()
    fresh_process(monkeypatch)
    LazyRegex(r"declared later")
    regex(r"used")
    assert "new" in regexcache._state  # the table lacks it: this process writes as it exits
    regexcache.save()
    path = os.path.join(str(cache_dir), "regexes", table_files(cache_dir)[0])
    os.utime(path, (1, 1))
    fresh_process(monkeypatch)
    forbid_compiling(monkeypatch)
    assert LazyRegex(r"declared later").match("declared later")
    regex(r"used")
    assert "new" not in regexcache._state
    regexcache.save()
    assert os.stat(path).st_mtime == 1
