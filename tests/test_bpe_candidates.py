"""GreedTok choosing among BPE's tokens (issue 17 item 3, ``bpe_candidates``).

BPE's merges are computed by HF ``tokenizers``' own BpeTrainer from our word counts; fed our
words, it must learn exactly the merges it learns from the raw lines with the same split. The
trainer then runs Algorithm 1 with those tokens as its candidate set T (paper Section 5.4's
restricted candidates), which must be the same run as passing them as ``candidates``.
"""
from __future__ import annotations

import pytest
from corpora import corpus
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers

from hf_greedtok import ByteLevel, GreedTokTrainer, Metaspace
from hf_greedtok.bpe_merges import byte_level_bpe_tokens
from hf_greedtok.cli import main
from hf_greedtok.hf.pipeline import standard_pre_tokenizer
from hf_greedtok.word_counts import count_words


@pytest.fixture(scope="module")
def brown() -> list[str]:
    return corpus("en_brown.txt").read_text(encoding="utf-8").splitlines(keepends=True)[:12000]


@pytest.mark.parametrize("pattern", ["gpt4", "gpt4-marks"])
def test_bpe_on_our_counts_learns_what_hf_bpe_learns_from_the_lines(brown, pattern):
    pre = ByteLevel(pattern)
    counts = count_words(brown, pre, None, num_proc=1, show_progress=False)
    ours = byte_level_bpe_tokens(counts, pre, 1500)
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = standard_pre_tokenizer(pre)
    hf.train_from_iterator(brown, trainers.BpeTrainer(vocab_size=1500, show_progress=False,
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    by_id = sorted(hf.get_vocab().items(), key=lambda item: item[1])
    assert ours == [pre.str_to_token(t) for t, i in by_id if i >= 256]      # same merges, same order
    assert len(ours) == 1500 - 256


def test_greedtok_chooses_its_tokens_among_bpes(brown):
    pre = ByteLevel("gpt4-marks")
    counts = count_words(brown, pre, None, num_proc=1, show_progress=False)
    tok = GreedTokTrainer(600, pre_tokenizer=pre, bpe_candidates=1.75, show_progress=False).train_from_counts(counts)
    pool = byte_level_bpe_tokens(counts, pre, round(1.75 * (600 + 256)))
    assert set(tok.model.ranked_tokens) <= set(pool)
    assert tok.training_info["bpe_candidates"] == len(pool) and tok.training_info["restricted_candidates"]
    same = GreedTokTrainer(600, pre_tokenizer=pre, candidates=pool, show_progress=False).train_from_counts(counts)
    assert tok.model.ranked_tokens == same.model.ranked_tokens
    free = GreedTokTrainer(600, pre_tokenizer=pre, show_progress=False).train_from_counts(counts)
    assert not set(free.model.ranked_tokens) <= set(pool)      # unrestricted, it picks tokens BPE lacks


@pytest.mark.parametrize("kwargs, message", [
    ({"bpe_candidates": 1}, "above 1"),
    ({"bpe_candidates": True}, "above 1"),
    ({"bpe_candidates": "2"}, "above 1"),
    ({"bpe_candidates": 2, "candidates": ["ab"]}, "not both"),
    ({"bpe_candidates": 2, "pre_tokenizer": Metaspace()}, "byte-level"),
])
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GreedTokTrainer(10, **kwargs)


def test_cli_option(tmp_path, capsys):
    text = corpus("en_brown.txt")
    out = tmp_path / "tok"
    assert main(["train", str(text), "-k", "300", "--bpe-candidates", "1.75", "-o", str(out), "--quiet",
                 "--num-proc", "1"]) == 0
    for bad, said in ((["--bpe-candidates", "1"], "above 1"),
                      (["--bpe-candidates", "2", "--units", "chars"], "--units bytes"),
                      (["--bpe-candidates", "2", "--algorithm", "bpe"], "GreedTok options")):
        assert main(["train", str(text), "-k", "300", *bad, "-o", str(tmp_path / "bad"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err
        assert not (tmp_path / "bad").exists()
