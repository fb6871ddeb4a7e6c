"""What recall searches for: a text's terms — stemmed latin words without stop words, Japanese grams.

Recall used to search a question as one phrase, then its first six "content words", with no English
stop words, so "When did Caroline go to the LGBTQ support group?" searched When/did/Caroline/go/to/the
and never "LGBTQ" (issue 33). Here a text becomes weighted `Term`s:
- latin words (full-width letters made plain, lower-cased), minus English stop words, stemmed by
  Snowball's English stemmer (`snowballstemmer`, pinned in requirements.txt): "supporting groups"
  and "support group" share `support` and `group`. A term's `probe` — what the gram index is asked
  for — is the longest common prefix of the word and its stem (`happi` is not in "happy"; `happ`
  is), at least three letters of the word (or all of a shorter one);
- Japanese: runs of kanji or katakana become character bigrams (a one-kanji run is itself, unless it
  is one of `STOP_JA`); hiragana runs of three or more give bigrams at half weight (names like こむぎ
  are hiragana, and particles' bigrams are common, so their IDF is low anyway);
- the everyday thesaurus of saiverse/memory/_thesaurus.py adds the other words of a question word's
  groups at `SYNONYM_WEIGHT`, each as one whole word (医者 finds 内科 and クリニック, "animal doctor" finds
  vet), at most `MAX_EXPANSIONS` of them.
Term frequency in a stored text is counted the same way (`term_frequency`), so the gram index only
proposes candidates (saiverse/memory/_store.py) and this module decides what a match is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from saiverse.memory._thesaurus import GROUPS_EN, GROUPS_JA

STOP_EN = frozenset(
    "a about above after again against all also am an and any are aren't as at be because been before being "
    "below between both but by can can't could did didn't do does doesn't doing don't down during each either "
    "else ever every few for from further get gets got had has have having he he's her here hers herself him "
    "himself his how i i'm if in into is isn't it it's its itself just let like me more most much my myself no "
    "nor not now of off on once only or other our ours ourselves out over own really same she she's should so "
    "some still such than that that's the their theirs them themselves then there these they they're this "
    "those through to too under until up upon us very was wasn't we were what what's when where which while "
    "who whom whose why will with would you your yours yourself yourselves "
    "tell remember recall know think say said thing things something anything".split())
"""English stop words, and the words of asking about one's memory ("do you remember...")."""
STOP_JA = frozenset("前話思出今日何事時見言行来教誰所方")
"""One-kanji runs that name no topic (a question's 何, 時, 誰...)."""
SYNONYM_WEIGHT = 0.5
UNIGRAM_WEIGHT = 0.4
"""Each kanji of a longer run, on its own: 改修 meets 改装, 転職 meets 職場, 医者 meets 医院 — words that share a
character mostly share a meaning. Below a thesaurus word's weight: a shared kanji says less than a synonym."""
MAX_EXPANSIONS = 16
"""Thesaurus words a question adds at most (each is one more index lookup)."""
ADDRESSED_WEIGHT = 0.3
NEIGHBOUR_FLOOR = 0.5
"""Cosine a word's neighbour (saiverse/memory/_neighbours.py) needs to be asked for: above it the table's
neighbours are mostly the same thing or its kind (vehicle: car, truck), below it mostly its siblings."""
NEIGHBOURS_PER_WORD = 3
MAX_NEIGHBOURS = 8
"""Neighbour words a question adds at most (each is one more index lookup), at `SYNONYM_WEIGHT` × cosine."""
_neighbours: Callable[[str], Sequence[tuple[str, float]]] | None = None
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")
"""A capitalised word after a lower-case word: inside a sentence, not its start."""
_LATIN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_KANJI_OR_KATAKANA = re.compile(r"[\u4e00-\u9fff々〆\u30a1-\u30faー]+")
_WIDE_LETTER = re.compile(r"[^\x00-\x7f\s\u2000-\u206f\u3000-\u3003\u3008-\u303f\uff01-\uff0f\uff1a-\uff20]")
"""A non-ASCII character other than spaces and CJK or general punctuation: a kana, a kanji, a letter."""
_HIRAGANA = re.compile(r"[\u3041-\u309f]{3,}")
_STEMMER = snowballstemmer.stemmer("english")
_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


@dataclass(frozen=True)
class Term:
    """One thing to look for: `key` as counted in a text, `probe` as asked of the gram index."""

    key: str
    probe: str
    latin: bool
    weight: float = 1.0
    name: bool = False
    """A latin word capitalised inside the question (Caroline): maybe the name of one who talks."""


def normalise(text: str) -> str:
    """Full-width ASCII made plain (Ｄａｎａ → dana, １２ → 12) and lower case. A translation table, not NFKC:
    every candidate of every query passes here, and NFKC costs ~20 µs a message where this costs ~1."""
    return text.translate(_FULL_WIDTH).lower()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball's English stem without a final e: Snowball keeps it in drive, make, buse (buses) but
    not in driving, making, bus, so those would never meet; every stem here is cut the same way."""
    stemmed = str(_STEMMER.stemWord(word.replace("'", "")))
    return stemmed[:-1] if stemmed.endswith("e") and len(stemmed) > 3 else stemmed


def _probe(word: str, stemmed: str) -> str:
    # Snowball spells a final y as i (study, studies → studi): "studi" is not in "study", "stud" is.
    stemmed = stemmed[:-1] if stemmed.endswith("i") else stemmed
    common = 0
    for a, b in zip(word, stemmed, strict=False):
        if a != b:
            break
        common += 1
    return word[:max(common, min(len(word), 3))]


def _grams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def _japanese(text: str, weight: float, kanji: bool = True) -> list[Term]:
    out: list[Term] = []
    for run in _KANJI_OR_KATAKANA.findall(text):
        if len(run) == 1 and (run in STOP_JA or not "\u4e00" <= run <= "\u9fff"):
            continue
        grams = _grams(run)
        out += [Term(g, g, False, weight / (len(grams) if weight < 1 else 1)) for g in grams]
        if kanji and weight == 1.0 and len(run) > 1:
            out += [Term(c, c, False, UNIGRAM_WEIGHT) for c in run if "\u4e00" <= c <= "\u9fff" and c not in STOP_JA]
    if weight == 1.0:
        out += [Term(g, g, False, 0.5) for run in _HIRAGANA.findall(text) for g in _grams(run)]
    return out


def _latin(word: str, weight: float, name: bool = False) -> Term:
    stemmed = stem(word)
    return Term(stemmed, _probe(word, stemmed), True, weight, name)


def addressed(terms: Sequence[Term], texts: Sequence[str], weights: dict[str, float]) -> None:
    """Weigh down a name the texts mostly use to address someone ("Hey Caroline!", "Thanks, Leo."):
    the question "What did Caroline research?" is answered by Caroline's own lines, which do not hold
    her name, while every greeting to her does. A name said so in half or more of the (normalised)
    texts holding it keeps `ADDRESSED_WEIGHT` of its weight."""
    for term in terms:
        if not term.name:
            continue
        said = [t for t in texts if term.key in t]
        vocative = re.compile(r"(^|[,!.?;]\s*|\b(?:hey|hi|hello|thanks|thank you|oh|wow|bye|yes|no|sure)\s+)"
                              + re.escape(term.probe) + r"[a-z]*\s*([,!.?;:)]|$)")
        if len(said) >= 2 and sum(bool(vocative.search(t)) for t in said) * 2 >= len(said):
            weights[term.key] = weights.get(term.key, 0.0) * ADDRESSED_WEIGHT


def query_terms(query: str, kanji: bool = True) -> list[Term]:
    """The weighted terms of a question, each key once (its highest weight), in order of appearance.
    `kanji`: also each kanji of a longer run at `UNIGRAM_WEIGHT` (one index lookup more each)."""
    text = normalise(query)
    names = {w.lower() for w in _NAME.findall(query)}
    found: list[Term] = [_latin(w, 1.0, w.split("'")[0] in names)  # Priya's is the name Priya
                         for w in _LATIN.findall(text) if w not in STOP_EN and len(w) > 1]
    found += _japanese(text, 1.0, kanji)
    found += expansions(text, {t.key for t in found if t.latin})
    found += neighbour_terms(text, {t.key for t in found})
    best: dict[str, Term] = {}
    for term in found:
        if term.key not in best or best[term.key].weight < term.weight:
            best[term.key] = term
    return list(best.values())


def expansions(text: str, stems: set[str]) -> list[Term]:
    """The thesaurus words a (normalised) question adds: English by its words' stems or phrases, Japanese
    by a word written in it (a one-character word only as a whole kanji run: 住 in 住んでいる, not 家 in 家族)."""
    english, japanese = _related()
    runs = set(_KANJI_OR_KATAKANA.findall(text))
    keys = [k for k in english if (k in stems if " " not in k else k in text)]
    said = [k for k in japanese if (k in runs if len(k) == 1 else k in text)]
    keys += [k for k in said if not any(k != other and k in other for other in said)]  # 動物病院, not 病院 too
    out: list[Term] = []
    for key in keys:
        for word in (english.get(key) or japanese.get(key) or ()):
            out.append(_latin(word, SYNONYM_WEIGHT) if word.isascii() else Term(word, word, False, SYNONYM_WEIGHT))
    return list({t.key: t for t in out}.values())[:MAX_EXPANSIONS]


def use_neighbours(provider: Callable[[str], Sequence[tuple[str, float]]]) -> None:
    """Recall asks `provider` for an English word's neighbours from now on (one table per process: it is
    built from the packaged model's file, the same for every home)."""
    global _neighbours
    _neighbours = provider


def forget_neighbours(provider: Callable[[str], Sequence[tuple[str, float]]]) -> None:
    """Stop asking `provider` (its table closed), unless another has taken its place."""
    global _neighbours
    if _neighbours is provider:
        _neighbours = None


def neighbour_terms(text: str, have: set[str]) -> list[Term]:
    """The neighbours a (normalised) question's English words add: each word's nearest that share no stem
    with it nor with a word already asked (surgery → hospital, not surgeries), at most `MAX_NEIGHBOURS`."""
    near = _neighbours
    if near is None:
        return []
    out: list[Term] = []
    for word in dict.fromkeys(_LATIN.findall(text)):
        if word in STOP_EN or len(word) < 3:
            continue
        own, taken = stem(word), 0
        for other, cosine in near(word):
            if cosine < NEIGHBOUR_FLOOR or taken >= NEIGHBOURS_PER_WORD or len(out) >= MAX_NEIGHBOURS:
                break
            term = _latin(other, SYNONYM_WEIGHT * cosine)
            if term.key == own or term.key in have or other in STOP_EN:
                continue
            have.add(term.key)
            out.append(term)
            taken += 1
    return out


@lru_cache(maxsize=1)
def _related() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(English stem or phrase → related one-word stems, Japanese word → related words), from the groups:
    a name brings every other word of its group, a kind only the names (saiverse/memory/_thesaurus.py)."""
    def table(groups: tuple[str, ...], key: Callable[[str], str]) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for group in groups:
            names, _, kinds = group.partition("|")
            name_words, kind_words = names.split(), kinds.split()
            for word in name_words:
                out.setdefault(key(word), []).extend(w for w in name_words + kind_words if w != word)
            for word in kind_words:
                out.setdefault(key(word), []).extend(name_words)
        return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}
    english = table(GROUPS_EN, lambda w: w.replace("_", " ") if "_" in w else stem(w))
    return ({k: tuple(w for w in v if "_" not in w) for k, v in english.items()}, table(GROUPS_JA, lambda w: w))


def latin_stems(text_lower: str) -> Counter[str]:
    """How often each stem occurs in a (normalised) text."""
    return Counter(stem(w) for w in _LATIN.findall(text_lower))


def term_frequency(text_lower: str, stems: Counter[str], term: Term) -> int:
    """How often `term` occurs in a text: as a whole stemmed word for latin, as a substring for grams."""
    return stems.get(term.key, 0) if term.latin else text_lower.count(term.key)


def length(text_lower: str) -> int:
    """A text's length in terms: latin words plus other letters (each kana or kanji is one)."""
    return len(_LATIN.findall(text_lower)) + len(_WIDE_LETTER.findall(text_lower))
