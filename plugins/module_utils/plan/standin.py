"""The server's answer for a new object in a namespace that does not exist yet.

An install with ``create_namespace`` plans its objects before the namespace is there, and the API server
refuses any request into a missing namespace, dry runs included. Yet what the server adds at creation
(defaults such as a Service's ``internalTrafficPolicy`` or a Deployment's ``progressDeadlineSeconds``,
admission results such as a PVC's ``kubernetes.io/pvc-protection`` finalizer, what a kind's strategy sets
such as a DaemonSet's template generation annotation, a custom resource's schema defaults) does not depend
on the namespace's name: it comes from code and schemas the whole cluster shares. So the planned request
is dry-run in a namespace that exists (``STAND_IN``), and the answer is given back its own namespace.

Why not the defaults the API server publishes: its OpenAPI documents few of them (most are Go defaulting
functions), and none of what admission plugins and kind strategies add.

What a namespace holds itself cannot be known before it exists: a LimitRange or ResourceQuota that an
admission policy or controller creates in the new namespace, or a webhook selecting namespaces by labels
the new one will have. The stand-in's own (``default`` has none in a plain cluster) would show instead.
"""
import copy

from ..kube.errors import ApiError

STAND_IN = "default"
# Refusals that say the object itself is wrong, wherever it goes: the real run into the new namespace is
# refused alike. Others (forbidden in the stand-in, its quota) say nothing about the real run.
INVALID = (400, 422)


def dry_run_elsewhere(client, change, force=False):
    """The dry-run answer to ``change`` (a create or apply of a new object) as if its namespace existed,
    or None when the stand-in namespace cannot answer for it (no rights there). A request the object
    itself makes invalid raises its ApiError."""
    res, body = change.resource, copy.deepcopy(change.body)
    body["metadata"]["namespace"] = STAND_IN
    try:
        answer = None
        if change.action == "apply":
            if client.get(res.api_version, res.kind, res.name, STAND_IN) is None:
                answer = client.patch(res.api_version, res.kind, res.name, STAND_IN, body, "apply",
                                      dry_run=True, force=force)
        else:
            try:
                answer = client.create(body, STAND_IN, dry_run=True)
            except ApiError as exc:
                if not exc.already_exists:
                    raise
        if answer is None:  # the stand-in has an object of that name: let the server pick another one
            meta = {k: v for k, v in body["metadata"].items() if k != "name"}
            meta["generateName"] = res.name
            answer = client.create(dict(body, metadata=meta), STAND_IN, dry_run=True)
            answer = replaced(answer, answer["metadata"]["name"], res.name)
            answer["metadata"].pop("generateName", None)
    except ApiError as exc:
        if exc.status in INVALID:
            raise
        return None
    answer["metadata"]["namespace"] = change.namespace
    return answer


def replaced(node, old, new):
    """A copy of decoded JSON ``node`` with every value equal to ``old`` (unless None) ``new`` (a generated
    name, which a Job's labels repeat; a dry run's uid, which they repeat too)."""
    if isinstance(node, dict):
        return {k: replaced(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [replaced(v, old, new) for v in node]
    return new if old is not None and node == old else node
