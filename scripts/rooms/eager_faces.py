"""Issue 36, step "one way to export": turn a lazy package face (saiverse/_lazy.py's `_EXPORTS` table plus
its `TYPE_CHECKING` block) into an eager one — one `from <package>._part import …` per part and `__all__`.

Re-runnable after a merge: a face that has no `_EXPORTS` table any more is left as it is; a face another
branch changed (a name added to `_EXPORTS`) is converted with that name. Run from the repository root:

    python scripts/rooms/eager_faces.py && ruff check --fix saiverse && ruff format --check saiverse
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

FACES = ("saiverse/world", "saiverse/memory", "saiverse/pulse", "saiverse/care", "saiverse/llm/local",
         "saiverse/llm/offline", "saiverse/importer")


def convert(init: Path) -> bool:
    source = init.read_text(encoding="utf-8")
    tree = ast.parse(source)
    table = next((n for n in tree.body if isinstance(n, ast.AnnAssign | ast.Assign)
                  and "_EXPORTS" in ast.unparse(n.target if isinstance(n, ast.AnnAssign) else n.targets[0])), None)
    if table is None:
        return False
    exports: dict[str, str] = ast.literal_eval(table.value)
    package = ".".join(init.parent.relative_to(Path.cwd()).parts)
    doc = ast.get_docstring(tree, clean=False) or ""
    by_part: dict[str, list[str]] = {}
    for name, part in exports.items():
        by_part.setdefault(part, []).append(name)
    lines = [f'"""{doc}"""', "", "from __future__ import annotations", ""]
    for part in sorted(by_part):
        names = sorted(by_part[part], key=lambda n: (not n.isupper(), not n[:1].isupper(), n))
        line = f"from {package}.{part} import {', '.join(names)}"
        if len(line) > 120:
            line = f"from {package}.{part} import (\n" + "".join(f"    {n},\n" for n in names) + ")"
        lines.append(line)
    lines += ["", "__all__ = ["]
    lines += [f'    "{name}",' for name in sorted(exports)]
    lines += ["]", ""]
    init.write_text("\n".join(lines), encoding="utf-8")
    return True


def main() -> int:
    root = Path.cwd()
    for face in FACES:
        init = root / face / "__init__.py"
        print(f"{face}: {'eager now' if convert(init) else 'left (already eager)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
