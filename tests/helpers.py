"""Small builders and a literal, slow implementation of the paper's Algorithms 1-3 for checks."""
from __future__ import annotations

import random
from collections import Counter
from typing import Iterable, Sequence

import numpy as np
from hypothesis import strategies as st

from hf_greedtok import ByteLevel
from hf_greedtok._trainer import GreedTokCore
from hf_greedtok.models import GreedTokModel, pack_units
from hf_greedtok.unicode_scripts import script_of


def make_core(words: dict[str, int], *, max_len: int = 16, candidates: Sequence[str] | None = None,
              pinned: Sequence[str] = (), min_frequency: int = 1, relaxed: bool = False,
              num_threads: int = 1, threshold: int = -1, expected_steps: int = 0) -> GreedTokCore:
    """A trainer core (GreedWMC's if ``relaxed``) over character units (code points) of the words;
    ``threshold`` 0 builds every candidate at once, -1 picks the first threshold of candidates on
    demand from ``expected_steps``."""
    units, offsets = pack_units(list(words))
    counts = np.fromiter(words.values(), dtype=np.int64, count=len(words))
    pu, po = pack_units(list(pinned))
    cu, co = pack_units(list(candidates or []))
    return GreedTokCore(units, offsets, counts, max_len, min_frequency, pu, po, cu, co, candidates is not None,
                        relaxed, num_threads, threshold, expected_steps)


def core_ranking(core: GreedTokCore) -> list[str]:
    units, offsets = core.ranked_units()
    return ["".join(map(chr, units[offsets[r]:offsets[r + 1]])) for r in range(len(offsets) - 1)]


def char_model(ranked: Sequence[str], alphabet: Iterable[str]) -> GreedTokModel:
    return GreedTokModel(list(ranked), unit_kind="chars", alphabet=alphabet)


def token_strings(model: GreedTokModel, word: str, mode: str = "cover") -> list[str]:
    return [model.id_to_token(i) for i in model.encoder.encode_word(word, mode)]


# ---------------------------------------------------------------- literal Algorithms 1-3

def can_cover(m: list[int], t: str, w: str, i: int) -> bool:
    """Algorithm 2 (CANCOVER)."""
    return (i == 0 or m[i - 1] == 0) and (i + len(t) == len(w) or m[i + len(t) - 1] == 0)


def occurrences(t: str, w: str) -> list[int]:
    return [i for i in range(len(w) - len(t) + 1) if w.startswith(t, i)]


def score(t: str, words: dict[str, int], state: dict[str, list[int]]) -> int:
    """Algorithm 3 (SCORE) with an explicit copy M' of the state."""
    s = 0
    for w, c in words.items():
        m = list(state[w])
        for i in occurrences(t, w):
            if can_cover(m, t, w, i):
                s += c * sum(1 for j in range(i, i + len(t) - 1) if m[j] == 0)
                for j in range(i, i + len(t) - 1):
                    m[j] = 1
    return s


def naive_greedtok(words: dict[str, int], candidates: Iterable[str], k: int,
                   pinned: Sequence[str] = ()) -> tuple[list[str], list[int], dict[str, list[int]]]:
    """Algorithm 1, literally: rescore every candidate every step. Ties: shorter, then smaller."""
    state = {w: [0] * max(0, len(w) - 1) for w in words}
    chosen: list[str] = []
    gains: list[int] = []
    pool = set(candidates) | set(pinned)
    while len(chosen) < k:
        if len(chosen) < len(pinned):
            tau = pinned[len(chosen)]
        else:
            live = {t: score(t, words, state) for t in pool if t not in chosen}
            if not live:
                break
            tau = min(live, key=lambda t: (-live[t], len(t), t))
            if live[tau] <= 0:
                break
        gain = score(tau, words, state)
        chosen.append(tau)
        gains.append(gain)
        for w in words:
            for i in occurrences(tau, w):
                if can_cover(state[w], tau, w, i):
                    for j in range(i, i + len(tau) - 1):
                        state[w][j] = len(chosen)
    return chosen, gains, state


def partition_lengths(m: list[int]) -> list[int]:
    """Token lengths of a word from its state M (zeros delimit tokens)."""
    lengths, run = [], 1
    for gap in m:
        if gap:
            run += 1
        else:
            lengths.append(run)
            run = 1
    return lengths + [run]


def naive_greedwmc(words: dict[str, int], candidates: Iterable[str], k: int) -> tuple[list[str], list[int]]:
    """Greedy weighted maximum coverage (paper Section 4.2.1), literally: elements are (word, gap),
    weighted by the word's count; a token's set is every gap inside any of its occurrences.

    Ties as in the trainer: larger gain, then shorter, then the smaller string. Stops at gain 0.
    """
    sets = {t: {(w, j) for w in words for i in occurrences(t, w) for j in range(i, i + len(t) - 1)}
            for t in candidates}
    covered: set = set()
    ranking, gains = [], []
    while len(ranking) < k:
        def gain(t: str) -> int:
            return sum(words[w] for w, _ in sets[t] - covered)
        live = [t for t in sets if t not in ranking]
        if not live:
            break
        best = min(live, key=lambda t: (-gain(t), len(t), t))
        g = gain(best)
        if g <= 0:
            break
        ranking.append(best)
        gains.append(g)
        covered |= sets[best]
    return ranking, gains


def literal_cover(ranked: Sequence[str], word: str) -> list[str]:
    """Algorithm 4 as written: every occurrence of every ranked token, in (rank, position) order,
    is applied where CANCOVER holds; the tokens are read off the uncovered gaps."""
    m = [0] * max(len(word) - 1, 0)
    for t in ranked:
        for i in occurrences(t, word):
            if can_cover(m, t, word, i):
                for j in range(i, i + len(t) - 1):
                    m[j] = 1
    if not word:
        return []
    cuts = [0] + [j + 1 for j, covered in enumerate(m) if not covered] + [len(word)]
    return [word[a:b] for a, b in zip(cuts, cuts[1:])]


def random_corpus(rng: random.Random, alphabet: str) -> dict[str, int]:
    words = {}
    for _ in range(rng.randint(1, 8)):
        w = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
        words[w] = rng.randint(1, 5)
    return words


def all_substrings(words, max_len):
    return {w[i:j] for w in words for i in range(len(w)) for j in range(i + 2, min(len(w), i + max_len) + 1)}


def random_instance(seed: int) -> tuple[dict[str, int], int, int]:
    """(words, max_len, k). Small alphabets give many repeats, overlaps and ties: the hard cases
    for incremental scores."""
    rng = random.Random(seed)
    words = random_corpus(rng, "ab" if seed % 2 else "abc")
    return words, rng.choice([2, 3, 4, 9]), rng.randint(1, 12)


def literal_superwords(chunks: dict[str, int], k: int, t: int, max_len: int, floor: int,
                       keep_other_scripts: bool = True, word_chunks: dict[str, int] | None = None) -> list[bytes]:
    """The curriculum, literally, on UTF-8 bytes (written as latin-1 strings): Algorithm 1 on the
    chunks' gpt4-marks words to t tokens, then Algorithm 1 on the chunks to k tokens with those
    first; stage 2's candidates are the chunks' substrings of 2..max_len bytes with at least
    ``floor`` count-weighted occurrences. When the words have letters of several scripts,
    Algorithm 1 on the words runs to k and its tokens holding a letter or mark of a script other
    than the one with the most letters (ties: alphabetical), or part of a character, are pinned
    after the first t. Stage 1 counts the words of ``word_chunks`` when given (the whole corpus's
    chunks, where stage 2 trains on a sample of them)."""
    split = ByteLevel("gpt4-marks").pre_tokenize
    words: Counter = Counter()
    letters: Counter = Counter()
    for chunk, c in (chunks if word_chunks is None else word_chunks).items():
        for w in split(chunk):
            words[w] += c
            for ch in w:
                if ch.isalpha():
                    letters[script_of(ch)] += c
    dominant = sorted(letters, key=lambda s: (-letters[s], s))[0] if letters else None
    several = keep_other_scripts and len(letters) > 1

    def as_bytes(table):
        return {w.encode().decode("latin-1"): c for w, c in table.items()}

    def other_script(token: str) -> bool:
        data = token.encode("latin-1")
        text = data.decode("utf-8", errors="ignore")
        cut = len(text.encode()) != len(data)
        return cut or any(script_of(ch) not in (dominant, "Common", "Inherited") for ch in text)

    byte_words = as_bytes(words)
    stage1, _, _ = naive_greedtok(byte_words, all_substrings(byte_words, max_len), k if several else t)
    pinned = stage1[:t] + [tok for tok in stage1[t:] if several and other_script(tok)]
    byte_chunks = as_bytes(chunks)
    frequent = {s for s in all_substrings(byte_chunks, max_len)
                if sum(c * len(occurrences(s, w)) for w, c in byte_chunks.items()) >= floor}
    ranked, _, _ = naive_greedtok(byte_chunks, frequent, k, pinned=pinned)
    return [token.encode("latin-1") for token in ranked]


# Chunks as the superwords split makes them: words with their space, single punctuation.
LATIN_WORDS = st.sampled_from(["a", "b", "ab", "ba", "aab", "the", "of"])
# ... and words of other scripts: Han (3 bytes a character), Devanagari with a vowel sign (a mark).
MIXED_WORDS = st.sampled_from(["a", "ab", "the", "東", "京", "東京", "नम", "ना"])


def superword_chunks(words):
    """A strategy: one superwords chunk of 1-4 of ``words``, maybe ending in punctuation."""
    return st.builds(lambda first, rest, stop: first + "".join(" " + w for w in rest) + stop,
                     words, st.lists(words, max_size=3), st.sampled_from(["", ",", "."]))
