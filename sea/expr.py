"""Safe evaluation of `set` node expressions (`"={loop_count} + 1"`) — never `eval`.

The expression is parsed with `ast` and walked by a tiny interpreter that knows literals,
arithmetic, comparisons, boolean logic, `len/str/int/float/min/max/abs/round`, subscripts and
dotted variable references written as `{name}` or bare names. Anything else is refused.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from typing import Any

from sea.bounds import MAX_VALUE_CHARS, size_of
from sea.playbook import PlaybookError
from sea.templates import TEMPLATE, lookup

_MAX_LEN = 2000
_MAX_INT_BITS = 4096
MAX_DEPTH = 100
"""Deepest nesting of an expression (`-(-(-…))`, `[[[…]]]`): the interpreter walks it recursively."""

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_FUNCS: dict[str, Callable[..., Any]] = {
    "len": len, "str": str, "int": int, "float": float, "min": min, "max": max, "abs": abs,
    "round": round, "bool": bool,
}


class ExpressionError(ValueError):
    """An expression that is malformed, unsafe, or refers to a variable that is not set."""


class ExpressionTooLarge(ExpressionError):
    """An expression whose result would pass a bound of sea/bounds.py (text, a list, a number)."""


def _lookup(name: str, variables: dict[str, Any]) -> Any:
    try:
        return lookup(name, variables)
    except PlaybookError as exc:
        raise ExpressionError(f"variable {name!r} is not set") from exc


def referenced_names(expression: str) -> set[str]:
    """Top-level variable names an expression reads (for validation before running)."""
    body = expression[1:] if expression.startswith("=") else expression
    names = {m.group(1).split(".")[0] for m in TEMPLATE.finditer(body)}
    try:
        tree = ast.parse(TEMPLATE.sub(lambda m: "__v_" + m.group(1).replace(".", "__dot__"), body), mode="eval")
    except SyntaxError:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in _FUNCS and node.id not in ("True", "False", "None"):
            names.add(node.id[4:].split("__dot__")[0] if node.id.startswith("__v_") else node.id)
    return names


_ALLOWED = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
            ast.IfExp, ast.List, ast.Tuple, ast.Dict, ast.Subscript, ast.Call, ast.USub, ast.UAdd, ast.Not, ast.And,
            ast.Or, *_BINOPS, *_CMPOPS)


def syntax_problem(expression: str) -> str | None:
    """Why an expression can never run (it does not parse, or uses what the interpreter refuses), or None.

    Validation calls this, so a playbook with `"=1 +"` or `"=__import__('os')"` is refused on import,
    not half-way through a run."""
    body = expression[1:] if expression.startswith("=") else expression
    if len(body) > _MAX_LEN:
        return "expression is too long"
    source = TEMPLATE.sub(lambda m: "__v_" + m.group(1).replace(".", "__dot__"), body).strip()
    if not source:
        return "empty expression"
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        return f"cannot parse expression {body!r}: {exc.msg}"
    except (RecursionError, MemoryError):
        return f"expression is nested too deeply to read (at most {MAX_DEPTH} levels)"
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        return f"expression is nested {depth} levels deep; at most {MAX_DEPTH} are allowed"
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            return f"{type(node).__name__} is not allowed in expressions ({body!r})"
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                                               and not node.keywords):
            name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            return f"calling {name} is not allowed in expressions (only {', '.join(sorted(_FUNCS))})"
    reads_names = any(isinstance(n, ast.Name) and n.id not in _FUNCS and n.id not in ("True", "False", "None")
                      for n in ast.walk(tree))
    if not reads_names:
        # It reads no variable, so it makes the same value on every run: one that could never fit
        # (`str([[0] * 10000] * 10000)`) is refused now, not when a run reaches it. Evaluation is bounded.
        try:
            _Evaluator({}, {}).eval(tree.body)
        except ExpressionTooLarge as exc:
            return f"{exc} ({body[:60]!r})"
        except ExpressionError:
            pass  # e.g. a division by zero: an error the playbook may route with error_next
    return None


def evaluate(expression: str, variables: dict[str, Any]) -> Any:
    """Evaluate `expression` (with or without the leading `=`) against `variables`."""
    body = expression[1:] if expression.startswith("=") else expression
    if len(body) > _MAX_LEN:
        raise ExpressionError("expression is too long")
    refs: dict[str, Any] = {}

    def capture(m: re.Match[str]) -> str:
        key = f"__v{len(refs)}"
        refs[key] = _lookup(m.group(1), variables)
        return key

    source = TEMPLATE.sub(capture, body).strip()
    if not source:
        raise ExpressionError("empty expression")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse expression {body!r}: {exc.msg}") from exc
    except (RecursionError, MemoryError) as exc:
        raise ExpressionError(f"expression is nested too deeply to read (at most {MAX_DEPTH} levels)") from exc
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        raise ExpressionError(f"expression is nested {depth} levels deep; at most {MAX_DEPTH} are allowed")
    return _Evaluator(variables, refs).eval(tree.body)


def _depth(tree: ast.AST) -> int:
    """How deeply `tree` nests, counted without recursion (a parsed tree may be thousands deep)."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


class _Sizes:
    """Sizes (sea/bounds.py `size_of`) of the values one evaluation made or read, remembered by identity.

    `[[0] * 10000] * 10000` holds one inner list 10000 times: `len` says 10000, but `str()` of it, or
    comparing it, walks 10**8 elements. Every list, text and object an expression makes is therefore
    measured the way it unfolds, before it is made, from its parts' remembered sizes — so a value
    that would unfold past MAX_VALUE_CHARS is refused in time proportional to the expression."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, int]] = {}  # id → (the value, kept alive so ids stay unique; size)

    def of(self, value: Any) -> int:
        if isinstance(value, str):
            return len(value)
        if not isinstance(value, (list, dict, tuple)):
            return 8
        hit = self._known.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if isinstance(value, dict):
            size = 2 + len(value) + sum(self.of(k) + self.of(v) for k, v in value.items()) \
                if len(value) <= 64 else size_of(value, MAX_VALUE_CHARS)
        elif len(value) <= 64:
            size = 2 + len(value) + sum(self.of(v) for v in value)
        else:
            size = size_of(value, MAX_VALUE_CHARS)
        self._known[id(value)] = (value, size)
        return size

    def check(self, size: int) -> None:
        if size > MAX_VALUE_CHARS:
            raise ExpressionTooLarge(f"the result would hold {size:,} items or characters, more than a value "
                                     f"may ({MAX_VALUE_CHARS:,})")


class _Evaluator:
    """The tree walk of one evaluation; every value it makes is sized (`_Sizes`) before it is made."""

    def __init__(self, variables: dict[str, Any], refs: dict[str, Any]) -> None:
        self.variables, self.refs, self.sizes = variables, refs, _Sizes()

    def made(self, value: Any, size: int) -> Any:
        """Remember the size of a list or object this evaluation built (checked before building it)."""
        if isinstance(value, (list, dict)):
            self.sizes._known[id(value)] = (value, size)
        return value

    def growth(self, op: ast.operator, left: Any, right: Any) -> int | None:
        """The size `left op right` would unfold to, for `+`/`*` on text or lists (else None); refused
        past MAX_VALUE_CHARS before anything is made."""
        seqs = (str, list)
        if isinstance(op, ast.Mult) and (isinstance(left, seqs) or isinstance(right, seqs)):
            seq, count = (left, right) if isinstance(left, seqs) else (right, left)
            if not isinstance(count, int) or count > 10_000:
                raise ExpressionError("sequence repetition is limited to 10000")
            count = max(count, 0)
            size = len(seq) * count if isinstance(seq, str) else 2 + (self.sizes.of(seq) - 2) * count
        elif isinstance(op, ast.Add) and isinstance(left, seqs) and isinstance(right, seqs):
            size = self.sizes.of(left) + self.sizes.of(right)
        elif isinstance(op, ast.Mod) and isinstance(left, str):
            # `"%999999999d" % 1` makes a gigabyte; text formatting is not part of the language.
            raise ExpressionError("% on text (formatting) is not allowed in expressions; use + and str()")
        else:
            return None
        self.sizes.check(size)
        return size

    def eval(self, node: ast.AST) -> Any:  # noqa: C901 - one branch per node type
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.refs:
                return self.refs[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            return _lookup(node.id, self.variables)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = self.eval(node.left), self.eval(node.right)
            size = self.growth(node.op, left, right)
            try:
                result = _BINOPS[type(node.op)](left, right)
            except (TypeError, ZeroDivisionError) as exc:
                raise ExpressionError(str(exc)) from exc
            if isinstance(result, int) and result.bit_length() > _MAX_INT_BITS:
                raise ExpressionTooLarge(f"the result is a number with more than {_MAX_INT_BITS} bits")
            return self.made(result, size) if size is not None else result
        if isinstance(node, ast.UnaryOp):
            val = self.eval(node.operand)
            try:
                if isinstance(node.op, ast.USub):
                    return -val
                if isinstance(node.op, ast.UAdd):
                    return +val
            except TypeError as exc:
                raise ExpressionError(str(exc)) from exc
            if isinstance(node.op, ast.Not):
                return not val
        if isinstance(node, ast.BoolOp):
            vals = [self.eval(v) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Compare):
            left = self.eval(node.left)
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = self.eval(comp)
                if type(op) not in _CMPOPS:
                    break
                try:
                    if not _CMPOPS[type(op)](left, right):
                        return False
                except TypeError as exc:
                    raise ExpressionError(str(exc)) from exc
                left = right
            else:
                return True
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.eval(e) for e in node.elts]
            size = 2 + len(items) + sum(self.sizes.of(v) for v in items)
            self.sizes.check(size)
            return self.made(items, size)
        if isinstance(node, ast.Dict):
            pairs = [(self.eval(k), self.eval(v)) for k, v in zip(node.keys, node.values, strict=True)
                     if k is not None]
            size = 2 + len(pairs) + sum(self.sizes.of(k) + self.sizes.of(v) for k, v in pairs)
            self.sizes.check(size)
            try:
                return self.made(dict(pairs), size)
            except TypeError as exc:  # a list as a key
                raise ExpressionError(f"cannot make an object: {exc}") from exc
        if isinstance(node, ast.IfExp):
            return self.eval(node.body if self.eval(node.test) else node.orelse)
        if isinstance(node, ast.Subscript):
            container = self.eval(node.value)
            key = self.eval(node.slice)
            try:
                return container[key]
            except (KeyError, IndexError, TypeError) as exc:
                raise ExpressionError(f"cannot index: {exc}") from exc
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS \
                and not node.keywords:
            args = [self.eval(a) for a in node.args]
            try:
                return _FUNCS[node.func.id](*args)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ExpressionError(f"{node.func.id}(): {exc}") from exc
        raise ExpressionError(f"{type(node).__name__} is not allowed in expressions")
