"""calculate_expression: arithmetic for personas (upstream's calculator), by a safe AST walker — never eval.

Numbers, `+ - * / // %`, `**` or `^` (power), `!` (factorial), parentheses, the constants pi / e /
tau and a few math functions. Full-width digits and `×` `÷` are read as their ASCII forms. Sizes
are bounded (exponents, factorials, digits) so no expression can hang the app.
"""

from __future__ import annotations

import ast
import math
import operator
import unicodedata
from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, ToolError, tool

MAX_LEN = 500
MAX_EXPONENT = 10_000
MAX_FACTORIAL = 1_000
MAX_DIGITS = 4_000
"""Digits of an integer result (Python prints at most 4,300 digits of an int)."""
MAX_BITS = int(MAX_DIGITS * 3.33)

Number = int | float

_BINOPS: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _factorial(x: Number) -> int:
    if float(x) != int(x) or x < 0:
        raise ToolError(f"階乗は 0 以上の整数にしか使えません ({x})。")
    if x > MAX_FACTORIAL:
        raise ToolError(f"階乗が大きすぎます ({int(x)}!、上限 {MAX_FACTORIAL}!)。")
    return math.factorial(int(x))


_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt, "abs": abs, "round": round, "floor": math.floor, "ceil": math.ceil,
    "exp": math.exp, "log": math.log, "log10": math.log10, "log2": math.log2,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "min": min, "max": max, "factorial": _factorial,
}


def _normalise(expression: str) -> str:
    text = unicodedata.normalize("NFKC", expression).replace("×", "*").replace("÷", "/").replace("^", "**")
    return _expand_factorial(text)


def _expand_factorial(text: str) -> str:
    """`5!` → `factorial(5)`, `(2+1)!` → `factorial((2+1))`, so `ast` can parse it."""
    while (bang := text.find("!")) >= 0:
        end = bang - 1
        while end >= 0 and text[end] == " ":
            end -= 1
        if end >= 0 and text[end] == ")":
            depth, start = 0, end
            while start >= 0:
                depth += {")": 1, "(": -1}.get(text[start], 0)
                if depth == 0:
                    break
                start -= 1
            while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
                start -= 1  # a function call's name belongs to the operand: sqrt(4)!
        else:
            start = end
            while start >= 0 and (text[start].isdigit() or text[start] == "."):
                start -= 1
            start += 1
        if start < 0 or start > end:
            raise ToolArgumentError(f"tool 'calculate_expression': '!' needs a number or (...) before it: {text!r}")
        text = f"{text[:start]}factorial({text[start:end + 1]}){text[bang + 1:]}"
    return text


def _check(value: Number) -> Number:
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        raise ToolError("結果が大きすぎるか、数として定まりません。")
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise ToolError(f"結果の桁数が多すぎます (上限およそ {MAX_DIGITS} 桁)。")
    return value


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left), _eval(node.right)
        too_big = abs(right) > MAX_EXPONENT or (
            isinstance(left, int) and right > 0 and left.bit_length() * right > MAX_BITS)
        if isinstance(node.op, ast.Pow) and abs(left) > 1 and too_big:
            raise ToolError(f"累乗の結果が大きすぎます (上限およそ {MAX_DIGITS} 桁)。")
        return _check(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        if node.keywords:
            raise ToolError(f"{node.func.id}() には名前付きの引数は使えません。")
        return _check(_FUNCTIONS[node.func.id](*(_eval(a) for a in node.args)))
    raise ToolError(f"計算式に使えないものが含まれています: {ast.unparse(node)!r}")


def calculate(expression: str) -> Number:
    """The value of an arithmetic expression (see the module docstring for what is allowed)."""
    if not expression.strip():
        raise ToolArgumentError("tool 'calculate_expression': expression is empty")
    if len(expression) > MAX_LEN:
        raise ToolArgumentError(f"tool 'calculate_expression': expression is longer than {MAX_LEN} characters")
    source = _normalise(expression)
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, RecursionError, MemoryError) as exc:
        raise ToolError(f"計算式を読めませんでした: {expression!r} ({getattr(exc, 'msg', exc)})") from exc
    try:
        value = _eval(tree.body)
    except ZeroDivisionError as exc:
        raise ToolError("0 で割ることはできません。") from exc
    except (ValueError, OverflowError, TypeError, RecursionError) as exc:
        raise ToolError(f"計算できませんでした: {expression!r} ({exc})") from exc
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


@tool("calculate_expression")
def calculate_expression(
    ctx: ToolContext,
    expression: Annotated[str, Field(description="Expression to evaluate, e.g. '(3+4)*2^3' or '5!'.")],
) -> Number:
    """Evaluate an arithmetic expression: + - * / // %, ^ or ** (power), ! (factorial), parentheses,
    pi, e, and sqrt/log/exp/sin/cos/tan/abs/round/floor/ceil/min/max.
    """
    return calculate(expression)
