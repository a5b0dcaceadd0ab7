"""ReleaseEngine: the operations on one release, each carried out by its action module.

``present`` installs or upgrades (upgrade.py, with retries, tests and remediation: remediation.py), ``absent`` uninstalls (uninstall.py), ``rollback``
rolls back (rollback.py); what they share (history, lease, pending-revision recovery) is base.py's.
"""
from .base import ReleaseContext
from .remediation import present
from .rollback import rollback as roll_back
from .uninstall import uninstall


class ReleaseEngine(ReleaseContext):
    """Install/upgrade, uninstall and rollback of release ``name`` in ``namespace`` through one KubeClient."""

    def present(self, inp, opts, again=None):
        """``again()``: the ReleaseInput of a later attempt (retries render each as a new revision)."""
        return present(self, inp, opts, again)

    def absent(self, opts):
        return uninstall(self, opts)

    def rollback(self, revision, opts):
        return roll_back(self, revision, opts)
