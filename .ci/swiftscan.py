"""Reading Swift source for the .ci checks (check-test-sleeps, check-blocking).

Not a parser: a lexer that blanks comments and string literals (keeping the code of
interpolations), a tokenizer, and a brace walker that tells what each `{` opens (a type,
a function, initializer or accessor with its name and whether it is `async`, or a
closure or block with the call it is passed to). Good enough for the code of this
package; each check's self-test pins what it relies on. Python 3 standard library only.

Scripts in .ci import it by name (`python3 .ci/NAME` puts .ci on sys.path); they set
`sys.dont_write_bytecode` first, so no __pycache__ appears in the tree.
"""
import bisect
import os
import re


CODE_SKIP = re.compile(r'[^/"#()]*')
STRING_SKIP = re.compile(r'[^\\"\n]*')
OPENING = re.compile(r'(#*)("""|")')


def blank_comments_and_strings(source):
    """`source` with comment and string-literal characters turned into spaces (newlines
    kept, so offsets and lines stay); the code of string interpolations is kept, and the
    `\\(` and `)` around it are blanked (so parentheses stay balanced)."""
    out = list(source)
    n = len(source)

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    # Each frame: ["code", paren depth] or ["string", hashes, multiline].
    stack = [["code", 0]]
    i = 0
    while i < n:
        frame = stack[-1]
        if frame[0] == "code":
            skip = CODE_SKIP.match(source, i).end()  # nothing to do before the next / " # ( )
            if skip > i:
                i = skip
                continue
            if source.startswith("//", i):
                end = source.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
                continue
            if source.startswith("/*", i):  # Swift block comments nest
                depth, j = 1, i + 2
                while j < n and depth:
                    if source.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif source.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
                continue
            opening = OPENING.match(source[i:i + 12])
            if opening:
                stack.append(["string", len(opening.group(1)), opening.group(2) == '"""'])
                i += len(opening.group(0))
                continue
            c = source[i]
            if c == "(":
                frame[1] += 1
            elif c == ")":
                if frame[1] == 0 and len(stack) > 1:  # the end of an interpolation
                    stack.pop()
                    blank(i, i + 1)
                    i += 1
                    continue
                frame[1] -= 1
            i += 1
        else:
            skip = STRING_SKIP.match(source, i).end()  # plain characters of the literal
            if skip > i:
                blank(i, skip)
                i = skip
                continue
            _, hashes, multiline = frame
            escape = "\\" + "#" * hashes
            close = ('"""' if multiline else '"') + "#" * hashes
            if source.startswith(escape + "(", i):
                blank(i, i + len(escape) + 1)
                stack.append(["code", 0])
                i += len(escape) + 1
            elif source.startswith(escape, i):
                blank(i, min(n, i + len(escape) + 1))
                i += len(escape) + 1
            elif source.startswith(close, i):
                stack.pop()
                i += len(close)
            elif source[i] == "\n" and not multiline:
                stack.pop()  # an unterminated literal: recover at the line's end
                i += 1
            else:
                blank(i, i + 1)
                i += 1
    return "".join(out)


def swift_files(*roots):
    """The .swift files under `roots` (relative paths, sorted)."""
    return sorted(
        os.path.join(root, name)
        for top in roots
        for root, _, names in os.walk(top)
        for name in names
        if name.endswith(".swift")
    )


def line_of(code, offset):
    return code.count("\n", 0, offset) + 1


# ---------------------------------------------------------------------------- tokens

TOKEN = re.compile(r"""
    `[^`\n]+`                      # a backticked identifier
  | [#@]?[A-Za-z_][A-Za-z0-9_]*    # identifier, keyword, #directive, @attribute
  | \$[A-Za-z0-9_]+                # $0, $value
  | [0-9][0-9A-Za-z_]*             # a number (roughly)
  | ->
  | [=\-+*/%<>!&|^~?]+             # an operator
  | \S                             # anything else, one character: . , : ; ( ) [ ] { } "
""", re.X)

FUNC = re.compile(r"\bfunc\s+(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)")

# Words that start a declaration: a signature never contains them.
DECLARATION_WORDS = {
    "func", "var", "let", "init", "deinit", "subscript", "case", "typealias", "associatedtype",
    "struct", "enum", "extension", "protocol", "actor", "import", "static", "public", "private",
    "fileprivate", "internal", "open", "package", "mutating", "nonmutating", "override", "final",
    "convenience", "required", "lazy", "weak", "unowned", "nonisolated", "indirect", "return",
}
TYPE_WORDS = {"struct", "enum", "extension", "protocol", "actor", "class"}
ACCESSOR_WORDS = {"get", "set", "willSet", "didSet", "_read", "_modify", "unsafeAddress",
                  "unsafeMutableAddress"}
# After one of these a signature goes on on the next line; a line that starts with one
# of the second set goes on the line before.
CONTINUES_AFTER = {",", ":", "->", "&", ".", "(", "[", "<", "==", "where"}
CONTINUES_BEFORE = {"{", "->", "where", "async", "throws", "rethrows", "reasync", "&", ",", ".",
                    "==", ":", ")", "]"}


class Token:
    __slots__ = ("text", "start", "line")

    def __init__(self, text, start, line):
        self.text, self.start, self.line = text, start, line

    def __repr__(self):
        return f"{self.text!r}@{self.line}"


def tokenize(code):
    tokens = []
    line, last = 1, 0
    for m in TOKEN.finditer(code):
        line += code.count("\n", last, m.start())
        last = m.start()
        tokens.append(Token(m.group(0), m.start(), line))
    return tokens


def matching(tokens):
    """{index of an opening ( [ { : index of its closing one, and back}; tolerant of
    stray closers (an #if with a brace in each branch)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    match, stack = {}, []
    for i, token in enumerate(tokens):
        t = token.text
        if t in pairs:
            stack.append(i)
        elif t in (")", "]", "}"):
            while stack and pairs[tokens[stack[-1]].text] != t:
                stack.pop()
            if stack:
                j = stack.pop()
                match[i], match[j] = j, i
    return match


# ---------------------------------------------------------------------------- scopes

class Scope:
    """What one `{ … }` opens.

    kind: "type", "func", "init", "deinit", "subscript" (a getter or an accessor block),
    "getter" (a computed property's body), "accessors" (a property's block of accessors),
    "accessor" (get/set/…: `name` is the property's), "closure" (a `{` after an expression
    or a call: a closure or a block of a statement; `callee` says which call it is passed
    to, when any), or "top".
    """

    def __init__(self, kind, open_at, line, parent, name=None, is_async=False):
        self.kind = kind
        self.open = open_at        # offset of the `{`
        self.close = None          # offset of the `}`
        self.line = line
        self.parent = parent
        self.name = name
        self.is_async = is_async
        self.callee = None         # closures: the call's components, ["DispatchQueue", "global", "async"]
        self.label = None          # closures: the argument label when passed as `label: {`
        self.first_label = None    # closures: the first argument label of the call, `after` in schedule(after:)
        self.args = None           # closures: the call's arguments, as text

    @property
    def function_like(self):
        return self.kind in ("func", "init", "deinit", "subscript", "getter", "accessor")

    def enclosing(self, kinds):
        scope = self
        while scope is not None and scope.kind not in kinds:
            scope = scope.parent
        return scope

    def __repr__(self):
        return f"<{self.kind} {self.name or '.'.join(self.callee or [])} line {self.line}>"


class SwiftFile:
    """One Swift file: its source, blanked code, tokens and scopes."""

    def __init__(self, path, source):
        self.path = path
        self.source = source
        self.code = blank_comments_and_strings(source)
        self.lines = source.split("\n")
        self.tokens = tokenize(self.code)
        self.match = matching(self.tokens)
        self.starts = [t.start for t in self.tokens]
        self.top = Scope("top", -1, 0, None)
        self.top.close = len(self.code)
        self.scopes = []
        self.scope_of_token = []  # the innermost scope at each token
        self._walk()

    # -- helpers over tokens

    def text(self, i):
        return self.tokens[i].text if 0 <= i < len(self.tokens) else ""

    def token_at(self, offset):
        """Index of the token that starts at or before `offset`."""
        return bisect.bisect_right(self.starts, offset) - 1

    def line(self, offset):
        return line_of(self.code, offset)

    def scope_at(self, offset):
        """The innermost scope whose braces hold `offset` (a brace itself belongs to the
        scope around it)."""
        i = self.token_at(offset)
        if i < 0:
            return self.top
        scope = self.scope_of_token[i]
        if self.tokens[i].text == "}" and self.tokens[i].start == scope.close:
            scope = scope.parent
        return scope

    def enclosing_function(self, offset, kinds=("func",)):
        scope = self.scope_at(offset).enclosing(kinds)
        return scope.name if scope else None

    def chain_before(self, end):
        """The postfix expression that ends at token `end` (inclusive), read backwards:
        (index of its first token, [identifier components]). `DispatchQueue.global().async`
        gives ["DispatchQueue", "global", "async"]; generic arguments and calls are skipped."""
        i, names = end, []
        while i >= 0:
            t = self.text(i)
            if t in (")", "]") and i in self.match:
                i = self.match[i] - 1
                continue
            if t in ("?", "!"):
                i -= 1
                continue
            if t.endswith(">") and t.strip(">") == "" and i > 0:
                # generic arguments: Task<Void, Never> {, PerfThread<Void>.start {
                depth, j = 0, i
                while j >= 0:
                    depth += self.text(j).count(">") - self.text(j).count("<")
                    if depth <= 0:
                        break
                    j -= 1
                i = j - 1
                continue
            if re.fullmatch(r"`?[A-Za-z_][A-Za-z0-9_]*`?|\$[A-Za-z0-9_]+", t):
                names.insert(0, t.strip("`"))
                if self.text(i - 1) == ".":
                    i -= 2
                    continue
                return i, names
            if t == "." and names:  # an implicit member: .async(execute:)
                return i, names
            break
        return i + 1, names

    def awaited(self, at):
        """Whether the expression whose member call starts at token `at` is awaited:
        `await` (after `try`, `try?`, `try!`) stands before its postfix chain."""
        start, _ = self.chain_before(at)
        j = start - 1
        while self.text(j) in ("try", "?", "!"):
            j -= 1
        return self.text(j) == "await"

    def call_arguments(self, open_paren):
        """The top-level arguments of the call whose `(` is token `open_paren`, as text."""
        close = self.match.get(open_paren)
        if close is None:
            return []
        args, depth, begin = [], 0, self.tokens[open_paren].start + 1
        for k in range(open_paren + 1, close):
            t = self.text(k)
            if t in ("(", "[", "{"):
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
            elif t == "," and depth == 0:
                args.append(self.code[begin:self.tokens[k].start].strip())
                begin = self.tokens[k].start + 1
        last = self.code[begin:self.tokens[close].start].strip()
        if last or args:
            args.append(last)
        return args

    # -- the walk

    def _signature(self, k, needs_params=True, named=False):
        """From the declaration word at token k (`func`, `init`, `subscript`; with
        `needs_params` false, the name of a property before its `:`): (index of its body's
        `{` or None, async).
        Skips the name, generic parameters and the parameter list, then reads effects,
        result type and where clause up to the body."""
        i, n = k + (2 if named else 1), len(self.tokens)  # past the word (and a func's name)
        if needs_params:
            while i < n and self.text(i) != "(":
                if self.text(i) in ("{", "}", ";") or self.text(i) in DECLARATION_WORDS:
                    return None, False
                i += 1
            if i >= n or i not in self.match:
                return None, False
            i = self.match[i] + 1
        is_async, arrow = False, False
        previous = self.tokens[i - 1]
        while i < n:
            token = self.tokens[i]
            t = token.text
            if t == "{":
                return i, is_async
            if t in ("}", ";", "=") or t in DECLARATION_WORDS:
                return None, is_async
            if t[0] in "@#" and token.line > previous.line:
                return None, is_async
            if (token.line > previous.line and previous.text not in CONTINUES_AFTER
                    and t not in CONTINUES_BEFORE):
                return None, is_async
            if t == "->":
                arrow = True
            elif t == "async" and not arrow:
                is_async = True
            if t in ("(", "[") and i in self.match:
                i = self.match[i]
            previous = self.tokens[i]
            i += 1
        return None, is_async

    def _type_body(self, k):
        """From a type's word at token k (struct, class…): index of its body's `{`, or None."""
        nxt = self.text(k + 1)
        if not re.fullmatch(r"`?[A-Za-z_][A-Za-z0-9_]*`?", nxt) or nxt in DECLARATION_WORDS or nxt in (
                "class", "func", "var"):
            return None
        if self.text(k) == "actor" and self.text(k + 2) not in ("{", ":", "<", "where"):
            return None
        i = k + 2
        while i < len(self.tokens):
            t = self.text(i)
            if t == "{":
                return i
            if t in ("}", ";", "=") or t in DECLARATION_WORDS:
                return None
            if t in ("(", "[") and i in self.match:
                i = self.match[i]
            i += 1
        return None

    def _accessor_body(self, k):
        """From an accessor word (get, set…) at token k in a block of accessors: (index of
        its `{` or None, async)."""
        i = k + 1
        if self.text(i) == "(" and i in self.match:
            i = self.match[i] + 1
        is_async = False
        while self.text(i) in ("async", "throws", "rethrows", "("):
            if self.text(i) == "async":
                is_async = True
            if self.text(i) == "(" and i in self.match:
                i = self.match[i]
            i += 1
        return (i, is_async) if self.text(i) == "{" else (None, is_async)

    def _closure_head(self, scope, i, frames):
        """Fills in `scope.callee` (and label, first_label, args) for the `{` at token i."""
        j = i - 1
        t = self.text(j)
        paren = None
        if t == ")" and j in self.match:
            paren = self.match[j]
            _, names = self.chain_before(paren - 1)
        elif t == ":" and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.text(j - 1)) and frames and \
                self.text(frames[-1][0]) == "(":
            scope.label = self.text(j - 1)
            paren = frames[-1][0]
            _, names = self.chain_before(paren - 1)
        elif t in ("(", ",") and frames and self.text(frames[-1][0]) == "(":
            paren = frames[-1][0]
            _, names = self.chain_before(paren - 1)
        else:
            _, names = self.chain_before(j)
        scope.callee = names or None
        if paren is not None:
            scope.args = self.call_arguments(paren)
            first = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*:", scope.args[0]) if scope.args else None
            scope.first_label = first.group(1) if first else None

    def _walk(self):
        tokens = self.tokens
        bodies = {}       # index of a `{` -> (kind, name, async)
        frames = []       # (index of an open ( [ {, its Scope or None)
        current = self.top
        for i, token in enumerate(tokens):
            self.scope_of_token.append(current)
            t = token.text
            before = self.text(i - 1)
            if t == "func" and before != ".":
                body, is_async = self._signature(i, named=True)
                if body is not None:
                    m = FUNC.match(self.code, token.start)
                    bodies[body] = ("func", m.group(1).strip("`") if m else "?", is_async)
            elif t == "init" and before != "." and self.text(i + 1) in ("(", "?", "!", "<") \
                    and current.kind != "accessors":
                body, is_async = self._signature(i)
                if body is not None:
                    bodies[body] = ("init", "init", is_async)
            elif t == "deinit" and self.text(i + 1) == "{":
                bodies[i + 1] = ("deinit", "deinit", False)
            elif t == "subscript" and before != "." and self.text(i + 1) in ("(", "<"):
                body, is_async = self._signature(i)
                if body is not None:
                    bodies[body] = ("subscript", "subscript", is_async)
            elif t == "var" and before != "." and re.fullmatch(r"`?[A-Za-z_][A-Za-z0-9_]*`?", self.text(i + 1)) \
                    and self.text(i + 2) == ":":
                body, _ = self._signature(i + 2, needs_params=False)
                if body is not None:
                    bodies[body] = ("property", self.text(i + 1).strip("`"), False)
            elif t in TYPE_WORDS and before != ".":
                body = self._type_body(i)
                if body is not None:
                    bodies[body] = ("type", self.text(i + 1).strip("`"), False)
            elif t in ACCESSOR_WORDS and current.kind == "accessors" and frames and frames[-1][1] is current:
                body, is_async = self._accessor_body(i)
                if body is not None:
                    bodies[body] = ("accessor", current.name, is_async)

            if t in ("(", "["):
                frames.append((i, None))
            elif t in (")", "]"):
                while frames and self.text(frames[-1][0]) != {")": "(", "]": "["}[t]:
                    frames.pop()
                if frames:
                    frames.pop()
            elif t == "{":
                if i in bodies:
                    kind, name, is_async = bodies[i]
                    if kind in ("property", "subscript"):
                        first = self.text(i + 1)
                        if first in ACCESSOR_WORDS or first in ("mutating", "nonmutating") or first.startswith("@"):
                            kind = "accessors"
                        elif kind == "property":
                            kind = "getter"
                    scope = Scope(kind, token.start, token.line, current, name, is_async)
                else:
                    scope = Scope("closure", token.start, token.line, current)
                    self._closure_head(scope, i, frames)
                self.scopes.append(scope)
                frames.append((i, scope))
                current = scope
            elif t == "}":
                while frames and frames[-1][1] is None:
                    frames.pop()
                if frames:
                    _, scope = frames.pop()
                    scope.close = token.start
                    current = scope.parent
                    # the scope of the nearest open brace
                    for _, open_scope in reversed(frames):
                        if open_scope is not None:
                            current = open_scope
                            break
                    else:
                        current = self.top
