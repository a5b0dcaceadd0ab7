"""Random Go templates and values for the generative differential test (no tests here).

A seeded grammar walk over what text/template offers (actions, pipelines, variables, if/else-if/with/
range with else, break/continue, define/template/block, trim markers, comments) and over builtins
called with values of every kind, so both engines meet the odd corners: comparisons across kinds,
index out of range, nil receivers, printf verbs on the wrong type.
"""
import random

# Sprig functions whose result does not depend on time, randomness or map iteration order. Left out for
# now: what makes Go's static types show (int64 from Sprig's math, []string from sortAlpha/toStrings/splitList,
# typeOf, %T, ranging over an integer), being brought to the engine separately (issue 10).
SPRIG = ["upper", "lower", "trim", "quote", "squote", "default", "empty", "coalesce", "toString", "b64enc", "list",
         "dict", "has", "ternary", "join", "repeat", "replace", "trunc", "kindOf", "toJson", "first",
         "last", "uniq", "compact", "nospace", "title", "contains", "hasPrefix", "hasSuffix", "cat", "indent",
         "nindent", "dig", "get", "hasKey", "pluck", "mustFirst"]
VERBS = ["%v", "%d", "%s", "%q", "%x", "%5.2f", "%t", "%03d", "%-4s|", "%+v", "%#v", "%e", "%g"]


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.vars = []
        self.depth = 0
        self.loop = 0
        self.rebound = 0  # inside range/with: dot is no longer the root (whose fields differ per harness)
        self.defined = []

    # ---- values -------------------------------------------------------------------------------
    def value(self, depth=0):
        r = self.rng.random()
        if depth < 3 and r < 0.2:
            return {self.key(): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}
        if depth < 3 and r < 0.35:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        return self.rng.choice([
            lambda: self.rng.randint(-3, 300),
            lambda: self.rng.choice([0.5, 1.0, -2.25, 1e21, 1e-7, 3.0]),
            lambda: self.rng.choice(["", "a", "abc", "héllo", "<b>&", " x ", "0", "true", "{{x}}", "a\"b", "%d"]),
            lambda: self.rng.choice([True, False]),
            lambda: None,
        ])()

    def key(self):
        # no YAML 1.1 boolean words ("n", "y", "on"...): Helm's values.yaml would read them as bool keys
        return self.rng.choice(["a", "b", "c", "name", "list", "map", "num", "s", "x1", "Items"])

    def values(self):
        out = {self.key(): self.value() for _ in range(self.rng.randint(2, 7))}
        out.setdefault("list", [self.value(2) for _ in range(3)])
        out.setdefault("map", {"k%d" % i: self.value(2) for i in range(3)})
        return out

    # ---- expressions --------------------------------------------------------------------------
    def field(self):
        path = ".Values"
        for _ in range(self.rng.randint(1, 2)):
            path += "." + self.key()
        return path

    def literal(self):
        return self.rng.choice(["0", "1", "-2", "3.5", '"x"', '"abc"', "`raw`", "true", "false", "nil", "'a'",
                                "0x1F", "1e3"])

    def operand(self):
        choices = [self.field, self.literal] + ([lambda: "."] if self.rebound else [])
        if self.vars:
            choices.append(lambda: self.rng.choice(self.vars))
        if self.depth < 3:
            choices.append(lambda: "(%s)" % self.call())
        return self.rng.choice(choices)()

    def call(self):
        self.depth += 1
        try:
            name = self.rng.choice(["len", "index", "printf", "print", "eq", "ne", "lt", "le", "gt", "ge", "and",
                                    "or", "not", "html", "js", "urlquery", "println"] + SPRIG)
            if name == "len":
                return "len %s" % self.operand()
            if name == "index":
                return "index %s %s" % (self.field(), " ".join(self.operand() for _ in range(self.rng.randint(0, 2))))
            if name == "printf":
                verbs = " ".join(self.rng.choice(VERBS) for _ in range(self.rng.randint(1, 3)))
                return 'printf "%s" %s' % (verbs, " ".join(self.operand() for _ in range(self.rng.randint(0, 3))))
            if name == "not":
                return "not %s" % self.operand()
            if name in ("eq", "ne", "lt", "le", "gt", "ge"):
                return "%s %s %s" % (name, self.operand(), " ".join(self.operand()
                                                                     for _ in range(1 if name != "eq" else self.rng.randint(1, 2))))
            return "%s %s" % (name, " ".join(self.operand() for _ in range(self.rng.randint(1, 3))))
        finally:
            self.depth -= 1

    def pipeline(self):
        head = self.rng.choice([self.operand, self.call])()
        for _ in range(self.rng.randint(0, 2)):
            head += " | %s" % self.rng.choice(["len", "print", "printf \"%v\"", "html", "js", "urlquery", "not",
                                               "println"])
        return head

    # ---- statements ---------------------------------------------------------------------------
    def open(self):
        return self.rng.choice(["{{", "{{", "{{- "])

    def close(self):
        return self.rng.choice(["}}", "}}", " -}}"])

    def text(self):
        return self.rng.choice(["x", " ", "\n", "a b\n", "  ", "-", ":\n  ", "\t"])

    def block(self, size):
        return "".join(self.statement() for _ in range(size))

    def statement(self):
        if self.depth > 2:
            return self.text()
        kind = self.rng.choices(["text", "action", "if", "range", "with", "assign", "comment", "template", "loopctl"],
                                [3, 5, 2, 2, 1, 1, 1, 1, 1])[0]
        o, c = self.open, self.close
        if kind == "text":
            return self.text()
        if kind == "action":
            return "%s%s%s" % (o(), self.pipeline(), c())
        if kind == "comment":
            return "%s/* note */%s" % (self.rng.choice(["{{", "{{- "]), self.rng.choice(["}}", " -}}"]))
        if kind == "assign":
            if self.vars and self.rng.random() < 0.3:
                return "%s%s = %s%s" % (o(), self.rng.choice(self.vars), self.pipeline(), c())
            name = "$v%d" % len(self.vars)
            out = "%s%s := %s%s" % (o(), name, self.pipeline(), c())
            self.vars.append(name)
            return out
        if kind == "loopctl":
            if self.loop:
                return "%s%s%s" % (o(), self.rng.choice(["break", "continue"]), c())
            return self.text()
        if kind == "template":
            if self.defined and self.rng.random() < 0.7:
                return '%stemplate "%s" %s%s' % (o(), self.rng.choice(self.defined), self.operand(), c())
            return '%sblock "blk" %s%s%s%send%s' % (o(), self.operand(), c(), self.text(), o(), c())
        self.depth += 1
        saved = list(self.vars)
        try:
            if kind == "range":
                header = self.rng.choice(["%s", "$i, $e := %s", "$e := %s"]) % self.rng.choice(
                    [self.field(), ".Values.list", ".Values.map", "(slice .Values.list 1)", self.field()])
                self.vars += [v for v in ("$i", "$e") if v in header]
                self.loop += 1
                self.rebound += 1
                body = self.block(self.rng.randint(1, 3))
                self.loop -= 1
                self.rebound -= 1
                self.vars = list(saved)  # the loop's variables are not set in its else branch
                tail = "%selse%s%s" % (o(), c(), self.block(1)) if self.rng.random() < 0.3 else ""
                return "%srange %s%s%s%s%send%s" % (o(), header, c(), body, tail, o(), c())
            head = "%s%s %s%s" % (o(), kind, self.pipeline(), c())
            self.rebound += kind == "with"
            body = self.block(self.rng.randint(1, 3))
            self.rebound -= kind == "with"
            tail = ""
            if self.rng.random() < 0.4:
                tail = "%selse%s%s" % (o(), c(), self.block(1))
            elif kind == "if" and self.rng.random() < 0.3:
                tail = "%selse if %s%s%s" % (o(), self.pipeline(), c(), self.block(1))
            return "%s%s%s%send%s" % (head, body, tail, o(), c())
        finally:
            self.depth -= 1
            self.vars = saved

    def template(self):
        """(template text, extra template files) for one case."""
        files = {}
        if self.rng.random() < 0.4:
            name = "helper%d" % self.rng.randint(0, 9)
            files["_helpers.tpl"] = '{{- define "%s" -}}%s{{- end -}}' % (name, self.block(2))
            self.defined.append(name)  # after its body: no template calls itself
        return self.block(self.rng.randint(2, 6)), files


def case(seed):
    """One generated case: (template, values, files), all from ``seed``."""
    gen = Generator(seed)
    values = gen.values()
    template, files = gen.template()
    return template, values, files
