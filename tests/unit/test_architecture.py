"""The imports of plugins/module_utils follow docs/dev/ARCHITECTURE.md.

The layer table of that document is the one place the order is written: this test reads it, parses every
module's imports (top-level ones and those inside functions) and fails on an import cycle, an import
against the layer order, an import of another package's private module, or an Ansible import below
``plugins/module_utils/ansible/``. The checks run on small trees of our own first, so a check that
silently finds nothing fails too.
"""
import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE_UTILS = os.path.join(ROOT, "plugins", "module_utils")
DOC = os.path.join(ROOT, "docs", "dev", "ARCHITECTURE.md")
ABSOLUTE = "ansible_collections.helmless.core.plugins.module_utils"
LAYER_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`(\w+)`\s*\|")


def read_layers(doc_text):
    """{package: layer} from the rows ``| 3 | `govalue` | ...`` of the document's layer table."""
    return {m.group(2): int(m.group(1)) for m in map(LAYER_ROW.match, doc_text.splitlines()) if m}


def find_modules(root):
    """{dotted name below root: (path, is_package)}; a package is named by its ``__init__.py``."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        rel = os.path.relpath(dirpath, root)
        parts = [] if rel == "." else rel.split(os.sep)
        for filename in sorted(filenames):
            if filename.endswith(".py"):
                is_package = filename == "__init__.py"
                name = ".".join(parts if is_package else parts + [filename[:-3]])
                found[name] = (os.path.join(dirpath, filename), is_package)
    return found


def _package_of(name, is_package):
    return name if is_package else name.rpartition(".")[0]


def _ancestors(name):
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def find_imports(root):
    """(importer, target, line, name) for every import of a module below root; ``target`` is a dotted
    module name below root, or ``external:<top-level name>`` for anything else; ``name`` is what
    ``from target import name`` takes from a module (None when the import names a module). Importing
    ``a.b.c`` also runs the packages ``a`` and ``a.b`` (those the importer is not inside), so they count
    as targets too."""
    modules = find_modules(root)
    edges = []
    for name, (path, is_package) in modules.items():
        with open(path) as fh:
            tree = ast.parse(fh.read(), path)
        base = _package_of(name, is_package).split(".") if _package_of(name, is_package) else []
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                for alias in node.names:
                    targets.append((_absolute(alias.name, modules), None))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    keep = len(base) - (node.level - 1)
                    if keep < 0:
                        raise ValueError("%s:%d imports above plugins/module_utils" % (path, node.lineno))
                    module = ".".join(base[:keep] + (node.module.split(".") if node.module else []))
                else:
                    module = _absolute(node.module, modules)
                for alias in node.names:
                    sub = module + "." + alias.name if module else alias.name
                    targets.append((sub, None) if sub in modules else (module, alias.name))
            for target, imported in targets:
                if target == "":
                    continue
                for package in sorted(_ancestors(target) - _ancestors(name) - {name}) if target in modules else ():
                    edges.append((name, package, node.lineno, None))
                edges.append((name, target, node.lineno, imported))
    return edges


def _absolute(dotted, modules):
    if dotted == ABSOLUTE:
        return ""
    if dotted.startswith(ABSOLUTE + "."):
        inner = dotted[len(ABSOLUTE) + 1:]
        while inner not in modules and "." in inner:
            inner = inner.rpartition(".")[0]
        return inner
    return "external:" + dotted.split(".")[0]


def _where(root, name, line):
    path, _ = find_modules(root)[name]
    return "%s:%d" % (os.path.relpath(path, os.path.dirname(os.path.dirname(root))), line)


def cycles(root):
    """Each import cycle between modules, as the sorted list of its modules."""
    graph = {}
    for importer, target, _, _ in find_imports(root):
        if not target.startswith("external:") and target != importer:
            graph.setdefault(importer, set()).add(target)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_violations(root, layers):
    """Imports of a package in the same or a higher layer, and packages the table does not place."""
    modules = find_modules(root)
    packages = {name.split(".")[0] for name in modules if name}
    problems = ["%s is not in the layer table" % p for p in sorted(packages - set(layers))]
    problems += ["the layer table names %s, which does not exist" % p for p in sorted(set(layers) - packages)]
    for importer, target, line, _ in find_imports(root):
        if target.startswith("external:") or not importer or not target:
            continue
        src, dst = importer.split(".")[0], target.split(".")[0]
        if src != dst and src in layers and dst in layers and layers[src] <= layers[dst]:
            problems.append("%s imports %s: %s (layer %d) may only import lower layers than %s (layer %d)" % (
                _where(root, importer, line), target, src, layers[src], dst, layers[dst]))
    return problems


def private_imports(root):
    """Imports of a private module (``_name.py``) or of a private name (``from m import _name``) that
    belongs to another package than the importer's."""
    modules = find_modules(root)
    problems = []
    for importer, target, line, imported in find_imports(root):
        if target.startswith("external:") or target not in modules:
            continue
        own = _package_of(importer, modules[importer][1])
        leaf, home = target.rpartition(".")[2], target.rpartition(".")[0]
        if leaf.startswith("_") and not modules[target][1] and home != own:
            problems.append("%s imports %s, a private module of %s" % (_where(root, importer, line), target, home))
        target_home = _package_of(target, modules[target][1])
        if imported and imported.startswith("_") and not imported.startswith("__") and target_home != own:
            problems.append("%s imports %s from %s, a private name of %s" % (
                _where(root, importer, line), imported, target, target_home))
    return problems


def ansible_imports(root):
    """Imports of Ansible (or of other collections) outside the ``ansible`` package."""
    problems = []
    for importer, target, line, _ in find_imports(root):
        if importer.split(".")[0] == "ansible":
            continue
        if target in ("external:ansible", "external:ansible_collections"):
            problems.append("%s imports %s below plugins/module_utils/ansible/" % (
                _where(root, importer, line), target.partition(":")[2]))
    return problems


# ------------------------------------------------------------------ the checks on trees of our own

def _tree(tmp_path, files):
    root = tmp_path / "plugins" / "module_utils"
    for rel, text in dict({"__init__.py": ""}, **files).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(root)


def test_a_cycle_through_a_lazy_import_is_found(tmp_path):
    root = _tree(tmp_path, {
        "low/__init__.py": "", "low/a.py": "from . import b\n",
        "low/b.py": "def f():\n    from .a import x\n    return x\n", "low/c.py": "from .a import y\n",
    })
    assert cycles(root) == [["low.a", "low.b"]]


def test_an_import_of_a_higher_or_equal_layer_and_an_unplaced_package_are_found(tmp_path):
    root = _tree(tmp_path, {
        "low/__init__.py": "", "low/m.py": "def f():\n    from ..high import g\n",
        "high/__init__.py": "from ..low.m import f\ng = f\n", "side/__init__.py": "from ..peer import p\n",
        "peer/__init__.py": "p = 1\n", "stray.py": "",
    })
    assert sorted(layer_violations(root, {"low": 1, "high": 2, "side": 3, "peer": 3, "gone": 4})) == [
        "plugins/module_utils/low/m.py:2 imports high: low (layer 1) may only import lower layers than high (layer 2)",
        "plugins/module_utils/side/__init__.py:1 imports peer: side (layer 3) may only import lower layers than "
        "peer (layer 3)",
        "stray is not in the layer table",
        "the layer table names gone, which does not exist",
    ]


def test_an_import_of_another_packages_private_module_or_name_is_found(tmp_path):
    root = _tree(tmp_path, {
        "pkg/__init__.py": "", "pkg/_impl.py": "", "pkg/pub.py": "_hidden = 1\n",
        "pkg/user.py": "from ._impl import x\nfrom .pub import _hidden\n",
        "pkg/sub/__init__.py": "", "pkg/sub/m.py": "from .. import _impl\n",
        "other.py": "import ansible_collections.helmless.core.plugins.module_utils.pkg._impl\n"
                    "def f():\n    from .pkg.pub import _hidden, __doc__\n",
    })
    assert sorted(private_imports(root)) == [
        "plugins/module_utils/other.py:1 imports pkg._impl, a private module of pkg",
        "plugins/module_utils/other.py:3 imports _hidden from pkg.pub, a private name of pkg",
        "plugins/module_utils/pkg/sub/m.py:1 imports pkg._impl, a private module of pkg",
    ]


def test_an_ansible_import_below_the_ansible_package_is_found(tmp_path):
    root = _tree(tmp_path, {
        "ansible/__init__.py": "from ansible.module_utils.basic import AnsibleModule\n",
        "engine.py": "def f():\n    from ansible.module_utils.common.text.converters import to_text\n",
        "other.py": "import ansible_collections.kubernetes.core\nimport json\n",
    })
    assert sorted(ansible_imports(root)) == [
        "plugins/module_utils/engine.py:2 imports ansible below plugins/module_utils/ansible/",
        "plugins/module_utils/other.py:1 imports ansible_collections below plugins/module_utils/ansible/",
    ]


# ------------------------------------------------------------------ the checks on the engine

def _layers():
    with open(DOC) as fh:
        layers = read_layers(fh.read())
    assert len(layers) > 10, "no layer table found in %s" % DOC
    return layers


def test_every_package_has_a_layer_and_imports_only_lower_layers():
    problems = layer_violations(MODULE_UTILS, _layers())
    assert not problems, "\n".join(problems)


def test_no_import_cycle_between_modules():
    found = cycles(MODULE_UTILS)
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_no_module_imports_another_packages_private_module_or_name():
    problems = private_imports(MODULE_UTILS)
    assert not problems, "\n".join(problems)


def test_only_the_ansible_package_imports_ansible():
    problems = ansible_imports(MODULE_UTILS)
    assert not problems, "\n".join(problems)
