"""Upstream tools that need an outside service: registered with upstream's arguments, unavailable here.

A playbook naming one still loads; calling it fails with the message below (which service it needs).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolUnavailableError, tool

SEARXNG = "SearXNG 検索サーバーが必要です (この環境には Web 検索サービスがありません)。"
WEB = "Web ページを取得するインターネット接続サービスが必要です (この環境はオフラインで動きます)。"
MAIL = "メール送信サーバー (SMTP) が必要です (この環境にはメールの設定がありません)。"
X_API = "X (旧 Twitter) の API アカウントが必要です (この環境では X に接続しません)。"


def unavailable(fn_name: str, message: str) -> Any:
    """What a direct call of an unavailable tool's function does (call_tool refuses it before this)."""
    raise ToolUnavailableError(f"tool {fn_name!r} is not available here: {message}")


@tool("searxng_search", unavailable=SEARXNG)
def searxng_search(
    ctx: ToolContext, query: str,
    max_results: Annotated[int | None, Field(ge=1, le=20)] = None, engines: str | None = None,
    language: str | None = None, safe: Annotated[int | None, Field(ge=0, le=2)] = None,
) -> str:
    """Search the web through a SearXNG server."""
    return unavailable("searxng_search", SEARXNG)


@tool("read_url_content", unavailable=WEB)
def read_url_content(
    ctx: ToolContext, url: str, max_chars: Annotated[int | None, Field(ge=500, le=50_000)] = None,
) -> str:
    """Fetch a web page and return its text."""
    return unavailable("read_url_content", WEB)


@tool("send_email_to_user", unavailable=MAIL)
def send_email_to_user(ctx: ToolContext, user_id: int, subject: str, body: str) -> str:
    """Send an e-mail to the user."""
    return unavailable("send_email_to_user", MAIL)


@tool("x_post_tweet", unavailable=X_API)
def x_post_tweet(ctx: ToolContext, text: str) -> str:
    """Post to X (Twitter)."""
    return unavailable("x_post_tweet", X_API)


@tool("x_read_mentions", unavailable=X_API)
def x_read_mentions(ctx: ToolContext, max_results: int = 10) -> str:
    """Read your mentions on X (Twitter)."""
    return unavailable("x_read_mentions", X_API)


@tool("x_read_timeline", unavailable=X_API)
def x_read_timeline(ctx: ToolContext, max_results: int = 10) -> str:
    """Read your home timeline on X (Twitter)."""
    return unavailable("x_read_timeline", X_API)


@tool("x_reply_tweet", unavailable=X_API)
def x_reply_tweet(ctx: ToolContext, text: str, in_reply_to_tweet_id: str) -> str:
    """Reply to a post on X (Twitter)."""
    return unavailable("x_reply_tweet", X_API)


@tool("x_search_tweets", unavailable=X_API)
def x_search_tweets(ctx: ToolContext, query: str, max_results: int = 10) -> str:
    """Search posts on X (Twitter)."""
    return unavailable("x_search_tweets", X_API)


NETWORK_TOOLS = (searxng_search, read_url_content, send_email_to_user, x_post_tweet, x_read_mentions,
                 x_read_timeline, x_reply_tweet, x_search_tweets)
"""Every tool of this module, for `BUILTIN_TOOLS`."""
