"""How Go values are represented in Python, for every package of the renderer.

Every stage (YAML loading, values, the template executor, Sprig and Helm functions)
exchanges values in this one model, so each agrees with Go's type rules:

==========================  ==========================================
Go                          Python
==========================  ==========================================
nil                         ``None``
bool                        ``bool``
int                         ``int`` (``bool`` is never treated as int)
int64, uint8, uint64        :class:`Int64`, :class:`Uint8`, :class:`Uint64` (``int`` subclasses)
float64                     ``float``  (YAML/JSON numbers are float64)
complex128                  ``complex``
string                      ``str``
[]byte                      ``bytes``
[]interface{}               ``list``
[]int, []string             :class:`IntSlice`, :class:`StringSlice` (``list`` subclasses)
map[string]interface{}      ``dict`` with ``str`` keys
struct / pointer to struct  a subclass of :class:`GoStruct`
==========================  ==========================================

The static number type is significant: Go prints float64 ``1000000`` as ``1e+06`` and
refuses ``eq`` between an int and a float64; Sprig's ``duration`` ignores an ``int`` but
takes an ``int64``; ``reflect.DeepEqual`` (``has``, ``uniq``) tells ``int`` from ``int64``;
a function parameter of type ``int`` refuses an ``int64``.  Template literals are ``int``,
Sprig arithmetic returns :class:`Int64`, ``--set`` integers are :class:`Int64`.  The
subclasses only tag the type: Python arithmetic on them yields a plain ``int``, so a
function returning a Go ``int64`` wraps its result explicitly (``Int64(x)``).
"""


class GoStruct(object):
    """A Go struct (or pointer to one) as seen by templates.

    ``GO_TYPE`` is the name Go's ``%T`` and error messages use (e.g.
    ``*chart.Metadata``).  ``GO_FIELDS`` lists the exported fields in declaration
    order; each is read with ``getattr(self, name)``.  Methods callable from
    templates (``.Files.Get``) are Python methods named exactly like the Go method
    and listed in ``GO_METHODS``.
    """

    GO_TYPE = "struct {}"
    GO_FIELDS = ()
    GO_METHODS = ()

    def go_field(self, name):
        """Return the field ``name``; raise ``KeyError`` when the struct has none."""
        if name in self.GO_FIELDS:
            return getattr(self, name)
        raise KeyError(name)

    def go_method(self, name):
        """Return the bound method ``name`` or ``None`` when there is none."""
        if name in self.GO_METHODS:
            return getattr(self, name)
        return None


class Int64(int):
    """A Go ``int64``."""
    __slots__ = ()
    GO_TYPE = "int64"


class Uint8(int):
    """A Go ``uint8`` (a byte: ``index`` of a string, elements of a ``[]byte``)."""
    __slots__ = ()
    GO_TYPE = "uint8"
    GO_UNSIGNED = True


class Uint64(int):
    """A Go ``uint64`` (the fields of a semver version)."""
    __slots__ = ()
    GO_TYPE = "uint64"
    GO_UNSIGNED = True


class IntSlice(list):
    """A Go ``[]int`` (``until``, ``untilStep``)."""
    __slots__ = ()
    GO_TYPE = "[]int"


class StringSlice(list):
    """A Go ``[]string`` (``splitList``, ``toStrings``, ``sortAlpha``, ``keys``)."""
    __slots__ = ()
    GO_TYPE = "[]string"


_INT_CLASSES = {"int": int, "int64": Int64, "uint8": Uint8, "uint64": Uint64}


def go_int_class(name):
    """The Python class standing for the Go integer type ``name`` (``int``, ``uint32``...)."""
    cls = _INT_CLASSES.get(name)
    if cls is None:
        attrs = {"__slots__": (), "GO_TYPE": name}
        if name.startswith("uint"):
            attrs["GO_UNSIGNED"] = True
        cls = _INT_CLASSES[name] = type(name.capitalize(), (int,), attrs)
    return cls


def go_type_name(value):
    """The Go type name of ``value`` as ``%T`` prints it."""
    t = getattr(value, "GO_TYPE", None)
    if t is not None:
        return t
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "[]uint8"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return type(value).__name__
