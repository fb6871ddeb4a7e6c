"""How a local GGUF model is prompted and what it may decide, per model.

- A base model (no chat template, or named as a base/pretrained model) is prompted as a dialogue
  transcript — a persona header, the recent lines, `ミナ:` — and stops at the end of its line.
- An instruct model is prompted through its own chat template.
- Only an instruct model of at least `DECIDING_PARAMS` parameters makes decisions (routing, JSON
  fields), under llama.cpp's JSON-schema grammar; every other model leaves decisions to the
  deterministic logic of the offline model and only writes what the persona says.
`SAIVERSE_LOCAL_PROFILE` (`base`, `instruct`, `instruct+json`) overrides what the GGUF says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

DECIDING_PARAMS = 3_000_000_000
"""Smaller models pick the first choice under a grammar (measured: Gemma 3 270M always did)."""
PACKAGED_NAME = "gemma-3-270m-q4_k_m.gguf"
"""The file of the packaged default model (a base model)."""


@dataclass(frozen=True)
class LocalProfile:
    """How to talk to one local model."""

    chat_template: bool
    """True: prompt through the model's chat template; False: as a dialogue transcript."""
    decides: bool
    """Whether structured output and routing are asked of the model (under a JSON grammar)."""
    reason: str
    """Why (Japanese, for the settings tab and the start-up line)."""


BASE = LocalProfile(False, False, "ベースモデル: 会話の記録として続きを書かせ、判断は決定的なルールが行います")


def _params(size_label: str) -> int | None:
    """`270M` → 270_000_000, `8x7B` → 56_000_000_000; None when unreadable."""
    match = re.fullmatch(r"(?:(\d+)x)?(\d+(?:\.\d+)?)([MBK])", size_label.strip(), re.I)
    if not match:
        return None
    experts = int(match.group(1) or 1)
    scale = {"K": 1e3, "M": 1e6, "B": 1e9}[match.group(3).upper()]
    return int(experts * float(match.group(2)) * scale)


def profile_for(metadata: Mapping[str, str], setting: str = "auto", file_name: str = "") -> LocalProfile:
    """The profile of a model from its GGUF metadata (`general.*`, `tokenizer.chat_template`), or the setting."""
    if setting == "base":
        return LocalProfile(False, False, "SAIVERSE_LOCAL_PROFILE=base: 会話の記録として書かせます")
    if setting == "instruct":
        return LocalProfile(True, False, "SAIVERSE_LOCAL_PROFILE=instruct: チャットテンプレートで話し、"
                                         "判断はルールが行います")
    if setting == "instruct+json":
        return LocalProfile(True, True, "SAIVERSE_LOCAL_PROFILE=instruct+json: チャットテンプレートで話し、"
                                        "JSON も任せます")
    names = " ".join(str(metadata.get(k, "")) for k in ("general.name", "general.finetune", "general.basename"))
    names = f"{names} {file_name}".lower()
    template = bool(metadata.get("tokenizer.chat_template"))
    base_named = bool(re.search(r"\bbase\b|pretrain|-pt\b", names))
    if not template or base_named:
        return BASE
    params = _params(str(metadata.get("general.size_label", "")))
    if params is not None and params >= DECIDING_PARAMS:
        return LocalProfile(True, True, "指示追従モデル: チャットテンプレートで話し、JSON は文法で制約して任せます")
    return LocalProfile(True, False, "小さな指示追従モデル: チャットテンプレートで話し、判断はルールが行います")


def known_profile(file_name: str, setting: str) -> LocalProfile | None:
    """The profile when it is known without opening the file (the setting, or the packaged model)."""
    if setting != "auto":
        return profile_for({}, setting)
    if file_name == PACKAGED_NAME:
        return BASE
    return None
