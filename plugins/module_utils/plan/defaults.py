"""The defaults a CustomResourceDefinition's structural schema gives a new custom resource.

A custom resource whose CRD the same run installs (``crds/``) cannot be dry-run in check mode: the server
does not know its kind yet. Its prediction is the rendered object with the defaults the API server will
apply (apiextensions-apiserver's structural defaulting): a property with a ``default`` that is missing, or
null where it may not be, gets a copy of the default; then every property present is defaulted in turn,
as are the items of arrays and the values of ``additionalProperties`` maps.
"""
import copy


def crd_schemas(crds):
    """{(apiVersion, kind): openAPIV3Schema} of these CustomResourceDefinition objects."""
    out = {}
    for crd in crds:
        spec = (crd or {}).get("spec") or {}
        kind = (spec.get("names") or {}).get("kind")
        for version in spec.get("versions") or []:
            schema = (version.get("schema") or {}).get("openAPIV3Schema")
            if kind and isinstance(schema, dict):
                out[("%s/%s" % (spec.get("group"), version.get("name")), kind)] = schema
    return out


def with_defaults(obj, schema):
    """A copy of ``obj`` with ``schema``'s defaults applied."""
    out = copy.deepcopy(obj)
    _default(out, schema)
    return out


def _default(value, schema):
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, prop in properties.items():
            if isinstance(prop, dict) and "default" in prop and (
                    key not in value or value[key] is None and not prop.get("nullable")):
                value[key] = copy.deepcopy(prop["default"])
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                _default(item, properties[key])
            elif isinstance(extra, dict):
                _default(item, extra)
    elif isinstance(value, list):
        for item in value:
            _default(item, schema.get("items"))
