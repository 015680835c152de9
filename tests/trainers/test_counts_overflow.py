"""Counts are exact integers (issue 12, item 9): what the 64-bit trainer core (or HF's BpeTrainer,
whose pair counts are 32-bit) cannot hold is refused with a clear error, never wrapped, and
evaluation totals are exact however large the counts."""
from __future__ import annotations

import json

import pytest
from corpora import EXAMPLE_TEXT

from hf_greedtok import CBPETrainer, GreedTokTrainer, GreedWMCTrainer, Metaspace
from hf_greedtok.cli import main
from hf_greedtok.experiments.evaluation import evaluate_word_counts, total_tokens
from hf_greedtok.word_counts import CorpusError

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1


@pytest.mark.parametrize("trainer_class", [GreedTokTrainer, GreedWMCTrainer])
def test_a_count_above_int64_is_a_clear_error(trainer_class):
    trainer = trainer_class(k=5, show_progress=False)
    with pytest.raises(CorpusError, match=r"word ' big' has count 9223372036854775808, above 2\*\*63-1"):
        trainer.train_from_counts({" small": 3, " big": 2**63})


@pytest.mark.parametrize("trainer_class", [GreedTokTrainer, GreedWMCTrainer])
def test_totals_above_int64_are_refused_and_totals_at_the_limit_are_exact(trainer_class):
    trainer = trainer_class(k=5, pre_tokenizer=Metaspace(), show_progress=False)
    # Two words of 3 singletons ("▁ab") with count 2**62: 6 * 2**62 singletons overflow int64.
    with pytest.raises(CorpusError, match=r"counts too large.* 27670116110564327424 singletons .*"
                                          r"largest count is 4611686018427387904 \(word '▁ab'\)"):
        trainer.train_from_counts({"▁ab": 2**62, "▁cd": 2**62})
    # Just inside the limit everything stays exact and positive.
    c = INT64_MAX // 6
    tok = trainer.train_from_counts({"▁ab": c, "▁cd": c})
    info = tok.training_info
    assert info["words"] == 2 * c and info["singletons_in_corpus"] == 6 * c
    if trainer_class is GreedTokTrainer:
        assert info["objective_tokens"] == 2 * c            # "▁ab" and "▁cd" learned: one token per word
        assert info["tokens_per_word"] == 1.0
    assert all(g > 0 for g in tok.model.gains)


def test_evaluation_totals_are_exact_python_integers():
    trainer = GreedTokTrainer(k=5, pre_tokenizer=Metaspace(), show_progress=False)
    tok = trainer.train_from_counts({"▁ab": 10, "▁cde": 3})
    counts = {"▁ab": 2**62, "▁cde": 2**62, "▁xyz": 2**64 + 1}
    result = evaluate_word_counts(tok, counts)
    assert result["words"] == 2**63 + 2**64 + 1
    per_word = {w: len(tok.encode_words([w])[0]) for w in counts}
    exact = sum(per_word[w] * c for w, c in counts.items())
    assert result["tokens_cover"] == exact and result["tokens_cover"] > 0
    assert result["tokens_per_word_cover"] == pytest.approx(exact / result["words"])
    assert result["characters"] == 3 * 2**62 + 4 * 2**62 + 4 * (2**64 + 1)
    assert total_tokens(tok, list(counts), list(counts.values())) == exact


def test_cli_refuses_a_table_whose_totals_overflow_and_evaluates_it_exactly(tmp_path, capsys):
    table = tmp_path / "huge.tsv"
    table.write_text(f"the\t{2**62}\nof\t{2**62}\n", encoding="utf-8")
    out = tmp_path / "tok"
    assert main(["train", str(table), "--counts", "-k", "5", "-o", str(out), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "counts too large" in captured.err and str(table) in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err and not out.exists()

    trained = tmp_path / "example"
    assert main(["train", str(EXAMPLE_TEXT), "-k", "200", "-o", str(trained), "--quiet"]) == 0
    capsys.readouterr()
    # "the" in two tables: the word's count (and its token's frequency) is 2**63, one above int64.
    more = tmp_path / "more.tsv"
    more.write_text(f"the\t{2**62}\n", encoding="utf-8")
    assert main(["evaluate", str(trained), str(table), str(more), "--counts", "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["words"] == 3 * 2**62 and result["whitespace_words"] == 3 * 2**62
    assert result["tokens_cover"] >= 3 * 2**62 and result["tokens_per_word"] >= 1.0
    assert result["text_tokens"] >= 3 * 2**62 and 0 < result["renyi_efficiency"] <= 1
    assert all(v >= 0 for v in result.values() if isinstance(v, (int, float)))


def test_cli_refuses_a_count_above_int64_without_traceback(tmp_path, capsys):
    table = tmp_path / "huge.tsv"
    table.write_text(f"the\t5\nof\t{2**64}\n", encoding="utf-8")
    assert main(["train", str(table), "--counts", "-k", "5", "-o", str(tmp_path / "tok"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "above 2**63-1" in err and "' of'" in err and "Traceback" not in err


def test_cbpe_refuses_pair_counts_above_int32():
    # HF BpeTrainer keeps pair counts as i32: a pair seen 2**31 times would wrap.
    trainer = CBPETrainer(num_merges=5, units="chars", show_progress=False)
    with pytest.raises(CorpusError, match=r"pair '▁' 'a' occurs 2147483648 times.*above 2\*\*31-1"):
        trainer.train_from_counts({"▁ab": INT32_MAX, "▁a": 1})


def test_cbpe_trains_at_once_when_huge_counts_sit_on_single_unit_words():
    # A one-unit word has no pair to merge; feeding it 2**62 times used to never finish.
    trainer = CBPETrainer(num_merges=5, units="chars", show_progress=False)
    plain = trainer.train_from_counts({"▁ab": 5, "▁abc": 3, "▁b": 4})
    huge = trainer.train_from_counts({"▁ab": 5, "▁abc": 3, "▁b": 4, "▁": 2**62, "x": 2**70})
    assert trainer.training_info["words"] == 12 + 2**62 + 2**70
    learned = lambda backend: json.loads(backend.to_str())["model"]["merges"]   # noqa: E731
    assert learned(huge)[-trainer.training_info["learned_merges"]:] == \
        learned(plain)[-trainer.training_info["learned_merges"]:]


@pytest.mark.parametrize("count", [2**62, 2**64])
def test_compare_refuses_counts_it_cannot_hold_without_traceback(tmp_path, capsys, count):
    table = tmp_path / "big.tsv"
    table.write_text(f"the\t{count}\ncat\t{count}\n", encoding="utf-8")
    rc = main(["compare", str(table), "--counts", "-k", "5", "--no-plots", "-o", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "big.tsv" in err and ("counts too large" in err or "above 2**63-1" in err)
    assert "Traceback" not in err and not (tmp_path / "out").exists()
