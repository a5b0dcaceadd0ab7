"""The only package that knows about Ansible: option specs, documentation and results."""
