"""Subchart processing before rendering (Helm 4 ``ProcessDependenciesWithMerge``).

In Helm's order: map Chart.yaml dependencies onto the vendored charts (aliases make
renamed copies; a chart whose version does not satisfy the declared range is not
matched and stays under its own name), enable everything, coalesce, apply ``tags``
then ``condition`` (the first path that resolves to a bool wins), drop what is
disabled, recurse; then import values child → parent (``import-values``, both forms;
``exports.<name>`` for the string form), deepest charts first.

Like Helm, this changes the chart in place (dependency lists and ``values``): process
a fresh or copied chart for every render.
"""

from ..govalue.fmt import format_value
from ..semver import is_compatible_range
from .errors import ValuesError
from .values import coalesce_values, copy_values, merge_tables, merge_values


def process_dependencies(chart, values=None, warnings=None):
    """Prune disabled subcharts and import values, in place; ``warnings`` collects Helm's warnings."""
    warn = warnings.append if warnings is not None else (lambda _msg: None)
    _process_enabled(chart, values or {}, "", warn, warnings)
    _process_import_values(chart, warn)
    return chart


def check_dependencies(chart):
    """Helm's ``CheckDependencies``: every declared dependency must be vendored under ``charts/``."""
    present = set(dep.name for dep in chart.dependencies)
    missing = [req.get("name", "") for req in chart.metadata.get("dependencies") or []
               if req.get("name", "") not in present]
    if missing:
        raise ValuesError("found in Chart.yaml, but missing in charts/ directory: %s" % ", ".join(missing))


def _alias_dependency(charts, req):
    for candidate in charts:
        if candidate is None or candidate.name != req.get("name", ""):
            continue
        if not is_compatible_range(req.get("version", ""), candidate.version):
            continue
        out = candidate.copy()
        if req.get("alias"):
            out.metadata["name"] = req["alias"]
        return out
    return None


def _process_enabled(chart, values, path, warn, warnings):
    reqs = chart.metadata.get("dependencies")
    if reqs is None:
        return
    kept = []
    for existing in chart.dependencies:
        if not any(existing.name == req.get("name", "") and is_compatible_range(req.get("version", ""),
                                                                                existing.version)
                   for req in reqs):
            kept.append(existing)
    for req in reqs:
        aliased = _alias_dependency(chart.dependencies, req)
        if aliased is not None:
            kept.append(aliased)
        if req.get("alias"):
            req["name"] = req["alias"]
    chart.set_dependencies(kept)
    for req in reqs:
        req["enabled"] = True
    cvals = coalesce_values(chart, values, warnings)
    _process_tags(reqs, cvals, warn)
    _process_conditions(reqs, cvals, path, warn)
    removed = set(req.get("name", "") for req in reqs if not req.get("enabled"))
    deps = [dep for dep in chart.dependencies if dep.name not in removed]
    meta = [req for req in reqs if req.get("name", "") not in removed]
    for dep in deps:
        _process_enabled(dep, cvals, path + dep.name + ".", warn, warnings)
    chart.metadata["dependencies"] = meta
    chart.set_dependencies(deps)


def _process_tags(reqs, cvals, warn):
    try:
        tags = cvals.Table("tags")
    except ValuesError:
        return
    for req in reqs:
        has_true = has_false = False
        for tag in req.get("tags") or []:
            if tag in tags:
                value = tags[tag]
                if isinstance(value, bool):
                    if value:
                        has_true = True
                    else:
                        has_false = True
                else:
                    warn("returned non-bool value tag=%s chart=%s" % (tag, req.get("name", "")))
        if not has_true and has_false:
            req["enabled"] = False
        elif has_true or not has_true and not has_false:
            req["enabled"] = True


def _process_conditions(reqs, cvals, path, warn):
    for req in reqs:
        for cond in (req.get("condition") or "").strip().split(","):
            if not cond:
                continue
            try:
                value = cvals.PathValue(path + cond)
            except ValuesError:
                continue
            if isinstance(value, bool):
                req["enabled"] = value
                break
            warn("returned non-bool value path=%s chart=%s" % (cond, req.get("name", "")))


def _path_to_map(path, data):
    if path == ".":
        return data
    for key in reversed(path.split(".")):
        data = {key: data}
    return data


def _go_sprint(value):
    """``fmt.Sprintf("%v", x)`` for an import-values child/parent entry."""
    return format_value(value)


def _process_import_values(chart, warn):
    for dep in chart.dependencies:
        _process_import_values(dep, warn)
    _import_values(chart, warn)


def _import_values(chart, warn):
    reqs = chart.metadata.get("dependencies")
    if reqs is None:
        return
    cvals = merge_values(chart, None)
    imported = {}
    for req in reqs:
        out = []
        name = req.get("name", "")
        for item in req.get("import-values") or []:
            if isinstance(item, dict):
                child = _go_sprint(item.get("child"))
                parent = _go_sprint(item.get("parent"))
                out.append({"child": child, "parent": parent})
                try:
                    table = cvals.Table(name + "." + child)
                except ValuesError as exc:
                    warn("ImportValues missing table from chart chart=%s error=%s" % (name, exc))
                    continue
                imported = merge_tables(imported, _path_to_map(parent, dict(table)))
            elif isinstance(item, str):
                child = "exports." + item
                out.append({"child": child, "parent": "."})
                try:
                    table = cvals.Table(name + "." + child)
                except ValuesError as exc:
                    warn("ImportValues missing table error=%s" % exc)
                    continue
                imported = merge_tables(imported, dict(table))
        if out:
            req["import-values"] = out
        else:
            req.pop("import-values", None)
    chart.values = merge_tables(copy_values(dict(cvals)), imported)
