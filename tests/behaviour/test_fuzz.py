"""Fuzz every encode path with arbitrary Unicode (issue 12: nothing lost, nothing silently wrong).

For each path of tests/fuzz_paths.py (native cover/optimal over bytes, chars, marks and vowels,
GreedTokTokenizerFast in memory and reloaded with AutoTokenizer, every pure tokenizer.json,
BPE/CBPE and lookup folders written by ``hf-greedtok train``, foreign vocabularies):

* ``decode(encode(x))`` is x, up to the documented normalization: lone surrogates become
  U+FFFD, the tokenizer's normalizer (NFC for marks/vowels) applies between special tokens, and
  Metaspace tokenizers decode U+2581 as a space; every id is in the vocabulary; "" gives [];
* paths that must encode like a reference path (HF paths like the native tokenizer they wrap,
  a folder's tokenizer.json like the folder, AutoTokenizer like tokenizer.json) give its ids,
  with special tokens recognised and with them encoded as text, and decode its ids to the same
  text, special tokens kept or skipped; a pure tokenizer.json that cannot do so must refuse in
  one of the ways ``fuzz_paths.refusal_problem`` accepts (issue item 6), and the test skips;
* optimal segmentation over a BPE vocabulary never needs more tokens than that BPE;
* a lookup folder's tokenizer.json encodes every word the lookup splits like the folder (or
  refuses to load).

Profiles (tests/conftest.py): ``HF_GREEDTOK_FUZZ=ci`` (default; the same 200 strings per path
every run) or ``nightly`` (10,000 new strings per path; the tests are then marked ``slow``):

    HF_GREEDTOK_FUZZ=nightly pytest -m slow tests/behaviour/test_fuzz.py

A number (``HF_GREEDTOK_FUZZ=2000``) runs the CI profile with that many strings per path. To
count every failing string instead of stopping at the first one:
``python tests/fuzz_paths.py --examples 3000``.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fuzz_paths import (BPE_BASELINES, ENCODER_NAMES, LOOKUP_FILES, PAIRS, Encoder, Registry, bpe_baseline,
                        REGRESSIONS, check_not_longer_than_bpe, check_round_trip, check_same_ids, fuzz_text,
                        lookup_words, real_lines, refusal_problem)

FUZZ = os.environ.get("HF_GREEDTOK_FUZZ", "ci")
if FUZZ.isdigit():
    PROFILE = settings(settings.get_profile("fuzz-ci"), max_examples=int(FUZZ))
else:
    PROFILE = settings.get_profile(f"fuzz-{FUZZ}")
pytestmark = [pytest.mark.fuzz, *([pytest.mark.slow] if PROFILE.max_examples >= 10_000 else [])]

TEXT = st.deferred(fuzz_text)      # built at the first draw: the fixture below skips first without corpora


def regressions_first(test):
    """Run the strings of ``fuzz_paths.REGRESSIONS`` before the generated ones."""
    for text in reversed(REGRESSIONS):
        test = example(text=text)(test)
    return test


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> Registry:
    try:
        real_lines()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    return Registry(tmp_path_factory.mktemp("fuzz"))


def usable(registry: Registry, name: str) -> Encoder:
    """The path, or a skip when it refused in an accepted way (see ``refusal_problem``)."""
    got = registry.get(name)
    if isinstance(got, Encoder):
        return got
    problem = refusal_problem(registry, got)
    assert problem is None, problem
    pytest.skip(f"{name}: refused: {type(got.error).__name__}: {got.error}")


@pytest.fixture(scope="module", params=ENCODER_NAMES)
def path(request, registry) -> Encoder:
    return usable(registry, request.param)


@pytest.fixture(scope="module", params=PAIRS, ids=lambda p: p.name)
def pair(request, registry) -> tuple[Encoder, Encoder]:
    return usable(registry, request.param.reference), usable(registry, request.param.other)


@pytest.fixture(scope="module", params=BPE_BASELINES)
def with_bpe(request, registry):
    return usable(registry, request.param), bpe_baseline(registry, request.param)


def test_empty_text_encodes_to_no_ids(path):
    assert path.encode("") == [], f"{path.name}: '' encodes to {path.encode('')}"
    assert path.decode([], False) == ""


@PROFILE
@given(text=TEXT)
@regressions_first
def test_decode_of_encode_restores_the_text(path, text):
    check_round_trip(path, text)


@PROFILE
@given(text=TEXT)
@regressions_first
def test_ids_and_decoding_match_the_reference_path(pair, text):
    check_same_ids(*pair, text)


@PROFILE
@given(text=TEXT)
@regressions_first
def test_optimal_never_needs_more_tokens_than_the_vocabularys_bpe(with_bpe, text):
    check_not_longer_than_bpe(*with_bpe, text)


@pytest.mark.parametrize("lookup_file", LOOKUP_FILES, ids=lambda p: p.other)
def test_lookup_folder_json_splits_every_lookup_word_like_its_folder(registry, lookup_file):
    """Lookup boundaries rarely change ids, so fuzzing alone seldom catches a tokenizer.json that
    ignores the lookup: every word the table splits between units goes through both."""
    folder, file = usable(registry, lookup_file.reference), usable(registry, lookup_file.other)
    words = lookup_words(step=1)
    differ = [w for w in words if folder.encode(w) != file.encode(w)]
    assert not differ, (f"{file.name} encodes {len(differ)} of {len(words)} lookup words unlike {folder.name}, "
                        f"e.g. {differ[:5]}")


@pytest.mark.parametrize("folder_name", ["cbpe-marks", "bpe-bytes"])
def test_plain_folders_reject_lone_surrogates_loudly(registry, folder_name):
    """Plain BPE/CBPE folders are standard HF files: transformers' own class and tokenizers run,
    and tokenizers rejects a str with a lone surrogate (the README's documented exception to the
    U+FFFD policy of hf-greedtok's classes). Loud, never different ids."""
    import hf_greedtok  # noqa: F401
    from transformers import AutoTokenizer
    hf = AutoTokenizer.from_pretrained(str(registry.cli_folder(folder_name)))
    assert not type(hf).__module__.startswith("hf_greedtok")
    with pytest.raises(TypeError):
        hf("a\ud800b", add_special_tokens=False)
