"""`compare` (GreedTok vs HF BPE vs GreedWMC, paper Table 3 / Figure 3) and hierarchical training (Section 5.4)."""
from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from corpora import EXAMPLE_TEXT, corpus

from hf_greedtok import ByteLevel, CBPETrainer, GreedTokTrainer, Metaspace
from hf_greedtok.cli import main
from hf_greedtok.experiments.compare import (_bpe_total, _replay, bpe_merge_savings, compare_word_counts, default_targets,
                                 smallest_k, table3)
from hf_greedtok.experiments.hierarchical_vs_direct import token_substrings, train_hierarchical


@pytest.fixture(scope="module")
def brown_counts():
    return _count(corpus("en_brown.txt").read_text(encoding="utf-8")[:400_000])


def _count(text: str) -> dict:
    from hf_greedtok.word_counts import count_words
    return count_words([text], ByteLevel(), None, show_progress=False)


@pytest.fixture(scope="module")
def comparison(brown_counts):
    return compare_word_counts(brown_counts, [20, 150, 400], source="en_brown head", show_progress=False)


def _merges(backend) -> list[tuple[str, str]]:
    return [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m)
            for m in json.loads(backend.to_str())["model"]["merges"]]


# ---------------------------------------------------------------- BPE's exact curve

def test_replay_applies_lowest_rank_first_and_leftmost_on_ties():
    rank = {("a", "a"): 0, ("aa", "a"): 1, ("a", "aa"): 2}
    assert _replay("aaa", rank) == (["aaa"], [0, 1])       # a a|a -> aa a -> aaa, never a aa
    assert _replay("aaaa", rank) == (["aa", "aa"], [0, 0])  # no (aa, aa) merge


def test_bpe_curve_equals_truncated_bpe_encodings_at_every_k(brown_counts):
    # tokens(BPE(k)) from one full encoding equals real HF BPE with only the first k merges.
    backend = CBPETrainer(num_merges=120, units="bytes", show_progress=False).train_from_counts(brown_counts)
    merges = _merges(backend)
    words = [ByteLevel.token_to_str(w.encode()) for w in brown_counts]
    counts = np.fromiter(brown_counts.values(), dtype=np.int64)
    singletons = int(sum(len(w) * c for w, c in zip(words, counts.tolist())))
    curve = singletons - np.concatenate([[0], np.cumsum(bpe_merge_savings(merges, backend.model, words, counts))])
    for k in (0, 1, 2, 7, 33, 90, 120):
        assert curve[k] == _bpe_total(merges[:k], words, counts), k
    assert np.all(np.diff(curve) <= 0)


def test_bpe_k_is_the_first_k_merges_of_a_longer_run(brown_counts):
    # The dense curve relies on BPE(k) being a prefix of BPE(k_max): train both and compare.
    short = _merges(CBPETrainer(num_merges=60, units="bytes", show_progress=False).train_from_counts(brown_counts))
    long = _merges(CBPETrainer(num_merges=200, units="bytes", show_progress=False).train_from_counts(brown_counts))
    assert long[:60] == short


# ---------------------------------------------------------------- the comparison

def test_curves_agree_with_separately_trained_tokenizers(brown_counts, comparison):
    r = comparison
    n = r.corpus["words"]
    assert r.k.tolist() == list(range(401))
    tok = GreedTokTrainer(k=150, show_progress=False).train_from_counts(brown_counts)
    assert r.tokens_greedtok[150] == tok.training_info["objective_tokens"]
    assert r.tokens_per_word_greedtok[150] == pytest.approx(tok.training_info["tokens_per_word"])
    assert r.tokens_greedtok[0] == r.tokens_bpe[0] == r.corpus["singletons"]
    g150 = next(g for g in r.grid if g["k"] == 150)
    assert g150["tokens_per_word_bpe"] == pytest.approx(r.tokens_bpe[150] / n)
    assert g150["d_inst"] == pytest.approx(r.covered_greedtok[150] / r.covered_wmc[150])


def test_d_inst_is_bounded_by_the_wmc_guarantee(comparison):
    # GreedTok <= OPT(TOK) <= OPT(WMC) <= GreedWMC / (1 - 1/e), at every k.
    d = comparison.d_inst
    assert d.shape == (400,)
    assert np.all(d <= 1 / (1 - 1 / math.e))
    assert np.all(d > 0)


def test_token_saving_ratios_are_non_negative_and_exact(comparison):
    for g in comparison.grid:
        assert 0 <= g["tokens_optimal_greedtok"] <= g["tokens_greedtok"]
        assert 0 <= g["tokens_optimal_bpe"] <= g["tokens_bpe"]
        assert g["tsr_greedtok"] == pytest.approx(1 - g["tokens_optimal_greedtok"] / g["tokens_greedtok"])
        assert g["tsr_bpe"] == pytest.approx(1 - g["tokens_optimal_bpe"] / g["tokens_bpe"])


def test_table3_rows_follow_their_definitions(comparison):
    r = comparison
    tpw_g, tpw_b = r.tokens_per_word_greedtok, r.tokens_per_word_bpe
    assert len(r.table) >= 1
    for row in r.table:
        k_g, k_b = row["k_g"], row["k_b"]
        assert tpw_g[k_g] <= row["target"] < tpw_g[k_g - 1]
        if k_b is not None:
            assert tpw_b[k_b] <= row["target"] < tpw_b[k_b - 1]
            assert row["k_ratio"] == pytest.approx(k_g / k_b)
        assert row["tpw_ratio_at_k_g"] == pytest.approx(tpw_g[k_g] / tpw_b[k_g])


def test_table3_on_a_hand_made_curve():
    tpw_g = np.array([3.0, 2.6, 2.2, 1.9, 1.7])
    tpw_b = np.array([3.0, 2.8, 2.5, 2.1, 1.9])
    rows = table3(tpw_g, tpw_b, [2.5, 1.9, 1.5])
    assert [(r["k_g"], r["k_b"]) for r in rows] == [(2, 2), (3, 4), (None, None)]
    assert rows[1]["k_ratio"] == 0.75 and rows[1]["k_b_minus_k_g"] == 1
    assert rows[1]["bpe_tokens_per_word_at_k_g"] == 2.1
    assert rows[2]["k_ratio"] is None
    assert smallest_k(tpw_g, 3.5) == 0
    assert default_targets(tpw_g, tpw_b) == [1.9, 2.1, 2.3, 2.5, 2.7, 2.9]


def test_markdown_and_json_reports(comparison):
    md = comparison.to_markdown()
    assert "## Table 3" in md and "d_inst" in md and "## The paper's claims" in md
    assert md.count("| 150 |") == 1
    d = json.loads(comparison.to_json())
    assert d["curves"]["tokens_bpe"] == comparison.tokens_bpe.tolist()
    assert [c["verdict"] for c in d["summary"]["claims"]] == [c["verdict"] for c in comparison.summary["claims"]]


def test_bad_vocab_sizes_and_empty_corpus():
    with pytest.raises(ValueError, match="vocab_sizes"):
        compare_word_counts({" a b": 1}, [0, 5])
    with pytest.raises(ValueError, match="empty corpus"):
        compare_word_counts({}, [5])


# ---------------------------------------------------------------- CLI

def test_cli_compare_writes_report_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "cmp"
    assert main(["compare", str(EXAMPLE_TEXT), "-k", "50", "200", "-o", str(out), "--quiet"]) == 0
    assert "d_inst" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["d_inst.png", "hf_greedtok_manifest.json", "report.json",
                                                     "report.md", "tokens_per_word.png"]
    for png in ("d_inst.png", "tokens_per_word.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![d_inst.png](d_inst.png)" in (out / "report.md").read_text()
    report = json.loads((out / "report.json").read_text())
    assert [g["k"] for g in report["grid"]] == [50, 200]
    # An existing folder is kept unless --overwrite.
    assert main(["compare", str(EXAMPLE_TEXT), "-k", "50", "-o", str(out), "--quiet"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_cli_compare_without_matplotlib_fails_before_training(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import matplotlib now raises ImportError
    out = tmp_path / "cmp"
    assert main(["compare", str(EXAMPLE_TEXT), "-k", "50", "-o", str(out), "--quiet"]) == 2
    assert "hf-greedtok[plot]" in capsys.readouterr().err
    assert not out.exists()
    assert main(["compare", str(EXAMPLE_TEXT), "-k", "50", "-o", str(out), "--quiet", "--no-plots"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["hf_greedtok_manifest.json", "report.json", "report.md"]


# ---------------------------------------------------------------- hierarchical (Section 5.4)

def test_token_substrings():
    assert token_substrings(["abc"]) == {"ab", "bc", "abc"}
    assert token_substrings([b"\xe4\xb8\xad"]) == {b"\xe4\xb8", b"\xb8\xad", b"\xe4\xb8\xad"}


def test_byte_candidates_need_byte_singletons():
    assert GreedTokTrainer(k=5, candidates=[b"\xe4\xb8"]).candidates == [b"\xe4\xb8"]
    with pytest.raises(ValueError, match="bytes"):
        GreedTokTrainer(k=5, candidates=[b"ab"], pre_tokenizer=Metaspace())


@pytest.fixture(scope="module")
def hierarchy(brown_counts):
    zh = _count(corpus("zh_reviews.txt").read_text(encoding="utf-8")[:100_000])
    code = _count(corpus("code_python_stdlib.txt").read_text(encoding="utf-8")[:200_000])
    return train_hierarchical({"en": brown_counts, "zh": zh, "code": code}, 300, show_progress=False)


def test_hierarchical_run_is_restricted_to_local_substrings(hierarchy):
    h = hierarchy
    allowed = token_substrings(t for tok in h.local.values() for t in tok.model.ranked_tokens)
    assert set(h.hierarchical.model.ranked_tokens) <= allowed
    s = h.summary
    assert s["candidates_hierarchical"] < s["candidates_direct"]
    assert s["candidate_reduction"] == pytest.approx(s["candidates_direct"] / s["candidates_hierarchical"])
    assert s["candidate_substrings"] == len(allowed)
    assert len(h.hierarchical.model.ranked_tokens) == len(h.direct.model.ranked_tokens) == 300


def test_hierarchical_measurements_match_their_definitions(hierarchy):
    h, s = hierarchy, hierarchy.summary
    # The direct run is GreedTok on the combined counts, with its objective per word.
    assert s["tokens_per_word_direct"] == pytest.approx(h.direct.training_info["tokens_per_word"])
    assert s["tokens_per_word_hierarchical"] == pytest.approx(h.hierarchical.training_info["tokens_per_word"])
    assert s["compression_cost"] == pytest.approx(s["tokens_per_word_hierarchical"] / s["tokens_per_word_direct"] - 1)
    # Each local tokenizer compresses its own domain best (the paper's Figure 4).
    tpw = h.tokens_per_word
    for d in ("en", "zh", "code"):
        assert tpw[f"local: {d}"][d] == min(row[d] for row in tpw.values())
    assert "| hierarchical |" in h.to_markdown()


def test_hierarchical_needs_two_domains():
    with pytest.raises(ValueError, match="at least 2 domains"):
        train_hierarchical({"a": {" x": 1}}, 5)


def test_cli_hierarchical_saves_a_loadable_tokenizer(tmp_path, capsys):
    from transformers import AutoTokenizer
    out = tmp_path / "hier"
    zh = corpus("hi_devdas.txt")
    assert main(["hierarchical", str(EXAMPLE_TEXT), str(zh), "-k", "200", "-o", str(out), "--quiet"]) == 0
    assert "fewer" in capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["k"] == 200
    tok = AutoTokenizer.from_pretrained(str(out / "tokenizer"))
    text = "The devil's dictionary, देवदास"
    assert tok.decode(tok(text)["input_ids"]) == text
    assert main(["hierarchical", str(EXAMPLE_TEXT), "-k", "200", "-o", str(tmp_path / "x"), "--quiet"]) == 2
    assert "at least two INPUT" in capsys.readouterr().err
