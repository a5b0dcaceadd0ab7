"""Go's ``path`` package on slash-separated paths (``path/filepath`` on Unix is the same): Sprig's path
functions and Helm's chart-name check share it."""


def go_clean(p):
    """``path.Clean``: the shortest equivalent path, ``..`` resolved lexically."""
    if p == "":
        return "."
    rooted = p.startswith("/")
    out = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not rooted:
                out.append("..")
            continue
        out.append(part)
    s = "/".join(out)
    if rooted:
        return "/" + s
    return s or "."


def go_base(p):
    """``path.Base``: the last element, trailing slashes dropped (``.`` for an empty path, ``/`` for slashes only)."""
    if p == "":
        return "."
    p = p.rstrip("/")
    if p == "":
        return "/"
    return p[p.rfind("/") + 1:]
