"""kubernetes.core's own helm integration tasks, FQCN changed, pass against helmless.core.

They run from two kubernetes.core releases: 6.2.0 (``ansible`` 12.3.0, the helm v3 era) and the one in the newest
``ansible`` package (14.5.0: kubernetes.core 6.6.0, which drives Helm 4). The task files come from the ``ansible``
sdist on PyPI (it carries kubernetes.core's tests), downloaded once into ~/.cache/helmless/pypi, and are extracted
and rewritten at test time; their text is never committed. Every helm task file of those releases that holds an
assert is either run here or listed in NOT_RUN with the reason (a test fails on any other). The rewrite changes only:
- module names: helm → helmless.core.release, helm_info → release_info, helm_template → template,
  helm_repository → repository;
- ``binary_path`` arguments are removed (there is no binary);
- tasks that need what does not exist here (helm plugins, charts on the internet, kubernetes.core's k8s modules
  used for cleanup) are removed; an assert on the result of a removed task is never dropped silently: it must
  be listed, by task file and name, in UNRUNNABLE with the reason, or the test fails;
- the assertions listed in DIFFERENCES, each a deliberate difference documented in docs/migrating.md;
- per case, the fixed directory ``/tmp`` of a task file becomes the test's own directory (parallel runs).
The charts a target downloads from the internet are served instead from a local chart repository holding
kubernetes.core's own test charts, packaged and indexed by the real helm CLI.
Every other ``assert`` — changed flags, ``status`` fields, values, helm_info results, ``command``, ``rc``,
``stderr`` — runs as written, and is counted: each assert task gets its own success message, and every one
of them must be printed (the task ran and passed) by a playbook run that must succeed. Each case writes its
figures to .build/test-reports/compat/; ``python3 tests/integration/test_compat_kubernetes_core.py`` prints them
per kubernetes.core release with what does not run and why (scripts/test does at the end).
"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import pytest
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "repo"))

# kubernetes.core release → the ``ansible`` package that bundles it (its sdist carries the integration targets).
ANSIBLE_PACKAGES = {"6.2.0": "12.3.0", "6.6.0": "14.5.0"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless", "pypi")
REPORTS = os.path.join(ROOT, ".build", "test-reports", "compat")
COLLECTION = "ansible_collections/kubernetes/core/"
TARGETS = COLLECTION + "tests/integration/targets/"
RENAME = {"helm": "helmless.core.release", "helm_info": "helmless.core.release_info",
          "helm_template": "helmless.core.template", "helm_repository": "helmless.core.repository"}
RENAME.update({"kubernetes.core." + k: v for k, v in list(RENAME.items())})
# Modules whose tasks are kept as they are (everything else is a kubernetes.core feature we do not have).
# (include_tasks is not: each case names the task file it runs; the others are listed in CASES or not used.)
BUILTIN = {"assert", "set_fact", "tempfile", "file", "copy", "stat", "blockinfile", "debug", "block", "meta", "fail"}
INCLUDES = {"include_tasks"}  # kept only for cases with "includes" (every task file is rewritten then)
UNAVAILABLE = ("oci://", "test_chart_ref_url", "https://", "helm_registry")
# Tasks kept although their arguments name an internet URL: they fail (as asserted) before using it.
RUNNABLE = {"Failed to add repository with the same name",
            "Failed to add repository with the same name and a different URL, trailing slash aside"}
# helm CLI commands kept (by task name): they prepare what a later assert checks, and run the real helm at the
# pinned Helm 4 (scripts/versions.env), first on PATH, in the test's own helm home.
HELM_CLI = {"Register test_helm_repo_slash directly through helm, keeping the trailing slash"}

# (name of the task whose result is asserted, assertion as written) → replacement (None: dropped).
DIFFERENCES = {
    # template is read-only: changed only when it writes output_dir files (helm_template: always changed).
    ("Render single template from chart to result", "result is changed"): "result is not changed",
    # Failures that an old helm / helm-diff binary causes; without a binary the upgrade simply works.
    ("Debug", "helm_upgrade is failed"): "helm_upgrade is not failed",
    ("Debug", "\"reset_then_reuse_values requires helm >= 3.14.0, current version is\" in helm_upgrade.msg"): None,
    ("Debug", "\"reset_then_reuse_values requires helm diff >= 3.9.12, current version is\" in helm_upgrade.msg"):
        None,
}
# (task file, name of the assert task) → why the task whose result it checks cannot run here.
UNRUNNABLE = {
    ("main.yml", "Assert that module raised a warning"):
        "checks helm-diff's behaviour on an OCI chart of a registry at localhost:6035 the target starts, with the "
        "helm_plugin module installing helm-diff 3.4.1 from GitHub",
}

CASES = {
    "helm/tests_chart": {
        "target": "helm", "tasks": "tests_chart.yml",
        "vars": {"source": "local_path", "chart_test": "test-chart", "chart_name": "local",
                 "chart_test_version": "0.1.0", "chart_test_version_upgrade": "0.2.0",
                 "chart_source": "{{ role_path }}/files/test-chart", "chart_source_upgrade":
                 "{{ role_path }}/files/test-chart-v2", "helm_binary": "helm"}},
    "helm_diff/main": {"target": "helm_diff", "tasks": "main.yml", "extra": {"test_chart_ref": "{{ work }}/test-chart"}},
    "helm_diff/reset_then_reuse_values": {"target": "helm_diff", "tasks": "reset_then_reuse_values.yml",
                                          "extra": {"test_chart_ref": "{{ work }}/test-chart"}},
    # The same install/upgrade/uninstall tasks, the chart now from a repository added by helm_repository.
    "helm/tests_chart/from_repository": {
        "target": "helm", "tasks": "tests_chart/from_repository.yml", "includes": True,
        "vars": {"chart_test": "test-chart", "chart_test_version": "0.1.0", "chart_test_version_upgrade": "0.2.0",
                 "chart_test_repo": "{{ repo }}"}},
    "helm_repository/main": {"target": "helm_repository", "tasks": "main.yml", "extra": {"chart_test_repo": "{{ repo }}"}},
    "helm/test_up_dep": {"target": "helm", "tasks": "test_up_dep.yml", "tmp": True},
    "helm/test_helm_with_space_into_chart_name": {"target": "helm", "tasks": "test_helm_with_space_into_chart_name.yml"},
}
# kubernetes.core 6.6.0 moved helm_repository's tasks to run_tests.yml (run once per helm version by main.yml) and
# took tests_chart/from_repository.yml's chart from the internet.
CASES_BY_RELEASE = {
    "6.2.0": CASES,
    "6.6.0": dict({k: v for k, v in CASES.items() if k not in ("helm_repository/main", "helm/tests_chart/from_repository")},
                  **{"helm_repository/run_tests": dict(CASES["helm_repository/main"], tasks="run_tests.yml")}),
}
_OCI = "installs charts from a public OCI registry (registry-1.docker.io): no internet here"
# Task files (under the integration targets) that do not run here, each with the reason. Every task file of a helm
# target that holds an assert is either run by a case (or included by one) or listed here.
_NOT_RUN = {
    "helm/tasks/test_crds.yml": "asserts the CRDs through the results of kubernetes.core.k8s and k8s_info, modules of "
                                "kubernetes.core itself",
    "helm/tasks/test_helm_insecure.yml": _OCI,
    "helm/tasks/test_helm_not_installed.yml": "asserts the error for a missing helm binary: there is no binary",
    "helm/tasks/test_helm_reset_then_reuse_values.yml": _OCI + "; reads the release Secret with kubernetes.core.k8s_info",
    "helm/tasks/test_helm_reuse_values.yml": _OCI + "; reads the release Secret with kubernetes.core.k8s_info",
    "helm/tasks/test_helm_take_ownership.yml": _OCI + "; reads a Secret with kubernetes.core.k8s_info",
    "helm/tasks/test_helm_uninstall.yml": "its checks are the target's own modules helm_test_version and "
                                          "helm_test_pending, which run the helm binary",
    "helm/tasks/test_skip_schema_validation.yml": _OCI,
    "helm/tasks/tests_chart/from_url.yml": "the chart is a URL on the internet",
    "helm_diff/tasks/reuse_values.yml": "every helm task there needs the helm-diff plugin, installed by helm_plugin "
                                        "from GitHub",
    "helm_kubeconfig/tasks/from_kubeconfig_with_cacert.yml": "reads the CI cluster's ~/.kube/config and installs redis "
                                                             "from https://charts.bitnami.com",
    "helm_kubeconfig/tasks/from_kubeconfig_with_validate_certs.yml": "reads the CI cluster's ~/.kube/config and installs "
                                                                     "redis from https://charts.bitnami.com",
    "helm_kubeconfig/tasks/tests_helm_auth.yml": "helm_plugin and helm_plugin_info (plugins of the helm binary) and "
                                                 "a chart repository on the internet (kubernetes.github.io/autoscaler)",
    "helm_plain_http/playbooks/tasks/test.yaml": "a plain-http OCI registry the target runs in a container and pushes "
                                                 "to with the helm binary",
    "helm_pull/tasks/main.yml": "checks helm_pull against helm binary versions install_helm downloads, with charts on "
                                "the internet (helmless.core.pull is tested against a local repository and registry)",
    "helm_set_values/tasks/main.yml": _OCI,
}
NOT_RUN = {
    "6.2.0": dict(_NOT_RUN, **{
        "helm_plugin/tasks/main.yml": "helm_plugin and helm_plugin_info manage plugins of the helm binary",
        "helm_registry_auth/tasks/main.yaml": "a registry in a container (docker) and helm_registry_auth checked "
                                              "through the helm binary's own login"}),
    "6.6.0": dict(_NOT_RUN, **{
        "helm/tasks/test_helm_wait_for_jobs.yml": "its Job never completes on the local control plane (the install "
                                                  "waits out its 120 s and fails); and its last assert wants no "
                                                  "--wait-for-jobs in command without wait, where ours lists the flag "
                                                  "as given (Helm 4 ignores it there)",
        "helm/tasks/tests_chart/from_repository.yml": "installs the k8status chart 0.16.1 and 0.16.2 from "
                                                      "https://stenic.github.io/k8status/ (no internet here)",
        "helm_oci_registry_progress/tasks/main.yml": "a local OCI registry the helm binary logs into and pushes to, to "
                                                     "check where the binary prints its progress",
        "helm_plugin/tasks/run_tests.yml": "helm_plugin and helm_plugin_info manage plugins of the helm binary",
        "helm_registry_auth/tasks/run_tests.yml": "a registry in a container (docker) and helm_registry_auth checked "
                                                  "through the helm binary's own login",
        "helm_set_values/tasks/run_tests.yml": _OCI}),
}
# kubernetes.core's test charts (in the helm target's files/) that the local repository serves.
REPO_CHARTS = ("test-chart", "test-chart-v2")


class _Unsafe(str):
    """A ``!unsafe`` scalar, kept as such through the rewrite."""


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_constructor("!unsafe", lambda loader, node: _Unsafe(loader.construct_scalar(node)))
_Dumper.add_representer(_Unsafe, lambda dumper, data: dumper.represent_scalar("!unsafe", str(data), style="|"))


def _targets(release):
    """The integration targets of kubernetes.core ``release``, extracted once from its ``ansible`` sdist."""
    package = ANSIBLE_PACKAGES[release]
    dest = os.path.join(CACHE, "kubernetes.core-%s" % release)
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isdir(dest):
            sdist = os.path.join(CACHE, "ansible-%s.tar.gz" % package)
            if not os.path.exists(sdist):  # the newest needs Python 3.12 to install, not to be read
                proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                                       "--ignore-requires-python", "-q", "-d", CACHE, "ansible==" + package],
                                      capture_output=True, text=True)
                assert proc.returncode == 0, proc.stderr
            work = tempfile.mkdtemp(dir=CACHE)
            with tarfile.open(sdist) as tar:
                for member in tar.getmembers():
                    rel = member.name.split("/", 1)[1] if "/" in member.name else ""
                    if member.isfile() and (rel.startswith(TARGETS) or rel == COLLECTION + "MANIFEST.json"):
                        path = os.path.join(work, rel[len(COLLECTION):])
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        with tar.extractfile(member) as src, open(path, "wb") as out:
                            shutil.copyfileobj(src, out)
            with open(os.path.join(work, "MANIFEST.json")) as handle:
                found = json.load(handle)["collection_info"]["version"]
            assert found == release, "ansible %s bundles kubernetes.core %s, not %s" % (package, found, release)
            os.rename(work, dest)
    return os.path.join(dest, TARGETS[len(COLLECTION):])


def _module(task):
    keys = [k for k in task if k not in ("name", "register", "vars", "when", "check_mode", "diff", "ignore_errors",
                                          "loop", "with_items", "loop_control", "always", "rescue", "tags",
                                          "changed_when", "failed_when", "environment", "no_log")]
    return keys[0] if keys else None


class _Rewrite(object):
    """State of one task file's rewrite: registers of removed tasks, DIFFERENCES and UNRUNNABLE entries used,
    and the number that makes each assert's success message unique."""

    def __init__(self, filename, keep):
        self.filename, self.keep = filename, keep
        self.dropped, self.applied, self.unrunnable, self.asserts = set(), set(), set(), 0

    def references_dropped(self, task):
        text = json.dumps(task, default=str)
        return [name for name in self.dropped if re.search(r"\b%s\b" % re.escape(name), text)]


def _rewrite(tasks, state, last=None):
    out = []
    for task in tasks or []:
        module = _module(task)
        if module == "block":
            task = dict(task, block=_rewrite(task["block"], state, last))
            for key in ("always", "rescue"):
                if key in task:
                    task[key] = _rewrite(task[key], state, last)
            out.append(task)
            continue
        text = json.dumps(task, default=str)
        if module == "assert":
            missing = state.references_dropped(task)
            if missing:
                key = (state.filename, task.get("name"))
                assert key in UNRUNNABLE, ("assert %r of %s checks removed task(s) %s: list it in UNRUNNABLE with "
                                           "the reason" % (task.get("name"), state.filename, missing))
                state.unrunnable.add(key)
                continue
            that = task["assert"]["that"]
            that = [that] if isinstance(that, str) else list(that)
            kept = []
            for cond in that:
                key = (last, cond)
                if key in DIFFERENCES:
                    state.applied.add(key)
                    if DIFFERENCES[key] is not None:
                        kept.append(DIFFERENCES[key])
                else:
                    kept.append(cond)
            state.asserts += 1
            message = "kubernetes.core assert %s#%d passed" % (state.filename, state.asserts)
            out.append(dict(task, **{"assert": dict(task["assert"], that=kept, success_msg=message)}))
            continue
        short = module.split(".")[-1] if module else None
        runnable = task.get("name") in RUNNABLE
        if task.get("name") in HELM_CLI:
            out.append(task)
            last = task["name"]
            continue
        if module in RENAME:
            args = {k: v for k, v in (task[module] or {}).items() if k != "binary_path"}
            if runnable or not any(marker in json.dumps(args, default=str) for marker in UNAVAILABLE):
                task = {(RENAME[module] if k == module else k): (args if k == module else v) for k, v in task.items()}
                out.append(task)
                last = task.get("name", last)
                continue
        elif short in state.keep and not any(marker in text for marker in UNAVAILABLE):
            out.append(task)
            if short != "set_fact":
                last = task.get("name", last)
            continue
        if "register" in task:
            state.dropped.add(task["register"])
    return out


def _success_messages(tasks):
    """The success message of each assert task (unique per task, set by the rewrite)."""
    found = []
    for task in tasks or []:
        if "block" in task:
            for key in ("block", "always", "rescue"):
                found += _success_messages(task.get(key))
        elif "assert" in task:
            found.append(task["assert"]["success_msg"])
    return found


def _includes(tasks):
    found = []
    for task in tasks or []:
        for key in ("block", "always", "rescue"):
            found += _includes(task.get(key))
        if "include_tasks" in task:
            found.append(task["include_tasks"])
    return found


def _chart_repository(tmp_path, role):
    """A chart repository on 127.0.0.1 serving kubernetes.core's test charts, packaged and indexed by Helm."""
    from helm_oracle import package, repo_index

    from repokit import Server

    served = tmp_path / "repository"
    served.mkdir()
    for chart in REPO_CHARTS:
        if (role / "files" / chart).is_dir():
            package(str(role / "files" / chart), str(served))
    repo_index(str(served))
    return Server(served)


@pytest.mark.parametrize("release,case", [(r, c) for r in ANSIBLE_PACKAGES for c in sorted(CASES_BY_RELEASE[r])])
def test_kubernetes_core_helm_tasks_pass_with_only_the_fqcn_changed(release, case, tmp_path, kubeconfig, kube_client):
    spec = CASES_BY_RELEASE[release][case]
    role = tmp_path / "roles" / "kc"
    shutil.copytree(os.path.join(_targets(release), spec["target"]), str(role))
    assert (role / "tasks" / spec["tasks"]).exists(), "kubernetes.core target layout changed"
    shutil.rmtree(role / "meta", ignore_errors=True)  # dependencies install helm and namespaces: not needed
    work = tmp_path / "work"
    work.mkdir()
    # the files that run: the case's file and, transitively, the files it includes (relative to the including
    # file, as Ansible resolves them); only those are rewritten and their asserts counted
    keep = BUILTIN | INCLUDES if spec.get("includes") else BUILTIN
    pending, successes, unrunnable = [spec["tasks"]], [], set()
    done = set()
    while pending:
        name = pending.pop()
        if name in done:
            continue
        done.add(name)
        text = (role / "tasks" / name).read_text()
        if spec.get("tmp"):
            text = text.replace("/tmp", str(work))
        state = _Rewrite(name, keep)
        rewritten = _rewrite(yaml.load(text, Loader=_Loader), state)
        (role / "tasks" / name).write_text(yaml.dump(rewritten, Dumper=_Dumper, sort_keys=False))
        successes += _success_messages(rewritten)
        unrunnable |= state.unrunnable
        if spec.get("includes"):
            pending += [os.path.normpath(os.path.join(os.path.dirname(name), inc)) for inc in _includes(rewritten)]
    assert len(successes) >= 2, "too little of the target survived the rewrite"
    entry = spec["tasks"]
    if spec.get("includes"):  # entered as the target's run_test.yml does, so its relative includes resolve
        entry = "entry-%s.yml" % os.urandom(3).hex()
        (role / "tasks" / entry).write_text(yaml.safe_dump([{"include_tasks": spec["tasks"]}]))

    namespace = "kc-" + os.urandom(4).hex()
    repo = _chart_repository(tmp_path, role)
    helm_home = tmp_path / "helm-home"  # helm_repository writes Helm's repositories file: keep it in the test
    substitute = {"{{ work }}": str(work), "{{ repo }}": repo.url}

    def fill(value):
        for key, replacement in substitute.items():
            value = value.replace(key, replacement)
        return value
    extra = {k: fill(v) for k, v in spec.get("extra", {}).items()}
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False,
             "environment": {"K8S_AUTH_KUBECONFIG": kubeconfig, "HELM_CONFIG_HOME": str(helm_home / "config"),
                             "HELM_CACHE_HOME": str(helm_home / "cache"), "HELM_DATA_HOME": str(helm_home / "data")},
             "vars": {"helm_namespace": namespace, "test_namespace": [namespace] * 20,
                      "helm_binary": "helm", "helm_version": _helm_version()},
             "tasks": [{"ansible.builtin.include_role": {"name": "kc", "tasks_from": entry},
                        "vars": {k: fill(v) for k, v in spec.get("vars", {}).items()}}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    (tmp_path / "extra.json").write_text(json.dumps(extra))
    import cp_build

    helm_cli = tmp_path / "helm-cli"  # the HELM_CLI tasks' ``helm``: the pinned Helm 4
    helm_cli.mkdir()
    os.symlink(cp_build.binaries()["helm4"], str(helm_cli / "helm"))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_ROLES_PATH=str(tmp_path / "roles"), ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_NOCOLOR="1",
               ANSIBLE_DEPRECATION_WARNINGS="false", ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
               PATH=str(helm_cli) + os.pathsep + os.environ.get("PATH", ""))
    try:
        proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "@" + str(tmp_path / "extra.json"),
                               "-e", "ansible_python_interpreter=" + sys.executable, str(tmp_path / "play.yml")],
                              env=env, capture_output=True, text=True, cwd=str(work))
    finally:
        repo.close()
        from kubernetes import client
        try:
            client.CoreV1Api(kube_client).delete_namespace(namespace)
        except client.ApiException:
            pass
    missing = [message for message in successes if message not in proc.stdout]
    _report(release, case, spec, len(successes), len(successes) - len(missing), unrunnable)
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-3000:]
    assert "failed=0" in proc.stdout
    assert not missing, "asserts that did not run and pass: %s\n%s" % (missing, proc.stdout[-6000:])


def _helm_version():
    """The Helm release we emulate (scripts/versions.env): what the targets' ``helm_version`` checks compare."""
    with open(os.path.join(ROOT, "scripts", "versions.env")) as handle:
        return re.search(r"^HELM4_VERSION=(\S+)", handle.read(), re.M).group(1)


def _report(release, case, spec, counted, passed, unrunnable):
    """The case's figures for the summary (``python3 tests/integration/test_compat_kubernetes_core.py``)."""
    import ansible

    os.makedirs(REPORTS, exist_ok=True)
    record = {"release": release, "ansible": ANSIBLE_PACKAGES[release], "ansible_core": ansible.__version__,
              "python": "%d.%d" % sys.version_info[:2], "case": case, "tasks": spec["target"] + "/tasks/" + spec["tasks"],
              "counted": counted, "passed": passed,
              "unrunnable": [[name, task, UNRUNNABLE[(name, task)]] for name, task in sorted(unrunnable)]}
    path = os.path.join(REPORTS, "%s--%s--%s.json" % (ansible.__version__, release, case.replace("/", "-")))
    with open(path + ".tmp", "w") as handle:
        json.dump(record, handle)
    os.replace(path + ".tmp", path)


def _asserting_task_files(targets):
    """Task files of the helm targets that hold an ``assert`` task, relative to the targets directory."""
    found = set()
    for base, _dirs, names in os.walk(targets):
        rel = os.path.relpath(base, targets)
        if not rel.split(os.sep)[0].startswith("helm") or "files" in rel.split(os.sep)[1:]:
            continue
        for name in names:
            if name.endswith((".yml", ".yaml")):
                with open(os.path.join(base, name)) as handle:
                    if re.search(r"^\s*(- )?(ansible\.builtin\.)?assert:", handle.read(), re.M):
                        found.add(os.path.join(rel, name))
    return found


@pytest.mark.parametrize("release", sorted(ANSIBLE_PACKAGES))
def test_every_helm_task_file_of_kubernetes_core_runs_here_or_is_listed_with_the_reason(release):
    targets = _targets(release)
    cases = CASES_BY_RELEASE[release].values()
    run = {"%s/tasks/%s" % (spec["target"], spec["tasks"]) for spec in cases}
    unaccounted = sorted(_asserting_task_files(targets) - run - set(NOT_RUN[release]))
    assert not unaccounted, "kubernetes.core %s task files with asserts neither run nor listed in NOT_RUN: %s" % (
        release, unaccounted)
    for path in sorted(run | set(NOT_RUN[release])):
        assert os.path.isfile(os.path.join(targets, path)), "kubernetes.core %s has no %s" % (release, path)


def summary(reports=REPORTS):
    """The figures each case wrote, per kubernetes.core release and ansible-core, then what does not run and why."""
    records = []
    for name in sorted(os.listdir(reports)) if os.path.isdir(reports) else []:
        with open(os.path.join(reports, name)) as handle:
            records.append(json.load(handle))
    lines = []
    for release in sorted(ANSIBLE_PACKAGES):
        mine = [r for r in records if r["release"] == release and r["case"] in CASES_BY_RELEASE[release]]
        lines.append("kubernetes.core %s (ansible %s): %d task files run" % (
            release, ANSIBLE_PACKAGES[release], len(CASES_BY_RELEASE[release])))
        for core in sorted({r["ansible_core"] for r in mine}):
            ran = [r for r in mine if r["ansible_core"] == core]
            lines.append("  ansible-core %-8s Python %-5s %3d assert tasks counted, %3d passed, in %d of %d cases" % (
                core, ran[0]["python"], sum(r["counted"] for r in ran), sum(r["passed"] for r in ran), len(ran),
                len(CASES_BY_RELEASE[release])))
        for case in sorted(CASES_BY_RELEASE[release]):
            ran = [r for r in mine if r["case"] == case]
            figures = ", ".join("%d/%d on %s" % (r["passed"], r["counted"], r["ansible_core"]) for r in ran)
            lines.append("    %-36s %s" % (case, figures or "not run in this test run"))
        asserts = {tuple(u) for r in mine for u in r["unrunnable"]}
        for name, task, reason in sorted(asserts):
            lines.append("  assert not runnable: %s %r: %s" % (name, task, reason))
        for path, reason in sorted(NOT_RUN[release].items()):
            lines.append("  not run: %s: %s" % (path, reason))
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary())
