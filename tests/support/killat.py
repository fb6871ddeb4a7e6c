"""A child process for the deterministic kill tests: run one CLI command, SIGKILLed at a hook point.

Run as `python tests/support/killat.py before|after MODULE:NAME[#N] -- ARGV…`. It replaces the
function `NAME` of `MODULE` (a `Class.method` too) by one that kills this process with SIGKILL just
before (or just after) its N-th call (default the first), then runs `main.main(ARGV)`. So a kill
lands at exactly one point of a write path — between a commit and a rename, say — every time, which
a kill at a random moment (tests/reliability/test_kill_campaign.py) reaches only by luck.

`hold` instead of `before` makes the N-th call wait, not die, until the file named by
$SAIVERSE_TEST_RELEASE exists (it makes `<that file>.held` when the call is held): a pulse held at a
known point while the test looks at the others.
"""

from __future__ import annotations

import functools
import importlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _arm(when: str, spec: str) -> None:
    target, _, nth = spec.partition("#")
    module_name, _, attr = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = getattr(owner, name)
    calls = {"n": 0}
    limit = int(nth or 1)

    @functools.wraps(real)
    def hooked(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == limit and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        if calls["n"] == limit and when == "hold":
            release = Path(os.environ["SAIVERSE_TEST_RELEASE"])
            Path(f"{release}.held").touch()  # the test knows the call is held now
            for _ in range(6000):  # ten minutes at most: a forgotten release must not hang the suite
                if release.exists():
                    break
                time.sleep(0.1)
        result = real(*args, **kwargs)
        if calls["n"] == limit and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(owner, name, hooked)
    if not path:  # a module's function: modules that imported it by name (package faces import eagerly) hold it too
        for module in list(sys.modules.values()):
            for held, value in list(vars(module).items()) if module is not None else ():
                if value is real:
                    setattr(module, held, hooked)


def main() -> int:
    when, spec, sep, *argv = sys.argv[1:]
    assert when in ("before", "after", "hold") and sep == "--", sys.argv
    _arm(when, spec)
    import main as cli

    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
