"""https for the page (saiverse/care/_tls.py, cli/_tls.py): `tls make` writes a self-signed pair the next start
serves; a missing, unreadable, half, foreign, encrypted or expired pair is refused in one line before anything
binds; and the real `python main.py` over https gives real Chromium, on a name that is not localhost, the
microphone (a phone's browser gives plain http none): 🎤's recording reaches a loopback Whisper server."""

from __future__ import annotations

import http.server
import os
import ssl
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cli._app import main
from saiverse.care import TlsError, make_certificate, tls_files
from saiverse.settings import Settings, load_settings
from tests.support.browser import MEDIA_ARGS, chromium, free_port, new_context, require_chromium, settle, shot
from tests.support.fakes_listen import TranscriptionServer, sox_wav
from tests.support.processes import stop_all, wait_serving

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "電話からも聞こえますか"
PASSWORD = "correct horse battery"


def _settings(home: Path, cert: str, key: str, lang: str = "en") -> Settings:
    return Settings(home=home, database_url="sqlite://", tls_cert=cert, tls_key=key, lang=lang)


def _refusal(home: Path, cert: str, key: str) -> TlsError:
    with pytest.raises(TlsError) as caught:
        tls_files(_settings(home, cert, key))
    return caught.value


def test_tls_make_writes_a_pair_the_settings_then_name(saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tls", "status"]) == 0
    assert "http" in capsys.readouterr().out
    assert main(["tls", "make", "--name", "mypc.lan"]) == 0
    said = capsys.readouterr().out
    assert "mypc.lan" in said and "127.0.0.1" in said
    settings = load_settings()
    assert (settings.tls_cert, settings.tls_key) == ("tls/cert.pem", "tls/key.pem")
    assert settings.source("tls_cert").kind == "settings.json"
    files = tls_files(settings)
    assert files is not None and files.self_signed
    assert {"localhost", "127.0.0.1", "::1", "mypc.lan"} <= set(files.names)
    assert files.not_after > datetime.now(UTC) + timedelta(days=800)
    assert (saiverse_home / "tls").stat().st_mode & 0o777 == 0o700
    assert (saiverse_home / "tls" / "key.pem").stat().st_mode & 0o777 == 0o600
    assert main(["tls", "status", "--json"]) == 0
    assert '"https": true' in capsys.readouterr().out
    assert main(["tls", "clear"]) == 0
    capsys.readouterr()
    assert tls_files(load_settings()) is None and (saiverse_home / "tls" / "cert.pem").is_file()


def test_a_pair_the_server_would_refuse_is_named(tmp_path: Path) -> None:
    home, other = tmp_path / "h", tmp_path / "other"
    make_certificate(home, ["localhost"])
    make_certificate(other, ["localhost"])
    assert _refusal(home, "tls/cert.pem", "").kind == "half"
    assert "SAIVERSE_TLS_KEY" in str(_refusal(home, "tls/cert.pem", ""))
    missing = _refusal(home, "nowhere.pem", "tls/key.pem")
    assert missing.kind == "missing" and str(home / "nowhere.pem") in str(missing) and "tls make" in str(missing)
    assert _refusal(home, "tls", "tls/key.pem").kind == "not_file"
    assert _refusal(home, "tls/key.pem", "tls/key.pem").kind == "not_cert"
    assert _refusal(home, "tls/cert.pem", "tls/cert.pem").kind == "not_key"
    foreign = _refusal(home, "tls/cert.pem", str(other / "tls" / "key.pem"))  # an absolute path: outside the home
    assert foreign.kind == "mismatch" and "do not belong together" in str(foreign)
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key((home / "tls" / "key.pem").read_bytes(), None)
    (home / "locked.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                        serialization.BestAvailableEncryption(b"secret")))
    assert _refusal(home, "tls/cert.pem", "locked.pem").kind == "encrypted"
    with pytest.raises(TlsError) as caught:
        tls_files(_settings(home, "tls/cert.pem", "missing-key.pem", lang="ja"))
    assert "がありません" in str(caught.value)


def test_an_expired_certificate_is_refused(tmp_path: Path) -> None:
    """A real certificate whose time is over (made here for the key `tls make` wrote): browsers refuse it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    make_certificate(tmp_path, ["localhost"])
    key = serialization.load_pem_private_key((tmp_path / "tls" / "key.pem").read_bytes(), None)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "old")])
    now = datetime.now(UTC)
    old = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())  # type: ignore[arg-type]
           .serial_number(1).not_valid_before(now - timedelta(days=10)).not_valid_after(now - timedelta(days=1))
           .sign(key, hashes.SHA256()))  # type: ignore[arg-type]
    (tmp_path / "old.pem").write_bytes(old.public_bytes(serialization.Encoding.PEM))
    refused = _refusal(tmp_path, "old.pem", "tls/key.pem")
    assert refused.kind == "expired" and (now - timedelta(days=1)).date().isoformat() in str(refused)


def test_main_py_refuses_a_foreign_key_before_it_binds(saiverse_home: Path, tmp_path: Path) -> None:
    make_certificate(saiverse_home, ["localhost"])
    make_certificate(tmp_path / "other", ["localhost"])
    port = free_port()
    env = {**os.environ, "SAIVERSE_TLS_CERT": "tls/cert.pem", "SAIVERSE_TLS_KEY": str(tmp_path / "other/tls/key.pem")}
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "--port", str(port)], env=env, capture_output=True,
                          text=True, timeout=120, cwd=str(tmp_path))
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("エラー: ") and "組になっていません" in line
    assert not (saiverse_home / "saiverse.db").exists()  # refused before the world was opened


class _PlainPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        body = b"<!doctype html><title>plain</title><p>plain http</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore:::gradio.queueing")
def test_the_page_over_https_has_the_microphone(saiverse_home: Path, tmp_path: Path) -> None:
    """As a phone reaches the app: bound to every address behind the login, by a name that is not localhost
    (Chromium maps phone.test to 127.0.0.1), logging in over https first."""
    from saiverse.care import set_login

    require_chromium()
    assert main(["tls", "make", "--name", "phone.test"]) == 0
    set_login(saiverse_home, PASSWORD)
    port = free_port()
    wav = sox_wav(tmp_path / "question.wav", speech=1.2, silence=2.4)
    plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PlainPage)
    threading.Thread(target=plain.serve_forever, daemon=True).start()
    with TranscriptionServer(text=QUESTION) as stt:
        env = {**os.environ, "SAIVERSE_ALLOWED_HOSTS": "phone.test", "SAIVERSE_STT_URL": stt.url}
        proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--host", "0.0.0.0", "--port", str(port)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
        try:
            trust = ssl.create_default_context(cafile=str(saiverse_home / "tls" / "cert.pem"))
            wait_serving(proc, f"https://127.0.0.1:{port}/", timeout=180, verify=trust,
                         output=lambda: proc.stderr.read())  # type: ignore[union-attr]
            with chromium(*MEDIA_ARGS, f"--use-file-for-fake-audio-capture={wav}", "--ignore-certificate-errors",
                          "--host-resolver-rules=MAP phone.test 127.0.0.1") as browser:
                context = browser.new_context()
                page = context.new_page()
                page.goto(f"http://phone.test:{plain.server_address[1]}/")
                assert page.evaluate("() => [window.isSecureContext, typeof navigator.mediaDevices]") == [
                    False, "undefined"]  # what plain http gives a page on a phone's address
                context.close()
                context = new_context(browser)
                page = context.new_page()
                page.goto(f"https://phone.test:{port}/")
                page.fill("#login-password", PASSWORD)  # a wider bind than loopback stays behind the login
                page.click("#login-submit")
                page.wait_for_selector("#item-list [data-item-id], #item-list .sv-empty", timeout=60_000)
                settle(page)
                assert page.evaluate("() => window.isSecureContext && !!navigator.mediaDevices.getUserMedia")
                page.click("#sv-mic")
                page.wait_for_function("(q) => (document.querySelector('#chat-input textarea') || {}).value === q",
                                       arg=QUESTION, timeout=60_000)
                shot(page, "tls_phone_https")
                context.close()
            (heard,) = stt.heard
            assert heard.form["file"].content_type == "audio/webm" and len(heard.form["file"].data) > 2000
        finally:
            plain.shutdown()
            stop_all([proc])
    printed = proc.stdout.read() if proc.stdout else ""
    assert f"SAIVerse: https://127.0.0.1:{port}/" in printed and "https://" in printed.split("open:")[1]
