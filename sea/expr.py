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

from sea.bounds import MAX_VALUE_CHARS
from sea.playbook import PlaybookError
from sea.templates import TEMPLATE, lookup

_MAX_LEN = 2000
_MAX_INT_BITS = 4096

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
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            return f"{type(node).__name__} is not allowed in expressions ({body!r})"
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                                               and not node.keywords):
            name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            return f"calling {name} is not allowed in expressions (only {', '.join(sorted(_FUNCS))})"
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
    return _eval(tree.body, variables, refs)


def _check_growth(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse `+` and `*` on text or lists whose result would pass MAX_VALUE_CHARS, before making it."""
    seqs = (str, list)
    if isinstance(op, ast.Mult) and (isinstance(left, seqs) or isinstance(right, seqs)):
        seq, count = (left, right) if isinstance(left, seqs) else (right, left)
        if not isinstance(count, int) or count > 10_000:
            raise ExpressionError("sequence repetition is limited to 10000")
        size = len(seq) * max(count, 0)
    elif isinstance(op, ast.Add) and isinstance(left, seqs) and isinstance(right, seqs):
        size = len(left) + len(right)
    else:
        return
    if size > MAX_VALUE_CHARS:
        raise ExpressionTooLarge(f"the result would hold {size:,} items or characters, more than a value may "
                              f"({MAX_VALUE_CHARS:,})")


def _eval(node: ast.AST, variables: dict[str, Any], refs: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in refs:
            return refs[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        return _lookup(node.id, variables)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left, variables, refs), _eval(node.right, variables, refs)
        _check_growth(node.op, left, right)
        try:
            result = _BINOPS[type(node.op)](left, right)
        except (TypeError, ZeroDivisionError) as exc:
            raise ExpressionError(str(exc)) from exc
        if isinstance(result, int) and result.bit_length() > _MAX_INT_BITS:
            raise ExpressionTooLarge(f"the result is a number with more than {_MAX_INT_BITS} bits")
        return result
    if isinstance(node, ast.UnaryOp):
        val = _eval(node.operand, variables, refs)
        if isinstance(node.op, ast.USub):
            return -val
        if isinstance(node.op, ast.UAdd):
            return +val
        if isinstance(node.op, ast.Not):
            return not val
    if isinstance(node, ast.BoolOp):
        vals = [_eval(v, variables, refs) for v in node.values]
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, variables, refs)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval(comp, variables, refs)
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
    if isinstance(node, ast.IfExp):
        branch = node.body if _eval(node.test, variables, refs) else node.orelse
        return _eval(branch, variables, refs)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(e, variables, refs) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _eval(k, variables, refs): _eval(v, variables, refs)
            for k, v in zip(node.keys, node.values, strict=True) if k is not None
        }
    if isinstance(node, ast.Subscript):
        container = _eval(node.value, variables, refs)
        key = _eval(node.slice, variables, refs)
        try:
            return container[key]
        except (KeyError, IndexError, TypeError) as exc:
            raise ExpressionError(f"cannot index: {exc}") from exc
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords:
        args = [_eval(a, variables, refs) for a in node.args]
        try:
            return _FUNCS[node.func.id](*args)
        except (TypeError, ValueError) as exc:
            raise ExpressionError(f"{node.func.id}(): {exc}") from exc
    raise ExpressionError(f"{type(node).__name__} is not allowed in expressions")
