"""Options of helmless.core.releases.

Generated from the option table in module_utils/ansible/options.py, which also builds the argument
spec: documentation and behaviour cannot drift apart.
"""
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import RELEASES, doc_fragment


class ModuleDocFragment(object):
    DOCUMENTATION = doc_fragment(RELEASES)
