"""GreedTokTokenizerFast's native batch path gives exactly the backend's BatchEncoding.

Issue 14 item 4: ``tok(texts, ...)`` for the common options runs natively and pads in numpy;
each call here is made twice, once with ``native_batch_path = False`` (every call through the
tokenizers backend, the reference), and the two results must agree key for key, value for
value, type and dtype included, and in their ``encodings``. Real text (the cuts in tests/data/corpora):
English prose, Hindi, Chinese and Python code, plus arbitrary Unicode from hypothesis.
"""
from __future__ import annotations

import os
import pickle
import threading

import numpy as np
import pytest
from corpora import corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_greedtok import GreedTokTokenizerFast, GreedTokTrainer, Metaspace
from hf_greedtok.hf.fast_path import LazyEncodingsBatch

SPECIALS = ["<s>", "</s>", "<pad>"]


def _panic_type() -> type:
    """pyo3's PanicException (a BaseException: what a Rust panic in tokenizers raises)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    backend = Tokenizer(models.WordLevel({"a": 0}, unk_token="a"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.enable_truncation(1, stride=1)
    try:
        backend.encode("a a")
    except BaseException as e:  # noqa: BLE001 - the type is what we want
        return type(e)
    raise AssertionError("tokenizers accepted a stride as long as max_length")


PanicException = _panic_type()


def lines_of(name: str, n: int) -> list[str]:
    lines = corpus(name).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()][:n]


@pytest.fixture(scope="module")
def texts() -> dict[str, list[str]]:
    return {"en": lines_of("en_brown.txt", 1500), "hi": lines_of("hi_devdas.txt", 600),
            "zh": lines_of("zh_reviews.txt", 600), "code": lines_of("code_python_stdlib.txt", 800)}


@pytest.fixture(scope="module")
def batch(texts) -> list[str]:
    """A batch mixing the four kinds of text, special tokens inside text and edge cases."""
    mixed = [t for k in ("en", "hi", "zh", "code") for t in texts[k][-8:]]
    return mixed + ["", " ", "a<s>b </s>", "<pad><pad>", "naïve café 東京 🙂", "x \ud800 y", "\t\n  end"]


def trained(texts, pre_tokenizer=None):
    kwargs = {"pre_tokenizer": pre_tokenizer} if pre_tokenizer is not None else {}
    trainer = GreedTokTrainer(k=1500, special_tokens=SPECIALS, show_progress=False, **kwargs)
    return trainer.train_from_iterator(texts["en"][:1000] + texts["hi"][:400] + texts["zh"][:400]
                                       + texts["code"][:600], num_proc=1)


@pytest.fixture(scope="module")
def byte_level(texts):
    return trained(texts)


@pytest.fixture(scope="module")
def metaspace(texts):
    return trained(texts, Metaspace())


@pytest.fixture(scope="module", params=[("bytes", "cover"), ("bytes", "optimal"), ("chars", "cover"),
                                        ("chars", "optimal")], ids=lambda p: "-".join(p))
def tok(request, byte_level, metaspace) -> GreedTokTokenizerFast:
    units, mode = request.param
    core = byte_level if units == "bytes" else metaspace
    return GreedTokTokenizerFast.from_greedtok(core, mode=mode, bos_token="<s>", eos_token="</s>",
                                               pad_token="<pad>")


def reference(tok: GreedTokTokenizerFast, *args, **kwargs):
    tok.native_batch_path = False
    try:
        return tok(*args, **kwargs)
    finally:
        tok.native_batch_path = True


def assert_same(fast, ref, pickled: bool = False) -> None:
    """Two BatchEncodings are the same: keys in order, values with their types and dtypes, and
    the encodings (ids, word ids, tokens) the backend made."""
    assert list(fast.keys()) == list(ref.keys())
    for key in ref:
        a, b = fast[key], ref[key]
        assert type(a) is type(b), key
        if isinstance(b, np.ndarray) and b.dtype == object:       # ragged rows, one array each
            assert a.dtype == object and a.shape == b.shape, key
            assert [(r.dtype, r.tolist()) for r in a] == [(r.dtype, r.tolist()) for r in b], key
        elif isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), key
        else:
            assert a == b, key
    if not pickled:     # BatchEncoding pickles without n_sequences (transformers' own behaviour)
        assert fast.n_sequences == ref.n_sequences and fast.is_fast and ref.is_fast
    assert [e.ids for e in fast.encodings] == [e.ids for e in ref.encodings]
    assert [e.word_ids for e in fast.encodings] == [e.word_ids for e in ref.encodings]
    assert fast.tokens(0) == ref.tokens(0)


def encode_both(tok, *args, **kwargs):
    fast = tok(*args, **kwargs)
    assert isinstance(fast, LazyEncodingsBatch), "this call should have taken the native path"
    assert fast.__dict__.get("_lazy_encodings") is None, "encodings are made on first use only"
    return fast, reference(tok, *args, **kwargs)


OPTIONS = st.fixed_dictionaries({
    "padding": st.sampled_from([False, True, "longest", "max_length"]),
    "truncation": st.sampled_from([False, True, "longest_first", "only_first", "only_second"]),
    "max_length": st.sampled_from([None, 3, 5, 9, 64]),
    "return_tensors": st.sampled_from([None, "np"]),
    "padding_side": st.sampled_from(["right", "left"]),
    "pad_to_multiple_of": st.sampled_from([None, 8]),
    "add_special_tokens": st.booleans(),
    "return_attention_mask": st.sampled_from([None, False, True]),
    "return_token_type_ids": st.sampled_from([None, True]),
    "return_special_tokens_mask": st.booleans(),
    "return_length": st.booleans(),
    "return_offsets_mapping": st.booleans(),
    "split_special_tokens": st.booleans(),
    "stride": st.sampled_from([0, 0, 1, 2]),
    "return_overflowing_tokens": st.booleans(),
})


def usable(options: dict) -> dict:
    # padding to max_length without one would pad to model_max_length (10**30)
    if options["padding"] == "max_length" and options["max_length"] is None:
        options = {**options, "max_length": 9}
    return options


def shaped(texts: list[str], shape: str, single: bool) -> dict:
    """The keyword arguments of a call on ``texts`` in one of the input shapes transformers
    takes: texts, text pairs (each text with the next), words (split at single spaces, so
    empty words too), or pairs of word lists; ``single``: the first row alone, unbatched."""
    words = shape in ("words", "word pairs")
    firsts = [t.split(" ") for t in texts] if words else list(texts)
    seconds = firsts[1:] + firsts[:1] if "pair" in shape else None
    if single:
        firsts, seconds = firsts[0], (seconds[0] if seconds is not None else None)
    return {"text": firsts, "text_pair": seconds, "is_split_into_words": words}


SHAPES = ["texts", "pairs", "words", "word pairs"]


# padding=True with a max_length and no truncation is one of the combinations drawn; transformers
# warns that it ignores max_length, on both paths alike
@pytest.mark.filterwarnings("ignore:`max_length` is ignored:UserWarning")
@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(options=OPTIONS, extra=st.lists(st.text(max_size=40), max_size=3), single=st.booleans(),
       shape=st.sampled_from(SHAPES), template=st.sampled_from(["none", "bos", "bos+eos"]),
       side=st.sampled_from(["right", "left"]))
def test_the_native_path_gives_the_backends_batch_encoding(tok, batch, options, extra, single, shape, template,
                                                           side):
    tok.add_bos_token, tok.add_eos_token = "bos" in template, "eos" in template
    tok.truncation_side = side
    # Rows refused for different reasons (a stride too long: a Rust panic; a sequence too short)
    # raise whichever row tokenizers' threads reach first; one thread makes it the first row.
    parallelism = os.environ.get("TOKENIZERS_PARALLELISM")
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    try:
        inputs = shaped(batch + extra, shape, single)
        try:
            ref = reference(tok, **inputs, **usable(options))
        except (Exception, PanicException) as e:     # options transformers or tokenizers refuse
            with pytest.raises(type(e)) as native:
                tok(**inputs, **usable(options))
            assert str(native.value) == str(e)
            return
        fast = tok(**inputs, **usable(options))
        # offsets of Metaspace text come from the backend
        assert isinstance(fast, LazyEncodingsBatch) or (options["return_offsets_mapping"] and not tok.native_offsets())
        assert_same(fast, ref)
    finally:
        tok.add_bos_token = tok.add_eos_token = False
        tok.truncation_side = "right"
        if parallelism is None:
            del os.environ["TOKENIZERS_PARALLELISM"]
        else:
            os.environ["TOKENIZERS_PARALLELISM"] = parallelism


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(n1=st.integers(0, 12), n2=st.integers(0, 12), limit=st.integers(0, 26),
       strategy=st.sampled_from(["longest_first", "only_first", "only_second"]))
def test_truncated_lengths_are_tokenizers_own(n1, n2, limit, strategy):
    """kept_lengths against tokenizers truncating a pair of n1 and n2 one-token words."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers.tokenization_utils_base import TruncationStrategy
    from hf_greedtok.hf.fast_path import TruncationRefused, kept_lengths
    backend = Tokenizer(models.WordLevel({"a": 0}, unk_token="a"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.enable_truncation(limit, strategy=strategy)
    lengths = np.array([[n1, n2]], dtype=np.int64)
    try:
        enc = backend.encode(" ".join("a" * n1), " ".join("a" * n2))
    except Exception as e:
        assert "too short" in str(e)
        with pytest.raises(TruncationRefused):
            kept_lengths(lengths, TruncationStrategy(strategy), limit)
        return
    assert kept_lengths(lengths, TruncationStrategy(strategy), limit).tolist() == [[enc.type_ids.count(0),
                                                                                    enc.type_ids.count(1)]]


def test_every_line_of_every_corpus_kind(tok, texts):
    lines = [t for k in ("en", "hi", "zh", "code") for t in texts[k]]
    assert_same(*encode_both(tok, lines, padding=True, return_tensors="np"))
    assert_same(*encode_both(tok, lines, truncation=True, max_length=32))


def test_one_text_and_encode(tok, texts):
    line = texts["hi"][5]
    assert_same(*encode_both(tok, line))
    assert tok.encode(line) == reference(tok, line)["input_ids"] == tok.greedtok.encode(line, mode=tok.mode)


def test_tokens_added_after_training_are_matched_natively(byte_level, texts):
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                              mask_token="<mask>", add_bos_token=True)
    tok.add_special_tokens({"additional_special_tokens": ["<sep>", "<sep><sep>"]})
    inputs = ["a <mask> b<sep>c", "<sep><sep><sep>", texts["en"][1] + "<mask>"]
    fast, ref = encode_both(tok, inputs, padding=True, return_special_tokens_mask=True)
    assert_same(fast, ref)
    assert tok.convert_tokens_to_ids("<mask>") in fast["input_ids"][0]


def test_added_tokens_the_native_matcher_cannot_follow_take_the_backend(byte_level):
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, pad_token="<pad>")
    assert tok._native_added_tokens() is not None
    tok.add_tokens(["cynic"])                  # not special: still split out with split_special_tokens
    assert tok._native_added_tokens() is None
    out = tok(["the cynic", "a"], padding=True)
    assert not isinstance(out, LazyEncodingsBatch)
    assert tok.convert_tokens_to_ids("cynic") in out["input_ids"][0]


def test_offsets_of_every_line_of_every_corpus_kind(tok, texts):
    if not tok.native_offsets():
        pytest.skip("Metaspace offsets come from the backend")
    lines = [t for k in ("en", "hi", "zh", "code") for t in texts[k][:300]]
    assert_same(*encode_both(tok, lines, return_offsets_mapping=True))
    assert_same(*encode_both(tok, lines, return_offsets_mapping=True, padding=True, return_tensors="np",
                             truncation=True, max_length=48))


def test_overflowing_parts_of_a_long_text_become_rows(byte_level, texts):
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, bos_token="<s>", eos_token="</s>", add_bos_token=True)
    line = max(texts["en"], key=len)
    out = tok([line, "short"], truncation=True, max_length=9, stride=3, return_overflowing_tokens=True)
    assert isinstance(out, LazyEncodingsBatch)
    ids = byte_level.encode(line)
    # 8 tokens of text per row after <s>, each row starting 3 tokens before the previous one ended
    starts = list(range(0, len(ids) - 3, 5))
    assert out["input_ids"][:len(starts)] == [[tok.bos_token_id] + ids[a:a + 8] for a in starts]
    assert out["overflow_to_sample_mapping"] == [0] * len(starts) + [1]
    assert_same(out, reference(tok, [line, "short"], truncation=True, max_length=9, stride=3,
                               return_overflowing_tokens=True))


def test_question_answering_preprocessing(byte_level, texts):
    """The SQuAD recipe: question + context, only the context truncated, overlapping windows,
    offsets, padded to max_length."""
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                              add_bos_token=True, add_eos_token=True)
    questions = [t[:40] for t in texts["en"][:50]]
    contexts = [" ".join(texts["en"][i:i + 4]) for i in range(50, 100)]
    kwargs = dict(truncation="only_second", max_length=64, stride=16, return_overflowing_tokens=True,
                  return_offsets_mapping=True, padding="max_length")
    assert_same(*encode_both(tok, questions, contexts, **kwargs))


def test_overflow_under_another_post_processor_takes_the_backend(byte_level):
    from tokenizers import processors
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, bos_token="<s>", eos_token="</s>")
    tok.backend_tokenizer.post_processor = processors.RobertaProcessing(("</s>", tok.eos_token_id),
                                                                         ("<s>", tok.bos_token_id))
    assert not tok.native_overflow()
    out = tok(["one two three four five"], truncation=True, max_length=4, return_overflowing_tokens=True)
    assert not isinstance(out, LazyEncodingsBatch) and len(out["input_ids"]) > 1
    assert isinstance(tok(["one two"]), LazyEncodingsBatch)


@pytest.mark.parametrize("shape", ["pairs", "words", "word pairs"])
def test_pairs_and_pre_split_words_of_every_corpus_kind(tok, texts, shape):
    lines = [t for k in ("en", "hi", "zh", "code") for t in texts[k][:100]]
    tok.add_bos_token = tok.add_eos_token = True
    try:
        assert_same(*encode_both(tok, **shaped(lines, shape, False), padding=True, return_tensors="np",
                                 return_token_type_ids=True))
        assert_same(*encode_both(tok, **shaped(lines, shape, False), truncation=True, max_length=24,
                                 return_special_tokens_mask=True))
    finally:
        tok.add_bos_token = tok.add_eos_token = False


def test_a_pair_is_its_two_texts_inside_the_pair_template(byte_level):
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, bos_token="<s>", eos_token="</s>")
    from tokenizers import processors
    s, e = tok.bos_token_id, tok.eos_token_id
    # BERT's shape: [CLS] A [SEP] B [SEP], the second text with type 1
    tok.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1", special_tokens=[("<s>", s), ("</s>", e)])
    a, b = "The cynic is a blackguard.", "BORE, n. A person who talks when you wish him to listen."
    out = tok(a, b, return_token_type_ids=True)
    assert isinstance(out, LazyEncodingsBatch)
    ids_a, ids_b = byte_level.encode(a), byte_level.encode(b)
    assert out["input_ids"] == [s] + ids_a + [e] + ids_b + [e]
    assert out["token_type_ids"] == [0] * (len(ids_a) + 2) + [1] * (len(ids_b) + 1)
    # pre-split words: each word encoded alone, as tokenizers does with is_pretokenized
    words = tok(a.split(" "), is_split_into_words=True, add_special_tokens=False)
    assert words["input_ids"] == [i for w in a.split(" ") for i in byte_level.encode(w)]
    assert words.word_ids() == [k for k, w in enumerate(a.split(" ")) for _ in byte_level.encode(w)]


def test_bad_inputs_raise_what_the_backend_raises(tok):
    for bad in ([None], ["a", 3], []):
        with pytest.raises(Exception) as native:
            tok(bad)
        with pytest.raises(Exception) as backend:
            reference(tok, bad)
        assert type(native.value) is type(backend.value) and str(native.value) == str(backend.value)


def test_a_pickled_batch_keeps_its_encodings(tok, batch):
    fast, ref = encode_both(tok, batch, padding=True)
    assert_same(pickle.loads(pickle.dumps(fast)), pickle.loads(pickle.dumps(ref)), pickled=True)


def test_encodings_of_a_batch_made_before_the_tokenizer_changed_are_refused(byte_level):
    tok = GreedTokTokenizerFast.from_greedtok(byte_level)
    out = tok(["a zzyzx b"])
    tok.add_special_tokens({"additional_special_tokens": ["zzyzx"]})
    with pytest.raises(RuntimeError, match="tokenizer changed"):
        out.word_ids(0)


def test_threads_share_one_tokenizer(tok, texts):
    lines = texts["en"][:400]
    want = reference(tok, lines, padding=True, return_tensors="np")["input_ids"]
    results, errors = [], []

    def work():
        try:
            for _ in range(3):
                results.append(tok(lines, padding=True, return_tensors="np")["input_ids"])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and len(results) == 9
    assert all(np.array_equal(r, want) for r in results)


def test_a_post_processor_that_does_more_than_wrap_the_text_takes_the_backend(byte_level):
    from tokenizers import processors
    tok = GreedTokTokenizerFast.from_greedtok(byte_level, bos_token="<s>")
    tok.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single="$A <s> $A", pair="$A $B", special_tokens=[("<s>", tok.bos_token_id)])
    out = tok(["one two", "three"])
    assert not isinstance(out, LazyEncodingsBatch)
    once = byte_level.encode("one two")
    assert out["input_ids"][0] == once + [tok.bos_token_id] + once


def test_offsets_under_a_post_processor_that_may_trim_them_come_from_the_backend(byte_level):
    from tokenizers import processors
    tok = GreedTokTokenizerFast.from_greedtok(byte_level)
    tok.backend_tokenizer.post_processor = processors.ByteLevel(trim_offsets=True)
    assert not tok.native_offsets()
    out = tok(["  two  spaces", "x"], return_offsets_mapping=True)
    assert not isinstance(out, LazyEncodingsBatch)
    assert isinstance(tok(["  two  spaces", "x"]), LazyEncodingsBatch)       # ids: still native
