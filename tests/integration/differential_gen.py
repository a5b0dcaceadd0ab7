"""Random release operation sequences for the differential harness (differential.py), from a seed.

A sequence is a list of JSON-ready steps, so a failing one is saved as a case file and replayed as it was.
Each step is one operation with its options, as a user would run it with either tool:

- ``upgrade``: ``helm upgrade --install`` / the release module, with a chart (objects that are added,
  removed, renamed or change kind between steps, values-driven ConfigMaps, hooks of every kind, weight and
  delete policy, some failing, CRDs), values and random options;
- ``rollback``, ``uninstall`` (with or without history), ``test`` (with a filter);
- ``edit``: what someone does between two runs with kubectl: patch, scale, delete, hand an object to
  another release, drop the managed-by label, set ``helm.sh/resource-policy: keep``, create an object
  the chart will want, annotate.

``mode`` ``faithful`` maps Helm's ``--server-side=true``/``false`` onto ``apply_strategy: server-side``
/ ``helm3`` (hand edits allowed); ``default`` runs ``chart-delta`` with ``server_side: auto`` against
Helm's default and edits nothing by hand (chart-delta keeps hand edits on purpose, docs/apply-strategies.md);
``helm3`` runs ``apply_strategy: helm3`` against helm v3 (no Helm 4 options, no ownership edits: our
uninstall leaves what another release owns, as Helm 4.3's).
"""
import random

KINDS = ("ConfigMap", "Secret", "Service", "ServiceAccount", "Deployment")
NAMES = ("alpha", "beta", "gamma", "delta", "epsilon")
WORDS = ("red", "green", "blue", "amber", "teal", "plum")
EVENTS = ("pre-install", "post-install", "pre-upgrade", "post-upgrade", "pre-rollback", "post-rollback",
          "pre-delete", "post-delete")
POLICIES = ("before-hook-creation", "hook-succeeded", "hook-failed")
EDITS = ("patch", "scale", "delete", "disown", "unlabel", "keep", "precreate", "annotate")


def _obj(rng, name=None):
    return {"kind": rng.choice(KINDS), "name": name or rng.choice(NAMES), "variant": rng.randint(0, 2),
            "keep": rng.random() < 0.1, "bad": False}


def _hook(rng, index):
    kind = rng.choice(("Job", "Pod", "ConfigMap", "Pod"))
    test = rng.random() < 0.3
    events = ["test"] if test else sorted(rng.sample(EVENTS, rng.choice((1, 1, 2))))
    return {"name": "hook-%d" % index, "kind": kind, "events": events, "weight": rng.randint(-2, 2),
            "policies": sorted(rng.sample(POLICIES, rng.choice((0, 1, 1, 2)))),
            "fail": kind != "ConfigMap" and rng.random() < (0.25 if test else 0.08)}


def _unique(objects):
    seen, out = set(), []
    for obj in objects:
        if obj["name"] not in seen:
            seen.add(obj["name"])
            out.append(obj)
    return out


def first_chart(rng):
    objects = _unique([_obj(rng) for _ in range(rng.randint(1, 4))])
    hooks = [_hook(rng, i) for i in range(rng.choice((0, 1, 2, 3)))]
    return {"version": 1, "objects": objects, "hooks": hooks, "next_hook": len(hooks),
            "defaults": {"message": rng.choice(WORDS), "cms": _cms(rng)}, "crds": rng.random() < 0.15,
            "custom": False}


def _cms(rng):
    return {name: {"k": rng.choice(WORDS)} for name in rng.sample(("one", "two", "three"), rng.randint(0, 2))}


def evolve(rng, chart):
    """The chart's next version: one to three changes of objects, hooks, defaults or CRDs."""
    chart = {k: (list(v) if isinstance(v, list) else v) for k, v in chart.items()}
    chart["objects"] = [dict(o) for o in chart["objects"]]
    chart["version"] += 1
    for _ in range(rng.randint(1, 3)):
        what = rng.choice(("add", "remove", "rename", "kind", "variant", "variant", "keep", "bad", "hooks",
                           "defaults", "crds", "refuse"))
        objects = chart["objects"]
        if what == "add" or not objects:
            objects.append(_obj(rng))
        elif what == "remove":
            objects.remove(rng.choice(objects))
        elif what == "rename":
            rng.choice(objects)["name"] = rng.choice(NAMES)
        elif what == "kind":
            obj = rng.choice(objects)
            obj["kind"] = rng.choice([k for k in KINDS if k != obj["kind"]])
        elif what == "variant":
            rng.choice(objects)["variant"] = rng.randint(0, 3)
        elif what == "keep":
            obj = rng.choice(objects)
            obj["keep"] = not obj["keep"]
        elif what == "bad":
            obj = rng.choice(objects)
            obj["bad"] = not obj["bad"] and obj["kind"] == "ConfigMap" and rng.random() < 0.5
        elif what == "hooks":
            if chart["hooks"] and rng.random() < 0.4:
                chart["hooks"] = [h for h in chart["hooks"] if h is not rng.choice(chart["hooks"])]
            else:
                chart["hooks"] = chart["hooks"] + [_hook(rng, chart["next_hook"])]
                chart["next_hook"] += 1
        elif what == "refuse":
            chart["refuse"] = not chart.get("refuse") and rng.random() < 0.5
        elif what == "defaults":
            chart["defaults"] = {"message": rng.choice(WORDS), "cms": _cms(rng)}
        else:
            chart["crds"] = not chart["crds"]
            chart["custom"] = chart["crds"] and rng.random() < 0.5
    chart["objects"] = _unique(chart["objects"])
    return chart


def _values(rng):
    if rng.random() < 0.35:
        return None
    values = {}
    if rng.random() < 0.7:
        values["message"] = rng.choice(WORDS)
    if rng.random() < 0.6:
        values["cms"] = _cms(rng)
    return values


def _side(rng, mode):
    return {"faithful": rng.choice(("true", "false")), "helm3": "false"}.get(mode, "auto")


def _upgrade_options(rng, mode, first):
    opts = {"values_mode": rng.choice(("reset", "reuse", "reset_then_reuse", "default", "default"))}
    side = _side(rng, mode)
    opts["server_side"] = side
    for name, chance in (("take_ownership", 0.15), ("atomic", 0.12), ("cleanup_on_fail", 0.15), ("wait", 0.2),
                         ("disable_hook", 0.12), ("skip_crds", 0.2), ("force_conflicts", 0.15)):
        opts[name] = rng.random() < chance
    opts["force"] = side != "true" and rng.random() < 0.1
    if opts["force"] or side == "false":  # force_conflicts needs server-side apply (docs/helm-differences.md)
        opts["force_conflicts"] = False
    if rng.random() < 0.3:
        opts["history_max"] = rng.choice((0, 2, 3))
    if rng.random() < 0.2:
        opts["labels"] = {"team": rng.choice(WORDS + ("null",))}
    if rng.random() < 0.15:
        opts["description"] = "deployed by the %s team" % rng.choice(WORDS)
    if first and rng.random() < 0.3:
        opts["create_namespace"] = True
    return opts


def _edit(rng, chart, mode):
    targets = chart["objects"] + [{"kind": "ConfigMap", "name": "v-" + n} for n in ("one", "two", "three")]
    out = []
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(targets)
        what = rng.choice([e for e in EDITS if mode != "helm3" or e not in ("disown", "unlabel")])
        if what == "precreate":
            target = _obj(rng)
            target["name"] = rng.choice(NAMES)
        out.append({"edit": what, "kind": target["kind"], "name": target["name"], "word": rng.choice(WORDS)})
    return out


def sequence(seed, steps=7, helm=4):
    """The steps of sequence ``seed`` for helm ``helm`` (4 or 3): starts with an install, then random operations."""
    rng = random.Random(seed)
    mode = "faithful" if rng.random() < 0.65 else "default"
    if helm == 3:
        mode = "helm3"
    chart = first_chart(rng)
    out = [{"op": "upgrade", "chart": chart, "values": _values(rng), "options": _upgrade_options(rng, mode, True),
            "fresh_namespace": rng.random() < 0.15}]
    installed, revisions = True, 1
    for _ in range(steps - 1):
        roll = rng.random()
        if roll < 0.42 or not installed:
            if rng.random() < 0.75:
                chart = evolve(rng, chart)
            out.append({"op": "upgrade", "chart": chart, "values": _values(rng),
                        "options": _upgrade_options(rng, mode, False)})
            installed, revisions = True, revisions + 1
        elif roll < 0.62 and mode != "default":
            out.append({"op": "edit", "edits": _edit(rng, chart, mode)})
        elif roll < 0.76:
            side = _side(rng, mode)
            opts = {"server_side": side, "disable_hook": rng.random() < 0.12, "wait": rng.random() < 0.2,
                    "cleanup_on_fail": rng.random() < 0.15, "force": side != "true" and rng.random() < 0.1}
            if rng.random() < 0.3:
                opts["history_max"] = rng.choice((0, 2, 3))
            if rng.random() < 0.15 and mode != "helm3":
                opts["description"] = "rolled back by the %s team" % rng.choice(WORDS)
            revision = 0 if rng.random() < 0.5 else rng.randint(1, revisions)
            out.append({"op": "rollback", "revision": revision, "options": opts})
            revisions += 1
        elif roll < 0.86:
            filters = []
            tests = [h["name"] for h in chart["hooks"] if h["events"] == ["test"]]
            if tests and rng.random() < 0.3:
                filters = [("name=" if rng.random() < 0.5 else "!name=") + rng.choice(tests)]
            out.append({"op": "test", "filter": filters})
        else:
            out.append({"op": "uninstall", "options": {"keep_history": rng.random() < 0.5,
                                                       "disable_hook": rng.random() < 0.12,
                                                       "wait": rng.random() < 0.2}})
            installed = False
    return {"seed": seed, "mode": mode, "helm": helm, "steps": out}
