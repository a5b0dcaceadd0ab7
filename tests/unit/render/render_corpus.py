"""The real-chart corpus and the Helm oracle (helm_python), for conformance tests and reports.

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
SHARED = os.environ.get("HELMLESS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
CHARTS = os.path.join(SHARED, "charts")
VALUES = os.path.join(CHARTS, "values")
ERRORS = os.path.join(VALUES, "expected-errors")
RELEASE = {"name": "rel", "namespace": "ns"}
_LOCATION = re.compile(r"[\w.\-/]+\.(?:yaml|yml|tpl|txt|json):\d+(?::\d+)?")


def chart_names():
    if not os.path.isdir(CHARTS):
        return []
    return sorted(d for d in os.listdir(CHARTS)
                  if d != "values" and os.path.isfile(os.path.join(CHARTS, d, "Chart.yaml")))


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

    def __init__(self, rendered=None, manifest=None, error_kind=None, error=None, notes=None):
        self.rendered = rendered
        self.manifest = manifest
        self.notes = notes
        self.error_kind = error_kind
        self.error = error

    @property
    def location(self):
        match = _LOCATION.search(self.error or "")
        return match.group(0) if match else None


def _oracle_values(values_path):
    if not values_path:
        return {}
    from helm_python import values_from_yaml
    with open(values_path) as handle:
        return values_from_yaml(handle.read()) or {}


_ORACLE_KIND = {"HelmValuesError": "values", "HelmRenderError": "render",
                "HelmReleaseError": "render", "HelmChartInvalidError": "chart",
                "HelmChartLoadError": "chart"}


def oracle(chart, values_path=None, manifest=True):
    """One oracle run: rendered files (fresh chart), and the client dry-run install manifest."""
    from helm_python import Chart, Config, HelmError
    path = os.path.join(CHARTS, chart)
    values = _oracle_values(values_path)
    try:
        rendered = Chart.load(path).render(values, **RELEASE)
        release = {}
        if manifest:
            release = Config(storage_driver="memory").install(
                Chart.load(path), RELEASE["name"], values, namespace=RELEASE["namespace"],
                dry_run="client")
    except HelmError as exc:
        return Outcome(error_kind=_ORACLE_KIND.get(type(exc).__name__, type(exc).__name__),
                       error=str(exc))
    return Outcome(rendered, release.get("manifest"), notes=release.get("notes", ""))


def ours(chart, values_path=None):
    """Our render of the same case."""
    from ansible_collections.helmless.core.plugins.module_utils.render import (
        RenderError, render_release)
    try:
        result = render_release(os.path.join(CHARTS, chart), values_files=[values_path] if values_path
                                else (), **RELEASE)
    except RenderError as exc:
        return Outcome(error_kind=getattr(exc, "kind", "render"), error=str(exc))
    return Outcome(result.rendered, result.manifest, notes=result.notes)


def random_lines(runs):
    """Indexes of the lines that vary across oracle outputs (None: their shapes differ)."""
    split = [run.split("\n") for run in runs]
    if len({len(lines) for lines in split}) != 1:
        return None
    return {i for i, column in enumerate(zip(*split)) if len(set(column)) > 1}


def masked_equal(runs, actual):
    """``actual`` equals an oracle output, or differs only on lines the oracle itself varied on."""
    if actual in runs:
        return True
    mask = random_lines(runs)
    if mask is None:
        return False
    exp_lines, act_lines = runs[0].split("\n"), actual.split("\n")
    if len(exp_lines) != len(act_lines):
        return False
    return all(e == a for i, (e, a) in enumerate(zip(exp_lines, act_lines)) if i not in mask)


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
        if mine.location != first.location:
            problems.append("error location %s, oracle %s\n  ours:   %s\n  oracle: %s"
                            % (mine.location, first.location, mine.error[:400], first.error[:400]))
        return problems
    runs = [first, oracle(chart, values_path)]
    mine = ours(chart, values_path)
    if mine.error is not None:
        return ["we failed: %s: %s" % (mine.error_kind, mine.error[:2000])]
    problems = _differences(runs, mine)
    if problems:
        runs.extend(oracle(chart, values_path) for _ in range(EXTRA_RUNS))
        problems = _differences(runs, mine)
    return problems


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
