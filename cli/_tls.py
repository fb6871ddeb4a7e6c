"""`python main.py tls make|status|clear`: https for the page, so a phone's browser lets call mode use its
microphone (README, "From a phone"; the checks and the certificate are saiverse/care/_tls.py).

`make` writes a self-signed certificate for this machine's names and addresses (and any `--name`) into
`<home>/tls/` and saves `tls_cert` / `tls_key` in settings.json, so the next `python main.py` serves https;
`clear` removes those two settings (the files stay); `status` says what the next start will serve.
"""

from __future__ import annotations

import argparse
import socket
from typing import Any

from cli._args import whole
from cli._frame import add_json, command, print_json, settings

SAID: dict[str, tuple[str, str]] = {
    "made": ("自己署名の証明書を作りました ({names}、{until} まで有効): {cert}\n"
             "次の `python main.py` から https で開きます。"
             "各端末のブラウザーが一度だけ警告するので、受け入れてください。",
             "Made a self-signed certificate ({names}; valid until {until}): {cert}\n"
             "The next `python main.py` serves https. Each device's browser warns once: accept the certificate there."),
    "overridden": ("ただし {env} が {where} で設定されているので、そちらが使われます。",
                   "But {env} is set in {where}, which wins over settings.json."),
    "cleared": ("https の設定を外しました (証明書のファイルは {folder} に残っています)。",
                "https is off (the certificate's files stay in {folder})."),
    "none": ("https は使っていません (http で開きます)。`python main.py tls make` で証明書を作れます。",
             "No certificate is set: the page is served over plain http. `python main.py tls make` makes one."),
    "on": ("https で開きます: {cert} ({names}、{until} まで有効{own})",
           "Serves https with {cert} ({names}; valid until {until}{own})"),
    "self_signed": ("、自己署名", ", self-signed"),
}


def register(sub: Any) -> None:
    """This module's command on the main parser."""
    p = command(sub, tls)
    p.add_argument("action", choices=["make", "status", "clear"])
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="make: another host name or address the certificate is for (repeatable)")
    p.add_argument("--days", type=whole(1, 3650), default=None, help="make: days it is valid (default 825)")
    add_json(p, "print one JSON object")


def machine_names() -> list[str]:
    """The names and addresses a device may reach this machine by: loopback, its name (and `.local`), its
    LAN addresses (ui/guard.py)."""
    from ui.guard import lan_addresses

    names = ["localhost", "127.0.0.1", "::1"]
    try:
        host = socket.gethostname().lower()
    except OSError:
        host = ""
    if host:
        names += [host, f"{host}.local"]
    return names + lan_addresses()


def tls(args: argparse.Namespace) -> int:
    """https for the page (a phone's microphone needs it): make a self-signed certificate, show or clear it"""
    from saiverse.care import TLS_DIR, make_certificate, tls_files
    from saiverse.settings import SettingsStore

    current = settings(args)
    lang = 1 if current.lang == "en" else 0
    said = {k: v[lang] for k, v in SAID.items()}
    if args.action == "make":
        kwargs = {"days": args.days} if args.days else {}
        made = make_certificate(current.home, machine_names() + args.name, lang=current.lang, **kwargs)
        store = SettingsStore(current)
        store.save({"tls_cert": f"{TLS_DIR}/{made.cert.name}", "tls_key": f"{TLS_DIR}/{made.key.name}"})
        text = said["made"].format(names=", ".join(made.names), until=made.not_after.date().isoformat(), cert=made.cert)
        for field, env in (("tls_cert", "SAIVERSE_TLS_CERT"), ("tls_key", "SAIVERSE_TLS_KEY")):
            source = current.source(field)
            if source.kind not in ("settings.json", "default"):
                text += "\n" + said["overridden"].format(env=env, where=source)
                break
        result: dict[str, Any] = {"ok": True, "cert": str(made.cert), "key": str(made.key), "names": list(made.names),
                                  "not_after": made.not_after.isoformat()}
    elif args.action == "clear":
        SettingsStore(current).save({"tls_cert": None, "tls_key": None})
        text, result = said["cleared"].format(folder=current.home / TLS_DIR), {"ok": True}
    else:
        files = tls_files(current)  # a broken pair is a TlsError: its one line, exit 2
        if files is None:
            text, result = said["none"], {"https": False}
        else:
            text = said["on"].format(cert=files.cert, names=", ".join(files.names),
                                     until=files.not_after.date().isoformat(),
                                     own=said["self_signed"] if files.self_signed else "")
            result = {"https": True, "cert": str(files.cert), "key": str(files.key), "names": list(files.names),
                      "not_after": files.not_after.isoformat(), "self_signed": files.self_signed}
    print_json(result) if args.json else print(text)
    return 0
