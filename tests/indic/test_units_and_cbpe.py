"""Indic scripts: MorphTok's units (Figure 3), CBPE (Algorithm 2) as a pure HF BPE file,
script-aware GreedTok, the morphology lookup in the HF pipeline, and the CLI on real Hindi data."""
from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
import unicodedata

import pytest
from corpora import corpus

from hf_greedtok import (CBPETrainer, GreedTokTokenizerFast, GreedTokTrainer, Metaspace, MorphLookup,
                         MorphLookupTokenizerFast, Tokenizer)
from hf_greedtok.cli import main
from hf_greedtok.hf.pipeline import build_backend
from hf_greedtok.indic.units import UnitSplitter, starts_with_mark
from hf_greedtok.word_counts import read_count_tables


def test_morphtok_figure_3_units():
    # MorphTok Figure 3: CBPE initialises कार्यालय as का र् या ल य (BPE: क ा र ् य ा ल य).
    assert UnitSplitter("marks").split("कार्यालय") == ["का", "र्", "या", "ल", "य"]
    assert UnitSplitter("chars").split("कार्यालय") == list("कार्यालय")
    # Paper-faithful rule: only dependent vowels attach; virama and anusvara stay units.
    assert UnitSplitter("vowels").split("कार्यालय") == ["का", "र", "्", "या", "ल", "य"]
    assert UnitSplitter("vowels").split("हिंदी") == ["हि", "ं", "दी"]
    # ZWJ/ZWNJ are category Cf but control conjuncts, so they stay with their consonant.
    assert UnitSplitter("marks").split("क्\u200dष") == ["क्\u200d", "ष"]
    # Tamil, no Devanagari-specific ranges: தமிழ்நாடு -> த மி ழ் நா டு
    assert UnitSplitter("marks").split("தமிழ்நாடு") == ["த", "மி", "ழ்", "நா", "டு"]


@pytest.fixture(scope="module")
def hindi_lines() -> list[str]:
    text = corpus("hi_devdas.txt").read_text(encoding="utf-8").splitlines()
    return [t for t in text if t.strip()]


@pytest.fixture(scope="module")
def seen_units() -> set[str]:
    pre = Metaspace(units="marks")
    counts = read_count_tables([corpus("hi_news_wordcounts.tsv")], pre, None)
    return {unicodedata.normalize("NFC", u) for w in counts for u in pre.word_units(unicodedata.normalize("NFC", w))}


def _seen(line: str, seen: set[str]) -> bool:
    """Every unit with a combining mark was seen in training (punctuation may be new)."""
    pre = Metaspace(units="marks")
    return all(u in seen for w in pre.pre_tokenize(unicodedata.normalize("NFC", line)) for u in pre.word_units(w)
               if len(u) > 1 or starts_with_mark(u))


def _mark_initial(line: str, offsets) -> int:
    starts = sorted({s for s, e in offsets if e > s})
    return sum(starts_with_mark(line[s:]) for s in starts)


@pytest.fixture(scope="module")
def cbpe(tmp_path_factory):
    trainer = CBPETrainer(num_merges=1500, units="marks", special_tokens=["<unk>", "<s>"], show_progress=False)
    backend = trainer.train([corpus("hi_news_wordcounts.tsv")], counts=True)
    path = tmp_path_factory.mktemp("cbpe") / "tokenizer.json"
    backend.save(str(path))
    return trainer, backend, path


def test_cbpe_learns_exactly_k_merges_after_the_unit_merges(cbpe):
    trainer, backend, path = cbpe
    info = trainer.training_info
    assert info["learned_merges"] == 1500
    model = json.loads(path.read_text(encoding="utf-8"))["model"]
    assert model["type"] == "BPE" and model["byte_fallback"] is True
    assert len(model["merges"]) == info["unit_merges"] + 1500
    # Unit merges come first and only attach marks; no learned merge creates a mark-initial token.
    unit = model["merges"][:info["unit_merges"]]
    assert all(starts_with_mark(b) for _, b in unit)
    learned = model["merges"][info["unit_merges"]:]
    assert not any(starts_with_mark(a) for a, _ in learned)


def test_cbpe_emits_no_mark_initial_token_on_seen_units_and_round_trips(cbpe, hindi_lines, seen_units):
    _, backend, _ = cbpe
    seen_lines = [ln for ln in hindi_lines if _seen(ln, seen_units)]
    assert len(seen_lines) > 0.9 * len(hindi_lines)
    encs = backend.encode_batch(seen_lines, add_special_tokens=False)
    assert sum(_mark_initial(ln, e.offsets) for ln, e in zip(seen_lines, encs)) == 0
    assert all(backend.decode(e.ids) == ln for ln, e in zip(seen_lines, encs))
    # Lines with unseen units still round-trip (documented fallback: code points, then bytes).
    other = [ln for ln in hindi_lines if not _seen(ln, seen_units)]
    assert other and all(backend.decode(e.ids) == ln for ln, e in zip(other, backend.encode_batch(other)))


def test_cbpe_normalizes_nfd_input_to_nfc(cbpe):
    _, backend, _ = cbpe
    nfd = unicodedata.normalize("NFD", "पढ़ाई क़िला")      # U+095B/U+0958 decompose under NFC too
    assert backend.decode(backend.encode(nfd).ids) == unicodedata.normalize("NFC", nfd)


def test_cbpe_file_loads_with_no_custom_code(cbpe, hindi_lines, tmp_path):
    _, backend, path = cbpe
    probe = hindi_lines[:50]
    expected = [e.ids for e in backend.encode_batch(probe)]
    code = textwrap.dedent(f"""
        import json, sys
        from tokenizers import Tokenizer
        from transformers import PreTrainedTokenizerFast
        assert "hf_greedtok" not in sys.modules
        probe = json.loads({json.dumps(json.dumps(probe))})
        tok = Tokenizer.from_file({str(path)!r})
        fast = PreTrainedTokenizerFast(tokenizer_file={str(path)!r})
        print(json.dumps([[e.ids for e in tok.encode_batch(probe)], fast(probe)["input_ids"]]))
        assert "hf_greedtok" not in sys.modules
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    plain, fast = json.loads(out.stdout.strip().splitlines()[-1])
    assert plain == expected and fast == expected


def test_cbpe_training_is_deterministic_across_processes(tmp_path):
    code = textwrap.dedent(f"""
        import json
        from hf_greedtok import CBPETrainer
        b = CBPETrainer(num_merges=300, units="vowels", show_progress=False).train([{str(corpus("hi_news_wordcounts.tsv"))!r}], counts=True)
        print(json.dumps(json.loads(b.to_str())["model"]["merges"]))
    """)
    runs = []
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300, env={"PYTHONHASHSEED": seed, "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        runs.append(out.stdout.strip().splitlines()[-1])
    assert runs[0] == runs[1]


@pytest.fixture(scope="module")
def unit_greedtok() -> Tokenizer:
    return GreedTokTrainer(k=1500, pre_tokenizer=Metaspace(units="marks"), normalizer="NFC",
                           show_progress=False).train([corpus("hi_news_wordcounts.tsv")], counts=True)


def test_script_aware_greedtok_tokens_start_and_end_on_unit_boundaries(unit_greedtok):
    split = UnitSplitter("marks").split
    for tok in unit_greedtok.model.ranked_tokens:
        units = split(tok)
        assert len(units) >= 2 and "".join(units) == tok
        assert not starts_with_mark(tok)
    # Candidates are unit strings: a unit with a matra (e.g. "की") is never cut.
    assert "▁की" in unit_greedtok.model.ranked_tokens


def test_script_aware_greedtok_encoders_hf_backend_and_files_agree(unit_greedtok, hindi_lines, seen_units, tmp_path):
    lines = hindi_lines[:300]
    totals = {}
    for mode in ("cover", "optimal"):
        native = [ids.tolist() for ids in unit_greedtok.encode_batch(lines, mode=mode)]
        backend = build_backend(unit_greedtok, mode)
        assert [e.ids for e in backend.encode_batch(lines)] == native
        assert all(unit_greedtok.decode(ids) == ln for ids, ln in zip(native, lines))
        totals[mode] = sum(map(len, native))
    assert totals["optimal"] <= totals["cover"]
    seen_lines = [ln for ln in lines if _seen(ln, seen_units)]
    encs = build_backend(unit_greedtok, "cover").encode_batch(seen_lines)
    assert sum(_mark_initial(ln, e.offsets) for ln, e in zip(seen_lines, encs)) == 0
    unit_greedtok.save(tmp_path / "u")
    again = Tokenizer.load(tmp_path / "u")
    assert again.encode(lines[5]) == unit_greedtok.encode(lines[5])
    assert pickle.loads(pickle.dumps(unit_greedtok)).encode(lines[7]) == unit_greedtok.encode(lines[7])


@pytest.fixture(scope="module")
def lookup() -> MorphLookup:
    return MorphLookup.load(corpus("hi_morph_segments.tsv"))


def test_lookup_splits_words_in_native_and_hf_pipelines_and_decodes_exactly(lookup, hindi_lines, tmp_path):
    pre = Metaspace(units="chars", lookup=lookup)
    tok = GreedTokTrainer(k=800, pre_tokenizer=pre, normalizer="NFC", show_progress=False) \
        .train([corpus("hi_news_wordcounts.tsv")], counts=True)
    assert pre.pre_tokenize("लड़कों ने") == ["▁लड़क", "ों", "▁ने"]
    hf = GreedTokTokenizerFast.from_greedtok(tok)
    lines = hindi_lines[:200]
    native = [ids.tolist() for ids in tok.encode_batch(lines)]
    assert hf(lines, add_special_tokens=False)["input_ids"] == native
    assert all(hf.decode(ids) == ln for ids, ln in zip(native, lines))
    # "लड़कों" is cut at the lookup boundary (offset 4) whatever the vocabulary.
    offsets = hf("लड़कों", add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    assert 4 in {s for s, _ in offsets}
    hf.save_pretrained(tmp_path / "gt")
    from transformers import AutoTokenizer
    loaded = AutoTokenizer.from_pretrained(str(tmp_path / "gt"))
    assert loaded.greedtok.pre_tokenizer.lookup == lookup
    assert loaded(lines, add_special_tokens=False)["input_ids"] == native


def test_lookup_bpe_saves_and_loads_with_its_table(lookup, hindi_lines, tmp_path):
    backend = CBPETrainer(num_merges=500, units="marks", lookup=lookup, show_progress=False) \
        .train([corpus("hi_news_wordcounts.tsv")], counts=True)
    tok = MorphLookupTokenizerFast(lookup=lookup, units="marks", tokenizer_object=backend)
    lines = hindi_lines[:100]
    ids = tok(lines, add_special_tokens=False)["input_ids"]
    assert ids == [e.ids for e in backend.encode_batch(lines, add_special_tokens=False)]
    # With mark units the lookup boundary inside "लड़कों" (before the matra) is dropped.
    assert backend.pre_tokenizer.pre_tokenize_str("▁घरों") == [("▁घरों", (0, 5))]
    tok.save_pretrained(tmp_path / "lk")
    assert sorted(p.name for p in (tmp_path / "lk").iterdir()) == [
        "morph_lookup.tsv", "tokenization_greedtok.py", "tokenizer.json", "tokenizer_config.json"]
    from transformers import AutoTokenizer
    loaded = AutoTokenizer.from_pretrained(str(tmp_path / "lk"))
    assert type(loaded).__name__ == "MorphLookupTokenizerFast"
    assert loaded(lines, add_special_tokens=False)["input_ids"] == ids
    assert [loaded.decode(i) for i in ids] == lines


def test_cli_trains_every_algorithm_and_evaluates_with_gold(tmp_path, capsys):
    table = corpus("hi_news_wordcounts.tsv")
    text = corpus("hi_devdas.txt")
    gold = tmp_path / "gold.tsv"
    rows = corpus("hi_morph_segments.tsv").read_text(encoding="utf-8").splitlines()
    gold.write_text("\n".join(rows[::50]) + "\n", encoding="utf-8")
    results = {}
    for algorithm, units in (("bpe", "chars"), ("cbpe", "marks"), ("greedtok", "marks")):
        out = tmp_path / f"{algorithm}-{units}"
        assert main(["train", str(table), "--counts", "--algorithm", algorithm, "--units", units,
                     "--total-vocab-size", "3000", "-o", str(out), "--quiet"]) == 0
        capsys.readouterr()
        assert main(["evaluate", str(out), str(text), "--gold", str(gold), "--json", "--quiet"]) == 0
        results[algorithm] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for r in results.values():
        assert r["vocab_size"] == 3000
        assert 1.0 < r["fertility"] < 4.0 and 0 < r["renyi_efficiency"] < 1
        assert 0 <= r["boundary_f1"] <= 1 and r["gold_words"] == len(rows[::50])
    # Plain BPE cuts marks off (thousands of mark-initial tokens); the constrained ones only on unseen units.
    assert results["bpe"]["mark_initial_tokens"] > 20 * max(results["cbpe"]["mark_initial_tokens"],
                                                            results["greedtok"]["mark_initial_tokens"])
    config = json.loads((tmp_path / "cbpe-marks" / "tokenizer_config.json").read_text())
    assert "auto_map" not in config          # a plain BPE folder: no custom code at all


def test_cli_rejects_inconsistent_options_and_malformed_lookup(tmp_path, capsys):
    table = corpus("hi_news_wordcounts.tsv")
    assert main(["train", str(table), "--counts", "--algorithm", "cbpe", "--units", "bytes", "-k", "10",
                 "-o", str(tmp_path / "x"), "--quiet"]) == 2
    assert "--units marks or vowels" in capsys.readouterr().err
    bad = tmp_path / "bad.tsv"
    bad.write_text("लड़कों\tलड़क|ों\nघरों\tघर||ों\n", encoding="utf-8")
    assert main(["train", str(table), "--counts", "--algorithm", "bpe", "--units", "chars", "-k", "10",
                 "--lookup", str(bad), "-o", str(tmp_path / "y"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad.tsv, line 2" in err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
