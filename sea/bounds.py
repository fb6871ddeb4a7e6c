"""Bounds on what one playbook run may hold: each value, the whole state, and how many nodes it runs.

A playbook is data a user may import, so a `set` that doubles a string in a loop, or a loop that
never ends, must stop with a message naming the playbook, the node and the bound — long before it
costs gigabytes or hours. Sizes are counted in characters of text (numbers and the structure of
lists and objects count a few each), without building a JSON copy of the state.
"""

from __future__ import annotations

from typing import Any

from sea.playbook import PlaybookError

MAX_VALUE_CHARS = 1_000_000
"""Largest single variable (about 1 MB of text)."""
MAX_STATE_CHARS = 8_000_000
"""Largest sum of a run's variables (about 8 MB of text)."""
MAX_PULSE_STEPS = 2_000
"""Most nodes one pulse may run, its called playbooks included."""
MAX_GRAPH_STEPS = 200
"""Most nodes one playbook run may take (LangGraph's recursion limit per compiled graph)."""


class StateTooLarge(PlaybookError):
    """A variable or the whole state of a run grew past its bound."""

    kind = "state_too_large"


class TooManySteps(PlaybookError):
    """A run took more nodes than its bound (a loop that does not end)."""

    kind = "too_many_steps"


def size_of(value: Any, budget: int) -> int:
    """Characters `value` holds, counted until `budget` is passed (then any number above it)."""
    total = 0
    stack = [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += 2 + len(item)
            for key, sub in item.items():
                total += len(key) if isinstance(key, str) else 8
                stack.append(sub)
        elif isinstance(item, list | tuple | set):
            total += 2 + len(item)
            stack.extend(item)
        else:
            total += 8
    return total


def check_value(value: Any, *, playbook: str, node: str, name: str) -> None:
    """Refuse one value larger than MAX_VALUE_CHARS."""
    size = size_of(value, MAX_VALUE_CHARS)
    if size > MAX_VALUE_CHARS:
        raise StateTooLarge(
            f"variable {name!r} grew past {MAX_VALUE_CHARS:,} characters (a value may hold at most that); "
            "a loop that keeps making it longer?", playbook=playbook, node=node, field=name)


def check_state(variables: dict[str, Any], *, playbook: str, node: str, changed: dict[str, Any]) -> None:
    """After a node: each changed value within MAX_VALUE_CHARS, all of them within MAX_STATE_CHARS."""
    for name, value in changed.items():
        check_value(value, playbook=playbook, node=node, name=name)
    if not changed:
        return
    total = size_of(variables, MAX_STATE_CHARS)
    if total > MAX_STATE_CHARS:
        raise StateTooLarge(
            f"the run's variables grew past {MAX_STATE_CHARS:,} characters together; a loop that keeps "
            "adding to them?", playbook=playbook, node=node)


def check_steps(steps: int, *, playbook: str, node: str) -> None:
    """Refuse the node after MAX_PULSE_STEPS in one pulse."""
    if steps > MAX_PULSE_STEPS:
        raise TooManySteps(
            f"the pulse ran more than {MAX_PULSE_STEPS:,} nodes; a loop that never ends?",
            playbook=playbook, node=node)
