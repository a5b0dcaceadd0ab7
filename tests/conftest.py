"""Make the work tree importable as ``ansible_collections.helmless.core``.

Ansible resolves collection code through the ``ansible_collections`` namespace, so the
tests see the repository through a symlink at ``.build/collections/ansible_collections/helmless/core``.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
_link = os.path.join(COLLECTIONS, "ansible_collections", "helmless", "core")
if not os.path.islink(_link):
    os.makedirs(os.path.dirname(_link), exist_ok=True)
    try:
        os.symlink(ROOT, _link)
    except FileExistsError:
        pass
if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)
os.environ.setdefault("ANSIBLE_COLLECTIONS_PATH", COLLECTIONS)

SHARED = os.environ.get("HELMLESS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
