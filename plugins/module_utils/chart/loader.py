"""Loading a chart from a directory or a ``.tgz`` (Helm's pkg/chart/v2/loader).

Archives are read in memory and never extracted, so they load exactly as Helm 4.3 loads them: each entry
loses its first path element (``/x/y`` is ``y``, ``./c/y`` is ``c/y``), links and other non-regular
entries are empty files, later duplicates are loaded after earlier ones; entry names that leave the chart
(absolute, ``..``, drive letters) are refused with Helm's messages and the total size is capped, so a
hostile archive cannot exhaust memory.
"""

import gzip
import io
import os
import posixpath
import stat
import zlib

from .. import goyaml
from ..goyaml.doccache import cached
from ..govalue.strconv import go_quote
from .errors import ChartError
from .ignore import HELMIGNORE, Rules
from .metadata import APIVERSION_V1, decode_lock, decode_metadata, decode_struct, json_kind, validate_metadata
from .model import Chart
from ..regexcache import regex

MAX_CHART_SIZE = 100 * 1024 * 1024
UTF8_BOM = b"\xef\xbb\xbf"
_DRIVE_RE = regex(r"^[a-zA-Z]:/")


def load_chart(path):
    """Load the chart at ``path`` (a chart directory or a gzipped tar archive) as the helm CLI does
    (pkg/chart/loader): Chart.yaml's apiVersion picks the loader first, and it refuses what the CLI refuses
    with the CLI's messages."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ChartError("stat %s: %s" % (path, _os_reason(exc)))
    if stat.S_ISDIR(st.st_mode):
        chart_yaml = os.path.join(os.path.abspath(path), "Chart.yaml")
        try:
            with open(chart_yaml, "rb") as handle:
                _check_api_version(handle.read())
        except OSError as exc:
            raise ChartError("unable to detect chart at %s: open %s: %s" % (chart_yaml, chart_yaml, _os_reason(exc)))
        return load_dir(path)
    with open(path, "rb") as handle:
        data = handle.read(MAX_CHART_SIZE + 1)
    _ensure_archive(path, data)
    try:
        files = archive_files(data)
    except ChartError:
        raise ChartError("unable to load chart archive")  # the CLI drops the archive reader's reason
    chart_yaml = next((content for name, content in files if name == "Chart.yaml"), None)
    if chart_yaml is None:
        raise ChartError("unable to detect chart version, no Chart.yaml found")
    _check_api_version(chart_yaml)
    return load_archive(data)


def _check_api_version(chart_yaml):
    """The CLI's loader choice: v1, v2 (or none) load as chart API v2; v3 charts are refused by install
    and template; any other version is unsupported."""
    data = _load_yaml(chart_yaml, "Chart.yaml")
    if data is not None and not isinstance(data, dict):
        raise ChartError("cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot "
                         "unmarshal %s into Go value of type loader.chartBase" % json_kind(data))
    version = decode_struct(data, "Chart.yaml", (("apiVersion", "APIVersion", "string"),), "chartBase")
    version = version.get("apiVersion") or ""
    if version == "v3":
        raise ChartError("invalid chart apiVersion")
    if version not in ("v1", "v2", ""):
        raise ChartError("unsupported chart version")


def _os_reason(exc):
    return (exc.strerror or str(exc)).lower()


def _ensure_archive(path, data):
    if data[:3] == b"\x1f\x8b\x08":
        return
    if path.endswith((".yml", ".yaml")):
        raise ChartError("file '%s' seems to be a YAML file, but expected a gzipped archive" % path)
    raise ChartError("file '%s' does not appear to be a gzipped archive; got '%s'"
                     % (path, _content_type(data[:512])))


def _content_type(head):
    if not head:
        return "text/plain; charset=utf-8"
    if b"\x00" in head:
        return "application/octet-stream"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain; charset=utf-8"


def load_dir(path):
    """Load a chart directory; only its own top-level ``.helmignore`` applies."""
    top = os.path.abspath(path)
    rules = Rules()
    ignore_file = os.path.join(top, HELMIGNORE)
    if os.path.exists(ignore_file):
        with open(ignore_file, "rb") as handle:
            rules = Rules.parse(handle.read().decode("utf-8", "replace"))
    rules.add_defaults()
    files = []
    _walk(top, "", rules, files, set(), [MAX_CHART_SIZE])
    return load_files(files)


def _walk(top, rel, rules, files, seen, budget):
    directory = os.path.join(top, rel) if rel else top
    real = os.path.realpath(directory)
    if real in seen:
        raise ChartError("symbolic link loop at %s" % directory)
    seen = seen | {real}
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        raise ChartError("open %s: %s" % (directory, _os_reason(exc)))
    for name in names:
        child = rel + "/" + name if rel else name
        full = os.path.join(top, child)
        try:
            st = os.stat(full)
        except OSError as exc:
            if rules.ignore(child, False):
                continue
            raise ChartError("stat %s: %s" % (full, _os_reason(exc)))
        if stat.S_ISDIR(st.st_mode):
            if not rules.ignore(child, True):
                _walk(top, child, rules, files, seen, budget)
            continue
        if rules.ignore(child, False):
            continue
        if not stat.S_ISREG(st.st_mode):
            raise ChartError("cannot load irregular file %s as it has file mode type bits set" % full)
        # Helm 4.3: one budget for the whole directory (4.2 capped each file at 5 MiB instead).
        too_big = "error reading %s: chart exceeds maximum decompressed size of %d bytes" % (child, MAX_CHART_SIZE)
        if st.st_size > budget[0]:
            raise ChartError(too_big)
        with open(full, "rb") as handle:
            data = handle.read(budget[0] + 1)
        if len(data) > budget[0]:
            raise ChartError(too_big)
        budget[0] -= len(data)
        files.append((child, _strip_bom(data)))


def _strip_bom(data):
    return data[3:] if data.startswith(UTF8_BOM) else data


def load_archive(data, budget=None):
    """Load a chart from the bytes of a gzipped tar archive.

    ``budget`` (a one-element list) is the decompressed size still allowed; subchart
    archives draw from their parent's, so nesting cannot multiply the limit.
    """
    budget = budget if budget is not None else [MAX_CHART_SIZE]
    return load_files(archive_files(data, budget), budget)


def archive_files(data, budget=None):
    """The ``(name, bytes)`` entries of a chart archive, with Helm's path checks."""
    import tarfile  # lazy: a chart directory (and a no-op task's stored release) never needs it
    try:
        raw = gzip.GzipFile(fileobj=io.BytesIO(data))
        archive = tarfile.open(fileobj=raw, mode="r:")
    except (OSError, EOFError, tarfile.TarError, zlib.error) as exc:
        raise ChartError("invalid chart archive: %s" % exc)
    files = []
    budget = budget if budget is not None else [MAX_CHART_SIZE]
    remaining = budget[0]
    too_big = "decompressed chart is larger than the maximum size %d" % MAX_CHART_SIZE
    try:
        for member in archive:
            if member.isdir():
                continue
            name = _entry_name(member.name)
            if member.size > remaining:
                raise ChartError(too_big)
            # Links, devices and FIFOs carry no data in a tar: Helm loads them as empty files.
            handle = archive.extractfile(member) if member.isreg() else None
            payload = handle.read(remaining) if handle is not None else b""
            remaining -= len(payload)
            if len(payload) < member.size or remaining <= 0:
                raise ChartError(too_big)
            files.append((name, _strip_bom(payload)))
    except (OSError, EOFError, tarfile.TarError, zlib.error) as exc:
        raise ChartError("invalid chart archive: %s" % exc)
    budget[0] = remaining
    if not files:
        raise ChartError("no files in chart archive")
    return files


def _entry_name(entry):
    """Helm's archive entry name: the first path element dropped, then checked in Helm's order."""
    delimiter = "\\" if "\\" in entry else "/"
    parts = entry.split(delimiter)
    name = delimiter.join(parts[1:]).replace(delimiter, "/")
    if name.startswith("/"):
        raise ChartError("chart illegally contains absolute paths")
    name = posixpath.normpath(name) if name else "."
    if name == ".":
        raise ChartError("chart illegally contains content outside the base directory: %s" % go_quote(entry))
    if name.startswith(".."):
        raise ChartError("chart illegally references parent directory")
    if _DRIVE_RE.match(name):
        raise ChartError("chart contains illegally named files")
    if parts[0] == "Chart.yaml":
        raise ChartError("chart yaml not in base directory")
    return name


def _load_yaml(data, filename):
    try:
        return cached(goyaml.load, data, disk=True)
    except goyaml.YAMLError as exc:
        raise ChartError("cannot load %s: %s" % (filename, exc))


def load_values_file(data, filename="values.yaml"):
    """A values file (several YAML documents are merged in order, as Helm 4 does)."""
    try:
        values = cached(goyaml.load_values, data, disk=True)
    except goyaml.YAMLError as exc:
        raise ChartError("cannot load %s: %s" % (filename, exc))
    return values if values is not None else {}


def load_files(files, budget=None):
    """Helm's ``LoadFiles``: build a Chart from ``(name, bytes)`` pairs relative to the chart."""
    metadata = None
    empty_annotations = False
    for name, data in files:
        if name == "Chart.yaml":
            doc = _load_yaml(data, "Chart.yaml")
            metadata = decode_metadata(doc, "Chart.yaml", metadata)
            if not metadata.get("apiVersion"):
                metadata["apiVersion"] = APIVERSION_V1
            empty_annotations = isinstance(doc, dict) and any(
                key.lower() == "annotations" and value == {} for key, value in doc.items())
    chart = Chart(metadata or {}, raw=list(files))
    chart.empty_annotations = empty_annotations
    subcharts = {}
    order = []
    for name, data in files:
        if name == "Chart.yaml":
            continue
        if name == "Chart.lock":
            chart.lock = decode_lock(_load_yaml(data, "Chart.lock"))
        elif name == "values.yaml":
            chart.values = load_values_file(data)
        elif name == "values.schema.json":
            chart.schema = data
        elif name == "requirements.yaml":
            base = chart.metadata if metadata is not None else {}
            chart.metadata = decode_metadata(_load_yaml(data, "requirements.yaml"), "requirements.yaml", base)
            metadata = chart.metadata
            if chart.metadata.get("apiVersion") == APIVERSION_V1:
                chart.files.append((name, data))
        elif name == "requirements.lock":
            chart.lock = decode_lock(_load_yaml(data, "requirements.lock"), "requirements.lock")
            if metadata is None:
                metadata = chart.metadata = {}
            if chart.metadata.get("apiVersion") == APIVERSION_V1:
                chart.files.append((name, data))
        elif name.startswith("templates/"):
            chart.templates.append((name, data))
        elif name.startswith("charts/"):
            if posixpath.splitext(name)[1] == ".prov":
                chart.files.append((name, data))
                continue
            rest = name[len("charts/"):]
            sub = rest.split("/", 1)[0]
            if sub not in subcharts:
                subcharts[sub] = []
                order.append(sub)
            subcharts[sub].append((rest, data))
        else:
            chart.files.append((name, data))
    if metadata is None:
        raise ChartError("Chart.yaml file is missing")
    validate_metadata(chart.metadata)
    for sub in sorted(order):
        if sub[:1] in ("_", "."):
            continue
        entries = subcharts[sub]
        try:
            if posixpath.splitext(sub)[1] == ".tgz":
                first = entries[0][0]
                if first != sub:
                    raise ChartError("error unpacking subchart tar in %s: expected %s, got %s"
                                     % (chart.name, sub, first))
                child = load_archive(entries[0][1], budget)
            else:
                inner = [(rest.split("/", 1)[1], data) for rest, data in entries if "/" in rest]
                child = load_files(inner, budget)
        except ChartError as exc:
            if str(exc).startswith("error unpacking subchart tar"):
                raise
            raise ChartError("error unpacking subchart %s in %s: %s" % (sub, chart.name, exc))
        chart.add_dependency(child)
    return chart
