#!/usr/bin/env python3
"""Differential release testing: random operation sequences run by the real helm CLI and by our modules.

Each sequence (differential_gen, from a seed) runs step by step twice on one control plane: with the
helm v4 CLI in one namespace and with the collection's modules (each run as Ansible runs a module: a
Python process reading its arguments file, printing its JSON result) in another. After every step the
two namespaces must agree (differential_compare): the outcome and ``changed``, the printed output and
error, every field of every release record except times, and the live objects (spec/data, labels,
annotations, managedFields managers and operations), namespace and server-assigned fields normalized.
Differences we keep on purpose (docs/helm-differences.md) are recognized, checked, and undone on helm's
side so the sequence goes on from the same state.

A long campaign, with its own control plane (``scripts/controlplane build`` first):

    python3 tests/integration/differential.py --sequences 500 [--first-seed N] [--jobs 4]

prints one line per sequence that differs and ``N/N sequences identical``; each failing sequence is saved
under ``tests/integration/differential_cases/`` and replayed by the test suite from then on.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
CASES = os.path.join(HERE, "differential_cases")
RELEASE = "rel"
TIMEOUT = "60s"

for _path in (HERE, COLLECTIONS):
    if _path not in sys.path:
        sys.path.insert(0, _path)
_LINK = os.path.join(COLLECTIONS, "ansible_collections", "helmless", "core")
if not os.path.islink(_LINK):  # what tests/conftest.py makes, for a campaign run outside pytest
    os.makedirs(os.path.dirname(_LINK), exist_ok=True)
    try:
        os.symlink(ROOT, _LINK)
    except FileExistsError:
        pass

import differential_chart  # noqa: E402
import differential_compare as compare  # noqa: E402
import differential_gen  # noqa: E402


class Divergence(AssertionError):
    """helm and our modules disagreed at one step of a sequence."""


class SequenceEnds(Exception):
    """A documented difference after which the two namespaces cannot be compared any more."""


def _flags(opts, *pairs):
    return [flag for name, flag in pairs if opts.get(name)]


class Side:
    """One namespace and the tool that acts in it (``helm`` or ``ours``)."""

    def __init__(self, tool, namespace, workdir):
        self.tool = tool
        self.namespace = namespace
        self.workdir = os.path.join(workdir, tool)
        os.makedirs(self.workdir)


class Sequence:
    """Runs one generated sequence on both sides; ``run()`` returns the documented differences met."""

    def __init__(self, spec, kubeconfig, helm, workdir, module_env):
        self.spec = spec
        self.kubeconfig = kubeconfig
        self.helm = helm  # (path, env)
        self.module_env = module_env
        tag = "d%s-%s" % (spec["seed"], uuid.uuid4().hex[:5])
        self.helm_side = Side("helm", tag + "-h", workdir)
        self.ours = Side("ours", tag + "-o", workdir)
        self.client = compare.client(kubeconfig)
        self.editor = compare.client(kubeconfig, "kubectl-edit")
        self.helm3 = spec.get("helm", 4) == 3
        self.documented = []
        self.stale_notes = set()  # revisions whose notes we stored as an earlier revision rendered them
        self.log = []

    # ---- the two tools ----------------------------------------------------------------------
    def run_helm(self, args):
        proc = subprocess.run([self.helm[0]] + args, env=self.helm[1], capture_output=True, text=True, timeout=600)
        return {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr, "args": args}

    def run_module(self, module, params, check=False):
        # as a playbook states them: options left at False are not written (AnsibleModule's mutually_exclusive
        # counts every option given, even false)
        params = {k: v for k, v in params.items() if v is not False or k in ("reset_values", "purge")}
        path = os.path.join(self.ours.workdir, "args-%s.json" % uuid.uuid4().hex[:8])
        with open(path, "w") as handle:
            json.dump({"ANSIBLE_MODULE_ARGS": dict(params, kubeconfig=self.kubeconfig, _ansible_check_mode=check)},
                      handle)
        proc = subprocess.run([sys.executable, "-m", "ansible_collections.helmless.core.plugins.modules." + module,
                               path], env=self.module_env, capture_output=True, text=True, timeout=600)
        try:
            result = json.loads(proc.stdout[proc.stdout.index("{"):])
        except ValueError as exc:
            raise Divergence("module %s printed no JSON result (rc %d):\n%s%s"
                             % (module, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])) from exc
        return result

    # ---- steps ------------------------------------------------------------------------------
    def chart_dirs(self, index, chart):
        out = []
        for side in (self.helm_side, self.ours):
            root = os.path.join(side.workdir, "step%d" % index)
            os.makedirs(root)
            out.append(differential_chart.write(root, chart, side.namespace))
        return out

    def values_file(self, index, values):
        if values is None:
            return None
        path = os.path.join(self.ours.workdir, "values-%d.yaml" % index)
        with open(path, "w") as handle:
            json.dump(values, handle)
        return path

    def upgrade(self, index, step):
        opts = step["options"]
        helm_chart, our_chart = self.chart_dirs(index, step["chart"])
        values = self.values_file(index, step["values"])
        args = ["upgrade", "--install", RELEASE, helm_chart, "-n", self.helm_side.namespace, "--timeout", TIMEOUT]
        params = {"release_name": RELEASE, "release_namespace": self.ours.namespace, "chart_ref": our_chart,
                  "timeout": TIMEOUT, "reset_values": opts["values_mode"] == "reset",
                  "reuse_values": opts["values_mode"] == "reuse",
                  "reset_then_reuse_values": opts["values_mode"] == "reset_then_reuse"}
        if values:
            args += ["-f", values]
            params["values_files"] = [values]
        mode = {"reset": "--reset-values", "reuse": "--reuse-values", "reset_then_reuse": "--reset-then-reuse-values"}
        args += [mode[opts["values_mode"]]] if opts["values_mode"] in mode else []
        args += _flags(opts, ("take_ownership", "--take-ownership"), ("atomic", self.flag("--rollback-on-failure")),
                       ("cleanup_on_fail", "--cleanup-on-fail"), ("force", self.flag("--force-replace")),
                       ("force_conflicts", "--force-conflicts"), ("wait", "--wait"),
                       ("create_namespace", "--create-namespace"), ("skip_crds", "--skip-crds"),
                       ("disable_hook", "--no-hooks"))
        for name in ("take_ownership", "cleanup_on_fail", "force", "force_conflicts", "wait", "create_namespace",
                     "skip_crds", "disable_hook"):
            params[name] = bool(opts.get(name))
        params["rollback_on_failure"] = bool(opts.get("atomic"))
        if opts.get("history_max") is not None:
            args += ["--history-max", str(opts["history_max"])]
            params["history_max"] = opts["history_max"]
        if opts.get("labels"):
            args += ["--labels", ",".join("%s=%s" % kv for kv in sorted(opts["labels"].items()))]
            params["labels"] = opts["labels"]
        if opts.get("description"):
            args += ["--description", opts["description"]]
            params["description"] = opts["description"]
        self._method(opts, args, params)
        return self._checked_run(index, step, args, "release", params)

    def flag(self, helm4):
        """A Helm 4 flag as helm v3 names it."""
        return {"--rollback-on-failure": "--atomic", "--force-replace": "--force"}.get(helm4, helm4) \
            if self.helm3 else helm4

    def _method(self, opts, args, params):
        """Helm's ``--server-side`` and the apply strategy that does exactly that (docs/apply-strategies.md);
        against helm v3, ``apply_strategy: helm3`` with Helm 3's readiness rules for ``wait``."""
        side = opts.get("server_side", "auto")
        if self.helm3:
            params["apply_strategy"] = "helm3"
            if params.get("wait") or params.get("rollback_on_failure"):  # Helm 3's --atomic waits
                params["wait"] = "legacy"
        elif side != "auto":
            args.append("--server-side=%s" % side)
            params["apply_strategy"] = "server-side" if side == "true" else "helm3"

    def rollback(self, index, step):
        opts = step["options"]
        args = ["rollback", RELEASE] + ([str(step["revision"])] if step["revision"] else [])
        args += ["-n", self.helm_side.namespace, "--timeout", TIMEOUT]
        args += _flags(opts, ("disable_hook", "--no-hooks"), ("wait", "--wait"), ("cleanup_on_fail", "--cleanup-on-fail"),
                       ("force", self.flag("--force-replace")))
        params = {"release_name": RELEASE, "release_namespace": self.ours.namespace, "revision": step["revision"],
                  "timeout": TIMEOUT}
        for name in ("disable_hook", "wait", "cleanup_on_fail", "force"):
            params[name] = bool(opts.get(name))
        if opts.get("history_max") is not None:
            args += ["--history-max", str(opts["history_max"])]
            params["history_max"] = opts["history_max"]
        if opts.get("description"):
            args += ["--description", opts["description"]]
            params["description"] = opts["description"]
        self._method(opts, args, params)
        return self._checked_run(index, step, args, "rollback", params)

    def uninstall(self, index, step):
        opts = step["options"]
        args = ["uninstall", RELEASE, "-n", self.helm_side.namespace, "--timeout", TIMEOUT]
        args += _flags(opts, ("keep_history", "--keep-history"), ("disable_hook", "--no-hooks"), ("wait", "--wait"))
        params = {"release_name": RELEASE, "release_namespace": self.ours.namespace, "release_state": "absent",
                  "purge": not opts.get("keep_history"), "disable_hook": bool(opts.get("disable_hook")),
                  "wait": ("legacy" if self.helm3 else True) if opts.get("wait") else False, "timeout": TIMEOUT}
        return self._checked_run(index, step, args, "release", params)

    def test(self, index, step):
        args = ["test", RELEASE, "-n", self.helm_side.namespace, "--timeout", TIMEOUT]
        for item in step["filter"]:
            args += ["--filter", item]
        params = {"release_name": RELEASE, "release_namespace": self.ours.namespace, "timeout": TIMEOUT,
                  "filter": step["filter"]}
        return self._compare_run(index, step, args, "release_test", params)

    def edit(self, index, step):
        for side in (self.helm_side, self.ours):
            for edit in step["edits"]:
                compare.apply_edit(self.editor, side.namespace, edit)
        return None

    def _checked_run(self, index, step, args, module, params):
        """The step in check mode first (it must write nothing and predict ``changed``), then for real."""
        check = self.run_module(module, params, check=True)
        result = self._compare_run(index, step, args, module, params)
        compare.check_prediction(check, result, step["op"])
        return result

    def _compare_run(self, index, step, args, module, params):
        before = compare.snapshot(self.client, self.helm_side.namespace)
        ours_before = compare.snapshot(self.client, self.ours.namespace)
        helm_crd = compare.has_crd(self.client, self.helm_side.namespace)
        helms = self.run_helm(args)
        ours = self.run_module(module, params)
        if (helms["rc"] and ours.get("failed") and not helm_crd and compare.has_crd(self.client, self.helm_side.namespace)
                and not compare.has_crd(self.client, self.ours.namespace)):
            # Deliberate (docs/helm-differences.md "An install that fails before writing installs no CRD")
            compare.drop_crd(self.client, self.helm_side.namespace)
            self.documented.append((index, "helm's failed install left its CRD"))
        ours["_wrote_nothing"] = not compare.state_problems(ours_before, compare.snapshot(self.client, self.ours.namespace))
        ours["_namespace"], helms["_namespace"] = self.ours.namespace, self.helm_side.namespace
        self.log.append({"step": index, "op": step["op"], "helm": helms, "ours": ours})
        ours_after = compare.snapshot(self.client, self.ours.namespace)
        written = set(ours_after.versions()) - set(ours_before.versions())
        self.stale_notes.update(rec["version"] for rec in ours_after.records.values() if rec["version"] in written
                                and rec["info"].get("rollback_revision") in self.stale_notes)  # copied back
        if step["op"] == "upgrade" and written and any(
                "same content as revision" in line for line in ours.get("progress") or []):
            # Deliberate (docs/helm-differences.md "A render that means the same"): the deployed content is
            # stored again, its notes as rendered then; helm renders them for the new revision
            self.stale_notes.update(written)
            self.documented.append((index, "notes of the deployed revision kept"))
        verdict = compare.outcome(step["op"], helms, ours, before, compare.snapshot(self.client, self.helm_side.namespace),
                                  self.helm3)
        if verdict.stop:
            self.documented.append((index, verdict.documented))
            raise SequenceEnds(verdict.documented)
        if verdict.documented and verdict.align:
            self.documented.append((index, verdict.documented))
            compare.align_record(self.client, self.helm_side.namespace, self.ours.namespace)
        elif verdict.documented:
            self.documented.append((index, verdict.documented))
            compare.restore(self.client, self.helm_side.namespace, before)
        elif verdict.problems:
            raise Divergence("\n".join(verdict.problems))
        elif not self.helm3:  # helm v3 prints Helm 3's texts; we print Helm 4's
            compare.same_output(step["op"], helms, ours, self.helm_side.namespace, self.ours.namespace,
                                self.stale_notes)
        return ours

    # ---- the whole sequence ----------------------------------------------------------------
    def run(self):
        steps = self.spec["steps"]
        first = steps[0]
        if not (first.get("fresh_namespace") and first["options"].get("create_namespace")):
            for side in (self.helm_side, self.ours):
                self.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": side.namespace}})
        try:
            for index, step in enumerate(steps):
                try:
                    try:
                        getattr(self, step["op"])(index, step)
                    except SequenceEnds:
                        break
                    compare.same_state(self.client, self.helm_side.namespace, self.ours.namespace, self.stale_notes,
                                       helm3=self.helm3)
                except AssertionError as exc:
                    raise Divergence("seed %s step %d (%s): %s\nsteps: %s" % (
                        self.spec["seed"], index, _describe(step), exc,
                        " | ".join("%d %s" % (i, _describe(s)) for i, s in enumerate(steps[:index + 1])))) from exc
        finally:
            compare.cleanup(self.client, (self.helm_side.namespace, self.ours.namespace))
        return self.documented


def _describe(step):
    opts = {k: v for k, v in (step.get("options") or {}).items() if v not in (False, None)}
    extra = ""
    if step["op"] == "upgrade":
        chart = step["chart"]
        extra = " chart v%d objects=%s hooks=%s values=%s" % (
            chart["version"], ",".join("%s/%s%s" % (o["kind"], o["name"], "!" if o["bad"] else "")
                                       for o in chart["objects"]),
            ",".join("%s:%s%s" % (h["kind"], "+".join(h["events"]), "!" if h["fail"] else "") for h in chart["hooks"]),
            json.dumps(step["values"]))
    elif step["op"] == "edit":
        extra = " " + ",".join("%s %s/%s" % (e["edit"], e["kind"], e["name"]) for e in step["edits"])
    elif step["op"] == "rollback":
        extra = " to %s" % step["revision"]
    elif step["op"] == "test":
        extra = " %s" % " ".join(step["filter"])
    return "%s%s %s" % (step["op"], extra, json.dumps(opts, sort_keys=True))


def module_env():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([COLLECTIONS] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p]), ANSIBLE_COLLECTIONS_PATH=COLLECTIONS)
    env.setdefault("HELMLESS_CACHE_DIR", os.path.join(ROOT, ".build", "test-cache"))
    return env


def run_sequence(spec, kubeconfig, helm):
    """Run ``spec`` (a differential_gen sequence); raise Divergence (its ``log``: what each tool said at each
    step), else return the documented differences met."""
    workdir = tempfile.mkdtemp(prefix="helmless-diff-%s-" % spec["seed"])
    sequence = Sequence(spec, kubeconfig, helm, workdir, module_env())
    try:
        return sequence.run()
    except Divergence as exc:
        exc.log = sequence.log
        raise
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _logged(entry):
    ours = {k: entry["ours"].get(k) for k in ("changed", "failed", "msg", "stdout") if entry["ours"].get(k)}
    return "step %d %s\n  helm rc %d: %s%s\n  ours: %s" % (
        entry["step"], entry["op"], entry["helm"]["rc"], entry["helm"]["stdout"][-600:], entry["helm"]["stderr"][-600:],
        json.dumps(ours)[:1200])


def run_together(specs, kubeconfig, helm):
    """Run ``specs`` at once, one thread each (each waits on helm and on the module processes); raise one
    Divergence naming every sequence that differed."""
    from concurrent.futures import ThreadPoolExecutor

    def one(spec):
        try:
            run_sequence(spec, kubeconfig, helm)
        except Divergence as exc:
            return str(exc)
        return None
    with ThreadPoolExecutor(max_workers=len(specs)) as pool:
        failures = [why for why in pool.map(one, specs) if why]
    if failures:
        raise Divergence("\n\n".join(failures))


def save_case(spec, why):
    os.makedirs(CASES, exist_ok=True)
    path = os.path.join(CASES, "%sseed-%s.json" % ("helm3-" if spec.get("helm") == 3 else "", spec["seed"]))
    with open(path, "w") as handle:
        json.dump(dict(spec, why=why.splitlines()[0][:300]), handle, indent=1, sort_keys=True)
        handle.write("\n")
    return path


def saved_cases():
    if not os.path.isdir(CASES):
        return []
    out = []
    for name in sorted(os.listdir(CASES)):
        if name.endswith(".json"):
            with open(os.path.join(CASES, name)) as handle:
                out.append(json.load(handle))
    return out


def campaign(seeds, kubeconfig, helm, jobs, steps, save=True, report=print, verbose=False, major=4):
    """Run the sequences of ``seeds`` (``jobs`` at a time); returns (identical, total, failures)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(seed):
        spec = differential_gen.sequence(seed, steps, major)
        try:
            run_sequence(spec, kubeconfig, helm)
        except Exception as exc:  # pylint: disable=broad-except  # a harness error fails its sequence, not the campaign
            if not isinstance(exc, Divergence):
                exc = Divergence("seed %s: %s: %s" % (seed, type(exc).__name__, exc))
            if verbose:
                exc = Divergence("%s\n%s" % (exc, "\n".join(_logged(entry) for entry in getattr(exc, "log", []))))
            path = save_case(spec, str(exc)) if save else None
            report("seed %s differs%s:\n%s" % (seed, " (saved as %s)" % os.path.relpath(path, ROOT) if path else "",
                                               exc))
            return seed, str(exc)
        return seed, None
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, seeds))
    failures = [(seed, why) for seed, why in results if why]
    report("%d/%d sequences identical" % (len(results) - len(failures), len(results)))
    return len(results) - len(failures), len(results), failures


def _helm_from_cache(kubeconfig, home, major=4):
    sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
    import cp_build  # pylint: disable=import-outside-toplevel
    path = cp_build.binaries()["helm%d" % major]
    env = dict(os.environ, KUBECONFIG=kubeconfig, HELM_CONFIG_HOME=os.path.join(home, "config"),
               HELM_CACHE_HOME=os.path.join(home, "cache"), HELM_DATA_HOME=os.path.join(home, "data"))
    env.pop("HELM_NAMESPACE", None)
    return path, env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=50)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--no-save", action="store_true", help="do not save failing sequences as cases")
    parser.add_argument("--verbose", action="store_true", help="print what each tool said at each step of a failure")
    parser.add_argument("--helm", type=int, choices=(3, 4), default=4,
                        help="compare with helm v4 (HELM4_VERSION) or with helm v3 (HELM3_VERSION, apply_strategy helm3)")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
    import cp_run  # pylint: disable=import-outside-toplevel
    home = tempfile.mkdtemp(prefix="helmless-diff-")
    state = cp_run.start(os.path.join(home, "cp"))
    try:
        helm = _helm_from_cache(state["kubeconfig"], os.path.join(home, "helm"), args.helm)
        seeds = range(args.first_seed, args.first_seed + args.sequences)
        identical, total, _failures = campaign(seeds, state["kubeconfig"], helm, args.jobs, args.steps,
                                               save=not args.no_save, verbose=args.verbose, major=args.helm)
    finally:
        cp_run.stop(os.path.join(home, "cp"))
        shutil.rmtree(home, ignore_errors=True)
    return 0 if identical == total else 1


if __name__ == "__main__":
    sys.exit(main())
