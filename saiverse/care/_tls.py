"""https for the page (README, "From a phone"): the user's certificate and key, checked before the app starts.

A phone's browser gives a page the microphone only in a secure context, so call mode from a phone needs the
page served over https. `tls_cert` and `tls_key` (settings, SAIVERSE_TLS_CERT / SAIVERSE_TLS_KEY) name two PEM
files, anywhere the user keeps them; a relative path is under the data home. `tls_files` resolves and checks
them — both or neither, each a readable regular file, a certificate and an unencrypted key that belong together
(the stdlib's `ssl` loads the pair as the server will), not expired — and says what is wrong in one line, so
the app never starts on a pair the server would reject halfway through binding.

`make_certificate` is `python main.py tls make`: a self-signed certificate (ECDSA P-256, via `cryptography`)
for this machine's names and addresses, written to `<home>/tls/` (folder 0700, key 0600, each file whole or
not at all). A browser warns about it once; the user accepts it on each device. The key never goes into a
backup (saiverse/care/_backup.py archives the database, the item folders and settings.json only).
"""

from __future__ import annotations

import ipaddress
import os
import ssl
import stat
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from saiverse.errors import UserError

TLS_DIR = "tls"
"""Where `tls make` writes, under the data home."""
CERT_FILE, KEY_FILE = "cert.pem", "key.pem"
DEFAULT_DAYS = 825
"""How long a made certificate is valid: the longest Apple's devices accept for a server certificate."""

MESSAGES: dict[str, tuple[str, str]] = {
    "half": ("https には証明書と鍵の両方が要ります: {given} は設定されていますが {missing} がありません。",
             "https needs both a certificate and its key: {given} is set but {missing} is not."),
    "missing": ("{what} {path} がありません ({env})。パスを確かめるか、`python main.py tls make` で作ってください。",
                "The {what} {path} does not exist ({env}); check the path, or make one with "
                "`python main.py tls make`."),
    "not_file": ("{what} {path} は普通のファイルではありません ({env})。",
                 "The {what} {path} is not a regular file ({env})."),
    "unreadable": ("{what} {path} を読めません ({env}): {why}", "Cannot read the {what} {path} ({env}): {why}"),
    "not_cert": ("{path} は PEM 形式の証明書ではありません (SAIVERSE_TLS_CERT)。",
                 "{path} is not a PEM certificate (SAIVERSE_TLS_CERT)."),
    "not_key": ("{path} は PEM 形式の秘密鍵ではありません (SAIVERSE_TLS_KEY)。",
                "{path} is not a PEM private key (SAIVERSE_TLS_KEY)."),
    "encrypted": ("鍵 {path} はパスワードで暗号化されています。暗号化していない鍵を指定してください "
                  "(例: `openssl pkey -in {path} -out key.pem`)。",
                  "The key {path} is encrypted with a password; give an unencrypted key "
                  "(e.g. `openssl pkey -in {path} -out key.pem`)."),
    "mismatch": ("証明書 {cert} と鍵 {key} が組になっていません (別の鍵の証明書です)。",
                 "The certificate {cert} and the key {key} do not belong together (it is another key's certificate)."),
    "expired": ("証明書 {path} は {when} に期限が切れています。ブラウザーが拒みます: `python main.py tls make` "
                "で作り直してください。",
                "The certificate {path} expired on {when}; browsers refuse it. Make a new one with "
                "`python main.py tls make`."),
    "not_yet": ("証明書 {path} は {when} まで有効になりません (この機械の時計を確かめてください)。",
                "The certificate {path} is not valid before {when} (check this machine's clock)."),
    "bad_name": ("{name!r} は名前にも IP アドレスにもなりません。",
                 "{name!r} is neither a host name nor an IP address."),
}
"""Kind → (Japanese, English); `{…}` are filled from the error's values."""
_WHAT = {"cert": ("証明書", "certificate"), "key": ("鍵", "key")}
_ENV = {"cert": "SAIVERSE_TLS_CERT", "key": "SAIVERSE_TLS_KEY"}


class TlsError(UserError):
    """A certificate or key the app cannot serve https with, and why (`kind` is a key of MESSAGES)."""

    def __init__(self, kind: str, lang: str = "ja", **values: object) -> None:
        self.kind, self.values = kind, values
        ja, en = MESSAGES[kind]
        super().__init__((en if lang == "en" else ja).format(**values))


@dataclass(frozen=True)
class TlsFiles:
    """A checked certificate and key, and what the certificate says."""

    cert: Path
    key: Path
    names: tuple[str, ...]
    """The host names and addresses it is for (its subjectAltName)."""
    not_after: datetime
    self_signed: bool

    def launch_kwargs(self) -> dict[str, Any]:
        """Gradio's `launch` arguments that serve https with these files. Gradio checks its own address once
        it is up; that check must not refuse the page's own (possibly self-signed) certificate."""
        return {"ssl_certfile": str(self.cert), "ssl_keyfile": str(self.key), "ssl_verify": False}


def _resolve(home: Path, raw: str) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path(home) / path


def _read(kind: str, path: Path, lang: str) -> bytes:
    what = _WHAT[kind][1 if lang == "en" else 0]
    values = {"what": what, "path": path, "env": _ENV[kind]}
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise TlsError("missing", lang, **values) from None
    except OSError as exc:
        raise TlsError("unreadable", lang, **values, why=exc.strerror or exc) from exc
    if not stat.S_ISREG(mode):
        raise TlsError("not_file", lang, **values)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TlsError("unreadable", lang, **values, why=exc.strerror or exc) from exc


def tls_files(settings: Any) -> TlsFiles | None:
    """The certificate and key `settings` name, checked; None when neither is set (plain http).
    Raises TlsError saying what is wrong (the app does not start)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    lang = getattr(settings, "lang", "ja")
    raw_cert = (getattr(settings, "tls_cert", "") or "").strip()
    raw_key = (getattr(settings, "tls_key", "") or "").strip()
    if not raw_cert and not raw_key:
        return None
    if not raw_cert or not raw_key:
        given, missing = (_ENV["cert"], _ENV["key"]) if raw_cert else (_ENV["key"], _ENV["cert"])
        raise TlsError("half", lang, given=given, missing=missing)
    cert_path, key_path = _resolve(settings.home, raw_cert), _resolve(settings.home, raw_key)
    cert_pem, key_pem = _read("cert", cert_path, lang), _read("key", key_path, lang)
    try:
        cert = x509.load_pem_x509_certificate(cert_pem)
    except ValueError:
        raise TlsError("not_cert", lang, path=cert_path) from None
    try:
        serialization.load_pem_private_key(key_pem, password=None)
    except TypeError:  # "Password was not given but private key is encrypted"
        raise TlsError("encrypted", lang, path=key_path) from None
    except ValueError:
        raise TlsError("not_key", lang, path=key_path) from None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:  # what the server itself does with the pair: a key of another certificate is refused here
        context.load_cert_chain(cert_path, key_path, password=lambda: b"")
    except ssl.SSLError:
        raise TlsError("mismatch", lang, cert=cert_path, key=key_path) from None
    now = datetime.now(UTC)
    if cert.not_valid_after_utc < now:
        raise TlsError("expired", lang, path=cert_path, when=cert.not_valid_after_utc.date().isoformat())
    if cert.not_valid_before_utc > now + timedelta(minutes=5):
        raise TlsError("not_yet", lang, path=cert_path, when=cert.not_valid_before_utc.isoformat(timespec="minutes"))
    return TlsFiles(cert_path, key_path, _names(cert), cert.not_valid_after_utc, cert.issuer == cert.subject)


def _names(cert: Any) -> tuple[str, ...]:
    from cryptography import x509

    try:
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return ()
    return tuple(str(v) for v in alt.get_values_for_type(x509.DNSName)) + tuple(
        str(v) for v in alt.get_values_for_type(x509.IPAddress))


def make_certificate(home: Path, names: list[str], *, days: int = DEFAULT_DAYS, lang: str = "ja") -> TlsFiles:
    """A new self-signed certificate for `names` (host names and IP addresses) in `<home>/tls/`, replacing
    what was there; returns it checked. The key is written first and both whole (atomic, 0600)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    from saiverse.disk import atomic_write, private_folder

    alt: list[x509.GeneralName] = []
    for name in dict.fromkeys(n.strip().strip("[]") for n in names if n.strip()):
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            if not name.replace("-", "").replace(".", "").replace("_", "").isalnum():
                raise TlsError("bad_name", lang, name=name) from None
            alt.append(x509.DNSName(name.lower()))
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "SAIVerse"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "SAIVerse (self-signed)")])
    now = datetime.now(UTC) - timedelta(minutes=1)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    folder = private_folder(Path(home) / TLS_DIR)
    atomic_write(folder / KEY_FILE, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
    os.chmod(folder / KEY_FILE, 0o600)
    atomic_write(folder / CERT_FILE, cert.public_bytes(serialization.Encoding.PEM))
    return TlsFiles(folder / CERT_FILE, folder / KEY_FILE, _names(cert), cert.not_valid_after_utc, True)
