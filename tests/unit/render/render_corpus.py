"""The real-chart corpus and the Helm oracle (helm_oracle: real Helm at the pinned version), for
conformance tests and reports.

Expected output always comes from the oracle at test time. Random output (passwords,
certificates, checksums of them) is masked as SPEC §2 says: the oracle renders twice and the
lines that differ between its own two runs are ignored in every comparison.

Run ``python3 tests/unit/render/render_corpus.py [chart...]`` for a per-chart pass table.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
if os.path.dirname(HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(HERE))
from corpuskit import ERRORS, VALUES, archive, names as chart_names  # noqa: E402  (also run as a script)

RELEASE = {"name": "rel", "namespace": "ns"}
_LOCATION = re.compile(r"[\w.\-/]+\.(?:yaml|yml|tpl|txt|json):\d+(?::\d+)?")


def _chart_of(values_name):
    """The corpus chart a values file belongs to: the longest chart name prefixing it."""
    best = None
    for chart in chart_names():
        if values_name.startswith(chart + "-") and (best is None or len(chart) > len(best)):
            best = chart
    return best


def cases():
    """``(case id, chart, values file or None)`` for defaults, values/ and expected-errors/."""
    out = []
    for chart in chart_names():
        out.append(("%s[default]" % chart, chart, None))
    for path in sorted(glob.glob(os.path.join(VALUES, "*.yaml")) +
                       glob.glob(os.path.join(ERRORS, "*.yaml"))):
        base = os.path.basename(path)[:-5]
        chart = _chart_of(base)
        if chart:
            tag = "error:" if os.path.dirname(path) == ERRORS else ""
            out.append(("%s[%s%s]" % (chart, tag, base[len(chart) + 1:]), chart, path))
    return out


class Outcome(object):
    """A render's output, or its failure as (kind, message)."""

    def __init__(self, rendered=None, manifest=None, error_kind=None, error=None, notes=None, hooks=None):
        self.rendered = rendered
        self.manifest = manifest
        self.notes = notes
        self.hooks = hooks
        self.error_kind = error_kind
        self.error = error

    @property
    def location(self):
        match = _LOCATION.search(self.error or "")
        return match.group(0) if match else None


# Our error kinds for the step Helm failed at (a client install fails after rendering: a render error).
_ORACLE_KIND = {"load": "chart", "values": "values", "render": "render", "install": "render"}


def oracle(chart, values_path=None, manifest=True):
    """One oracle run, values files read as the helm CLI reads ``-f``: rendered files (helm's engine),
    and the client dry-run install's manifest and notes."""
    import helm_oracle
    path = archive(chart)
    files = [values_path] if values_path else []
    try:
        rendered = helm_oracle.render(path, values_files=files, **RELEASE)
        release = helm_oracle.install(path, values_files=files, **RELEASE) if manifest else {}
    except helm_oracle.HelmError as exc:
        return Outcome(error_kind=_ORACLE_KIND.get(exc.kind, exc.kind), error=str(exc))
    return Outcome(rendered, release.get("manifest"), notes=release.get("notes", ""),
                   hooks=_hooks(release.get("hooks") or []))


def ours(chart, values_path=None):
    """Our render of the same case."""
    from ansible_collections.helmless.core.plugins.module_utils.render import (
        RenderError, render_release)
    try:
        result = render_release(archive(chart), values_files=[values_path] if values_path
                                else (), **RELEASE)
    except RenderError as exc:
        return Outcome(error_kind=getattr(exc, "kind", "render"), error=str(exc))
    return Outcome(result.rendered, result.manifest, notes=result.notes, hooks=_hooks([h.to_dict() for h in result.hooks]))


def _hooks(hooks):
    """Hook records as rendering makes them: ((kind, path, events, weight, policies), manifest); the name is
    the manifest's (compared with it, random suffixes masked)."""
    return [((h["kind"], h["path"], h["events"], h.get("weight", 0), h.get("delete_policies", []),
              h.get("output_log_policies", [])), h["manifest"]) for h in hooks]


# A PEM block is folded onto one line before lines are compared: a random certificate's length varies
# (its serial number takes one byte more in about half the runs), which shifts the base64 of the fixed
# fields after it (dates, names) and can wrap it onto one line more. Folded, the block is one line that
# varies in every run, whatever its length; a fixed block still compares byte for byte.
_PEM = re.compile(r"-----BEGIN [^\n]*-----\n.*?-----END [^\n]*-----", re.S)
_FOLD = "\u2424"


def fold_pem(text):
    """``text`` with each PEM block's line breaks replaced by a marker."""
    return _PEM.sub(lambda m: m.group(0).replace("\n", _FOLD), text)


def random_lines(runs, count):
    """Indexes of the lines that vary across the oracle outputs of ``count`` lines. Outputs of another
    line count are left out: a random value of random length outside a PEM block (a base64-encoded
    certificate, say) is one line, but a multi-line one can wrap onto one line more in some runs."""
    split = [lines for lines in (run.split("\n") for run in runs) if len(lines) == count]
    if len(split) < 2:
        return set()
    return {i for i, column in enumerate(zip(*split)) if len(set(column)) > 1}


def masked_equal(runs, actual):
    """``actual`` equals an oracle output, or differs only on lines the oracle itself varied on."""
    if actual in runs:
        return True
    runs, actual = [fold_pem(r) for r in runs], fold_pem(actual)
    return _same_but_masked(runs, next((r for r in runs if r.count("\n") == actual.count("\n")), runs[0]), actual)


def masked_same(runs, expected, actual):
    """``actual`` equals ``expected`` but for the lines the oracle's own ``runs`` varied on."""
    if actual == expected:
        return True
    return _same_but_masked([fold_pem(r) for r in runs], fold_pem(expected), fold_pem(actual))


def _same_but_masked(runs, expected, actual):
    """``masked_same`` of texts whose PEM blocks are folded already."""
    exp_lines, act_lines = expected.split("\n"), actual.split("\n")
    mask = random_lines(runs, len(exp_lines))
    return len(exp_lines) == len(act_lines) and all(
        e == a for i, (e, a) in enumerate(zip(exp_lines, act_lines)) if i not in mask)


def cli_differences(chart, values_path, runs, mine):
    """The real helm CLI at the pin (``helm install --dry-run=client -o json``) agrees with our manifest,
    or fails where the oracle failed, with the oracle's message."""
    import helm_oracle
    kind, out = helm_oracle.cli_install(archive(chart), values_files=[values_path] if values_path
                                        else [], **RELEASE)
    if runs[0].error is not None:
        if kind == "error" and runs[0].error in out:
            return []
        return ["helm CLI did not fail with the oracle's error: %s" % (out if kind == "error" else "it rendered")]
    if kind == "error":
        return ["helm CLI failed: %s" % out[:1000]]
    # Masked: lines that vary across Helm's own runs, the CLI's included (a timestamp can tick between them).
    if not masked_same([r.manifest for r in runs] + [out["manifest"]], out["manifest"], mine.manifest):
        return ["manifest differs from the helm CLI's:\n%s" % first_difference(out["manifest"], mine.manifest)]
    return []


# Low-entropy randomness (Go's random map order behind Sprig's ``keys``, say) can agree in
# two runs by chance; a case that looks different gets this many more oracle runs.
EXTRA_RUNS = 6


def _differences(runs, mine):
    problems = []
    first = runs[0]
    if sorted(mine.rendered) != sorted(first.rendered):
        problems.append("template set differs: missing %s, extra %s" % (
            sorted(set(first.rendered) - set(mine.rendered)),
            sorted(set(mine.rendered) - set(first.rendered))))
    for name in sorted(first.rendered):
        if name in mine.rendered and not masked_equal([r.rendered[name] for r in runs],
                                                      mine.rendered[name]):
            problems.append("template %s differs:\n%s" % (name, first_difference(
                first.rendered[name], mine.rendered[name])))
    if not masked_equal([r.manifest for r in runs], mine.manifest):
        problems.append("manifest differs:\n%s" % first_difference(first.manifest, mine.manifest))
    if mine.notes != first.notes:
        problems.append("notes differ:\n%s" % first_difference(first.notes, mine.notes))
    if [h[0] for h in mine.hooks] != [h[0] for h in first.hooks]:
        problems.append("hooks differ: %s, oracle %s" % ([h[0] for h in mine.hooks], [h[0] for h in first.hooks]))
    else:
        for i, (head, text) in enumerate(mine.hooks):
            if not masked_equal([r.hooks[i][1] for r in runs], text):
                problems.append("hook %s manifest differs:\n%s" % (head[1], first_difference(first.hooks[i][1], text)))
    return problems


def compare(chart, values_path=None):
    """Differences between ours and the oracle for one case, as a list of strings (empty = pass)."""
    first = oracle(chart, values_path)
    if first.error is not None:
        mine = ours(chart, values_path)
        if mine.error is None:
            return ["oracle failed (%s: %s) but we rendered" % (first.error_kind, first.error[:300])]
        problems = []
        if mine.error_kind != first.error_kind:
            problems.append("error kind %s, oracle %s" % (mine.error_kind, first.error_kind))
        if mine.error != first.error:
            problems.append("error text differs (location %s, oracle %s):\n%s"
                            % (mine.location, first.location, first_difference(first.error, mine.error)))
        return problems + cli_differences(chart, values_path, [first], mine)
    runs = [first, oracle(chart, values_path)]
    mine = ours(chart, values_path)
    if mine.error is not None:
        return ["we failed: %s: %s" % (mine.error_kind, mine.error[:2000])]
    problems = _differences(runs, mine)
    if problems:
        runs.extend(oracle(chart, values_path) for _ in range(EXTRA_RUNS))
        problems = _differences(runs, mine)
    return problems + cli_differences(chart, values_path, runs, mine)


def first_difference(expected, actual, context=2):
    """A short excerpt around the first differing line."""
    exp, act = expected.split("\n"), actual.split("\n")
    for i in range(max(len(exp), len(act))):
        e = exp[i] if i < len(exp) else "<EOF>"
        a = act[i] if i < len(act) else "<EOF>"
        if e != a:
            lo = max(0, i - context)
            lines = ["  line %d:" % (i + 1)]
            lines += ["    = %r" % x for x in exp[lo:i]]
            lines += ["    - %r (oracle)" % e, "    + %r (ours)" % a]
            return "\n".join(lines)
    return "  (no line differs)"


def main(argv):
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import conftest  # noqa: F401  (makes ansible_collections importable)
    wanted = set(argv)
    per_chart = {}
    for case_id, chart, values in cases():
        if wanted and chart not in wanted and case_id not in wanted:
            continue
        try:
            problems = compare(chart, values)
        except Exception as exc:  # a crash in our code is a failing case, reported
            import traceback
            problems = ["crash: %s\n%s" % (exc, traceback.format_exc()[-1500:])]
        ok = not problems
        per_chart.setdefault(chart, []).append(ok)
        print("%-4s %s" % ("PASS" if ok else "FAIL", case_id))
        for p in problems[:4]:
            print("     " + p.replace("\n", "\n     ")[:1500])
        sys.stdout.flush()
    total = sum(len(v) for v in per_chart.values())
    passed = sum(sum(v) for v in per_chart.values())
    print("\n%-28s %s" % ("chart", "passed"))
    for chart, results in per_chart.items():
        print("%-28s %d/%d" % (chart, sum(results), len(results)))
    print("%-28s %d/%d" % ("TOTAL", passed, total))


if __name__ == "__main__":
    main(sys.argv[1:])
