"""Command line of scripts/controlplane."""
import argparse
import signal
import sys

import cp_build


def main(argv):
    parser = argparse.ArgumentParser(prog="scripts/controlplane")
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the binaries (cached in ~/.cache/helmless)")
    b.add_argument("components", nargs="*", help="only these components (%s)"
                   % ", ".join(c[0] for c in cp_build.COMPONENTS))
    b.add_argument("--control-plane", action="store_true",
                   help="only the control plane (%s), not the test-only tools" % ", ".join(cp_build.CONTROL_PLANE))
    for name, text in (("start", "start (or reuse) a control plane; prints the admin kubeconfig path"),
                       ("stop", "stop every process and remove the data dir"),
                       ("status", "show processes and /readyz"),
                       ("kubeconfig", "print the admin kubeconfig path"),
                       ("token", "print a kubeconfig path with a token for NAMESPACE/SERVICEACCOUNT")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--dir", help="data dir (default $HELMLESS_CONTROLPLANE_DIR or $TMPDIR/helmless-controlplane-UID)")
        if name == "token":
            p.add_argument("namespace")
            p.add_argument("serviceaccount")
    for name, text in (("restart", "SIGKILL one component and start it again (same ports and data)"),
                       ("kill", "SIGKILL one component (for fault tests; `revive` starts it again)"),
                       ("revive", "start a killed component again with the same flags")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--dir", help="data dir (as for start)")
        p.add_argument("component", choices=["apiserver", "etcd"])
        if name == "restart":
            p.add_argument("--down", type=float, default=0.0, help="seconds to stay down before the restart")
    args = parser.parse_args(argv)
    if args.cmd == "build":
        unknown = set(args.components) - {c[0] for c in cp_build.COMPONENTS}
        if unknown:
            parser.error("unknown components: %s" % " ".join(sorted(unknown)))
        return cp_build.build(args.components or (cp_build.CONTROL_PLANE if args.control_plane else None))
    import cp_run  # needs `cryptography`, which `build` does not

    # SIGTERM/SIGHUP unwind like Ctrl-C, so an interrupted start stops what it already spawned.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: sys.exit(128 + signum))
    try:
        if args.cmd == "start":
            print(cp_run.start(args.dir)["kubeconfig"])
        elif args.cmd == "stop":
            cp_run.stop(args.dir)
        elif args.cmd == "status":
            return cp_run.status(args.dir)
        elif args.cmd == "kubeconfig":
            state = cp_run.running(args.dir or cp_run.default_dir())
            if not state:
                sys.stderr.write("controlplane: not running\n")
                return 1
            print(state["kubeconfig"])
        elif args.cmd == "restart":
            cp_run.restart(args.component, args.dir, args.down)
        elif args.cmd == "kill":
            cp_run.kill(args.component, args.dir)
        elif args.cmd == "revive":
            cp_run.revive(args.component, args.dir)
        elif args.cmd == "token":
            print(cp_run.token(args.namespace, args.serviceaccount, args.dir))
    except cp_run.ControlPlaneError as exc:
        sys.stderr.write("controlplane: %s\n" % exc)
        return 1
    return 0
