"""Run Sprig expressions through real Helm at the pinned version (helm_oracle) and through our functions.

``oracle_render`` renders many ``{{ expr }}`` cases in one chart (one template file per
case); cases expected to fail render one chart each. ``evaluate`` interprets the same
expression text with SPRIG_FUNCS so the two outputs can be compared.  The expressions
are restricted to literals, ``.Values`` paths, parentheses and pipes.
"""
import os
import re

import yaml

from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import SPRIG_FUNCS
from ansible_collections.helmless.core.plugins.module_utils.govalue.fmt import format_value

_ERR = re.compile(r"error calling (.*)$", re.S)


def _write_chart(root, files, values):
    os.makedirs(os.path.join(root, "templates"), exist_ok=True)
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with open(os.path.join(root, "values.yaml"), "w") as fh:
        yaml.safe_dump(values or {}, fh)
    for name, text in files.items():
        with open(os.path.join(root, "templates", name), "w", encoding="utf-8",
                  errors="surrogateescape") as fh:
            fh.write(text)


def _render(root):
    from helm_oracle import Chart
    with Chart.load(root) as chart:
        return chart.render({}, name="rel", namespace="ns")


_FILE = re.compile(r"c/templates/(t\d{4})\.txt")


def oracle_render(tmpdir, cases, values=None, chunk=40):
    """{case: output text or 'ERROR <fn>: <msg>'} for each ``{{ case }}``.

    Cases render in chunks of one chart each; Helm stops at the first failing template,
    whose name is in the error, so that case gets the error and the rest re-render."""
    out = {}
    for n in range(0, len(cases), chunk):
        pending = {"t%04d" % i: c for i, c in enumerate(cases[n:n + chunk])}
        attempt = 0
        while pending:
            attempt += 1
            root = os.path.join(str(tmpdir), "c%04d_%d" % (n, attempt))
            _write_chart(root, {k + ".txt": "{{ %s }}" % c for k, c in pending.items()}, values)
            try:
                rendered = _render(root)
            except Exception as exc:
                m = _FILE.search(str(exc))
                if not m or m.group(1) not in pending:
                    raise
                e = _ERR.search(str(exc))
                out[pending.pop(m.group(1))] = "ERROR " + (e.group(1) if e else str(exc))
                continue
            for k, c in pending.items():
                out[c] = rendered.get("c/templates/%s.txt" % k, "")
            pending = {}
    return out


# ------------------------------------------------------------------ mini evaluator

_TOKEN = re.compile(r'''\s*(?:
    (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<raw>`[^`]*`)
  | (?P<chr>'(?:[^'\\]|\\.)+')
  | (?P<num>[-+]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))
  | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[()|])
)''', re.X)


def _tokens(expr):
    pos, toks = 0, []
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise SyntaxError("cannot tokenize %r at %d" % (expr, pos))
        spaced = m.start(m.lastgroup) > pos
        pos = m.end()
        kind = m.lastgroup
        toks.append((kind, m.group(kind), spaced))
    return toks


def _unquote(s):
    body = s[1:-1]
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape") \
        if "\\" in body else body


def _number(text):
    t = text.replace("_", "")
    if re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9]\d*)", t):
        return int(t, 0) if not re.fullmatch(r"[-+]?0[0-7]+", t) else int(t.replace("0", "0o", 1), 0)
    return float(t)


class _Parser(object):
    def __init__(self, toks, values):
        self.toks, self.i, self.values = toks, 0, values

    def peek(self):
        return self.toks[self.i][:2] if self.i < len(self.toks) else (None, None)

    def adjacent(self):
        return self.i < len(self.toks) and not self.toks[self.i][2]

    def pipeline(self):
        val = self.command(None)
        while self.peek() == ("punct", "|"):
            self.i += 1
            val = self.command([val])
        return val

    def command(self, piped):
        kind, text = self.peek()
        if kind == "ident" and text not in ("true", "false", "nil"):
            self.i += 1
            args = []
            while self.peek()[0] is not None and self.peek() not in (("punct", "|"), ("punct", ")")):
                args.append(self.operand())
            if piped:
                args += piped
            return _call(text, args)
        val = self.operand()
        return val

    def operand(self):
        kind, text = self.peek()
        self.i += 1
        if kind == "punct" and text == "(":
            v = self.pipeline()
            self.i += 1
            if self.peek()[0] == "field" and self.adjacent():
                for part in self.peek()[1].split(".")[1:]:
                    v = _select(v, part)
                self.i += 1
            return v
        if kind == "str":
            return _unquote(text)
        if kind == "raw":
            return text[1:-1]
        if kind == "chr":
            return ord(_unquote(text))
        if kind == "num":
            return _number(text)
        if kind == "field":
            v = {"Values": _Values(self.values)}
            for part in text.split(".")[1:]:
                v = v.get(part) if isinstance(v, dict) else None
            return v
        if kind == "ident":
            if text in ("true", "false", "nil"):
                return {"true": True, "false": False, "nil": None}[text]
            return _call(text, [])
        raise SyntaxError(text)


def _select(v, name):
    """.Name on a value: a map key, a struct method (called) or a struct field."""
    if isinstance(v, dict):
        return v.get(name)
    meth = v.go_method(name)
    return meth() if meth is not None else v.go_field(name)


class _Values(dict):
    """.Values as Helm 4 passes it: a named map type."""

    GO_TYPE = "common.Values"


class CallError(Exception):
    pass


def _call(name, args):
    fn = SPRIG_FUNCS[name]
    try:
        return fn(*args)
    except CallError:
        raise
    except Exception as exc:
        raise CallError("%s: %s" % (name, exc))


def _as_yaml_numbers(v):
    """Values files reach templates with every number as float64."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, list):
        return [_as_yaml_numbers(x) for x in v]
    if isinstance(v, dict):
        return {k: _as_yaml_numbers(x) for k, x in v.items()}
    return v


def evaluate(expr, values=None):
    """What ``{{ expr }}`` renders with our functions (or 'ERROR fn: msg')."""
    try:
        v = _Parser(_tokens(expr), _as_yaml_numbers(values or {})).pipeline()
    except CallError as exc:
        return "ERROR " + str(exc)
    if v is None:
        return ""
    return as_helm_text(format_value(v))


def as_helm_text(s):
    """Helm's JSON answer carries invalid UTF-8 as U+FFFD (encoding/json); do the same."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
