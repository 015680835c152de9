"""Special tokens (issue 12, item 8): empty or whitespace-only ones are refused everywhere, and
training splits them out of the text exactly as encoding does, so no learned token contains one
and the trainer's objective is the token count encoding gives on its own corpus."""
from __future__ import annotations

import json
import re

import pytest
from corpora import EXAMPLE_TEXT, corpus

from hf_greedtok import (ByteLevel, CBPETrainer, GreedTokModel, GreedTokTokenizerFast, GreedTokTrainer,
                         GreedWMCTrainer, Metaspace)
from hf_greedtok.cli import main
from hf_greedtok.special_tokens import SpecialSplitPreTokenizer, counting_pipeline
from hf_greedtok.word_counts import CorpusError

EOT = "<|endoftext|>"
EOT_WIDE = "＜｜endoftext｜＞"          # NFKC turns this into EOT, but only after encoding has split


def glue(text: str, special: str = EOT, every: int = 4) -> list[str]:
    """Lines of ``text`` with every ``every``-th space replaced by ``special``: 'word<|endoftext|>word'."""
    lines = []
    for line in text.splitlines(keepends=True):
        parts = line.split(" ")
        lines.append("".join(p + (special if (k + 1) % every == 0 else " ")
                             for k, p in enumerate(parts[:-1])) + parts[-1])
    return lines


def holds_special(token) -> bool:
    """True if a learned token holds the special token or its inner word (absent from the text)."""
    return (b"endoftext" if isinstance(token, bytes) else "endoftext") in token


@pytest.fixture(scope="module")
def glued_english() -> list[str]:
    lines = glue(corpus("en_brown.txt").read_text(encoding="utf-8")[:40_000])
    assert sum(line.count(EOT) for line in lines) > 1000
    return lines


# ------------------------------------------------------------------ validation

BAD = [("", "empty"), (" ", "whitespace only"), ("\n\t", "whitespace only")]
MAKERS = {
    "GreedTokTrainer": lambda specials: GreedTokTrainer(k=10, special_tokens=specials),
    "GreedWMCTrainer": lambda specials: GreedWMCTrainer(k=10, special_tokens=specials),
    "CBPETrainer": lambda specials: CBPETrainer(num_merges=10, units="chars", special_tokens=specials),
    "GreedTokModel": lambda specials: GreedTokModel([], unit_kind="bytes", special_tokens=specials),
}


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("bad, what", BAD)
def test_empty_and_whitespace_special_tokens_are_refused_naming_argument_and_token(maker, bad, what):
    with pytest.raises(ValueError, match=re.escape(f"special_tokens[1] {bad!r} is {what}")):
        MAKERS[maker](["<s>", bad])


@pytest.mark.parametrize("maker", MAKERS)
def test_a_special_token_listed_twice_is_refused(maker):
    with pytest.raises(ValueError, match="special_tokens lists '<s>' twice"):
        MAKERS[maker](["<s>", "</s>", "<s>"])


def test_train_new_from_iterator_refuses_an_empty_new_special_token():
    old = GreedTokTrainer(k=20, special_tokens=["<pad>"], show_progress=False).train_from_iterator(
        ["a cat sat on a mat"] * 3)
    fast = GreedTokTokenizerFast.from_greedtok(old, pad_token="<pad>")
    with pytest.raises(ValueError, match=r"new_special_tokens\[0\] '' is empty"):
        fast.train_new_from_iterator(["a cat sat"], vocab_size=300, new_special_tokens=[""])
    with pytest.raises(ValueError, match=r"special_tokens_map.*' ' is whitespace only"):
        fast.train_new_from_iterator(["a cat sat"], vocab_size=300, special_tokens_map={"<pad>": " "})


@pytest.mark.parametrize("algorithm", ["greedtok", "bpe"])
@pytest.mark.parametrize("bad", ["", " "])
def test_cli_special_token_empty_or_blank_exits_2_with_one_line(tmp_path, capsys, algorithm, bad):
    out = tmp_path / "tok"
    rc = main(["train", str(EXAMPLE_TEXT), "-k", "20", "-o", str(out), "--algorithm", algorithm,
               "--special-token", "<s>", "--special-token", bad, "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"special_tokens[1] {bad!r}" in err


# ------------------------------------------------------------------ the shared splitter

@pytest.mark.parametrize("pre", [ByteLevel(), ByteLevel("whitespace"), Metaspace()],
                         ids=["gpt4", "whitespace", "metaspace"])
def test_counting_words_are_the_words_encoding_sees(pre, glued_english):
    # '<|end' is a prefix of EOT: at one position the longer special token wins, in both paths.
    specials = [EOT, "<|end", "<pad>"]
    lines = [line.replace("the ", "the<|end ").replace("of", "<pad>of") for line in glued_english[:300]]
    lines += [f"{EOT_WIDE}x{EOT}<|end<|endoftext", "<pad>", " <pad> "]
    tok = GreedTokTrainer(k=300, special_tokens=specials, pre_tokenizer=pre, normalizer="NFKC",
                          show_progress=False).train_from_iterator(glued_english)
    counting, norm = counting_pipeline(tok.pre_tokenizer, tok.normalizer, specials)
    assert isinstance(counting, SpecialSplitPreTokenizer) and norm is None
    special_ids = set(tok.model.special_token_ids.values())
    for line in lines:
        without_specials = [i for i in tok.encode(line) if i not in special_ids]
        ids, _ = tok.encode_words(counting.pre_tokenize(line))
        assert without_specials == ids.tolist(), line


def test_the_splitting_pre_tokenizer_pickles_and_delegates():
    import pickle
    pre = SpecialSplitPreTokenizer(Metaspace(units="marks"), (EOT,))
    back = pickle.loads(pickle.dumps(pre))
    assert back == pre and back.unit_kind == "marks" and back.replacement == "\u2581"
    assert back.pre_tokenize(f"का{EOT}र") == ["▁का", "▁र"]


# ------------------------------------------------------------------ training never learns a special token

GREEDTOK_PRE = {"bytes-gpt4": ByteLevel(), "bytes-whitespace": ByteLevel("whitespace"), "chars": Metaspace()}


@pytest.mark.parametrize("trainer_class", [GreedTokTrainer, GreedWMCTrainer])
@pytest.mark.parametrize("pre", GREEDTOK_PRE, ids=list(GREEDTOK_PRE))
def test_greedtok_never_learns_a_special_token_and_its_objective_is_the_encoded_count(
        trainer_class, pre, glued_english):
    trainer = trainer_class(k=2000, special_tokens=[EOT], pre_tokenizer=GREEDTOK_PRE[pre], show_progress=False)
    tok = trainer.train_from_iterator(glued_english, num_proc=1)
    assert not [t for t in tok.model.ranked_tokens if holds_special(t)]
    if trainer_class is GreedTokTrainer:
        # DESIGN invariant 1 on text with special tokens: encoding's tokens minus the special ids.
        encoded = sum(len(ids) for ids in tok.encode_batch(glued_english, mode="cover"))
        specials = sum(line.count(EOT) for line in glued_english)
        assert encoded - specials == tok.training_info["objective_tokens"]


def test_normalization_happens_after_the_split_as_in_encoding(glued_english):
    # NFKC maps EOT_WIDE to EOT. Encoding splits the raw text first, so EOT_WIDE stays text;
    # counting must keep it too, or the objective would miss its tokens.
    lines = [line.replace(" a ", f" {EOT_WIDE}a ") for line in glued_english]
    assert sum(line.count(EOT_WIDE) for line in lines) > 50
    tok = GreedTokTrainer(k=1500, special_tokens=[EOT], pre_tokenizer=Metaspace(), normalizer="NFKC",
                          show_progress=False).train_from_iterator(lines, num_proc=1)
    encoded = sum(len(ids) for ids in tok.encode_batch(lines, mode="cover"))
    assert encoded - sum(line.count(EOT) for line in lines) == tok.training_info["objective_tokens"]


@pytest.mark.parametrize("pre", GREEDTOK_PRE, ids=list(GREEDTOK_PRE))
def test_training_files_and_count_tables_split_special_tokens(tmp_path, pre, glued_english):
    text = tmp_path / "glued.txt"
    text.write_text("".join(glued_english), encoding="utf-8")
    table = tmp_path / "glued.tsv"
    table.write_text(f"foo{EOT}bar\t500\n{EOT}baz\t300\nqux{EOT}\t200\nfoobar\t7\n", encoding="utf-8")
    trainer = GreedTokTrainer(k=400, special_tokens=[EOT], pre_tokenizer=GREEDTOK_PRE[pre], show_progress=False)
    from_file = trainer.train([text], num_proc=1)
    assert not [t for t in from_file.model.ranked_tokens if holds_special(t)]
    from_table = trainer.train([table], counts=True)
    assert not [t for t in from_table.model.ranked_tokens if holds_special(t)]
    # A table entry stands for the text it would be after a space (byte level) or alone (Metaspace).
    entries = {f"foo{EOT}bar": 500, f"{EOT}baz": 300, f"qux{EOT}": 200, "foobar": 7}
    prefix = " " if pre.startswith("bytes") else ""
    encoded = sum(c * sum(i != 0 for i in from_table.encode(prefix + w)) for w, c in entries.items())
    assert encoded == from_table.training_info["objective_tokens"]


def test_counts_given_with_a_special_token_inside_a_word_are_refused():
    trainer = GreedTokTrainer(k=10, special_tokens=[EOT], pre_tokenizer=Metaspace(), show_progress=False)
    with pytest.raises(CorpusError, match=r"word '▁foo<\|endoftext\|>bar' contains the special token"):
        trainer.train_from_counts({"▁foo": 3, f"▁foo{EOT}bar": 2})


@pytest.mark.parametrize("units", ["bytes", "chars", "marks"])
def test_bpe_and_cbpe_never_learn_a_special_token(units, glued_english, tmp_path):
    hindi = glue(corpus("hi_devdas.txt").read_text(encoding="utf-8")[:40_000])
    lines = hindi if units == "marks" else glued_english
    trainer = CBPETrainer(num_merges=1500, units=units, special_tokens=[EOT, "<pad>"], show_progress=False)
    backend = trainer.train_from_iterator(lines, num_proc=1)
    learned = [t for t in backend.get_vocab() if t not in (EOT, "<pad>")]
    assert trainer.training_info["learned_merges"] > 1000
    assert not [t for t in learned if holds_special(t)]
    text = tmp_path / "glued.txt"
    text.write_text("".join(lines), encoding="utf-8")
    backend = trainer.train([text], num_proc=1)
    assert not [t for t in backend.get_vocab() if t not in (EOT, "<pad>") and holds_special(t)]


@pytest.mark.parametrize("algorithm, units", [("greedtok", "bytes"), ("greedtok", "chars"), ("bpe", "chars"),
                                              ("cbpe", "marks")])
def test_cli_training_splits_special_tokens_out_of_the_text(tmp_path, glued_english, algorithm, units):
    corpus_file = tmp_path / "glued.txt"
    corpus_file.write_text("\n".join(glued_english) + "\n", encoding="utf-8")
    out = tmp_path / "tok"
    assert main(["train", str(corpus_file), "-k", "200", "-o", str(out), "--algorithm", algorithm,
                 "--units", units, "--special-token", EOT, "--quiet"]) == 0
    vocab = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    pieces = [p[0] if isinstance(p, list) else p for p in (vocab if isinstance(vocab, list) else vocab)]
    learned = [p for p in pieces if p != EOT]
    assert EOT in pieces and not any("endoftext" in p for p in learned)
