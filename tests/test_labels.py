"""The label catalogues (ui/labels/ja.json, en.json; ui/i18n.py): the same keys in both, each key once,
every key the UI's code asks for present, and no label module left outside the catalogues."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

from ui.i18n import EN, JA, LANGS, OLD_STYLE_PARTS, Labels, read_catalogue

ROOT = Path(__file__).resolve().parents[1]
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def _asked_keys() -> dict[str, list[str]]:
    """Every key written as the first argument of a call of `labels`/`self.labels`/`Labels(...)` in ui/."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else \
                "Labels" if isinstance(func, ast.Call) and getattr(func.func, "id", "") == "Labels" else ""
            first = node.args[0]
            if name.lower().endswith("labels") and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.setdefault(first.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_both_catalogues_have_the_same_sections_and_keys() -> None:
    ja, en = read_catalogue("ja"), read_catalogue("en")
    assert list(ja) == list(en), "the sections differ in name or order"
    for section in ja:
        assert set(ja[section]) == set(en[section]), (
            f"section {section!r}: only Japanese {sorted(set(ja[section]) - set(en[section]))}, "
            f"only English {sorted(set(en[section]) - set(ja[section]))}")
    assert set(JA) == set(EN) and len(JA) > 400


def test_each_key_lives_in_one_section() -> None:
    for lang in LANGS:
        seen: dict[str, str] = {}
        for section, table in read_catalogue(lang).items():
            for key in table:
                assert key not in seen, f"{lang}: {key!r} is in both {seen[key]!r} and {section!r}"
                seen[key] = section


def test_placeholders_agree_between_languages() -> None:
    """`{name}` in one language and not the other would fail (or drop a value) at format time."""
    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    bad = [key for key in JA if fields(JA[key]) != fields(EN[key])]
    assert not bad, f"placeholders differ: {bad}"


def test_every_key_the_code_asks_for_exists() -> None:
    asked = _asked_keys()
    assert len(asked) > 300  # the scan sees the UI's calls
    missing = {key: where for key, where in asked.items() if key not in JA or key not in EN}
    assert not missing, f"keys asked for but not in ui/labels/*.json: {missing}"


def test_english_labels_have_no_japanese_and_lookup_falls_back() -> None:
    mixed = {key: text for key, text in EN.items() if JAPANESE.search(text)}
    assert not mixed, f"English labels with Japanese in them: {mixed}"
    assert Labels("en")("saved") == EN["saved"] and Labels("fr").lang == "ja"
    assert Labels("ja")("stopped", n=2) == JA["stopped"].format(n=2)


def test_every_label_module_is_merged() -> None:
    """A `ui/i18n_<part>.py` of the old shape (from a branch written before the catalogues) is merged by
    a static import in ui/i18n.py, listed in OLD_STYLE_PARTS — or, better, moved into the JSON files."""
    merged = {module.__name__ for _, module in OLD_STYLE_PARTS}
    on_disk = {f"ui.{p.stem}" for p in (ROOT / "ui").glob("i18n_*.py")}
    assert on_disk <= merged, f"label modules not merged into the catalogues: {sorted(on_disk - merged)}"
    for part, module in OLD_STYLE_PARTS:
        for lang, table in (("JA", JA), ("EN", EN)):
            assert getattr(module, f"{part.upper()}_{lang}").items() <= table.items()


def test_the_login_tab_and_the_login_agree_on_the_shortest_password_and_the_home() -> None:
    from saiverse.care._login import MIN_PASSWORD_CHARS
    from saiverse.settings import DEFAULT_HOME, Settings
    from ui.guard import DEFAULT_HOME as NAMED_HOME
    from ui.guard import password_command
    from ui.tabs.login import MIN_PASSWORD_CHARS as SHOWN

    assert SHOWN == MIN_PASSWORD_CHARS and NAMED_HOME == DEFAULT_HOME
    assert password_command(Settings(home=DEFAULT_HOME.expanduser(), database_url="sqlite://")) == \
        "python main.py password set"
    assert password_command(Settings(home=Path("/srv/my city"), database_url="sqlite://")) == \
        "python main.py --home '/srv/my city' password set"


def test_the_model_layers_words_are_asked_for_in_a_given_language() -> None:
    """words/_models.py: the model layer words a line in its settings' language, whatever the process's."""
    import words

    words.use("ja")
    assert words.say("why_has_key", lang="en", env="GEMINI_API_KEY") == "GEMINI_API_KEY is set"
    assert words.say("why_as_set", lang="fr") == words.WORDS["ja"]["why_as_set"]
    words.use("en")
    assert words.say("why_as_set", lang="ja") == "設定どおり" and words.say("why_as_set") == "as configured"


def test_memopedias_roots_are_worded_as_upstream_seeds_them() -> None:
    """ui/tabs/memopedia.py shows a root by its label when it still says upstream's words: the same words."""
    from saiverse.memory._memopedia_page import CATEGORIES

    for cat, (_root, title, summary) in CATEGORIES.items():
        assert (JA[f"mp_cat_{cat}"], JA[f"mp_cat_{cat}_about"]) == (title, summary)


def test_a_hub_out_of_reach_is_said_in_the_pages_language(tmp_path: Path) -> None:
    """The 設定 tab's 「モデルを入手」 line when the hub cannot be reached: one line in the page's language
    (issue 35 saw "cannot reach the hub (huggingface.co): [Errno -2] …" in the Japanese page)."""
    import socket

    from saiverse.llm.local._pull import PullRefused, pull
    from saiverse.llm.local._pull_jobs import PullJob, describe
    from saiverse.settings import Settings
    from ui.tabs.models import progress_html

    with socket.socket() as s:  # a port nobody listens on: the connection is refused at once
        s.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{s.getsockname()[1]}"
    settings = Settings(home=tmp_path, database_url="sqlite://", hf_endpoint=endpoint)
    job = PullJob("owner/repo/model.gguf")
    try:
        pull(settings, job.name)
    except PullRefused as exc:
        job.error, job.error_key, job.error_fields = str(exc), exc.key, exc.fields
    assert job.error_key == "hub_unreachable" and "cannot reach the hub" in (job.error or "")  # the CLI's line
    ja, en = progress_html(describe(job), Labels("ja")), progress_html(describe(job), Labels("en"))
    assert f"配布元 ({endpoint}) に接続できません" in ja and "Errno" not in ja and "cannot" not in ja
    assert f"cannot reach the hub ({endpoint})" in en and not JAPANESE.search(en)
