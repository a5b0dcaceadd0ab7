"""Generate docs/option-table.md, the kubernetes.core → helmless.core option table, from the option tables.

The tables in plugins/module_utils/ansible/options.py (release, releases and its items, rollback, release_info,
release_test, template, repository, pull, registry_auth, connection) are the single source of every option, so this table cannot drift from what
the modules accept.
``--check`` exits 1 when the checked-in table is stale (scripts/test).
"""
import argparse
import importlib.util
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "option-table.md")

# Options of kubernetes.core.helm / helm_info / helm_template (kubernetes.core 6.x), to mark what is new.
KUBERNETES_CORE = {
    "release": {"binary_path", "context", "kubeconfig", "host", "ca_cert", "validate_certs", "api_key", "chart_ref",
                "chart_repo_url", "chart_version", "dependency_update", "release_name", "release_namespace",
                "release_state", "release_values", "values_files", "update_repo_cache", "set_values", "reuse_values",
                "reset_values", "reset_then_reuse_values", "disable_hook", "force", "purge", "wait", "wait_timeout",
                "timeout", "atomic", "server_side", "force_conflicts", "create_namespace", "post_renderer", "replace",
                "skip_crds", "history_max", "insecure_skip_tls_verify", "plain_http", "take_ownership",
                "skip_schema_validation"},
    "release_info": {"binary_path", "context", "kubeconfig", "host", "ca_cert", "validate_certs", "api_key",
                     "release_name", "release_namespace", "release_state", "get_all_values"},
    "template": {"binary_path", "chart_ref", "chart_repo_url", "chart_version", "dependency_update", "disable_hook",
                 "include_crds", "output_dir", "insecure_registry", "release_name", "release_namespace",
                 "release_values", "show_only", "values_files", "update_repo_cache", "set_values", "plain_http"},
    "rollback": set(),
    "release_test": set(),
    "releases": set(),
    "repository": {"binary_path", "context", "kubeconfig", "host", "ca_cert", "validate_certs", "api_key",
                   "repo_name", "repo_url", "repo_username", "repo_password", "repo_state", "pass_credentials",
                   "force_update"},
    "pull": {"binary_path", "chart_ref", "chart_version", "destination", "repo_url", "repo_username", "repo_password",
             "pass_credentials", "skip_tls_certs_check", "chart_devel", "untar_chart", "verify_chart",
             "verify_chart_keyring", "provenance", "chart_ca_cert", "chart_ssl_cert_file", "chart_ssl_key_file",
             "plain_http", "force"},
    "registry_auth": {"binary_path", "host", "username", "password", "key_file", "cert_file", "ca_file", "insecure",
                      "state"},
}
ANCESTOR = {"release": "kubernetes.core.helm", "release_info": "kubernetes.core.helm_info",
            "template": "kubernetes.core.helm_template", "rollback": "(none: kubernetes.core has no helm rollback)",
            "releases": "(none: a loop of kubernetes.core.helm tasks)",
            "release_test": "(none: kubernetes.core has no helm test)",
            "repository": "kubernetes.core.helm_repository", "pull": "kubernetes.core.helm_pull",
            "registry_auth": "kubernetes.core.helm_registry_auth"}


def _load_options():
    path = os.path.join(ROOT, "plugins", "module_utils", "ansible", "options.py")
    spec = importlib.util.spec_from_file_location("helmless_options", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cell(text):
    """Ansible doc markup (C(), I(), M()) as Markdown, safe inside a table cell."""
    text = re.sub(r"[CM]\(([^)]*)\)", r"`\1`", str(text))
    text = re.sub(r"I\(([^)]*)\)", r"*\1*", text)
    return text.replace("|", "\\|").replace("\n", " ")


def _status(name, module, ignored, opt):
    if name in ignored:
        return "accepted, ignored (warns)"
    if opt.get("description", [""])[0].startswith("Accepted so that C(module_defaults)"):
        return "accepted for `module_defaults`, not used"
    if name in KUBERNETES_CORE[module]:
        return "same name"
    return "**new**"


def _default(opt):
    if "default" not in opt:
        return ""
    value = opt["default"]
    return "`%s`" % (yaml.safe_dump(value, default_flow_style=True).strip().replace("\n...", ""))


def _rows(table, module, ignored):
    rows = []
    for name in sorted(table):
        opt = table[name]
        desc = " ".join(opt.get("description", []))
        if opt.get("env"):
            desc += " Env fallback `%s`." % opt["env"]
        if opt.get("required"):
            desc += " Required."
        typ = opt.get("type", "str") + ("/%s" % opt["elements"] if opt.get("elements") else "")
        rows.append("| `%s` | %s | %s | %s | %s | %s |" % (
            name, ", ".join("`%s`" % a for a in opt.get("aliases", [])), typ, _default(opt),
            _status(name, module, ignored, opt), _cell(desc)))
    return rows


_HEADER = ["| option | aliases | type | default | kubernetes.core | description |", "|---|---|---|---|---|---|"]


def render():
    opts = _load_options()
    tables = {
        "release": dict(opts.RELEASE, **opts.CONNECTION),
        "rollback": dict(opts.ROLLBACK, **opts.CONNECTION),
        "release_info": dict(opts.RELEASE_INFO, **opts.CONNECTION),
        "release_test": dict(opts.RELEASE_TEST, **opts.CONNECTION),
        "releases": dict(opts.RELEASES, **opts.CONNECTION),
        "template": opts.TEMPLATE,
        "repository": opts.REPOSITORY,
        "pull": opts.PULL,
        "registry_auth": opts.REGISTRY_AUTH,
    }
    ignored = set(opts.IGNORED)
    lines = ["<!-- Generated by docs/gen_option_table.py from the modules' option tables; do not edit. -->",
             "# Option table: kubernetes.core → helmless.core", "",
             "Every option each module accepts. *same name* means a `kubernetes.core` task keeps it as is; "
             "*new* options exist only here; *accepted, ignored* options only made sense to a helm binary and "
             "produce a warning; options *accepted for `module_defaults`* are the `helm` action group's connection "
             "options on a module that does not talk to a cluster, so one `module_defaults` block for "
             "`group/helmless.core.helm` serves every module.", ""]
    for module in ("release", "releases", "rollback", "release_info", "release_test", "template", "repository",
                   "pull", "registry_auth"):
        lines += ["## helmless.core.%s (was %s)" % (module, ANCESTOR[module]), ""] + _HEADER
        lines += _rows(tables[module], module, ignored)
        if module == "releases":  # each item is a release task: compared with kubernetes.core.helm's options
            lines += ["", "Each item of `releases` takes these options (a `kubernetes.core.helm` task's, in a loop):",
                      ""] + _HEADER + _rows(opts.RELEASES["releases"]["options"], "release", ignored)
        missing = sorted(KUBERNETES_CORE[module] - set(tables[module]))
        if missing:
            lines += ["", "Not accepted (a task using them fails): %s." % ", ".join("`%s`" % m for m in missing)]
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/option-table.md is not current")
    args = parser.parse_args()
    text = render()
    if args.check:
        try:
            with open(OUT) as fh:
                current = fh.read()
        except OSError:
            current = None
        if current != text:
            print("docs/option-table.md is stale: run python3 docs/gen_option_table.py", file=sys.stderr)
            return 1
        return 0
    with open(OUT, "w") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
