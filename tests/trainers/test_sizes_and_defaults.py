"""One set of defaults and one meaning of a size, on the Python trainers and the CLI alike, and a
size not reached reported on every surface with its true cause.

* The same settings give the same ids through ``GreedTokTrainer`` (or the superword or BPE
  trainer) and through ``hf-greedtok train``: both split with ``DEFAULT_SPLIT`` and encode with
  ``DEFAULT_MODE``.
* ``vocab_size=`` is the whole vocabulary (as ``--total-vocab-size`` and HF trainers), ``k=`` the
  learned tokens (as ``-k``); a positional size keeps its old meaning, k, and says so.
* Fewer tokens than asked: a ``VocabularySizeWarning`` in Python, a line on the CLI's stderr and
  ``training_info["size_shortfall"]``, naming the cause the trainer saw and the option to change.
"""
from __future__ import annotations

import re

import pytest
from corpora import EXAMPLE_TEXT

from hf_greedtok import (GreedTokSuperwordTrainer, GreedTokTokenizerFast, GreedTokTrainer, Metaspace, Tokenizer,
                         VocabularySizeWarning)
from hf_greedtok.cli import main
from hf_greedtok.defaults import DEFAULT_MODE
from hf_greedtok.pre_tokenizers.patterns import DEFAULT_SPLIT, find_split
from hf_greedtok.trainers.cbpe import CBPETrainer

PROBE = "The cynic is a blackguard whose faulty vision sees things as they are, naïve café 12345."


@pytest.fixture(scope="module")
def text(tmp_path_factory):
    """The first 40 KB of the example text, cut at a line end."""
    body = EXAMPLE_TEXT.read_text(encoding="utf-8")[:40_000]
    path = tmp_path_factory.mktemp("text") / "text.txt"
    path.write_text(body[:body.rindex("\n") + 1], encoding="utf-8")
    return path


def _cli_train(text, out, *flags) -> None:
    assert main(["train", str(text), "-o", str(out), "--quiet", "--num-proc", "1", *flags]) == 0


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.parametrize("flags, trainer", [
    ([], lambda: GreedTokTrainer(k=300, show_progress=False)),
    (["--superwords"], lambda: GreedTokSuperwordTrainer(k=300, show_progress=False)),
])
def test_the_python_trainers_and_the_cli_give_the_same_ids(flags, trainer, text, tmp_path):
    _cli_train(text, tmp_path / "cli", "-k", "300", *flags)
    from_cli = Tokenizer.load(tmp_path / "cli")
    from_python = trainer().train([text], num_proc=1)
    assert from_python.mode == from_cli.mode == DEFAULT_MODE
    assert from_python.model.ranked_tokens == from_cli.model.ranked_tokens
    assert from_python.encode(PROBE) == from_cli.encode(PROBE)


def test_the_word_split_of_both_surfaces_is_the_default_split():
    assert GreedTokTrainer(k=10).pre_tokenizer.table_split == DEFAULT_SPLIT
    assert GreedTokSuperwordTrainer(k=10).word_pre_tokenizer.table_split == DEFAULT_SPLIT
    assert find_split(CBPETrainer(num_merges=10, units="bytes").pre_tokenizer.table_split).name == DEFAULT_SPLIT


def test_byte_level_bpe_of_python_and_the_cli_gives_the_same_ids(text, tmp_path):
    from tokenizers import Tokenizer as HFTokenizer
    _cli_train(text, tmp_path / "cli", "--algorithm", "bpe", "-k", "200")
    from_cli = HFTokenizer.from_file(str(tmp_path / "cli" / "tokenizer.json"))
    from_python = CBPETrainer(num_merges=200, units="bytes", show_progress=False).train([text], num_proc=1)
    assert from_python.encode(PROBE).ids == from_cli.encode(PROBE).ids


@pytest.mark.parametrize("pre_tokenizer, flags", [(None, []), (Metaspace(), ["--units", "chars"])])
def test_vocab_size_is_the_whole_vocabulary_as_total_vocab_size_is(pre_tokenizer, flags, text, tmp_path):
    extra = {} if pre_tokenizer is None else {"pre_tokenizer": pre_tokenizer}
    tok = GreedTokTrainer(vocab_size=700, special_tokens=["<pad>"], show_progress=False, **extra) \
        .train([text], num_proc=1)
    assert tok.model.vocab_size == 700 and "size_shortfall" not in tok.training_info
    _cli_train(text, tmp_path / "cli", "--total-vocab-size", "700", "--special-token", "<pad>", *flags)
    assert Tokenizer.load(tmp_path / "cli").model.ranked_tokens == tok.model.ranked_tokens
    learned = tok.training_info["k_learned"]
    same = GreedTokTrainer(k=learned, special_tokens=["<pad>"], show_progress=False, **extra).train([text], num_proc=1)
    assert same.model.ranked_tokens == tok.model.ranked_tokens


def test_continue_training_takes_either_size(text):
    trainer = GreedTokTrainer(k=200, show_progress=False)
    trainer.train([text], num_proc=1)
    assert trainer.continue_training(vocab_size=600).model.vocab_size == 600
    assert trainer.continue_training(k=400).training_info["k_learned"] == 400


@pytest.mark.parametrize("cls", [GreedTokTrainer, GreedTokSuperwordTrainer])
def test_a_positional_size_is_k_and_warns_naming_both_keywords(cls):
    with pytest.warns(FutureWarning, match=r"a positional size is read as k.*write k=300 .*vocab_size= for the whole"):
        trainer = cls(300, show_progress=False)
    assert trainer.k == 300 and trainer.vocab_size is None


@pytest.mark.parametrize("sizes, given", [({}, "neither"), ({"k": 10, "vocab_size": 500}, "k and vocab_size")])
def test_exactly_one_size_is_given(sizes, given):
    with pytest.raises(ValueError, match=f"give exactly one of k= .* and vocab_size= .*got {given}"):
        GreedTokTrainer(**sizes)


def test_a_vocab_size_without_room_for_learned_tokens_is_refused_when_the_trainer_is_made():
    with pytest.raises(ValueError, match="vocab_size 258 leaves no learned tokens: 256 singletons and 2 special"):
        GreedTokTrainer(vocab_size=258, special_tokens=["<s>", "</s>"])


def test_a_tiny_corpus_is_the_cause_when_every_word_is_one_token():
    with pytest.warns(VocabularySizeWarning, match=r"learned \d+ of the 2,000 tokens asked: every training word is "
                                                   r"one token already.*train on more text"):
        tok = GreedTokTrainer(k=2000, show_progress=False).train_from_iterator(["the cat sat on the mat"] * 4)
    shortfall = tok.training_info["size_shortfall"]
    assert shortfall["asked"] == 2000 and shortfall["got"] == tok.training_info["k_learned"] < 2000
    assert shortfall["option"] is None


def test_the_frequency_floor_is_named_when_it_stops_the_superword_stage(text):
    trainer = GreedTokSuperwordTrainer(k=2000, show_progress=False)
    with pytest.warns(VocabularySizeWarning, match="no candidate occurring at least 32 times has a positive gain; "
                                                   "lower min_frequency"):
        tok = trainer.train([text], num_proc=1)
    assert tok.training_info["size_shortfall"]["option"] == "min_frequency"
    assert GreedTokSuperwordTrainer(k=2000, min_frequency=1, show_progress=False) \
        .train([text], num_proc=1).training_info["k_learned"] == 2000


def test_train_new_from_iterator_reports_the_vocabulary_it_did_not_reach(text):
    old = GreedTokTokenizerFast.from_greedtok(GreedTokTrainer(k=100, show_progress=False).train([text], num_proc=1))
    with pytest.warns(VocabularySizeWarning, match=r"a vocabulary of [\d,]+ ids, not 2,000"):
        new = old.train_new_from_iterator(["the cat sat on the mat"] * 4, 2000)
    info = new.greedtok.training_info["size_shortfall"]
    assert info["vocab_size_asked"] == 2000 and info["vocab_size_got"] == len(new) < 2000


@pytest.mark.parametrize("flags, cause", [
    (["--superwords", "-k", "2000"], re.escape("no candidate occurring at least 32 times has a positive gain; lower "
                                               "min_frequency to learn more (--min-frequency in hf-greedtok train)")),
    (["--algorithm", "bpe", "-k", "50000"], "BPE learned [\\d,]+ of the 50,000 tokens asked: every training word "
                                            "is one token already"),
])
def test_the_cli_prints_a_size_not_reached_on_stderr(flags, cause, text, tmp_path, capsys):
    _cli_train(text, tmp_path / "out", *flags)
    err = capsys.readouterr().err
    assert err.startswith("hf-greedtok train: warning: ") and err.count("\n") == 1
    assert re.search(cause, err)


def test_every_command_prints_a_size_not_reached_in_one_line(capsys):
    """hierarchical and compare train through the Python trainers: their VocabularySizeWarning is
    one line naming the command, as train's, not Python's two lines naming the script."""
    import warnings

    from hf_greedtok.cli import _warnings_in_one_line
    from hf_greedtok.errors import VocabularySizeWarning

    with warnings.catch_warnings(), _warnings_in_one_line("hierarchical"):
        warnings.simplefilter("always", VocabularySizeWarning)     # whatever -W or PYTHONWARNINGS say
        warnings.warn("GreedTokTrainer learned 3 of the 5 tokens asked", VocabularySizeWarning)
    assert capsys.readouterr().err == "hf-greedtok hierarchical: warning: GreedTokTrainer learned 3 of the 5 tokens asked\n"
