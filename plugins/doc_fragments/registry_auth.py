"""Options of helmless.core.registry_auth.

Generated from the option table in module_utils/ansible/options.py, which also builds the argument
spec: documentation and behaviour cannot drift apart.
"""
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import REGISTRY_AUTH, doc_fragment


class ModuleDocFragment(object):
    DOCUMENTATION = doc_fragment(REGISTRY_AUTH)
