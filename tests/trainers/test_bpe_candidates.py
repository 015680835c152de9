"""GreedTok choosing among BPE's tokens (issue 17 item 3, ``bpe_candidates``).

BPE's merges are computed by HF ``tokenizers``' own BpeTrainer from our word counts; fed our
words, it must learn exactly the merges it learns from the raw lines with the same split. The
trainer then runs Algorithm 1 with those tokens as its candidate set T (paper Section 5.4's
restricted candidates), which must be the same run as passing them as ``candidates``.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from corpora import corpus
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers

from hf_greedtok import ByteLevel, GreedTokTrainer, Metaspace
from hf_greedtok.trainers.bpe_merges import byte_level_bpe_tokens
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
    tok = GreedTokTrainer(k=600, pre_tokenizer=pre, bpe_candidates=1.75, show_progress=False).train_from_counts(counts)
    pool = byte_level_bpe_tokens(counts, pre, round(1.75 * (600 + 256)))
    assert set(tok.model.ranked_tokens) <= set(pool)
    assert tok.training_info["bpe_candidates"] == len(pool) and tok.training_info["restricted_candidates"]
    same = GreedTokTrainer(k=600, pre_tokenizer=pre, candidates=pool, show_progress=False).train_from_counts(counts)
    assert tok.model.ranked_tokens == same.model.ranked_tokens
    free = GreedTokTrainer(k=600, pre_tokenizer=pre, show_progress=False).train_from_counts(counts)
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
        GreedTokTrainer(k=10, **kwargs)


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


# ---------------------------------------------------------------------- issue 29 item 2: huge F

def _merge_bound(counts, pre) -> int:
    """Sum over distinct words of (bytes - 1): no BPE run on these words can merge more often."""
    return sum(len(pre.word_units(w)) - 1 for w in counts if len(pre.word_units(w)) >= 2)


@pytest.mark.parametrize("factor", ["1e12", "1e20", "1e308"])
def test_cli_refuses_a_factor_no_vocabulary_id_can_hold(factor, tmp_path):
    """1e12 died in a Rust allocation failure inside BpeTrainer (exit 134, a backtrace), 1e20 and
    1e308 in OverflowError tracebacks; a real process, so that an abort would show."""
    text = tmp_path / "in" / "small.txt"
    text.parent.mkdir()
    text.write_text("the cat sat on the mat\nthe dog sat on the log\n" * 20, encoding="utf-8")
    out_parent = tmp_path / "out"
    out_parent.mkdir()
    result = subprocess.run([sys.executable, "-m", "hf_greedtok.cli", "train", str(text), "-k", "5",
                             "--bpe-candidates", factor, "-o", str(out_parent / "tok"), "--quiet"],
                            capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)        # outside the checkout: the installed package, not its sources
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert "--bpe-candidates" in result.stderr and "2**32" in result.stderr
    assert list(out_parent.iterdir()) == []


@pytest.mark.parametrize("factor", [1e12, 1e20, 1e308])
def test_trainer_refuses_a_factor_no_vocabulary_id_can_hold(factor, tmp_path):
    """The Python trainer refuses it too, at construction (in a process of its own: before the
    fix, training aborted the interpreter)."""
    code = textwrap.dedent(f"""
        from hf_greedtok import GreedTokTrainer
        try:
            GreedTokTrainer(k=5, bpe_candidates={factor!r}, show_progress=False).train_from_counts(
                {{" the": 3, " cat": 2, " mat": 1}})
        except ValueError as e:
            print("ValueError:", e)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ValueError: bpe_candidates") and "2**32" in result.stdout, result.stdout


def test_a_large_factor_asks_bpe_for_the_merge_bound_with_the_same_tokens(brown):
    """BPE merges at most sum(bytes - 1) over distinct words: asked for more, BpeTrainer gives the
    same merges, so the trainer asks for the bound (its memory grows with the size asked)."""
    pre = ByteLevel("gpt4-marks")
    counts = count_words(brown[:2000], pre, None, num_proc=1, show_progress=False)
    bound = _merge_bound(counts, pre)
    exact = byte_level_bpe_tokens(counts, pre, 256 + bound)
    assert len(exact) <= bound
    assert byte_level_bpe_tokens(counts, pre, 256 + 10 * bound) == exact
    tok = GreedTokTrainer(k=300, pre_tokenizer=pre, bpe_candidates=1e5, show_progress=False).train_from_counts(counts)
    info = tok.training_info["bpe_candidates_run"]
    assert info["vocab_size_requested"] == round(1e5 * (300 + 256))
    assert info["merge_bound"] == bound and info["merges_asked"] == bound and info["capped"]
    assert tok.training_info["bpe_candidates"] == len({t for t in exact if len(t) >= 2})
    same = GreedTokTrainer(k=300, pre_tokenizer=pre, candidates=exact, show_progress=False).train_from_counts(counts)
    assert tok.model.ranked_tokens == same.model.ranked_tokens
    small = GreedTokTrainer(k=300, pre_tokenizer=pre, bpe_candidates=1.75, show_progress=False).train_from_counts(counts)
    assert not small.training_info["bpe_candidates_run"]["capped"]
