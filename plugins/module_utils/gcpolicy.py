"""The garbage collector's policy for the process the engine runs in.

A module process runs one task and exits, so what it has loaded or built never needs collecting:
``one_task_process`` freezes it (the collector never walks those objects again, nor at exit). A
longer-lived process (tests, a library user) keeps collecting, but a render's survivors still skip
the youngest generation's pass over them (``after_render``).
"""
import contextlib
import gc

_state = {"one_task": False}


def one_task_process():
    """Exempt everything loaded so far from collection, and what later renders leave (see after_render)."""
    gc.freeze()
    _state["one_task"] = True


@contextlib.contextmanager
def paused():
    """Automatic collection off while long-lived objects are built (parse trees, closures): its passes
    would find no garbage and cost more than the building. Nestable: the previous state comes back."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def after_render():
    """Move every tracked object out of the youngest generation without a collection pass over it: into
    the permanent generation in a one-task process, else into the oldest generation, whose rare full
    collections still reclaim the cycles a render leaves."""
    gc.freeze()
    if not _state["one_task"]:
        gc.unfreeze()
