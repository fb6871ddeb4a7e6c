"""Other sites and strangers against the real app (issue 34; ui/web_guard.py): real Gradio on 127.0.0.1,
real HTTP (httpx), clients on other loopback addresses (127.0.0.2, …) standing for other machines.

- a state-changing request whose Origin (or Referer) is another site's — an upload, the login form, a
  JSON call with the cookie — gets 403; the app's own page and clients that name no origin pass;
- before the login nothing but the login page and its assets answers: no `/openapi.json`, no
  heartbeat stream, and the page itself carries no `gradio_api_info`;
- wrong passwords lock out their own address, not the owner's; from everywhere together they slow;
- a call of a function the app does not have is a 4xx and one log line, not a 500 with a traceback.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest

from saiverse.care import set_login
from tests.support.served import PASSWORD, served

EVIL = "http://evil.example"


def _client(url: str, source: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30, transport=httpx.HTTPTransport(local_address=source))


def test_other_sites_cannot_post(saiverse_home: Path) -> None:
    with served(saiverse_home) as (url, _manager), _client(url) as client:
        files = {"files": ("x.txt", b"hello", "text/plain")}
        assert client.post("/gradio_api/upload", files=files, headers={"Origin": EVIL}).status_code == 403
        assert client.post("/gradio_api/upload", files=files, headers={"Origin": "null"}).status_code == 403
        assert client.post("/gradio_api/upload", files=files,
                           headers={"Referer": f"{EVIL}/page.html"}).status_code == 403
        call = {"fn_index": 0, "data": [], "session_hash": "abc"}
        assert client.post("/gradio_api/queue/join", json=call, headers={"Origin": EVIL}).status_code == 403
        assert client.post("/gradio_api/queue/join", json=call,  # another port of this machine is another site
                           headers={"Origin": url.rsplit(":", 1)[0] + ":1"}).status_code == 403
        assert client.post("/login", data={"username": "x", "password": "y"},
                           headers={"Origin": EVIL}).status_code == 403
        # The app's own page, and a client that names no origin at all (not a browser's cross-site request).
        assert client.post("/gradio_api/upload", files=files, headers={"Origin": url}).status_code == 200
        assert client.post("/gradio_api/upload", files=files,
                           headers={"Referer": f"{url}/?view=chat"}).status_code == 200
        assert client.post("/gradio_api/upload", files=files).status_code == 200
        assert client.get("/config", headers={"Origin": EVIL}).status_code == 200  # reading changes nothing


def test_before_the_login_only_the_login_page_answers(saiverse_home: Path) -> None:
    set_login(saiverse_home, PASSWORD, "mika")
    with served(saiverse_home, login_required=True) as (url, _manager), _client(url) as client:
        page = client.get("/")
        # SAIVerse's own login page (ui/login_page.py), none of Gradio's config or API in it.
        assert page.status_code == 200 and 'id="login-password"' in page.text and "gradio_" not in page.text
        assert "library" not in page.text and "meta_user" not in page.text  # no building ids, no playbooks
        assert client.get("/theme.css").status_code == 200
        started = time.monotonic()
        for path in ("/openapi.json", "/docs", "/gradio_api/info", "/gradio_api/heartbeat/anything", "/config",
                     "/gradio_api/queue/data?session_hash=x", "/gradio_api/upload_progress?upload_id=x"):
            assert client.get(path).status_code == 401, path
        assert time.monotonic() - started < 10  # the heartbeat is no endless stream
        assert client.post("/gradio_api/upload", files={"files": ("x.txt", b"x")}).status_code == 401
        assert client.post("/login", data={"username": "mika", "password": PASSWORD}).status_code == 200
        assert client.get("/config").status_code == 200
        assert "window.gradio_api_info = {" in client.get("/").text  # the logged-in page is Gradio's, whole


def test_wrong_passwords_lock_their_own_address_only(saiverse_home: Path) -> None:
    from saiverse.care._login import MAX_FAILURES

    set_login(saiverse_home, PASSWORD, "mika")
    with served(saiverse_home, login_required=True) as (url, _manager):
        with _client(url, "127.0.0.2") as stranger:
            for _ in range(MAX_FAILURES + 2):
                assert stranger.post("/login", data={"username": "mika", "password": "guess"}).status_code == 400
            assert stranger.post("/login", data={"username": "mika", "password": PASSWORD}).status_code == 400
        with _client(url) as owner:
            assert owner.post("/login", data={"username": "mika", "password": PASSWORD}).status_code == 200


def test_guesses_from_everywhere_slow_down_but_never_lock_the_owner() -> None:
    from saiverse.care._login import GLOBAL_CEILING, LOGIN_CLIENT, MAX_FAILURES, SLOW_SECONDS, Gate, Login, _hash

    login = Login("mika", b"salt" * 4, _hash(PASSWORD, b"salt" * 4))
    gate = Gate(login)
    for n in range(GLOBAL_CEILING):  # a botnet: few guesses from each address, never locking one
        token = LOGIN_CLIENT.set(f"10.0.{n // 250}.{n % 250}")
        try:
            assert not gate("mika", "guess")
        finally:
            LOGIN_CLIENT.reset(token)
    assert GLOBAL_CEILING // 250 < MAX_FAILURES and gate.slowdown() == SLOW_SECONDS
    token = LOGIN_CLIENT.set("192.168.1.5")
    try:
        assert gate("mika", PASSWORD)  # slowed, not locked
    finally:
        LOGIN_CLIENT.reset(token)


def test_a_bogus_function_index_is_a_client_error_and_one_line(saiverse_home: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with served(saiverse_home) as (url, _manager), _client(url) as client:
        with caplog.at_level(logging.WARNING):
            for bogus in (99999, -1, "x", [1], True):
                r = client.post("/gradio_api/queue/join", json={"fn_index": bogus, "data": [], "session_hash": "s"})
                assert r.status_code == 422, (bogus, r.status_code, r.text[:200])
        assert "Traceback" not in caplog.text
        assert len([r for r in caplog.records if "fn_index" in r.getMessage()]) == 5
