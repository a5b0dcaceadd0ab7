"""Runs helmless.core.release_info with its module payload cached across playbook runs (see plugin_utils.payloadcache)."""
from ansible_collections.helmless.core.plugins.plugin_utils.payloadcache import ActionModule  # noqa: F401 pylint: disable=unused-import
