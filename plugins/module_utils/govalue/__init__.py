"""Go's value semantics in Python: the one value model every stage of the renderer exchanges.

YAML loading (goyaml), chart values (chart), versions (semver), the template engine (gotemplate) and
the template functions (funcs) all build and read values of this model, so it sits below all of them
and imports none of them. One module per Go package it stands for:

- values.py: the model (each Go type and the Python class standing for it) and ``%T`` type names;
- strconv.py: FormatFloat (64 and 32 bits), Quote, ParseInt/ParseFloat and template number literals; unquote.py:
  strconv.Unquote for template string literals;
- fmt.py: ``fmt.Sprint``/``Sprintf`` and ``%v`` of every value;
- reflect.py: Kind, DeepEqual, emptiness; cast.py: spf13/cast's conversions Sprig uses;
- re2.py: Go regexp syntax (RE2) translated to Python ``re``;
- signature.py: a function's Go parameter types (``go_signature``), for the executor's argument checks.
"""
