"""Template functions whose output the chart's inputs do not decide: randomness and the clock (and the
local zone and DNS, ``OUTSIDE``, which are only recorded: a render that read them is not kept by outputcache).

A render can record which of them a chart called (``Tracker``), and a second render can ``vary`` them on
purpose: random functions differ from call to call anyway; the clock is moved by ``SHIFT_NS`` (a bit over a
year, so every date field differs). What differs between two such renders is exactly the output that
randomness or time decided; the release layer uses that to tell a real change from a re-roll
(actions/sameness.py).
"""
import functools
import threading

from ..funcs.sprig.gotime import Time

RANDOM = frozenset((
    "randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt", "shuffle", "uuidv4",
    "bcrypt", "htpasswd", "encryptAES", "genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert",
    "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
))
# Clock readers: ``now``, and the argument position that means "now" when it is not a time or Unix seconds.
CLOCK = {"now": None, "ago": 0, "durationRound": 0, "date": 1, "dateInZone": 1, "date_in_zone": 1,
         "htmlDate": 0, "htmlDateInZone": 0}
SHIFT_NS = ((400 * 24 + 7) * 3600 + 13 * 60 + 17) * 10 ** 9 + 123456789
# Not varied, but their output is not the inputs' either: the local zone (parsing), DNS.
OUTSIDE = frozenset(("toDate", "mustToDate", "getHostByName"))

_active = threading.local()
_wrapped = {}


class Tracker(object):
    """What one render called: ``called``, the names whose calls randomness or the clock decided (each
    call of a random function, a clock function reading "now"); ``consulted``, every name of RANDOM, CLOCK
    and OUTSIDE it called at all (a clock function also formats in the local zone). ``vary``: whether the
    clock is moved."""

    def __init__(self, vary=False):
        self.vary = vary
        self.called = set()
        self.consulted = set()

    def funcs(self, funcs):
        """``funcs`` with the nondeterministic ones reporting to the active tracker."""
        out = dict(funcs)
        for name, fn in funcs.items():
            if name in RANDOM or name in CLOCK or name in OUTSIDE:
                key = (name, fn)
                if key not in _wrapped:  # one wrapper per function: the executor caches arity per object
                    _wrapped[key] = _Reporting(name, fn)
                out[name] = _wrapped[key]
        return out

    def __enter__(self):
        self._outer = getattr(_active, "tracker", None)
        _active.tracker = self
        return self

    def __exit__(self, *exc):
        _active.tracker = self._outer


class _Reporting(object):
    """Calls ``fn`` and tells the active Tracker (signature and Go types are ``fn``'s)."""

    def __init__(self, name, fn):
        functools.update_wrapper(self, fn)
        self.name = name
        self.fn = fn

    def __call__(self, *args):
        tracker = getattr(_active, "tracker", None)
        if tracker is None:
            return self.fn(*args)
        tracker.consulted.add(self.name)
        if self.name in OUTSIDE:
            return self.fn(*args)
        if self.name in RANDOM:
            tracker.called.add(self.name)
            return self.fn(*args)
        return self._clock(tracker, list(args))

    def _clock(self, tracker, args):
        name, pos = self.name, CLOCK[self.name]
        if pos is None:  # now
            tracker.called.add(name)
            return self.fn().Add(SHIFT_NS) if tracker.vary else self.fn()
        value = args[pos]
        is_time = isinstance(value, Time)
        is_unix = isinstance(value, int) and not isinstance(value, bool)
        if name in ("ago", "durationRound"):  # the time since a moment (durationRound: only of a time)
            if not (is_time or (is_unix and name == "ago")):
                return self.fn(*args)
            tracker.called.add(name)
            if tracker.vary:
                args[pos] = value.Add(-SHIFT_NS) if is_time else value - SHIFT_NS // 10 ** 9
            return self.fn(*args)
        if is_time or is_unix:  # formats the moment it is given
            return self.fn(*args)
        tracker.called.add(name)  # anything else means "now"
        if tracker.vary:
            args[pos] = Time.now().Add(SHIFT_NS)
        return self.fn(*args)
