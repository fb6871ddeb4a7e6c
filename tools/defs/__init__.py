"""One module per tool; importing this package registers them all."""

from tools.defs import building_look, building_move, memory_recall, schedule  # noqa: F401
