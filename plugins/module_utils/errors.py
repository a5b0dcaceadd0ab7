"""The one base class of the errors helmless raises on purpose.

Every package derives its own error classes from :class:`HelmlessError` (one name per class across the
engine), so the Ansible layer can report any of them as a clean task failure, while anything else that
escapes (a defect of ours) still shows as one. This module imports nothing, so every package may use it.
"""


class HelmlessError(Exception):
    """An error meant for the user: ``str()`` is the whole message (Helm's own text where Helm has one)."""
