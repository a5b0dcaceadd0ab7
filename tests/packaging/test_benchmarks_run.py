"""The README's benchmark commands still run: each on its smallest input, once.

Benchmarks are not timed here (speed lives in the benchmarks themselves); what is checked is that every
command finishes, prints its ratios and reports no chart it failed to render, so a refactor that breaks
an import or an API a benchmark uses fails the suite instead of the next person measuring.
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (command after ``python3 benchmarks/``, a line its report must contain)
QUICK = {
    "render": (["render.py", "-n", "1", "podinfo"], "geometric mean of ours/helm: cold"),
    "gotemplate": (["gotemplate.py", "-n", "2", "--files", "3"], "outputs differ from Helm: none"),
    "goyaml": (["goyaml.py", "-n", "1"], "toYaml"),
    "postrender": (["postrender.py", "podinfo", "1"], "identity (parse + emit)"),
}


@pytest.mark.parametrize("name", sorted(QUICK))
def test_the_benchmark_command_runs_and_prints_its_ratios(name, tmp_path):
    args, expected = QUICK[name]
    env = dict(os.environ, HELMLESS_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", args[0])] + args[1:], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report[-4000:]
    assert expected in report, report[-4000:]
    assert "error:" not in report, report[-4000:]
