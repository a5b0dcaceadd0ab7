"""Connection options shared by every module that talks to a cluster (K8S_AUTH_* fallbacks).

Generated from the option table in module_utils/ansible/options.py, which also builds the argument
spec: documentation and behaviour cannot drift apart.
"""
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import CONNECTION, doc_fragment


class ModuleDocFragment(object):
    DOCUMENTATION = doc_fragment(CONNECTION)
