"""Imports point one way: ui → saiverse → sea → tools → chat, database → portable, words (docs/ARCHITECTURE.md).

Read from the source with `ast`, so a back-edge fails here before it confuses anyone. An entry-point
block (`if __name__ == "__main__":`) is a program of its own and may import anything. And only
portable.py knows which operating system it runs on (test_only_portable_knows_the_operating_system).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = {"cli", "ui", "saiverse", "sea", "tools", "chat", "database", "main", "portable", "words"}
ALLOWED: dict[str, set[str]] = {
    "portable": set(),
    "words": {"words"},
    "chat": {"chat", "portable", "words"},
    "database": {"database", "portable", "words"},
    "tools": {"tools", "database", "chat", "portable", "words"},
    "sea": {"sea", "tools", "database", "chat", "portable", "words"},
    "saiverse": {"saiverse", "sea", "tools", "database", "chat", "portable", "words"},
    "ui": {"ui", "saiverse", "portable", "words"},
    "cli": {"cli", "ui", "saiverse", "sea", "database", "portable", "words"},
}
"""Layer → the first-party packages its modules may import."""


def _is_main_guard(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [n for n in tree.body if not _is_main_guard(n)]
    out: list[tuple[int, str]] = []
    for top in body:
        for node in ast.walk(top):
            if isinstance(node, ast.Import):
                out += [(node.lineno, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                out.append((node.lineno, node.module))
    return out


def _modules(layer: str) -> list[Path]:
    """The modules of a package folder, or the one module of a layer that is a single file."""
    single = ROOT / f"{layer}.py"
    return [single] if single.is_file() else sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_point_down(layer: str) -> None:
    bad = []
    for path in _modules(layer):
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in FIRST_PARTY and top not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def _imports_manager(path: Path) -> list[int]:
    lines = [line for line, module in _imports(path) if module == "saiverse.manager"]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines += [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "saiverse"
              and any(a.name == "manager" for a in n.names)]
    return lines


def test_only_entry_points_import_the_manager() -> None:
    """Services below the manager get the parts they use; only ui/, main.py and tests hold a manager."""
    bad = []
    for layer in ("saiverse", "sea", "tools", "chat", "database"):
        for path in _modules(layer):
            rel = path.relative_to(ROOT).as_posix()
            if rel in ("saiverse/manager.py", "saiverse/port.py"):
                continue  # port.py is ui/'s face of the domain: it hands ui the manager class itself
            bad += [f"{rel}:{line} imports saiverse.manager" for line in _imports_manager(path)]
    assert not bad, "modules below the manager import it (hand them their parts instead):\n" + "\n".join(bad)


PACKAGES_WITH_PRIVATE_PARTS = ("saiverse/world", "saiverse/memory", "saiverse/pulse", "saiverse/care",
                               "saiverse/llm/offline", "saiverse/llm/local", "cli")
"""Packages whose `_private` modules only they (and tests) import; others use the package's names."""
MAX_MODULE_LINES = 450
"""A module past this is several ideas; split it (docs/ARCHITECTURE.md, "Layers")."""
OVERSIZED = {"ui/app.py": 472}
"""Modules past the limit when this check came: they may shrink, never grow, and are split next."""


def test_nothing_imports_main() -> None:
    """main.py is the entry point only: nothing imports it (a circle back up the layers)."""
    bad = []
    for layer in sorted(ALLOWED):
        for path in _modules(layer):
            bad += [f"{path.relative_to(ROOT)}:{line}" for line, module in _imports(path)
                    if module.split(".")[0] == "main"]
    assert not bad, "modules import main:\n" + "\n".join(bad)


def test_private_parts_stay_inside_their_package() -> None:
    """`from saiverse.world._items import …` outside saiverse/world/ bypasses the package's public face."""
    bad = []
    for layer in sorted(ALLOWED):
        for path in _modules(layer):
            rel = path.relative_to(ROOT).as_posix()
            for line, module in _imports(path):
                parts = module.split(".")
                for i, part in enumerate(parts):
                    if part.startswith("_") and not part.startswith("__"):
                        owner = "/".join(parts[:i])
                        if owner in PACKAGES_WITH_PRIVATE_PARTS and not rel.startswith(owner + "/"):
                            bad.append(f"{rel}:{line} imports {module}")
                        break
    assert not bad, "private modules imported from outside their package:\n" + "\n".join(bad)


def test_modules_stay_small() -> None:
    big = []
    for layer in sorted(ALLOWED):
        for path in _modules(layer):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > OVERSIZED.get(path.relative_to(ROOT).as_posix(), MAX_MODULE_LINES):
                big.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not big, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(big)


def test_ui_reaches_the_domain_only_through_its_port() -> None:
    """ui/ imports from saiverse only saiverse.port (the typed port the manager implements)."""
    bad = []
    for path in _modules("ui"):
        bad += [f"{path.relative_to(ROOT)}:{line} imports {module}" for line, module in _imports(path)
                if module.split(".")[0] == "saiverse" and module != "saiverse.port"]
    assert not bad, "ui/ reaches past its port (add what it needs to saiverse/port.py):\n" + "\n".join(bad)


SUBPACKAGES = ("saiverse.world", "saiverse.memory", "saiverse.pulse", "saiverse.care", "saiverse.llm",
               "saiverse.importer")
"""Packages inside saiverse/ that are units of their own for the no-cycle rule; a module directly in
saiverse/ (manager, settings, errors, disk …) is a unit of its own too."""
KNOWN_MODULE_CYCLES: set[frozenset[str]] = set()
"""Circles between the modules of one package that are still tolerated (each a set its circle stays within).
None is left (issue 36 moved the shared pieces down); keep it so."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, dict[str, str]]:
    """module → {module it imports: `path:line`}, every import counted (inside functions and under
    TYPE_CHECKING too: a circle kept alive by a late import is still a circle); `from a import b` is
    module `a.b` when that is a module."""
    paths = {_module_name(p): p for layer in sorted(ALLOWED) for p in _modules(layer)}
    graph: dict[str, dict[str, str]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges = graph.setdefault(name, {})
        for node in (n for top in tree.body if not _is_main_guard(top) for n in ast.walk(top)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in paths else node.module
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.setdefault(target, f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    return graph


def _package_of(module: str) -> str:
    for sub in SUBPACKAGES:
        if module == sub or module.startswith(sub + "."):
            return sub
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "saiverse" and len(parts) > 1 else parts[0]


def _cycles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected parts of `graph` with more than one member (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _describe(part: list[str], graph: dict[str, dict[str, str]]) -> str:
    return "\n".join(f"  {a} → {b} ({where})" for a in part for b, where in sorted(graph.get(a, {}).items())
                     if b in part)


def test_no_circle_between_packages() -> None:
    """Packages (the layers, saiverse's subpackages, saiverse's own modules) import each other one way:
    a circle means a piece sits in the wrong package — move it below both (docs/ARCHITECTURE.md, "Layers")."""
    modules = _import_graph()
    packages: dict[str, dict[str, str]] = {}
    for module, edges in modules.items():
        mine = packages.setdefault(_package_of(module), {})
        for target, where in edges.items():
            if _package_of(target) != _package_of(module):
                mine.setdefault(_package_of(target), where)
    bad = [_describe(part, packages) for part in _cycles(packages)]
    assert not bad, "packages import each other in a circle:\n" + "\n\n".join(bad)


def test_no_new_circle_between_modules() -> None:
    """Inside a package too, modules import each other one way (a circle survives only by a late import)."""
    graph = _import_graph()
    bad = [_describe(part, graph) for part in _cycles(graph)
           if not any(set(part) <= known for known in KNOWN_MODULE_CYCLES)]
    assert not bad, "modules import each other in a circle:\n" + "\n\n".join(bad)


def test_the_circle_rule_sees_late_imports(tmp_path: Path) -> None:
    """A circle kept alive by an import inside a function or under TYPE_CHECKING is found too."""
    graph = {"a": {"b": "a.py:1"}, "b": {"c": "b.py:9 (in a function)"}, "c": {"a": "c.py:3 (TYPE_CHECKING)"},
             "d": {"a": "d.py:1"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    sample = ROOT / "saiverse" / "pulse" / "_journal.py"
    assert "saiverse.memory" in _import_graph()[_module_name(sample)]


def _class_bases() -> tuple[dict[str, ast.ClassDef], list[tuple[str, ast.ClassDef, list[str]]]]:
    """saiverse/'s classes by name, and each class with the names of its bases."""
    defined: dict[str, ast.ClassDef] = {}
    found: list[tuple[str, ast.ClassDef, list[str]]] = []
    for path in _modules("saiverse"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                defined.setdefault(node.name, node)
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                found.append((path.relative_to(ROOT).as_posix(), node, bases))
    return defined, found


def _provided_by_subclass(cls: ast.ClassDef) -> list[str]:
    """Attributes a class only declares (`name: T`, no value) — what a mixin expects its host to provide.
    Protocols, dataclasses and TypedDicts declare their fields so; they are not mixins."""
    if any(isinstance(d, ast.Name) and d.id == "dataclass" or isinstance(d, ast.Call) and
           getattr(d.func, "id", "") == "dataclass" for d in cls.decorator_list):
        return []
    if any(getattr(b, "id", getattr(b, "attr", "")) in ("Protocol", "TypedDict", "NamedTuple") for b in cls.bases):
        return []
    return [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and n.value is None
            and isinstance(n.target, ast.Name)]


def test_no_mixins_in_the_domain() -> None:
    """A class in saiverse/ is one module's: it is composed of services handed to it, never spread over
    files as mixins — no class has two of the domain's classes as bases, and no base class declares
    attributes its subclasses provide (docs/ARCHITECTURE.md, "Layers")."""
    defined, classes = _class_bases()
    bad = []
    for where, cls, bases in classes:
        ours = [b for b in bases if b in defined]
        if len(ours) > 1:
            bad.append(f"{where}:{cls.lineno} {cls.name} mixes {', '.join(ours)}")
        for base in ours:
            if provided := _provided_by_subclass(defined[base]):
                bad.append(f"{where}:{cls.lineno} {cls.name} provides {base}'s {', '.join(provided)}")
    assert not bad, "mixins in saiverse/ (hand a service its parts instead):\n" + "\n".join(bad)


SETTINGS_MODULE = "saiverse/settings.py"
ENVIRON_ALLOWED = {
    "saiverse/llm/local/_child.py": "hands its own environment on to the model's child process (plus one flag)",
    "ui/app.py": "sets GRADIO_ANALYTICS_ENABLED for Gradio before Gradio is imported: a write, read by Gradio",
}
"""Modules besides saiverse/settings.py that touch `os.environ`, each with the reason it is not a setting."""
ENVIRON_SCANNED = ("cli", "ui", "saiverse", "sea", "tools", "chat", "database", "main.py", "portable.py")


def _environ_uses(path: Path) -> list[str]:
    """Where `path` reads or writes the process environment: `os.environ`, `os.getenv`, `os.putenv`, or
    `environ`/`getenv` imported from os."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
                and node.attr in ("environ", "environb", "getenv", "putenv", "unsetenv")):
            found.append(f"{node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"{node.lineno}: from os import {a.name}" for a in node.names
                      if a.name in ("environ", "environb", "getenv", "putenv", "unsetenv")]
    return found


def test_settings_are_read_in_one_place() -> None:
    """Only saiverse/settings.py reads the environment (each variable an `Option`, with its precedence and
    message): a module reading `os.environ` itself skips `.env`, settings.json and `python main.py config`."""
    bad = []
    for name in ENVIRON_SCANNED:
        path = ROOT / name
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            rel = file.relative_to(ROOT).as_posix()
            if rel != SETTINGS_MODULE and rel not in ENVIRON_ALLOWED:
                bad += [f"{rel}:{use}" for use in _environ_uses(file)]
    assert not bad, "the environment read outside saiverse/settings.py (add an Option there):\n" + "\n".join(bad)
    stale = [rel for rel in ENVIRON_ALLOWED if not _environ_uses(ROOT / rel)]
    assert not stale, f"allowed to touch os.environ but no longer does (drop it from ENVIRON_ALLOWED): {stale}"


def test_the_settings_rule_sees_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom os import getenv\na = os.environ.get('X')\nb = os.getenv('Y')\n"
                      "os.environ['Z'] = '1'\n", encoding="utf-8")
    assert sorted(use.split(": ", 1)[1] for use in _environ_uses(sample)) == sorted([
        "from os import getenv", "os.environ", "os.getenv", "os.environ"])


PORTABLE = "portable.py"
"""The one module that may know the operating system (docs/ARCHITECTURE.md, "Layers")."""
SYSTEM_SCANNED = ("cli", "ui", "saiverse", "sea", "tools", "chat", "database", "benchmarks", "scripts", "main.py")
"""Everything the project runs. tests/ is not scanned: a test may kill a process with any signal."""
POSIX_ONLY_MODULES = {"fcntl", "termios", "tty", "pty", "resource", "pwd", "grp", "posix"}
WINDOWS_ONLY_MODULES = {"msvcrt", "winreg", "winsound", "_winapi", "nt"}
POSIX_ONLY_OS = {"fork", "forkpty", "kill", "killpg", "setsid", "setpgrp", "getpgid", "getuid", "geteuid",
                 "getgid", "getegid", "pread", "pwrite", "getloadavg", "sysconf", "O_NOFOLLOW", "O_NONBLOCK",
                 "O_DIRECTORY"}
"""`os` names missing on Windows, or (`kill` with signal 0) doing there what nobody means: ending the process.
`fchmod` is not here: database/clean_close.py calls it only where portable.POSIX_MODES says modes exist."""
SIGNALS_EVERYWHERE = {"SIGINT", "SIGTERM", "SIG_DFL", "SIG_IGN", "signal", "getsignal", "Signals", "default_int_handler"}
"""`signal` names that exist on every system; any other is optional (reach it through getattr)."""


def _system_files() -> list[Path]:
    out: list[Path] = []
    for name in SYSTEM_SCANNED:
        path = ROOT / name
        out += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return out


def _documentation(tree: ast.AST) -> set[int]:
    """ids of the string statements (module, class, function and attribute docstrings): prose, not paths."""
    return {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}


def _system_uses(path: Path) -> list[str]:
    """What in `path` only works on some systems: `line: what`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose, found = _documentation(tree), []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [f"{line}: imports {a.name}" for a in node.names
                      if a.name.split(".")[0] in POSIX_ONLY_MODULES | WINDOWS_ONLY_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top = node.module.split(".")[0]
            if top in POSIX_ONLY_MODULES | WINDOWS_ONLY_MODULES:
                found.append(f"{line}: imports from {node.module}")
            elif top == "os":
                found += [f"{line}: imports os.{a.name}" for a in node.names if a.name in POSIX_ONLY_OS]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "os" and node.attr in POSIX_ONLY_OS:
                found.append(f"{line}: os.{node.attr}")
            elif node.value.id == "signal" and node.attr not in SIGNALS_EVERYWHERE:
                found.append(f"{line}: signal.{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg == "preexec_fn":
            found.append(f"{line}: preexec_fn= (POSIX only)")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("get_context", "set_start_method") and node.args
              and isinstance(node.args[0], ast.Constant) and node.args[0].value in ("fork", "forkserver")):
            found.append(f"{line}: multiprocessing {node.args[0].value!r} (POSIX only; 'spawn' runs everywhere)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if node.value == "/proc" or node.value.startswith("/proc/"):
                found.append(f"{line}: reads {node.value!r} (Linux's /proc)")
    return found


def test_only_portable_knows_the_operating_system() -> None:
    """Users run SAIVerse on Windows and macOS too: POSIX-only modules, os names and /proc stay in portable.py."""
    bad = []
    for path in _system_files():
        bad += [f"{path.relative_to(ROOT).as_posix()}:{use}" for use in _system_uses(path)]
    assert not bad, ("code that works on some systems only; use portable.py (or psutil) instead:\n"
                     + "\n".join(bad))


def test_portable_imports_everywhere() -> None:
    """portable.py imports a system's own modules only inside the functions that run on that system."""
    tree = ast.parse((ROOT / PORTABLE).read_text(encoding="utf-8"))
    top_level: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top_level += [n for n in node.body if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            top_level.append(node)
    imported = {alias.name.split(".")[0] for stmt in top_level for n in ast.walk(stmt) if isinstance(n, ast.Import)
                for alias in n.names}
    imported |= {n.module.split(".")[0] for stmt in top_level for n in ast.walk(stmt)
                 if isinstance(n, ast.ImportFrom) and n.module}
    assert not imported & (POSIX_ONLY_MODULES | WINDOWS_ONLY_MODULES | {"ctypes", "psutil"})


def test_the_portability_rule_sees_what_it_names(tmp_path: Path) -> None:
    """The rule above is only as good as its reading: each kind it names is found in a sample."""
    sample = tmp_path / "sample.py"
    sample.write_text('"""A docstring may say /proc/self."""\nimport fcntl\nfrom os import fork\nimport os\nimport signal\n'
                      'import subprocess\nos.kill(1, 0)\nx = os.O_NOFOLLOW\ns = signal.SIGKILL\n'
                      'open(f"/proc/{os.getpid()}/statm")\nsubprocess.Popen(["x"], preexec_fn=None)\n'
                      'ok = (signal.SIGTERM, "a /proc in prose")\n'
                      'import multiprocessing\nmultiprocessing.get_context("fork")\n', encoding="utf-8")
    assert sorted(use.split(": ", 1)[1] for use in _system_uses(sample)) == sorted([
        "imports fcntl", "imports os.fork", "os.kill", "os.O_NOFOLLOW", "signal.SIGKILL",
        "reads '/proc/' (Linux's /proc)", "preexec_fn= (POSIX only)",
        "multiprocessing 'fork' (POSIX only; 'spawn' runs everywhere)"])


PROVIDER_NAMES = {"offline", "local", "gemini", "openai", "anthropic", "ollama", "lmstudio", "llamacpp", "scripted"}
"""The providers saiverse/llm/ implements (and the tests' ScriptedModel): names sea/ never decides on."""


def _provider_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _documentation(tree)
    return [f"{n.lineno}: {n.value!r}" for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in prose and n.value.lower() in PROVIDER_NAMES]


def test_sea_knows_no_provider() -> None:
    """sea/ runs playbooks on any `ChatModel`: what differs between models reaches it as a capability
    (`follows_instructions`, `ProductionPorts.draft_note`), never as a provider's name to compare with."""
    bad = [f"{p.relative_to(ROOT).as_posix()}:{use}" for p in _modules("sea") for use in _provider_strings(p)]
    assert not bad, "sea/ compares against a provider's name (pass a capability in instead):\n" + "\n".join(bad)


def test_the_provider_rule_sees_a_name(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Says offline in prose."""\nif model_name in ("offline", ""):\n    pass\n', encoding="utf-8")
    assert [use.split(": ", 1)[1] for use in _provider_strings(sample)] == ["'offline'"]
