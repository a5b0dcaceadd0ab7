"""How Go values are represented in Python, for every package of the renderer.

Every stage (YAML loading, values, the template executor, Sprig and Helm functions)
exchanges values in this one model, so each agrees with Go's type rules:

==========================  ==========================================
Go                          Python
==========================  ==========================================
nil                         ``None``
bool                        ``bool``
int, int64 (and other ints) ``int`` (``bool`` is never treated as int)
float64                     ``float``  (YAML/JSON numbers are float64)
string                      ``str``
[]byte                      ``bytes``
[]interface{}, []string     ``list``
map[string]interface{}      ``dict`` with ``str`` keys
struct / pointer to struct  a subclass of :class:`GoStruct`
==========================  ==========================================

The distinction between ``int`` and ``float`` is significant: Go prints float64
``1000000`` as ``1e+06`` and refuses ``eq`` between an int and a float64.
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


def go_type_name(value):
    """The Go type name of ``value`` as ``%T`` prints it."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "[]uint8"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, GoStruct):
        return value.GO_TYPE
    return type(value).__name__
