"""Values that live in the cluster (``values_from``), read as Flux's HelmRelease ``valuesFrom`` reads them.

Each reference names a ConfigMap or Secret (in the release namespace unless it says otherwise) and a key
(``values.yaml`` by default). In order, a key's YAML is merged over the values so far, or, with
``target_path``, the key's text is set at that path as ``--set path=<text>`` sets it (a quoted text as a
string, ``literal`` as ``--set-literal``). A missing object or key is skipped when the reference is
``optional``, an error otherwise; any other failure (a read the API server refuses, YAML that does not
parse, a path that does not take the value) is an error naming the reference, whatever ``optional`` says.
Everything is read before anything is planned or written. The values taken from Secrets are returned too:
they are secret wherever the chart puts them.
"""
import base64

from ..chart.strvals import parse_set, parse_set_literal, parse_set_string
from ..errors import HelmlessError
from ..goyaml import YAMLError, load_values, merge_maps
from ..kube.errors import ApiError, KubeError

KINDS = ("ConfigMap", "Secret")


class ValuesFromError(HelmlessError):
    """A values_from reference that cannot be resolved; the message names it."""


def _leaves(value):
    """The scalar values of a values tree, as the text a chart would print (booleans and nulls left out)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield ("%d" % value) if float(value).is_integer() else str(value)


def _read(client, ref, namespace, label):
    """The object's data as ``{key: text}``, or None when it does not exist."""
    try:
        obj = client.get("v1", ref.kind, ref.name, ref.namespace or namespace)
    except ApiError as exc:
        raise ValuesFromError("%s: cannot be read: %s" % (label, exc.message or exc)) from exc
    except KubeError as exc:
        raise ValuesFromError("%s: cannot be read: %s" % (label, exc)) from exc
    if obj is None:
        return None
    if ref.kind == "ConfigMap":
        return dict(obj.get("data") or {})
    data = {}
    for key, encoded in (obj.get("data") or {}).items():
        try:
            data[key] = base64.b64decode(encoded).decode("utf-8")
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValuesFromError("%s: key %s is not UTF-8 text (%s)" % (label, key, exc)) from exc
    return data


def cluster_values(client, namespace, refs):
    """``(values, secret strings, sources read)``: ``refs`` (``chart.source.ValuesReference``s) resolved
    and merged in order; ``namespace`` is the release's."""
    values, secrets, read, objects = {}, set(), [], {}
    for index, ref in enumerate(refs):
        label = ref.label(index, namespace)
        if ref.kind not in KINDS:
            raise ValuesFromError("%s: kind must be one of %s" % (label, ", ".join(KINDS)))
        where = (ref.kind, ref.namespace or namespace, ref.name)
        if where not in objects:  # one read per object, as Flux: every reference sees the same version
            objects[where] = _read(client, ref, namespace, label)
        data, key = objects[where], ref.values_key or "values.yaml"
        if data is None or key not in data:
            if ref.optional:
                continue
            raise ValuesFromError("%s: %s" % (label, "not found" if data is None else
                                              "no key %s (its keys: %s)" % (key, ", ".join(sorted(data)) or "none")))
        text = data[key]
        if ref.target_path:
            values = _set_path(values, ref, text, label)
            taken = [text.strip("'\"") if not ref.literal else text]
        else:
            try:
                loaded = load_values(text.encode("utf-8")) or {}
            except YAMLError as exc:
                raise ValuesFromError("%s: the YAML does not parse: %s" % (label, exc)) from exc
            values = merge_maps(values, loaded)
            taken = list(_leaves(loaded))
        if ref.kind == "Secret":
            secrets.update(taken)
        read.append(label)
    return values, secrets, read


def _set_path(values, ref, text, label):
    """``text`` set at ``ref.target_path`` as Flux sets it: typed like ``--set``, a quoted text as a string,
    ``literal`` as ``--set-literal``."""
    quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""
    try:
        if ref.literal:
            parse_set_literal("%s=%s" % (ref.target_path, text), values)
        elif quoted:
            parse_set_string("%s=%s" % (ref.target_path, text.strip("'\"")), values)
        else:
            parse_set("%s=%s" % (ref.target_path, text), values)
    except HelmlessError as exc:
        raise ValuesFromError("%s: cannot set target_path %s: %s" % (label, ref.target_path, exc)) from exc
    return values
