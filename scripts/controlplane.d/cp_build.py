"""Build the control-plane binaries from the Go module proxy into ~/.cache/helmless.

Each component lands in ``~/.cache/helmless/<component>-<version>/`` with a ``.built`` stamp holding the
recipe it was built from; a matching stamp makes the component a no-op, so a cached build never runs go.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS_FILE = os.path.join(os.path.dirname(HERE), "versions.env")
ORACLE_SOURCE = os.path.join(os.path.dirname(HERE), "oracle", "main.go")
# HELMLESS_CACHE names the binaries' directory; its switch values (``HELMLESS_CACHE=off`` turns the
# collection's own caches off, see diskcache) are not directories.
_CACHE_ENV = os.environ.get("HELMLESS_CACHE", "")
CACHE = (_CACHE_ENV if _CACHE_ENV.lower() not in ("", "on", "off", "0", "false", "no", "disabled")
         else os.path.join(os.path.expanduser("~"), ".cache", "helmless"))
GO = os.environ.get("HELMLESS_GO") or shutil.which("go") or "/usr/local/go/bin/go"
# Bump a component's number when its recipe below changes, so a cached copy rebuilds.
RECIPES = {"kwok": 2, "helm3": 2, "helm4": 2}
# kwok >= 0.8 has no built-in Stages when run standalone: ship the upstream "fast" ones from the module
# (what kwokctl embeds): nodes initialize and heartbeat with leases, pods become Ready, Job pods complete.
KWOK_STAGES = ("kustomize/stage/node/fast/node-initialize.yaml",
               "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
               "kustomize/stage/pod/fast/pod-ready.yaml", "kustomize/stage/pod/fast/pod-complete.yaml",
               "kustomize/stage/pod/fast/pod-delete.yaml")


def load_versions():
    versions = {}
    with open(VERSIONS_FILE) as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, value = line.partition("=")
                versions[key.strip()] = value.strip()
    return versions


def component_dirs(v=None):
    """Where each component is (or will be) installed; the run side reads this too."""
    v = v or load_versions()
    return {
        "etcd": os.path.join(CACHE, "etcd-" + v["ETCD_VERSION"]),
        "kubernetes": os.path.join(CACHE, "kubernetes-" + v["K8S_VERSION"]),
        "kwok": os.path.join(CACHE, "kwok-" + v["KWOK_VERSION"]),
        "helm4": os.path.join(CACHE, "helm4-" + v["HELM4_VERSION"]),
        "helm3": os.path.join(CACHE, "helm3-" + v["HELM3_VERSION"]),
        "helm-oracle": os.path.join(CACHE, "helm-oracle-" + v["HELM4_VERSION"]),
        "kustomize": os.path.join(CACHE, "kustomize-" + v["KUSTOMIZE_VERSION"]),
        "cosign": os.path.join(CACHE, "cosign-" + v["COSIGN_VERSION"]),
        "helmfile": os.path.join(CACHE, "helmfile-" + v["HELMFILE_VERSION"]),
    }


def binaries(v=None):
    d = component_dirs(v)
    k8s = os.path.join(d["kubernetes"], "bin")
    return {
        "etcd": os.path.join(d["etcd"], "bin", "etcd"),
        "kube-apiserver": os.path.join(k8s, "kube-apiserver"),
        "kube-controller-manager": os.path.join(k8s, "kube-controller-manager"),
        "kube-scheduler": os.path.join(k8s, "kube-scheduler"),
        "kwok": os.path.join(d["kwok"], "bin", "kwok"),
        "kwok-stages": os.path.join(d["kwok"], "stages.yaml"),
        "helm4": os.path.join(d["helm4"], "bin", "helm"),
        "helm3": os.path.join(d["helm3"], "bin", "helm"),
        "helm-oracle": os.path.join(d["helm-oracle"], "bin", "helm-oracle"),
        "kustomize": os.path.join(d["kustomize"], "bin", "kustomize"),
        "cosign": os.path.join(d["cosign"], "bin", "cosign"),
        "helmfile": os.path.join(d["helmfile"], "bin", "helmfile"),
    }


def go_env():
    env = dict(os.environ)
    env.update(GOTOOLCHAIN="local", CGO_ENABLED="0", GOFLAGS="-mod=mod -buildvcs=false")
    env.pop("GOWORK", None)
    env["GOWORK"] = "off"
    return env


class BuildError(Exception):
    pass


class Unavailable(BuildError):
    """The module proxy refuses the module (403/404/410): remembered, so cached builds stay offline."""


def run_go(args, cwd, log, env=None):
    log.write("$ go %s  (in %s)\n" % (" ".join(args), cwd))
    log.flush()
    rc = subprocess.call([GO] + args, cwd=cwd, env=env or go_env(), stdout=log, stderr=subprocess.STDOUT)
    if rc != 0:
        raise BuildError("go %s failed (exit %d)" % (" ".join(args[:2]), rc))


def mod_download(module_at_version, log):
    out = subprocess.run([GO, "mod", "download", "-json", module_at_version], env=go_env(),
                         capture_output=True, text=True, cwd=CACHE)
    info = json.loads(out.stdout or "{}") if out.stdout.strip().startswith("{") else {}
    if out.returncode != 0 or info.get("Error"):
        msg = info.get("Error") or out.stderr.strip()
        log.write(msg + "\n")
        refused = any(code in msg for code in (" 403 ", " 404 ", " 410 ", "not available", "unknown revision"))
        raise (Unavailable if refused else BuildError)(
            "cannot download %s: %s" % (module_at_version, " ".join(msg.split())[:300] or "?"))
    return info


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


def build_etcd(v, dest, work, log):
    ver = v["ETCD_VERSION"]
    write(os.path.join(work, "go.mod"), "module helmless.local/etcd\n\ngo 1.25.0\n")
    write(os.path.join(work, "main.go"),
          "// Command etcd runs etcd's own entry point (server/v3 cannot be go-installed: it has replaces).\n"
          "package main\n\nimport (\n\t\"os\"\n\n\t\"go.etcd.io/etcd/server/v3/etcdmain\"\n)\n\n"
          "func main() { etcdmain.Main(os.Args) }\n")
    run_go(["get", "go.etcd.io/etcd/server/v3/etcdmain@" + ver], work, log)
    run_go(["build", "-trimpath", "-ldflags=-s -w", "-o", os.path.join(dest, "bin", "etcd"), "."], work, log)


def staging_modules(gomod_path):
    """The k8s.io/<staging> modules that k8s.io/kubernetes replaces with ./staging/src dirs."""
    with open(gomod_path) as fh:
        text = fh.read()
    return sorted(set(re.findall(r"^\s*(k8s\.io/[\w.-]+)\s+=>\s+\./staging/", text, re.M)))


def build_kubernetes(v, dest, work, log):
    ver = v["K8S_VERSION"]
    major, minor, patch = ver.lstrip("v").split(".")
    info = mod_download("k8s.io/kubernetes@" + ver, log)
    staging = staging_modules(info["GoMod"])
    if not staging:
        raise BuildError("no staging replace directives found in %s" % info["GoMod"])
    with open(info["GoMod"]) as fh:
        godebug = re.findall(r"^godebug .*$", fh.read(), re.M)
    etcd_pin = _requires(info["GoMod"]).get("go.etcd.io/etcd/server/v3")
    if etcd_pin != v["ETCD_VERSION"]:
        print("    note: k8s.io/kubernetes@%s pins etcd server %s, versions.env says %s"
              % (ver, etcd_pin, v["ETCD_VERSION"]), flush=True)
    published = "v0.%s.%s" % (minor, patch)
    replaces = "".join("\t%s => %s %s\n" % (m, m, published) for m in staging)
    write(os.path.join(work, "go.mod"),
          "module helmless.local/kubernetes\n\ngo 1.25.0\n\n%s\n\nreplace (\n%s)\n"
          % ("\n".join(godebug), replaces))
    cmds = ["k8s.io/kubernetes/cmd/" + c for c in ("kube-apiserver", "kube-controller-manager", "kube-scheduler")]
    run_go(["get"] + [c + "@" + ver for c in cmds], work, log)
    with open(info["Info"]) as fh:
        build_date = json.load(fh).get("Time", "1970-01-01T00:00:00Z")[:19] + "Z"
    stamps = {"gitVersion": ver, "gitMajor": major, "gitMinor": minor, "gitCommit": "unknown",
              "gitTreeState": "clean", "buildDate": build_date}
    ldflags = ["-s", "-w"] + ["-X 'k8s.io/%s.%s=%s'" % (pkg, k, val) for pkg in
                              ("component-base/version", "client-go/pkg/version") for k, val in stamps.items()]
    bindir = os.path.join(dest, "bin")
    os.makedirs(bindir, exist_ok=True)
    for cmd in cmds:
        t0 = time.time()
        run_go(["build", "-trimpath", "-ldflags=" + " ".join(ldflags), "-o",
                os.path.join(bindir, cmd.rsplit("/", 1)[1]), cmd], work, log)
        print("    %s built in %.0fs" % (cmd.rsplit("/", 1)[1], time.time() - t0), flush=True)


def go_install(pkg_at_version, dest, ldflags, log):
    env = go_env()
    env["GOBIN"] = os.path.join(dest, "bin")
    env["GOFLAGS"] = "-buildvcs=false"
    run_go(["install", "-trimpath", "-ldflags=" + ldflags, pkg_at_version], CACHE, log, env)


def build_kwok(v, dest, work, log):
    ver = v["KWOK_VERSION"]
    info = mod_download("sigs.k8s.io/kwok@" + ver, log)
    docs = []
    for rel in KWOK_STAGES:
        with open(os.path.join(info["Dir"], rel)) as fh:
            docs.append("# from sigs.k8s.io/kwok@%s/%s\n%s" % (ver, rel, fh.read().strip("-\n ")))
    write(os.path.join(dest, "stages.yaml"), "\n---\n".join(docs) + "\n")
    go_install("sigs.k8s.io/kwok/cmd/kwok@" + ver, dest,
               "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=" + ver.lstrip("v"), log)


def _requires(gomod_path):
    with open(gomod_path) as fh:
        return dict(re.findall(r"^\s*(?:require\s+)?([\w./-]+\.[\w./-]+)\s+(v[\w.+-]+)", fh.read(), re.M))


def _patch_newer(mine, theirs):
    """True when ``theirs`` is the same major.minor as ``mine`` with a higher patch (both plain vX.Y.Z)."""
    a, b = mine.lstrip("v").split("."), theirs.lstrip("v").split(".")
    return len(a) == len(b) == 3 and all(x.isdigit() for x in a + b) and a[:2] == b[:2] and int(b[2]) > int(a[2])


def build_helm(major):
    """Helm from a wrapper module. Helm 3's k8s.io/sigs.k8s.io libraries are raised to the patch releases
    Helm 4 uses (same minor only), so the second Helm reuses the first one's compiled packages."""
    def build(v, dest, work, log):
        ver = v["HELM%d_VERSION" % major]
        mod = "helm.sh/helm/v%d" % major
        pins = ["%s/cmd/helm@%s" % (mod, ver)]
        gomod = mod_download("%s@%s" % (mod, ver), log)["GoMod"]
        with open(gomod) as fh:  # same go line as upstream, so the same GODEBUG defaults
            go_line = re.search(r"^go \S+$", fh.read(), re.M).group(0)
        if major == 3:
            mine = _requires(gomod)
            theirs = _requires(mod_download("helm.sh/helm/v4@" + v["HELM4_VERSION"], log)["GoMod"])
            pins += ["%s@%s" % (m, theirs[m]) for m, mv in sorted(mine.items())
                     if m.startswith(("k8s.io/", "sigs.k8s.io/")) and m in theirs and _patch_newer(mv, theirs[m])]
        write(os.path.join(work, "go.mod"), "module helmless.local/helm%d\n\n%s\n" % (major, go_line))
        run_go(["get"] + pins, work, log)
        run_go(["build", "-trimpath", "-ldflags=-s -w -X %s/internal/version.version=%s" % (mod, ver),
                "-o", os.path.join(dest, "bin", "helm"), mod + "/cmd/helm"], work, log)
    return build


def oracle_recipe():
    """The oracle rebuilds whenever its source or this recipe changes."""
    with open(ORACLE_SOURCE, "rb") as fh:
        return "2-src-" + hashlib.sha256(fh.read()).hexdigest()[:16]


def build_helm_oracle(v, dest, work, log):
    """The test render oracle (scripts/oracle/main.go) against helm.sh/helm/v4 at HELM4_VERSION: the same
    module graph as the helm4 CLI build, so the two share compiled packages in the Go build cache."""
    ver = v["HELM4_VERSION"]
    gomod = mod_download("helm.sh/helm/v4@" + ver, log)["GoMod"]
    with open(gomod) as fh:
        go_line = re.search(r"^go \S+$", fh.read(), re.M).group(0)
    write(os.path.join(work, "go.mod"), "module helmless.local/helm-oracle\n\n%s\n" % go_line)
    shutil.copyfile(ORACLE_SOURCE, os.path.join(work, "main.go"))
    run_go(["get", "helm.sh/helm/v4@" + ver], work, log)
    # Stamped like the helm CLI build, so .Capabilities.HelmVersion is what `helm` users see.
    run_go(["build", "-trimpath", "-ldflags=-s -w -X helm.sh/helm/v4/internal/version.version=" + ver,
            "-o", os.path.join(dest, "bin", "helm-oracle"), "."], work, log)


def build_kustomize(v, dest, work, log):
    """The reference for the post-render tests (kustomize's own CLI; its version comes from the module's
    build info, as ``go install`` records it)."""
    go_install("sigs.k8s.io/kustomize/kustomize/v5@" + v["KUSTOMIZE_VERSION"], dest, "-s -w", log)


def build_cosign(v, dest, work, log):
    """The signed-OCI-chart tests' reference: cosign's own CLI (signs charts in the local registry)."""
    go_install("github.com/sigstore/cosign/v3/cmd/cosign@" + v["COSIGN_VERSION"], dest,
               "-s -w -X sigs.k8s.io/release-utils/version.gitVersion=" + v["COSIGN_VERSION"], log)


def build_helmfile(v, dest, work, log):
    """helmfile, the peer of benchmarks/fleet.py (it drives the helm4 CLI). Built inside a copy of its own
    module: its go.mod replaces k8s.io modules, which ``go install module@version`` refuses."""
    ver = v["HELMFILE_VERSION"]
    info = mod_download("github.com/helmfile/helmfile@" + ver, log)
    src = os.path.join(work, "helmfile")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(info["Dir"], src)
    for root, _dirs, files in os.walk(src):  # the module cache is read-only; go may update go.sum
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    run_go(["build", "-trimpath", "-ldflags=-s -w -X go.szostok.io/version.version=" + ver,
            "-o", os.path.join(dest, "bin", "helmfile"), "."], src, log)


def _version_key(ver):
    return [int(x) for x in re.findall(r"\d+", ver)[:3]]


def check_go(minimum):
    """The local Go must be at least ``minimum`` (GOTOOLCHAIN=local: no toolchain download)."""
    try:
        have = subprocess.run([GO, "env", "GOVERSION"], env=go_env(), capture_output=True, text=True).stdout.strip()
    except OSError:
        have = ""
    if not have or _version_key(have) < _version_key(minimum):
        print("controlplane build: needs Go >= %s at %s (found %r)" % (minimum, GO, have or None), flush=True)
        return False
    return True


# (name, version key, builder): every one is needed by the tests or benchmarks, so any failure fails the build.
# What each component is and how long its first build takes on 2 cores (Go modules downloaded, compiled
# from nothing), for the progress lines: a first build is long and says so.
ABOUT = {"etcd": ("the control plane's store", "1-2 min"),
         "kubernetes": ("kube-apiserver, kube-controller-manager, kube-scheduler", "6-12 min"),
         "kwok": ("the nodes and pods of the control plane", "2-3 min"),
         "helm4": ("test-only peer: the helm v4 CLI", "4-5 min"),
         "helm-oracle": ("test-only: the render oracle", "under 1 min after helm4"),
         "helm3": ("test-only peer: the helm v3 CLI", "2-3 min"),
         "kustomize": ("test-only: the post-render reference", "1-2 min"),
         "helmfile": ("benchmark-only peer: helmfile, driving the helm v4 CLI", "20-25 min")}
# What the demo and the collection's own use need: the local control plane; the rest is for the tests.
CONTROL_PLANE = ("etcd", "kubernetes", "kwok")
COMPONENTS = [
    ("etcd", "ETCD_VERSION", build_etcd),
    ("kubernetes", "K8S_VERSION", build_kubernetes),
    ("kwok", "KWOK_VERSION", build_kwok),
    ("helm4", "HELM4_VERSION", build_helm(4)),
    ("helm-oracle", "HELM4_VERSION", build_helm_oracle),
    ("helm3", "HELM3_VERSION", build_helm(3)),
    ("kustomize", "KUSTOMIZE_VERSION", build_kustomize),
    ("cosign", "COSIGN_VERSION", build_cosign),
    ("helmfile", "HELMFILE_VERSION", build_helmfile),
]


def build(only=None):
    """Build every missing component (the others still build after a failure); returns a process exit code,
    non-zero when any component failed or is remembered as unavailable."""
    v = load_versions()
    dirs = component_dirs(v)
    os.makedirs(os.path.join(CACHE, "logs"), exist_ok=True)
    failed, total0, go_checked = [], time.time(), False
    for name, vkey, builder in COMPONENTS:
        if only and name not in only:
            continue
        dest = dirs[name]
        stamp_path = os.path.join(dest, ".built")
        recipe = oracle_recipe() if name == "helm-oracle" else RECIPES.get(name, 1)
        stamp = {"component": name, "version": v[vkey], "recipe": recipe}
        try:
            with open(stamp_path) as fh:
                if json.load(fh) == stamp:
                    print("  %-11s %s cached" % (name, v[vkey]), flush=True)
                    continue
        except (OSError, ValueError):
            pass
        refused_path = dest + ".unavailable"
        if os.path.exists(refused_path) and not os.environ.get("HELMLESS_BUILD_RETRY"):
            with open(refused_path) as fh:
                print("  %-11s %s UNAVAILABLE (remembered; HELMLESS_BUILD_RETRY=1 retries): %s"
                      % (name, v[vkey], fh.read().strip()), flush=True)
            failed.append(name)
            continue
        if not go_checked:
            go_checked = check_go(v["GO_MIN_VERSION"])
            if not go_checked:
                return 1
        log_path = os.path.join(CACHE, "logs", "build-%s-%s.log" % (name, v[vkey]))
        work = os.path.join(CACHE, "src", "%s-%s" % (name, v[vkey]))
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(work, exist_ok=True)
        what, takes = ABOUT.get(name, (name, "a few minutes"))
        print("  %-11s %s building: %s (a first build takes about %s; log: %s)"
              % (name, v[vkey], what, takes, log_path), flush=True)
        t0 = time.time()
        with open(log_path, "w") as log:
            try:
                builder(v, dest, work, log)
            except BuildError as exc:
                log.flush()
                print("  %-11s %s FAILED after %.0fs: %s" % (name, v[vkey], time.time() - t0, exc), flush=True)
                with open(log_path) as fh:
                    sys.stdout.write("".join(fh.readlines()[-15:]))
                if isinstance(exc, Unavailable):
                    write(refused_path, str(exc) + "\n")
                failed.append(name)
                continue
        write(stamp_path, json.dumps(stamp))
        if os.path.exists(refused_path):
            os.remove(refused_path)
        print("  %-11s %s built in %.0fs" % (name, v[vkey], time.time() - t0), flush=True)
    print("build finished in %.1fs%s" % (time.time() - total0, "; FAILED: " + " ".join(failed) if failed else ""),
          flush=True)
    return 1 if failed else 0
