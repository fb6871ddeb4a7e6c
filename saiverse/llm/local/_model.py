"""The `local` model: any GGUF run by llama.cpp (`llama-cpp-python`), no key, no network.

- llama.cpp never runs in the app: the model lives in a supervised process of its own
  (saiverse/llm/local/_child.py), so a crash of native code is a failed reply, never a dead app. A
  death ends the reply in progress with a Japanese line (which model, what happened, what to do) and
  the next request starts the process again; two deaths running while loading make the model broken
  (saiverse/llm/local/_health.py), and its personas fall back as for a missing key.
- Loaded once, lazily: the process starts and opens the file on the first call that needs the model
  (start-up does not pay for it); the packaged default is assembled into the data home then.
- One context, one generation at a time: a lock is held for the whole of a generation (a stream
  holds it until it ends or is closed), so two pulses never share the context.
- The prompt always fits the context window: the context builder's budget is capped to
  `prompt_budget()` (`chat.ContextWindow`), tokens are counted with the model's own tokenizer
  (`chat.TokenCounter`), and a transcript still too long loses its oldest lines.
- The profile (saiverse/llm/local/_profile.py) says how it is prompted and whether it decides: a model
  that does not decide leaves structured output, routing and tool choice to the offline model's
  deterministic logic and only writes what the persona says.
- Streaming stops when the consumer stops reading (the stop button closes the stream): the child is
  told, and stops at its next token.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from chat import CUT_LENGTH, ChatRequest, ChatResult, LLMError, Usage, default_max_tokens
from saiverse.llm.local._child import ChildDied, LlamaChild, ModelBroken, RunnerError
from saiverse.llm.local._files import LocalModelMissing, ensure_file, runtime_available
from saiverse.llm.local._health import HealthBook, broken_words
from saiverse.llm.local._profile import LocalProfile, known_profile, profile_for
from saiverse.llm.local._prompt import chat_messages, merged_system, stops, transcript, usable_line
from saiverse.llm.local._sanity import SUGGEST_PULL, honest_line
from saiverse.llm.offline import OfflineModel, procedural_image, read_voice
from saiverse.llm.structured import answer_json, schema_text
from words import say

log = logging.getLogger(__name__)

LINE_TOKENS = 96
"""Most tokens of one transcript line (a base model's reply is one line)."""
TEMPLATE_SLACK = 48
"""Tokens a chat template or transcript header adds around the fitted prompt."""
COUNT_CACHE = 4096
"""Token counts kept per model: the same history lines are counted again every pulse, and each count
is a round trip to the inference process."""


class LocalModel:
    """A GGUF model run by llama.cpp in a supervised process of its own (provider `local`)."""

    provider = "local"
    supports_vision = False
    draws_images = False

    def __init__(self, name: str, *, path: Callable[[], Path], n_ctx: int = 2048, n_threads: int = 0,
                 profile_setting: str = "auto", file_name: str = "", health: HealthBook | None = None,
                 stall_seconds: float = 180.0, keep_alive: float = 0.0) -> None:
        self.name = name
        self.n_ctx = n_ctx
        self.n_threads = n_threads or None
        self._path = path
        self._setting = profile_setting
        self._profile: LocalProfile | None = known_profile(file_name, profile_setting)
        self._child: LlamaChild | None = None
        self._stall = stall_seconds
        self._keep_alive = keep_alive
        self._health = health
        self.seed: int | None = None
        """Sampling seed of the next generations (None: llama.cpp's own); `benchmarks/models.py` gives the app
        and bare llama.cpp the same one, so that both write the same tokens and their times compare."""
        self._verified: int | None = None
        """The process start whose generation was recorded as `ok` (one record per process)."""
        self._counts: dict[str, int] = {}
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._offline = OfflineModel()
        self._notes = threading.local()
        self.load_error: str | None = runtime_available() or self._broken()
        """Why the model cannot be used (None while it can); the registry then falls back."""
        self.load_seconds: float | None = None
        """How long loading took (benchmarks, the settings tab)."""

    def __repr__(self) -> str:
        return f"LocalModel(name={self.name!r}, n_ctx={self.n_ctx})"

    # -- loading ----------------------------------------------------------------------------

    def _broken(self) -> str | None:
        """The recorded reason this model is broken on this machine (None when it is not)."""
        if self._health is None:
            return None
        try:
            health = self._health.get(self._path())
        except (OSError, LocalModelMissing):
            return None
        if health is None or health.state != "broken":
            return None
        return broken_words(health.reason)

    @property
    def pid(self) -> int | None:
        """The inference process's id while it runs (tests; the settings tab)."""
        return self._child.pid if self._child is not None else None

    def _load(self) -> LlamaChild:
        """The model's live process, loaded (started on first use and after a death)."""
        with self._load_lock:
            if self.load_error:
                raise LLMError(say("local_unusable", why=self.load_error), kind="local_unavailable")
            if self._child is None:
                try:
                    path = ensure_file(self._path())
                except (LocalModelMissing, OSError) as exc:
                    self.load_error = str(exc) or type(exc).__name__
                    raise LLMError(say("local_load_failed", why=self.load_error),
                                   kind="local_unavailable") from exc
                self._child = LlamaChild(self.name, {"path": str(path), "n_ctx": self.n_ctx,
                                                     "n_threads": self.n_threads}, stall_seconds=self._stall,
                                         keep_alive=self._keep_alive)
            child = self._child
            fresh = child.loaded is None or child.pid is None
            try:
                _proc, info = child.ensure()
            except ModelBroken as exc:
                self._record("broken", exc.reason)
                self.load_error = broken_words(exc.reason)
                # A build made for another CPU dies at its first use: the line suggests rebuilding it.
                raise LLMError(say("local_broke_loading", name=self.name, reason=exc.reason, hint=say("local_rebuild")),
                               kind="local_broken") from exc
            except RunnerError as exc:
                self.load_error = str(exc) or exc.type_name
                raise LLMError(say("local_load_failed", why=self.load_error),
                               kind="local_unavailable") from exc
            if fresh:
                self.load_seconds = float(info.get("seconds") or 0.0)
                if self._profile is None:
                    meta = dict(info.get("metadata") or {})
                    self._profile = profile_for(meta, self._setting, Path(self._path()).name)
                log.info("local model %s loaded in process %s in %.2fs (%s)", self.name, child.pid,
                         self.load_seconds, self._profile.reason)
            return child

    def _record(self, state: str, reason: str = "") -> None:
        if self._health is None:
            return
        try:
            self._health.set(self._path(), state, reason)  # type: ignore[arg-type]
        except OSError as exc:
            log.warning("could not record the local model's state: %s", exc)

    def _generated(self, child: LlamaChild) -> None:
        """The model really generated in this process: ✅ in the 設定 tab (once per process)."""
        if self._verified != child.starts:
            self._verified = child.starts
            self._record("ok")

    def _death(self, exc: ChildDied) -> LLMError:
        """The line the chat shows when the model's process died or hung during a reply."""
        self._counts.clear()
        if exc.kind == "local_hang":
            what = say("local_hung", detail=exc)
        else:
            what = say("local_crashed", detail=exc)
        return LLMError(say("local_died", name=self.name, what=what), kind=exc.kind)

    def close(self) -> None:
        """End the model's process (the app's close; tests)."""
        with self._load_lock:
            child, self._child = self._child, None
        if child is not None:
            child.close()

    def _stream(self, op: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """The streamed parts of one generation in the child; a death raises the chat's line."""
        child = self._load()
        if self.seed is not None:
            kwargs["seed"] = self.seed
        try:
            for answer in child.request(op, kwargs={**kwargs, "stream": True}):
                if answer.get("event") == "chunk":
                    yield answer["data"]
                elif answer.get("event") == "done" and not (answer.get("data") or {}).get("cancelled"):
                    self._generated(child)
        except ChildDied as exc:
            raise self._death(exc) from exc
        except RunnerError as exc:
            if exc.type_name == "ValueError":
                raise ValueError(str(exc)) from exc
            raise LLMError(say("local_failed", name=self.name, detail=exc), kind="local_error") from exc

    @property
    def profile(self) -> LocalProfile:
        """How this model is prompted (reading the GGUF once when the file is not a known one)."""
        if self._profile is None:
            self._load()
        assert self._profile is not None
        return self._profile

    @property
    def follows_instructions(self) -> bool:  # type: ignore[override]
        """Only a model trusted with decisions is asked for plans, patches and summaries."""
        return self.profile.decides

    # -- the optional parts of ChatModel ------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by the model's own tokenizer (`chat.TokenCounter`), asked of the process."""
        known = self._counts.get(text)
        if known is not None:
            return known
        child = self._load()
        try:
            count = int(child.call("tokenize", text=text, add_bos=False, special=False)["count"])
        except ChildDied as exc:
            raise self._death(exc) from exc
        except RunnerError as exc:
            raise LLMError(f"ローカルモデル「{self.name}」で数えられませんでした: {exc}", kind="local_error") from exc
        if len(self._counts) >= COUNT_CACHE:
            self._counts.clear()
        self._counts[text] = count
        return count

    def prompt_budget(self) -> int:
        """The context window less the answer and the template's own tokens (`chat.ContextWindow`)."""
        answer = LINE_TOKENS if not self.profile.chat_template else min(512, self.n_ctx // 4)
        return max(256, self.n_ctx - answer - TEMPLATE_SLACK)

    # -- generation ---------------------------------------------------------------------------

    def _chunks(self, request: ChatRequest, cut: list[str] | None = None) -> Iterator[tuple[str, int]]:
        """(text, prompt tokens) pieces of a free-text answer, generated under the run lock; `cut` gets
        `CUT_LENGTH` when the answer length stopped a chat model's reply (it can be continued)."""
        self._load()
        voice = read_voice(request.system, request.persona_name)
        with self._run_lock:
            if self.profile.chat_template:
                length = min(default_max_tokens(request), self.n_ctx // 2)
                messages = chat_messages(request)
                stream = self._stream("chat", messages=messages, max_tokens=length, temperature=0.7)
                try:
                    first = next(stream, None)
                except ValueError:  # a template without a system role
                    stream = self._stream("chat", messages=merged_system(messages), max_tokens=length,
                                          temperature=0.7)
                    first = next(stream, None)
                try:
                    for part in itertools.chain([] if first is None else [first], stream):
                        text = (part["choices"][0].get("delta") or {}).get("content")
                        if text:
                            yield text, 0
                        if cut is not None and part["choices"][0].get("finish_reason") == "length":
                            cut.append(CUT_LENGTH)
                finally:
                    stream.close()  # the stop button: the child is told to stop at its next token
                return
            prompt = transcript(request, voice, self.count_tokens, self.n_ctx - LINE_TOKENS - 8)
            used = self.count_tokens(prompt)
            stream = self._stream("complete", prompt=prompt, max_tokens=LINE_TOKENS, stop=stops(voice),
                                  temperature=0.7, top_p=0.9, repeat_penalty=1.15)
            try:
                for part in stream:
                    text = part["choices"][0].get("text") or ""
                    if text:
                        yield text, used
            finally:
                stream.close()

    def take_notices(self) -> list[dict[str, str]]:
        """Notices about the answers this thread just got (`model_suggest_pull`), cleared as they are taken;
        the llm node emits them (sea/llm_node.py)."""
        notes = getattr(self._notes, "items", [])
        self._notes.items = []
        return notes

    def _unusable(self, request: ChatRequest) -> str:
        """The persona's honest words when the model's line was unusable, and the notice to pull a better model."""
        log.info("local model wrote no usable line; the persona says so")
        notice = {"kind": SUGGEST_PULL, "text": say("local_suggest_pull")}
        self._notes.items = [*getattr(self._notes, "items", []), notice]
        return honest_line(read_voice(request.system, request.persona_name))

    def _line(self, request: ChatRequest) -> tuple[str, int]:
        """A base model's whole line, checked; the persona's honest words when it wrote nothing usable."""
        parts: list[str] = []
        used = 0
        for text, tokens in self._chunks(request):
            parts.append(text)
            used = tokens
        voice = read_voice(request.system, request.persona_name)
        line = usable_line("".join(parts), request, voice)
        told = self._told(request)
        if not line:
            return told + self._unusable(request), used
        return told + line, used

    def _told(self, request: ChatRequest) -> str:
        """What the persona did this pulse, in words (the model itself rarely says it)."""
        from saiverse.llm.offline import happened, place_of, result_blocks

        voice = read_voice(request.system, request.persona_name)
        place = place_of(request.system)
        pairs = [happened(pb, body, place) for pb, body in result_blocks(request.messages)]
        return "".join(voice.speak(*p) for p in dict.fromkeys(p for p in pairs if p))

    def stream(self, request: ChatRequest) -> Generator[str, None, str | None]:
        """Answer as text chunks. A base model's line is held back whole until it is known to be the
        persona's own speech (saiverse/llm/local/_sanity.py); a line that fails becomes the persona's
        honest words and a `model_suggest_pull` notice. Returns `CUT_LENGTH` when the answer length cut a
        chat model's reply short."""
        if request.response_schema is not None or request.tools:
            yield self.generate(request).text
            return None
        if self.profile.chat_template:
            cut: list[str] = []
            for text, _used in self._chunks(request, cut):
                yield text
            return cut[0] if cut else None
        yield self._line(request)[0]
        return None

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once: text by the model; JSON and tool calls by the model only when it decides."""
        if request.tools or (request.response_schema is not None and not self.profile.decides):
            result = self._offline.generate(request)  # decisions by the deterministic logic
            if request.response_schema is None and not result.tool_calls:
                result = self._text_result(request)
            result.model = self.name
            return result
        if request.response_schema is not None:
            return answer_json(self._json, request)
        return self._text_result(request)

    def _text_result(self, request: ChatRequest) -> ChatResult:
        if self.profile.chat_template:
            text = "".join(t for t, _u in self._chunks(request))
            used = 0
        else:
            text, used = self._line(request)
        return ChatResult(text=text, model=self.name,
                          usage=Usage(input_tokens=used, output_tokens=self.count_tokens(text) if text else 0))

    def _json(self, request: ChatRequest) -> ChatResult:
        """One JSON answer under llama.cpp's JSON-schema grammar."""
        import json

        assert request.response_schema is not None
        child = self._load()
        with self._run_lock:
            try:
                out = child.call("chat", kwargs={
                    "messages": chat_messages(request), "max_tokens": min(default_max_tokens(request), self.n_ctx // 2),
                    "response_format": {"type": "json_object",
                                        "schema": json.loads(schema_text(request.response_schema))},
                    "temperature": 0.2})
            except ChildDied as exc:
                raise self._death(exc) from exc
            except RunnerError as exc:
                raise LLMError(f"ローカルモデル「{self.name}」が答えられませんでした: {exc}",
                               kind="local_error") from exc
            self._generated(child)
        usage = out.get("usage") or {}
        return ChatResult(text=out["choices"][0]["message"].get("content") or "", model=self.name,
                          usage=Usage(input_tokens=int(usage.get("prompt_tokens") or 0),
                                      output_tokens=int(usage.get("completion_tokens") or 0)))

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """llama.cpp does not draw: a picture drawn procedurally from the prompt (as offline)."""
        return procedural_image(prompt), "image/png"

