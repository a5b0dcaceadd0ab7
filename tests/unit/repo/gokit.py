"""Small Go programs the repository tests run, built from the Go module proxy into ~/.cache/helmless/ (as
scripts/controlplane builds its binaries): once per machine, under a lock shared by parallel workers."""
import fcntl
import os
import subprocess


def go_binary(cache, name, module, go_version, requirement, main):
    """Build (once) and return ``<cache>/bin/<name>``: the one-file program ``main`` of module ``module``
    (``go <go_version>`` in its go.mod) with the dependency ``requirement`` (``path@version``)."""
    binary = os.path.join(cache, "bin", name)
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, "build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(binary):
            src = os.path.join(cache, "src")
            os.makedirs(src, exist_ok=True)
            with open(os.path.join(src, "go.mod"), "w") as handle:
                handle.write("module %s\n\ngo %s\n" % (module, go_version))
            with open(os.path.join(src, "main.go"), "w") as handle:
                handle.write(main)
            env = dict(os.environ, GOTOOLCHAIN="local", CGO_ENABLED="0", GOFLAGS="-mod=mod -buildvcs=false",
                       GOWORK="off")
            for args in (["go", "get", requirement], ["go", "build", "-o", binary + ".tmp", "."]):
                proc = subprocess.run(args, cwd=src, env=env, capture_output=True, text=True)
                assert proc.returncode == 0, proc.stdout + proc.stderr
            os.replace(binary + ".tmp", binary)
    return binary
