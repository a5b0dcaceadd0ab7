"""The action plugin of every helmless.core module: Ansible's module payload kept across playbook runs.

Before running a Python module Ansible builds its AnsiballZ payload: it parses every module_utils file
the module may import (ours are ~180 files, ~1 MB) to find the next imports, zips them, and keeps the
result in a per-process cache (``ansiballz_cache`` under ``DEFAULT_LOCAL_TMP``) that dies with the
``ansible``/``ansible-playbook`` process. That build costs ~1.3 s of controller CPU for our modules
(~0.2 s for ``ping``) in every playbook run that uses them. This plugin saves what Ansible wrote there
to the ``ansiballz`` disk cache and puts it back before the next process looks for it, so the payload
is built once per version of the sources, not once per playbook run. Ansible's own file is copied
verbatim (its name and format are its own, so the key includes the ansible-core version).

The key covers everything that decides the payload: ansible-core's version and module_utils files
(and any configured module_utils paths, which can shadow them), by path, size and mtime; our module
and module_utils sources by content. A damaged entry fails its digest and is ignored; the cache off
(``HELMLESS_CACHE=off``) or unwritable leaves Ansible doing what it always does.
"""
import hashlib
import os
import struct

from ansible import constants as C
from ansible.module_utils import __path__ as _ANSIBLE_MODULE_UTILS
from ansible.plugins.action.normal import ActionModule as NormalAction
from ansible.release import __version__ as ANSIBLE_VERSION

from ..module_utils.codecache import source_stats
from ..module_utils.diskcache import Store, digest

MAX_BYTES = 32 * 1024 * 1024
_COLLECTION = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FQN = "ansible_collections.helmless.core.plugins.modules."
_SYNCED = ".helmless-synced"  # marks a module whose payload this process already restored or saved
_NAME = struct.Struct(">H")
_SIZE = struct.Struct(">Q")


class ActionModule(NormalAction):
    """Runs the module as ``normal`` does, with its payload restored from and saved to the disk cache."""

    def run(self, tmp=None, task_vars=None):
        cache = PayloadCache.for_action(getattr(self._task, "resolved_action", None) or self._task.action)
        if cache is not None:
            cache.restore()
        result = super().run(tmp, task_vars)
        if cache is not None:
            cache.save()
        return result


class PayloadCache:
    """Ansible's payload files of one module, between its per-process cache and the disk cache."""

    def __init__(self, module, module_path, lookup, store):
        self.prefix = _FQN + module + "-"
        self.module_path = module_path
        self.lookup = lookup
        self.store = store
        self._key = None

    @classmethod
    def for_action(cls, action, lookup=None, store=None):
        module = (action or "").rpartition(".")[2]
        module_path = os.path.join(_COLLECTION, "modules", module + ".py")
        if not module or not os.path.isfile(module_path):
            return None
        return cls(module, module_path, lookup or os.path.join(C.DEFAULT_LOCAL_TMP, "ansiballz_cache"),
                   store or Store("ansiballz", MAX_BYTES))

    def _marker(self):
        return os.path.join(self.lookup, self.prefix + _SYNCED)

    def key(self):
        if self._key is None:
            parts = ["ansiballz", ANSIBLE_VERSION, _tree_stats(list(_ANSIBLE_MODULE_UTILS) + _configured_paths()),
                     _read(self.module_path)]
            for path in _sources(os.path.join(_COLLECTION, "module_utils")):
                parts.extend((os.path.relpath(path, _COLLECTION), _read(path)))
            self._key = digest(*parts)
        return self._key

    def restore(self):
        """Put the stored payload files where Ansible looks (those it has not built already)."""
        if os.path.exists(self._marker()):
            return
        files = _unpack(self.store.get(self.key()), self.prefix)
        if not files:
            return
        try:
            os.makedirs(self.lookup, exist_ok=True)
            for name, data in files.items():
                path = os.path.join(self.lookup, name)
                if not os.path.exists(path):
                    _write_atomic(path, data)
            _write_atomic(self._marker(), b"")
        except OSError:
            return

    def save(self):
        """Store the payload files Ansible built for the module in this process (once per process)."""
        if os.path.exists(self._marker()):
            return
        try:
            names = sorted(n for n in os.listdir(self.lookup) if n.startswith(self.prefix)
                           and not n.endswith((".lock", "-part", _SYNCED)))
            files = {}
            for name in names:
                with open(os.path.join(self.lookup, name), "rb") as handle:
                    files[name] = handle.read()
        except OSError:
            return
        if files and self.store.put(self.key(), _pack(files)):
            try:
                _write_atomic(self._marker(), b"")
            except OSError:
                pass


def _pack(files):
    body = b"".join(_NAME.pack(len(n.encode())) + n.encode() + _SIZE.pack(len(d)) + d for n, d in sorted(files.items()))
    return hashlib.sha256(body).digest() + body


def _unpack(payload, prefix):
    """{file name: bytes}, or {} when the payload is not a whole archive of this module's files."""
    if not payload or len(payload) < 32 or hashlib.sha256(payload[32:]).digest() != payload[:32]:
        return {}
    files, pos, body = {}, 32, payload
    try:
        while pos < len(body):
            (length,) = _NAME.unpack_from(body, pos)
            name = body[pos + 2:pos + 2 + length].decode()
            pos += 2 + length
            (size,) = _SIZE.unpack_from(body, pos)
            files[name] = body[pos + 8:pos + 8 + size]
            pos += 8 + size
    except (struct.error, UnicodeDecodeError):
        return {}
    if pos != len(body) or not all(n.startswith(prefix) and os.sep not in n for n in files):
        return {}
    return files


def _write_atomic(path, data):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def _sources(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            yield os.path.join(folder, name)


def _configured_paths():
    paths = C.config.get_config_value("DEFAULT_MODULE_UTILS_PATH") or []
    return [p for p in paths if os.path.isdir(p)]


def _tree_stats(roots):
    """Path, size and mtime of every source under ``roots``: installed trees change with their mtimes."""
    return "\n".join(line for root in roots for line in source_stats(root))
