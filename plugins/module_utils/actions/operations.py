"""ReleaseEngine: the operations on one release, each carried out by its action module.

``present`` installs or upgrades (upgrade.py), ``absent`` uninstalls (uninstall.py), ``rollback``
rolls back (rollback.py); what they share (history, lease, pending-revision recovery) is base.py's.
"""
from .base import ReleaseContext
from .rollback import rollback as roll_back
from .uninstall import uninstall
from .upgrade import install_or_upgrade


class ReleaseEngine(ReleaseContext):
    """Install/upgrade, uninstall and rollback of release ``name`` in ``namespace`` through one KubeClient."""

    def present(self, inp, opts):
        return install_or_upgrade(self, inp, opts)

    def absent(self, opts):
        return uninstall(self, opts)

    def rollback(self, revision, opts):
        return roll_back(self, revision, opts)
