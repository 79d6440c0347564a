#!/usr/bin/env python3
"""No function in src/ is longer than 80 lines (issue 29): every function body in
src/**/*.{cpp,h,js}, module-level wrappers and closures included, counted from the line of its
opening `{` to the line of its closing `}`.

A token scanner, not a parser: it skips comments, string and character literals, C++ raw strings,
preprocessor lines, JavaScript template literals (but scans their ${...} code) and regular
expression literals. A `{` is a function body when it follows a parameter list `)` (not that of
if/for/while/switch/catch), optionally with qualifiers (const, noexcept(...), override, mutable,
`-> T`) or a constructor's initialiser list; when it follows `=>` (JavaScript); or a C++ lambda's
capture list `]`. Exits 1 naming file:line: function for each one over the limit.

  check_function_length.py --root DIR [--limit 80] [--inject FILE.EXT:TEXT]   the check
  check_function_length.py --self-test                                        the scanner's own test
"""
import argparse
import pathlib
import sys

LIMIT = 80
CONTROL = {"if", "for", "while", "switch", "catch", "with", "return", "sizeof", "alignof", "decltype",
           "static_assert", "typeof", "await", "new", "delete", "throw"}
QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "constexpr", "&", "&&", "throw"}
JS_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "do", "else", "in", "of", "yield",
                                               "await", "void", "delete", "new", "instanceof", "=>", None}


class Token:
    __slots__ = ("text", "line")

    def __init__(self, text, line):
        self.text, self.line = text, line


def is_ident_char(c):
    return c.isalnum() or c in "_$"


class Lexer:
    """The significant tokens of a C++ or JavaScript source: identifiers, numbers and punctuation
    (strings, comments and the like become one placeholder token or nothing)."""

    PUNCT = ("->*", "...", "::", "->", "=>", "&&", "||", "==", "!=", "<=", ">=", "++", "--")

    def __init__(self, text, js):
        self.s, self.js, self.i, self.line = text, js, 0, 1
        self.tokens = []

    def emit(self, text, line):
        self.tokens.append(Token(text, line))

    def advance_to(self, j):
        self.line += self.s.count("\n", self.i, j)
        self.i = j

    def skip_quoted(self, quote):
        s, j = self.s, self.i + 1
        while j < len(s) and s[j] != quote:
            if s[j] == "\\":
                j += 1
            elif s[j] == "\n" and not self.js:
                break  # an unterminated literal: stop at the line's end
            j += 1
        self.advance_to(min(j + 1, len(s)))

    def skip_raw_string(self):
        # R"delim( ... )delim"
        s = self.s
        open_paren = s.index("(", self.i)
        delim = s[self.s.index('"', self.i) + 1:open_paren]
        end = s.find(")" + delim + '"', open_paren)
        self.advance_to(len(s) if end < 0 else end + len(delim) + 2)

    def skip_preprocessor(self):
        s, j = self.s, self.i
        while j < len(s):
            nl = s.find("\n", j)
            if nl < 0:
                j = len(s)
                break
            # A comment or a continuation may carry the directive onto the next line.
            line_text = s[j:nl]
            if line_text.rstrip().endswith("\\"):
                j = nl + 1
                continue
            j = nl
            break
        self.advance_to(j)

    def regex_allowed(self):
        prev = self.tokens[-1].text if self.tokens else None
        return prev in JS_REGEX_AFTER

    def skip_regex(self):
        s, j, in_class = self.s, self.i + 1, False
        while j < len(s) and s[j] != "\n":
            c = s[j]
            if c == "\\":
                j += 1
            elif c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                break
            j += 1
        j += 1
        while j < len(s) and is_ident_char(s[j]):
            j += 1  # flags
        self.advance_to(j)

    def template_literal(self, braces):
        """From a backtick (or the `}` ending a ${...}) to the closing backtick or the next ${."""
        s, j = self.s, self.i + 1
        while j < len(s):
            if s[j] == "\\":
                j += 2
                continue
            if s[j] == "`":
                self.advance_to(j + 1)
                self.emit("STR", self.line)
                return
            if s.startswith("${", j):
                self.advance_to(j + 2)
                self.emit("STR", self.line)
                braces.append("${")
                return
            j += 1
        self.advance_to(len(s))

    def at_line_start(self):
        k = self.i - 1
        while k >= 0 and self.s[k] in " \t":
            k -= 1
        return k < 0 or self.s[k] == "\n"

    def run(self):
        s = self.s
        braces = []  # "{" or "${" (JS): which kind of open brace a "}" closes
        while self.i < len(s):
            c = s[self.i]
            if c == "\n" or c in " \t\r\f\v":
                self.advance_to(self.i + 1)
            elif s.startswith("//", self.i):
                nl = s.find("\n", self.i)
                self.advance_to(len(s) if nl < 0 else nl)
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                self.advance_to(len(s) if end < 0 else end + 2)
            elif c == "#" and not self.js and self.at_line_start():
                self.skip_preprocessor()
            elif c in "\"'":
                if c == "'" and not self.js and self.i > 0 and s[self.i - 1].isalnum() and \
                        self.tokens and self.tokens[-1].text[:1].isdigit():
                    self.advance_to(self.i + 1)  # a digit separator: 1'000'000
                    continue
                line = self.line
                self.skip_quoted(c)
                self.emit("STR", line)
            elif c == "`" and self.js:
                self.template_literal(braces)
            elif c == "/" and self.js and self.regex_allowed():
                line = self.line
                self.skip_regex()
                self.emit("REGEX", line)
            elif is_ident_char(c):
                j = self.i
                while j < len(s) and (is_ident_char(s[j]) or (s[j] == "." and s[self.i].isdigit())):
                    j += 1
                word = s[self.i:j]
                if not self.js and j < len(s) and s[j] == '"' and word in ("R", "u8R", "uR", "UR", "LR"):
                    line = self.line
                    self.advance_to(j)
                    self.skip_raw_string()
                    self.emit("STR", line)
                elif not self.js and j < len(s) and s[j] in "\"'" and word in ("u8", "u", "U", "L"):
                    self.advance_to(j)  # a prefixed literal: the quote comes next
                else:
                    self.emit(word, self.line)
                    self.advance_to(j)
            elif c == "}" and self.js and braces and braces[-1] == "${":
                braces.pop()
                self.template_literal(braces)
            else:
                op = next((p for p in self.PUNCT if s.startswith(p, self.i)), c)
                if c == "{":
                    braces.append("{")
                elif c == "}" and braces:
                    braces.pop()
                self.emit(op, self.line)
                self.advance_to(self.i + len(op))
        return self.tokens


def match_forward(tokens, k, open_, close):
    depth = 0
    for j in range(k, len(tokens)):
        if tokens[j].text == open_:
            depth += 1
        elif tokens[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    return -1


def callee_name(tokens, k):
    """The qualified name before the `(` at k: Server::Impl::screen, operator(), ~Server."""
    j = k - 1
    if j >= 0 and tokens[j].text == ")" and j - 1 >= 0 and tokens[j - 1].text == "(" and \
            j - 2 >= 0 and tokens[j - 2].text == "operator":
        return "operator()", j - 3
    parts = []
    while j >= 0:
        t = tokens[j].text
        if j - 1 >= 0 and tokens[j - 1].text == "operator":
            parts.insert(0, "operator" + t)  # operator==, operator<
            j -= 2
        elif is_ident_char(t[0]) and not t[0].isdigit():
            parts.insert(0, t)
            j -= 1
            if j >= 0 and tokens[j].text == "~":
                parts.insert(0, "~")
                j -= 1
        else:
            break
        if j >= 0 and tokens[j].text == "::":
            parts.insert(0, "::")
            j -= 1
        else:
            break
    return "".join(parts), j


class Finder:
    """The functions of one token list: (name, first line, last line)."""

    def __init__(self, tokens, js):
        self.t, self.js = tokens, js
        self.pair = {}  # index of each (, { or [ -> index of its closing token
        stack = []
        for k, tok in enumerate(tokens):
            if tok.text in ("(", "{", "["):
                stack.append(k)
            elif tok.text in (")", "}", "]") and stack:
                self.pair[stack.pop()] = k
        self.opener = {close: open_ for open_, close in self.pair.items()}

    def closing(self, k):
        return self.pair.get(k, -1)

    def text(self, k):
        return self.t[k].text if 0 <= k < len(self.t) else None

    def skip_init_list(self, k):
        """From the `:` of a constructor's initialiser list to the `{` of its body, or -1."""
        k += 1
        while k < len(self.t):
            while self.text(k) and (is_ident_char(self.text(k)[0]) or self.text(k) in ("::", "<", ">", ",")):
                if self.text(k) == "<":
                    k = match_forward(self.t, k, "<", ">")
                    if k < 0:
                        return -1
                k += 1
            if self.text(k) not in ("(", "{"):
                return -1
            close = self.closing(k)
            if close < 0:
                return -1
            k = close + 1
            if self.text(k) == "{":
                return k
            if self.text(k) != ",":
                return -1
            k += 1
        return -1

    def body_after_params(self, k):
        """The `{` of a body that follows the parameter list closing at k, or -1."""
        k += 1
        while self.text(k) in QUALIFIERS or self.text(k) == "->":
            if self.text(k) in ("noexcept", "throw") and self.text(k + 1) == "(":
                k = self.closing(k + 1)
            elif self.text(k) == "->":
                k += 1
                while self.text(k) and self.text(k) not in ("{", ";", "=", ")"):
                    if self.text(k) == "(":
                        k = self.closing(k)
                    k += 1
                k -= 1
            k += 1
        if self.text(k) == "{":
            return k
        if self.js and self.text(k) == "=>" and self.text(k + 1) == "{":
            return k + 1
        if not self.js and self.text(k) == ":":
            return self.skip_init_list(k)
        return -1

    def name_before(self, k):
        """A readable name for the function whose parameters open at k."""
        name, _ = callee_name(self.t, k)
        if self.js and name == "function":
            return self.arrow_name(k - 1)  # const f = function (...) {
        return name or "(lambda)"

    def functions(self):
        out, bodies = [], set()  # a member initialiser's "(...) {" is its constructor's body: once
        for k, tok in enumerate(self.t):
            if tok.text != "(":
                continue
            close = self.closing(k)
            if close < 0:
                continue
            prev = self.text(k - 1)
            if prev == "constexpr" and self.text(k - 2) == "if":
                continue
            if prev in CONTROL:
                continue
            if not self.js and prev == "]":
                name = "(lambda)"
            elif prev is not None and is_ident_char(prev[0]) or \
                    (prev == ")" and self.text(k - 2) == "(" and self.text(k - 3) == "operator"):
                name = self.name_before(k)
            elif self.js:
                name = None  # an arrow's parameters: named below
            else:
                continue
            body = self.body_after_params(close)
            if body < 0:
                continue
            if self.js and self.text(body - 1) == "=>":
                name = self.arrow_name(k)
            elif name is None:
                continue
            if body not in bodies:
                bodies.add(body)
                out.append(self.span(name, body))
        out += self.bare_bodies()
        return out

    def arrow_name(self, k):
        j = k - 1
        if self.text(j) == "async":
            j -= 1
        if self.text(j) in ("=", ":") and self.text(j - 1) and is_ident_char(self.text(j - 1)[0]):
            return self.text(j - 1)
        return "(arrow)"

    def bare_bodies(self):
        """Bodies without a parameter list: JS `x => {` and C++ `[captures] {` lambdas."""
        out = []
        for k, tok in enumerate(self.t):
            if tok.text != "{":
                continue
            prev = self.text(k - 1)
            if self.js and prev == "=>" and self.text(k - 2) != ")":
                out.append(self.span(self.arrow_name(k - 2), k))
            elif not self.js and prev in ("]", "mutable"):
                j = k - 1 if prev == "]" else k - 2
                if self.text(j) != "]":
                    continue
                open_ = self.opener.get(j, -1)
                before = self.text(open_ - 1)
                if open_ >= 0 and (before is None or not (is_ident_char(before[0]) or before in (")", "]", "STR"))):
                    out.append(self.span("(lambda)", k))
        return out

    def span(self, name, body):
        end = self.closing(body)
        last = self.t[end].line if end >= 0 else self.t[-1].line
        return name, self.t[body].line, last


def measure(text, js):
    return Finder(Lexer(text, js).run(), js).functions()


def problems(root: pathlib.Path, limit, files=None):
    paths = files if files is not None else sorted(
        p for ext in ("cpp", "h", "js") for p in (root / "src").rglob(f"*.{ext}"))
    for path in paths:
        js = path.suffix == ".js"
        for name, first, last in measure(path.read_text(), js):
            n = last - first + 1
            if n > limit:
                yield f"{path.relative_to(root)}:{first}: {name}: {n} lines (at most {limit})"


def long_body(n):
    return "\n".join(f"  x += {i};" for i in range(n))


def self_test():
    """Fixture snippets with the functions they must yield: (name, lines)."""
    cases = [
        ("c++ function, namespace and class are not functions", False,
         "namespace a {\nclass B : public C {\n public:\n  int f(int x) const noexcept {\n    return x;\n  }\n};\n}\n",
         [("f", 3)]),
        ("braces in strings, chars, comments and raw strings", False,
         'void g() {\n  auto s = "}{";\n  char c = \'{\';\n  // }\n  /* } */\n  auto r = R"x(})x";\n}\n',
         [("g", 7)]),
        ("initialiser list and trailing return", False,
         "S::S(int a) : a_(a), b_{a} {\n  go();\n}\nauto h() -> std::vector<int> {\n  return {};\n}\n"
         "T::T() : Base(1), c_(2) {\n}\n",
         [("S::S", 3), ("h", 3), ("T::T", 2)]),
        ("control statements and brace-init are not functions", False,
         "int k() {\n  if (x) {\n  }\n  for (;;) {\n  }\n  std::vector<int> v{1, 2};\n  return T{};\n}\n",
         [("k", 8)]),
        ("c++ lambdas", False,
         "void m() {\n  auto f = [&](int a) mutable -> int {\n    return a;\n  };\n  auto g = [] {\n  };\n}\n",
         [("(lambda)", 3), ("(lambda)", 2), ("m", 7)]),
        ("preprocessor lines", False, "#define X() {\nvoid p() {\n}\n", [("p", 2)]),
        ("js functions, arrows, methods and wrappers", True,
         "(() => {\n  function f(a) {\n    return a;\n  }\n  const g = async (x) => {\n  };\n"
         "  const o = { m(y) {\n    return y;\n  } };\n  list.map(v => {\n  });\n})();\n",
         [("f", 3), ("g", 2), ("m", 3), ("(arrow)", 12), ("(arrow)", 2)]),
        ("js template literals and regular expressions", True,
         "function t() {\n  const s = `}${ {a: 1}.a }{`;\n  const r = /[}/]{/g;\n  if (a) {\n  }\n}\n",
         [("t", 6)]),
        ("an over-long function", True, "function long() {\n" + long_body(LIMIT) + "\n}\n", [("long", LIMIT + 2)]),
    ]
    failed = 0
    for title, js, text, want in cases:
        got = sorted((name, last - first + 1) for name, first, last in measure(text, js))
        if got != sorted(want):
            failed += 1
            print(f"FAIL self-test {title}: got {got}, want {sorted(want)}")
    print(f"function length self-test: {len(cases)} fixture(s), {failed} failure(s)")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root")
    ap.add_argument("--limit", type=int, default=LIMIT)
    ap.add_argument("--inject", help="NAME.EXT:TEXT, a source file checked as src/injected/NAME.EXT (the self-test)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.root:
        ap.error("--root is required")
    root = pathlib.Path(args.root)
    found = list(problems(root, args.limit))
    if args.inject:
        import tempfile
        name, _, text = args.inject.partition(":")
        with tempfile.TemporaryDirectory() as tmp:
            fake = pathlib.Path(tmp)
            path = fake / "src" / "injected" / name
            path.parent.mkdir(parents=True)
            path.write_text(text.replace("\\n", "\n"))
            found += list(problems(fake, args.limit, [path]))
    for p in found:
        print("FAIL", p)
    print(f"function length: {len(found)} function(s) over {args.limit} lines")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
