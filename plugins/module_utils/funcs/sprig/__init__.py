"""Sprig v3.3.0 in pure Python, as Helm 4 exposes it.

``SPRIG_FUNCS`` maps the 209 Sprig names Helm keeps (Sprig's 211 minus ``env`` and
``expandenv``, which Helm deletes) to plain callables over the Go value model
(the govalue package).  Each declares its Go parameter types with ``go_signature`` (the
executor's ``go_params``/``go_variadic``) and raises with Go's error text.

Helm registers its own ``toJson``, ``fromJson``, ``fail``, ``getHostByName`` and (Helm 4)
``mustToJson`` over Sprig's (funcs/helm.py); the Sprig versions here are what Sprig itself
does.  Conventions shared with the rest of the renderer:

* strings holding invalid UTF-8 (``trunc``/``substr`` cut bytes) carry the bytes as lone
  surrogates (``surrogateescape``);
* ``time.Time`` and ``*semver.Version`` are GoStructs that print through ``String()`` and
  marshal to JSON through ``go_json_value()``;
* Python has one ``int``: functions returning Go ``int64``/``uint64`` return ``int``, and
  ``duration``/``durationRound`` treat every ``int`` as ``int64``.
"""
from . import (
    strings, lists, dicts, defaults, math, encoding, reflection, misc, regex, semver, dates,
    crypto,
)

HELM_OVERRIDDEN = ("toJson", "fromJson", "fail", "getHostByName", "mustToJson")
HELM_REMOVED = ("env", "expandenv")

SPRIG_FUNCS = {}
for _mod in (strings, lists, dicts, defaults, math, encoding, reflection, misc, regex, semver,
             dates, crypto):
    SPRIG_FUNCS.update(_mod.FUNCS)
