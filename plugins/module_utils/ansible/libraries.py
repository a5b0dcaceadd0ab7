"""The third-party Python libraries the modules need on the target, checked in one place.

module_utils import without them (their imports are lazy), so each module calls ``require_libraries``
first: a missing library fails the task with Ansible's ``missing_required_lib`` message naming the
package to install, instead of a traceback in the middle of a run. Presence is checked with
``find_spec``, so libraries that only some charts use (cryptography, jsonschema) cost no import time.
"""
import importlib
import importlib.util
import traceback

from ansible.module_utils.basic import missing_required_lib

# import name: (package to install, what it is required for)
_LIBRARIES = {
    "yaml": ("PyYAML", "to read charts, values and manifests"),
    "jsonpatch": ("jsonpatch", "for post-renderer JSON patches"),
    "jsonschema": ("jsonschema", "to validate values against a chart's values.schema.json"),
    "cryptography": ("cryptography", "for Sprig's key, certificate and AES functions"),
    "bcrypt": ("bcrypt", "for Sprig's bcrypt and htpasswd functions"),
}
RENDER = ("yaml", "jsonpatch", "jsonschema", "cryptography", "bcrypt")


def _present(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ValueError:  # already imported, without a spec
        return True


def require_libraries(module, names=RENDER):
    """Fail the task naming the first library of ``names`` that cannot be imported."""
    for name in names:
        if _present(name):
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            package, reason = _LIBRARIES[name]
            module.fail_json(msg=missing_required_lib(package, reason=reason), exception=traceback.format_exc())
