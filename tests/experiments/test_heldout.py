"""`compare` out of sample (issue 17): the held-out split, the peers, their token totals and
round-trip rates, on slices of real corpora. The SentencePiece parts skip when the
``sentencepiece`` extra is missing (CI installs it: .ci/run)."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from corpora import corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_greedtok import ByteLevel
from hf_greedtok.cli import main
from hf_greedtok.experiments.compare import _bpe_total, compare_word_counts, heldout_grid
from hf_greedtok.experiments.heldout import IN_SAMPLE, OUT_OF_SAMPLE, REFERENCE, measure, train_peers
from hf_greedtok.experiments.line_split import read_lines, split_lines, split_mask
from hf_greedtok.word_counts import count_words

K = 700                   # learned tokens; every peer gets 256 + K ids in total
VOCAB = 256 + K
NEEDS_SP = "SentencePiece peers need the sentencepiece extra: pip install '.[sentencepiece]'"


def _slice(name: str, n_bytes: int, tmp_path, start: int = 0):
    """The whole lines of corpus ``name`` within bytes [start, start + n_bytes), as a file."""
    data = corpus(name).read_bytes()[start:start + n_bytes]
    data = data[data.index(b"\n") + 1 if start else 0:data.rindex(b"\n") + 1]
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------- the split

def test_split_is_deterministic_disjoint_and_lossless_on_real_lines():
    lines = read_lines([corpus("en_shakespeare_milton.txt")])[:20_000]
    assert "" in lines                              # blank lines are units like any other
    train, held = split_lines(lines, 0.1)
    mask = split_mask(len(lines), 0.1)
    assert sum(mask) == len(held) == 2_000 and len(train) == 18_000
    it_train, it_held = iter(train), iter(held)
    assert [next(it_held) if m else next(it_train) for m in mask] == lines   # in order, nothing lost or repeated
    assert next(it_train, None) is None and next(it_held, None) is None
    assert split_lines(lines, 0.1) == (train, held)
    assert [j for j, m in enumerate(mask) if m][:3] == [9, 19, 29]       # every 10th line


def test_split_does_not_depend_on_the_hash_seed(tmp_path):
    code = ("import hashlib, sys; from hf_greedtok.experiments.line_split import split_mask; "
            "print(hashlib.sha256(bytes(split_mask(100_003, 0.137))).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              cwd=tmp_path,      # the installed package, not the checkout
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    assert len(digests) == 1
    assert digests == {__import__("hashlib").sha256(bytes(split_mask(100_003, 0.137))).hexdigest() + "\n"}


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3000), st.integers(1, 999))
def test_split_holds_out_floor_n_f_lines_evenly(n, per_mille):
    f = per_mille / 1000
    mask = split_mask(n, f)
    assert sum(mask) == (n * per_mille) // 1000      # exact rational arithmetic, no float drift
    held = [j for j, m in enumerate(mask) if m]
    gap = Fraction(1000, per_mille)
    assert all(b - a <= gap + 1 for a, b in zip(held, held[1:]))


@pytest.mark.parametrize("fraction", [0, 1, 1.5, -0.2])
def test_split_refuses_fractions_outside_0_1(fraction):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        split_mask(10, fraction)


# ---------------------------------------------------------------- the peers

def test_sentencepiece_is_imported_only_to_train_a_peer(tmp_path):
    # (not in test_imports.HEAVY: transformers itself imports sentencepiece when it is installed)
    code = ("import sys, hf_greedtok, hf_greedtok.cli.paper.compare, hf_greedtok.experiments.heldout; "
            "print('sentencepiece' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "False"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    pytest.importorskip("sentencepiece", reason=NEEDS_SP)
    tmp = tmp_path_factory.mktemp("heldout")
    lines = read_lines([_slice("en_brown.txt", 400_000, tmp)])
    train, held = split_lines(lines, 0.1)
    docs = read_lines([_slice("en_python_docs.txt", 150_000, tmp, start=200_000)])
    counts = count_words(train, ByteLevel(), None, show_progress=False)
    result = compare_word_counts(counts, [150, K], show_progress=False)
    t = result.trained
    peers = train_peers(train, counts, VOCAB, "gpt4", greedtok=t["greedtok"], wmc=t["wmc"], bpe=t["bpe"])
    texts = [("training text", IN_SAMPLE, train), ("held out", OUT_OF_SAMPLE, held),
             ("python docs", OUT_OF_SAMPLE, docs)]
    return {"result": result, "peers": peers, "texts": texts, "report": measure(peers, texts)}


def _direct_tokens(peer, line: str) -> list:
    """The peer's encoding of ``line`` through its own library, not through Peer.measure."""
    if hasattr(peer, "tok"):
        return peer.tok.encode(line, mode=peer.mode, allow_special=False)
    if hasattr(peer, "backend"):
        return peer.backend.encode(line, add_special_tokens=False).ids
    if peer.split is None:
        return peer.sp.encode(line)
    return [i for w in peer.split.pre_tokenize(line)
            for i in peer.sp.encode(ByteLevel.token_to_str(w.encode("utf-8")))]


def _direct_decode(peer, line: str) -> str:
    if hasattr(peer, "tok"):
        return peer.tok.decode(_direct_tokens(peer, line))
    if hasattr(peer, "backend"):
        return peer.backend.decode(_direct_tokens(peer, line), skip_special_tokens=False)
    if peer.split is None:
        return peer.sp.decode(peer.sp.encode(line))
    symbols = "".join(peer.sp.decode(peer.sp.encode(ByteLevel.token_to_str(w.encode("utf-8"))))
                      for w in peer.split.pre_tokenize(line))
    return ByteLevel.str_to_token(symbols).decode("utf-8")


def test_every_peer_has_the_total_vocabulary(setup):
    names = {t: [p.name for p in g] for t, g in setup["peers"].items()}
    assert names["main"] == ["HF BPE", "HF Unigram", "GreedTok (cover)", "GreedTok (optimal)", "GreedWMC (cover)",
                             "SentencePiece BPE lossless", "SentencePiece BPE defaults",
                             "SentencePiece Unigram lossless", "SentencePiece Unigram defaults"]
    assert names["equal"] == names["main"][:5] + ["SentencePiece BPE (same split)",
                                                  "SentencePiece Unigram (same split)"]
    for group in setup["peers"].values():
        for p in group:
            # HF Unigram treats the size as a target; the others hit it exactly
            assert p.vocab_size <= VOCAB if p.name == "HF Unigram" else p.vocab_size == VOCAB, p.name
    split = setup["peers"]["main"][0].pre_tokenization
    assert all(p.pre_tokenization == split for p in setup["peers"]["equal"])


def test_token_totals_equal_encoding_each_line_directly(setup):
    report = setup["report"]
    for table, group in setup["peers"].items():
        for p in group:
            for name, _, lines in setup["texts"]:
                direct = sum(len(_direct_tokens(p, line)) for line in lines if line)
                assert report.row(table, p.name, name)["tokens"] == direct, (table, p.name, name)


def test_in_sample_totals_equal_the_training_objectives(setup):
    # lines encoded one by one give what the trainers counted on the same lines' words
    result, report = setup["result"], setup["report"]
    assert report.row("main", "GreedTok (cover)", "training text")["tokens"] == result.tokens_greedtok[K] \
        == result.trained["greedtok"].training_info["objective_tokens"]
    assert report.row("main", REFERENCE, "training text")["tokens"] == result.tokens_bpe[K]


def test_round_trip_rates(setup):
    report = setup["report"]
    docs = next(lines for name, _, lines in setup["texts"] if name == "python docs")
    assert sum("  " in line for line in docs) > 100                     # indentation, double spaces
    for table, group in setup["peers"].items():
        for p in group:
            for name, _, lines in setup["texts"]:
                lines = [line for line in lines if line]
                row = report.row(table, p.name, name)
                assert row["round_trip_lines"] == sum(_direct_decode(p, line) == line for line in lines)
                assert row["round_trip"] == row["round_trip_lines"] / len(lines)
                if "defaults" not in p.name:
                    assert row["round_trip"] == 1.0, (p.name, name)
    for model in ("BPE", "Unigram"):
        assert report.row("main", f"SentencePiece {model} defaults", "python docs")["round_trip"] < 0.9


def test_ratio_and_rate_columns_follow_their_definitions(setup):
    report = setup["report"]
    for text, (name, kind, lines) in zip(report.texts, setup["texts"]):
        lines = [line for line in lines if line]
        assert (text["name"], text["kind"], text["lines"]) == (name, kind, len(lines))
        assert text["words"] == sum(len(line.split()) for line in lines)
        assert text["bytes"] == sum(len(line.encode()) for line in lines)
        for table in ("main", "equal"):
            ref = report.row(table, REFERENCE, name)["tokens"]
            assert report.row(table, REFERENCE, name)["ratio_to_reference"] == 1.0
            for p in report.peers[table]:
                r = report.row(table, p["name"], name)
                assert r["ratio_to_reference"] == r["tokens"] / ref
                assert r["tokens_per_word"] == r["tokens"] / text["words"]
                assert r["bytes_per_token"] == text["bytes"] / r["tokens"]
    # rows shared by both tables are one measurement
    assert report.row("main", "GreedTok (cover)", "held out") == {
        **report.row("equal", "GreedTok (cover)", "held out"), "table": "main"}


def test_markdown_reports_both_tables_and_every_text(setup):
    md = setup["report"].to_markdown()
    assert "### Each peer with its own pre-tokenization" in md and "### Equal pre-tokenization" in md
    assert md.count("python docs (out of sample):") == 2 and md.count("training text (in sample):") == 2
    assert "nmt_nfkc" in md and "none (identity)" in md


def test_grid_out_of_sample_meets_the_line_totals_at_k_max(setup):
    result, report = setup["result"], setup["report"]
    texts = [(name, count_words(lines, ByteLevel(), None, show_progress=False))
             for name, kind, lines in setup["texts"] if kind == OUT_OF_SAMPLE]
    grid = heldout_grid(result, texts)
    assert [(g["text"], g["k"]) for g in grid] == [(n, k) for n, _ in texts for k in (150, K)]
    for g in grid:
        if g["k"] == K:      # the k_max tokenizers, counted per word, give the line totals of the report
            assert g["tokens_greedtok"] == report.row("main", "GreedTok (cover)", g["text"])["tokens"]
            assert g["tokens_optimal_greedtok"] == report.row("main", "GreedTok (optimal)", g["text"])["tokens"]
            assert g["tokens_bpe"] == report.row("main", REFERENCE, g["text"])["tokens"]
        else:                # BPE(150) is HF BPE with the first 150 merges
            name, wc = next(t for t in texts if t[0] == g["text"])
            words = [ByteLevel.token_to_str(w.encode()) for w in wc]
            assert g["tokens_bpe"] == _bpe_total(result.trained["merges"][:150], words,
                                                 np.fromiter(wc.values(), dtype=np.int64))
            assert g["tokens_bpe"] > report.row("main", REFERENCE, g["text"])["tokens"]
        assert g["tpw_ratio"] == g["tokens_greedtok"] / g["tokens_bpe"]


# ---------------------------------------------------------------- the command

def test_cli_compare_with_eval_and_holdout(tmp_path, capsys):
    pytest.importorskip("sentencepiece", reason=NEEDS_SP)
    pytest.importorskip("matplotlib")
    train = _slice("en_brown.txt", 300_000, tmp_path)
    docs = _slice("en_python_docs.txt", 100_000, tmp_path)
    out = tmp_path / "cmp"
    assert main(["compare", str(train), "-k", "100", "500", "--eval", str(docs), "--holdout-fraction", "0.2",
                 "-o", str(out), "--quiet"]) == 0
    assert "GreedTok (cover) vs HF BPE on en_python_docs.txt (out of sample)" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["d_inst.png", "heldout.png", "hf_greedtok_manifest.json",
                                                     "report.json", "report.md", "tokens_per_word.png"]
    assert (out / "heldout.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads((out / "report.json").read_text())
    assert report["table3"] and report["curves"]["k"][-1] == 500      # Table 3 and d_inst still there
    held = report["heldout"]
    assert held["settings"]["vocab_size"] == 756
    lines = read_lines([train])
    kept, out_lines = split_lines(lines, 0.2)
    assert [(t["name"], t["lines"]) for t in held["texts"]] == [
        ("training text", sum(1 for x in kept if x)), ("held-out 0.2 of the inputs", sum(1 for x in out_lines if x)),
        ("en_python_docs.txt", sum(1 for x in read_lines([docs]) if x))]
    # Table 3 was trained on the training lines only: its BPE at k_max is the in-sample reference
    assert {r["tokens"] for r in held["rows"] if r["peer"] == REFERENCE and r["text"] == "training text"} \
        == {report["curves"]["tokens_bpe"][-1]}
    assert [(g["text"], g["k"]) for g in report["heldout_grid"]] == [
        (t, k) for t in ("held-out 0.2 of the inputs", "en_python_docs.txt") for k in (100, 500)]
    md = (out / "report.md").read_text()
    assert "![heldout.png](heldout.png)" in md and "## At each k, out of sample" in md


@pytest.mark.parametrize("args, message", [
    (["--eval", "MISSING"], "MISSING: no such file"),
    (["--holdout-fraction", "1"], "--holdout-fraction: must be strictly between 0 and 1, got 1"),
    (["--holdout-fraction", "0"], "--holdout-fraction: must be strictly between 0 and 1, got 0"),
    (["--holdout-fraction", "half"], "--holdout-fraction: 'half' is not a number"),
    (["--counts", "--holdout-fraction", "0.1"], "cannot be used with --counts"),
])
def test_cli_user_errors_exit_2_without_traceback(tmp_path, capsys, args, message):
    train = tmp_path / "t.txt"
    train.write_text("a few words\n", encoding="utf-8")
    args = [a.replace("MISSING", str(tmp_path / "missing.txt")) for a in args]
    assert main(["compare", str(train), "-k", "10", "-o", str(tmp_path / "out"), "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert message.replace("MISSING", str(tmp_path / "missing.txt")) in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_cli_refuses_before_training_what_sentencepiece_or_the_split_cannot_do(tmp_path, capsys):
    pytest.importorskip("sentencepiece", reason=NEEDS_SP)
    train = tmp_path / "t.txt"
    train.write_text("a few words\nand a few more words\n", encoding="utf-8")
    base = ["compare", str(train), "-o", str(tmp_path / "out"), "--quiet", "--no-plots"]
    assert main([*base, "-k", "3000", "--holdout-fraction", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "SentencePiece bpe cannot train 3,256 pieces on this text: Vocabulary size too high" in err
    assert "Traceback" not in err
    assert main([*base, "-k", "5", "--holdout-fraction", "0.4", "--no-sentencepiece"]) == 2   # 0 of 2 lines held out
    assert "held-out 0.4 of the inputs: no words to measure" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_cli_without_sentencepiece_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)        # import sentencepiece fails
    train = tmp_path / "t.txt"
    train.write_text("a few words\n", encoding="utf-8")
    assert main(["compare", str(train), "-k", "10", "--holdout-fraction", "0.5", "-o", str(tmp_path / "out"),
                 "--quiet", "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'hf-greedtok[sentencepiece]'" in err and "--no-sentencepiece" in err
    assert not (tmp_path / "out").exists()


def test_no_sentencepiece_leaves_those_peers_out(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    train = _slice("en_brown.txt", 60_000, tmp_path)
    out = tmp_path / "cmp"
    assert main(["compare", str(train), "-k", "50", "--holdout-fraction", "0.25", "--no-sentencepiece",
                 "--no-plots", "-o", str(out), "--quiet"]) == 0
    held = json.loads((out / "report.json").read_text())["heldout"]
    assert [p["name"] for p in held["peers"]["main"]] == ["HF BPE", "HF Unigram", "GreedTok (cover)",
                                                          "GreedTok (optimal)", "GreedWMC (cover)"]
    assert np.all([r["round_trip"] == 1.0 for r in held["rows"]])
