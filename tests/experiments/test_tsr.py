"""The multilingual token-saving report (issue 18): TSR and tax per language for any vocabulary.

TSR is the optimal-segmentation paper's: 1 - tokens with minimum-token segmentation / tokens
with the vocabulary's own encoder. With cl100k_base, the paper reports that languages whose
tokens leave optimal segmentation nothing to choose (Tamil, Bengali, Chinese here) save 0%.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from corpora import CORPORA, VOCAB

from hf_greedtok import GreedTokFileError, Tokenizer
from hf_greedtok.cli import main
from hf_greedtok.errors import CorpusError
from hf_greedtok.experiments.tsr import read_parallel, read_texts, tsr_report
from hf_greedtok.vocabularies import load_vocabulary
from hf_greedtok.pre_tokenizers import GPT4_PATTERN

PARALLEL = CORPORA / "multi_isocodes_parallel.tsv"
SAMPLE_LANGS = ("br", "fr", "ta", "zh_CN", "ru")

tiktoken = pytest.importorskip("tiktoken")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The rows of five languages of the parallel corpus, as a table of its own."""
    lines = PARALLEL.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path_factory.mktemp("tsr") / "sample.tsv"
    path.write_text(lines[0] + "".join(l for l in lines[1:] if l.split("\t", 1)[0] in SAMPLE_LANGS),
                    encoding="utf-8")
    return path


def cl100k_encoding():
    """tiktoken's BPE over the shared cl100k_base file with the GPT-4 split, built offline."""
    from tiktoken.load import load_tiktoken_bpe
    return tiktoken.Encoding("cl100k", pat_str=GPT4_PATTERN, special_tokens={},
                             mergeable_ranks=load_tiktoken_bpe(str(VOCAB / "cl100k_base.tiktoken")))


@pytest.fixture(scope="module")
def cl100k():
    return load_vocabulary(VOCAB / "cl100k_base.tiktoken")


@pytest.fixture(scope="module")
def report(cl100k, sample):
    return tsr_report([cl100k, load_vocabulary(VOCAB / "r50k_base.tiktoken")], read_parallel(sample))


def test_tsr_and_tax_equal_a_direct_count_string_by_string(report, sample):
    native = Tokenizer.from_tiktoken(VOCAB / "cl100k_base.tiktoken")
    enc = cl100k_encoding()
    rows = [line.split("\t") for line in sample.read_text(encoding="utf-8").splitlines()[1:]]
    for lang in SAMPLE_LANGS:
        mine = [(en, tr) for code, _, en, tr in rows if code == lang and en and tr]
        own = sum(len(enc.encode_ordinary(tr)) for _, tr in mine)
        optimal = sum(len(native.encode(tr, mode="optimal")) for _, tr in mine)
        english = sum(len(enc.encode_ordinary(en)) for en, _ in mine)
        row = next(r for r in report.of("cl100k_base") if r["language"] == lang)
        assert (row["strings"], row["tokens_own"], row["tokens_optimal"]) == (len(mine), own, optimal)
        assert row["tsr"] == pytest.approx(1 - optimal / own)
        assert row["tax"] == pytest.approx(own / english)
        assert row["bytes"] == sum(len(tr.encode()) for _, tr in mine)
    assert optimal <= own


def test_the_paper_s_zero_tsr_languages_and_savings_elsewhere(report):
    rows = {r["language"]: r for r in report.of("cl100k_base")}
    for lang in ("ta", "zh_CN"):
        assert rows[lang]["tokens_optimal"] == rows[lang]["tokens_own"]
        assert lang in report.summary("cl100k_base")["zero_tsr"]
    for lang in ("br", "fr"):
        assert rows[lang]["tsr"] > 0.02
    assert rows["en"]["tax"] == 1.0 and rows["ta"]["tax"] > 3 * rows["fr"]["tax"]
    assert {r["script"] for r in rows.values()} >= {"Latin", "Tamil", "Han", "Cyrillic"}
    r50k = {r["language"]: r for r in report.of("r50k_base")}
    assert r50k["ta"]["tokens_own"] > rows["ta"]["tokens_own"]        # the older, smaller vocabulary pays more


def test_plain_texts_without_english_report_no_tax(cl100k, tmp_path):
    (tmp_path / "hi.txt").write_text("\n".join((CORPORA / "hi_devdas.txt").read_text(encoding="utf-8")
                                               .splitlines()[:200]), encoding="utf-8")
    text = read_texts({"hi": tmp_path / "hi.txt"})
    report = tsr_report([cl100k], text)
    (row,) = report.rows
    assert row["tax"] is None and row["tsr"] >= 0 and "not measured" in report.settings["tax"]
    (tmp_path / "en.txt").write_text("\n".join((CORPORA / "en_brown.txt").read_text(encoding="utf-8")
                                               .splitlines()[:200]), encoding="utf-8")
    both = tsr_report([cl100k], read_texts({"hi": tmp_path / "hi.txt", "en": tmp_path / "en.txt"}))
    rows = {r["language"]: r for r in both.rows}
    assert rows["hi"]["tax"] == pytest.approx(rows["hi"]["tokens_own"] / rows["en"]["tokens_own"])


def test_a_language_without_shared_strings_is_reported_not_measured(cl100k, tmp_path):
    table = tmp_path / "t.tsv"
    table.write_text("lang\tdomain\tenglish\ttranslation\nfr\tx\tFrance\tFrance\nxx\tx\tSpain\t\n", encoding="utf-8")
    report = tsr_report([cl100k], read_parallel(table))
    assert report.settings["without_strings"] == ["xx"]
    assert "xx" not in {r["language"] for r in report.rows}
    assert "Without any string shared with English (not measured): xx" in report.to_markdown()


def test_malformed_rows_name_the_file_and_line(tmp_path):
    table = tmp_path / "bad.tsv"
    table.write_text("lang\tdomain\tenglish\ttranslation\nfr\tx\tFrance\tFrance\nde\tx\tGermany\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.tsv, line 3: 3 tab-separated fields, expected 4"):
        read_parallel(table)
    (tmp_path / "nohead.tsv").write_text("fr\tx\tFrance\tFrance\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"nohead.tsv, line 1: header lacks lang"):
        read_parallel(tmp_path / "nohead.tsv")


def test_tiktoken_files_are_recognised_by_checksum_not_name(tmp_path):
    renamed = tmp_path / "mystery.tiktoken"
    shutil.copy(VOCAB / "r50k_base.tiktoken", renamed)
    tok = Tokenizer.from_tiktoken(renamed)
    assert tok.pre_tokenizer.pattern == Tokenizer.from_tiktoken(VOCAB / "r50k_base.tiktoken").pre_tokenizer.pattern
    assert tok.training_info["vocabulary"] == "r50k_base"
    text = "Hello world, it's 2026: don't split    me!"
    # the same ranks without their last line: no longer OpenAI's file, so the split must be given
    lines = (VOCAB / "r50k_base.tiktoken").read_bytes().splitlines(keepends=True)
    edited = tmp_path / "edited.tiktoken"
    edited.write_bytes(b"".join(lines[:-1]))
    with pytest.raises(GreedTokFileError, match="edited.tiktoken.*holds no split pattern"):
        Tokenizer.from_tiktoken(edited)
    assert Tokenizer.from_tiktoken(edited, pattern="gpt2").encode(text) == tok.encode(text)


def test_cli_tsr_writes_the_report_and_plots(sample, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["tsr", str(VOCAB / "cl100k_base.tiktoken"), "--parallel", str(sample), "--output", str(out),
                 "--min-strings", "10", "--quiet"]) == 0
    assert "cl100k_base: 6 languages, median TSR" in capsys.readouterr().out
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {r["language"] for r in data["rows"]} == {*SAMPLE_LANGS, "en"}
    assert (out / "tsr_cl100k_base.png").stat().st_size > 0 and (out / "tax_cl100k_base.png").is_file()
    assert "| ta | Tamil |" in (out / "report.md").read_text(encoding="utf-8")
    # an existing report is kept unless --overwrite
    assert main(["tsr", str(VOCAB / "cl100k_base.tiktoken"), "--parallel", str(sample), "--output", str(out),
                 "--no-plots", "--quiet"]) == 2
    assert "exists" in capsys.readouterr().err


def test_cli_tsr_user_errors_exit_2(sample, tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("lang\tdomain\tenglish\ttranslation\nfr\tx\n", encoding="utf-8")
    assert main(["tsr", str(VOCAB / "cl100k_base.tiktoken"), "--parallel", str(bad), "-o", str(tmp_path / "o"),
                 "--no-plots"]) == 2
    assert "bad.tsv, line 2" in capsys.readouterr().err
    assert main(["tsr", str(VOCAB / "cl100k_base.tiktoken"), "--text", "fr", "-o", str(tmp_path / "o")]) == 2
    assert "expected LANG=FILE" in capsys.readouterr().err
    assert main(["tsr", str(tmp_path / "missing.tiktoken"), "--parallel", str(sample), "-o", str(tmp_path / "o")]) == 2
    assert "missing.tiktoken" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_cli_encode_and_evaluate_take_vocabulary_files(tmp_path, capsys):
    text = "The quick brown fox's 123 jumps"
    assert main(["encode", str(VOCAB / "cl100k_base.tiktoken"), text]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["ids"] == cl100k_encoding().encode_ordinary(text)
    assert got["round_trip"] is True
    assert main(["encode", str(VOCAB / "cl100k_base.tiktoken"), text, "--mode", "optimal"]) == 0
    assert len(json.loads(capsys.readouterr().out)["ids"]) <= len(got["ids"])
    corpus = tmp_path / "en.txt"
    corpus.write_text("\n".join((CORPORA / "en_brown.txt").read_text(encoding="utf-8").splitlines()[:300]),
                      encoding="utf-8")
    assert main(["evaluate", str(VOCAB / "r50k_base.tiktoken"), str(corpus), "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["vocab_size"] == 50256 and 0 <= result["token_saving_ratio"] < 0.1
    assert main(["evaluate", str(tmp_path / "nope.tiktoken"), str(corpus)]) == 2
    assert "nope.tiktoken" in capsys.readouterr().err


def test_own_counts_of_a_greedtok_folder_are_its_cover(tmp_path):
    from hf_greedtok import GreedTokTrainer
    lines = (CORPORA / "en_brown.txt").read_text(encoding="utf-8").splitlines()[:2000]
    tok = GreedTokTrainer(k=500, show_progress=False).train_from_iterator(lines)
    tok.save(tmp_path / "g")
    vocab = load_vocabulary(tmp_path / "g")
    assert vocab.kind == "greedtok"
    counts = vocab.own_counts(lines[:50])
    assert counts.tolist() == [len(tok.encode(t, mode="cover")) for t in lines[:50]]
    assert (vocab.optimal_counts(lines[:50]) <= counts).all() and np.sum(counts) > 0


def test_world_maps_colour_each_country_by_its_main_language(report, tmp_path):
    pytest.importorskip("babel")
    pytest.importorskip("pygal_maps_world")
    from hf_greedtok.experiments.tsr_map import main_languages, write_tsr_maps
    countries, blank = main_languages({"fr", "ru", "ta", "zh_CN", "pt_BR", "pt", "en"})
    assert countries["fr"] == "fr" and countries["ru"] == "ru" and countries["cn"] == "zh_CN"
    assert countries["br"] == "pt_BR" and countries["pt"] == "pt" and countries["us"] == "en"
    assert "in" in blank and "de" in blank           # Hindi and German were not measured
    paths = write_tsr_maps(report, tmp_path)
    assert {p.name for p in paths} >= {"world_tsr_cl100k_base.svg", "world_tax_r50k_base.svg"}
    svg = (tmp_path / "world_tsr_cl100k_base.svg").read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "France" in svg


def test_trained_sizes_give_tsr_against_vocabulary_size(sample, tmp_path, capsys):
    from hf_greedtok import GreedTokTrainer
    text = read_parallel(sample)
    lines = [s for lang in text.languages for s in text.texts[lang]]
    folders = []
    for k in (200, 1500):
        folder = tmp_path / f"greedtok-{k}"
        GreedTokTrainer(k=k, show_progress=False).train_from_iterator(lines).save(folder)
        folders.append(str(folder))
    out = tmp_path / "by-size"
    assert main(["tsr", *folders, "--parallel", str(sample), "-o", str(out), "--min-strings", "10", "--quiet"]) == 0
    capsys.readouterr()
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [v["kind"] for v in data["vocabularies"]] == ["greedtok", "greedtok"]
    assert data["vocabularies"][0]["own_encoder"].startswith("GreedTok cover")
    assert (out / "tsr_by_size.png").stat().st_size > 0
    small, large = ({r["language"]: r for r in data["rows"] if r["vocabulary"] == f"greedtok-{k}"} for k in (200, 1500))
    assert all(large[lang]["tokens_own"] <= small[lang]["tokens_own"] for lang in small)


def test_a_bpe_tokenizer_json_encodes_with_its_own_merges(tmp_path, capsys):
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers
    lines = (CORPORA / "en_brown.txt").read_text(encoding="utf-8").splitlines()[:3000]
    bpe = HFTokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=800, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    bpe.save(str(path))
    text = lines[7]
    assert main(["encode", str(path), text]) == 0
    assert json.loads(capsys.readouterr().out)["ids"] == bpe.encode(text).ids
    sample = tmp_path / "sample.txt"
    sample.write_text("\n".join(lines[:200]), encoding="utf-8")
    assert main(["evaluate", str(path), str(sample), "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["text_tokens"] == sum(len(bpe.encode(t, add_special_tokens=False).ids) for t in lines[:200] if t.strip())
    assert result["text_metrics_encoder"].startswith("tokenizers BPE")
    vocab = load_vocabulary(path)
    assert vocab.kind == "hf-bpe" and vocab.own_counts(lines[:40]).tolist() == [len(bpe.encode(t).ids) for t in lines[:40]]
    assert (vocab.optimal_counts(lines[:40]) <= vocab.own_counts(lines[:40])).all()


@pytest.fixture(scope="module")
def two_texts(tmp_path_factory):
    """200 lines of English (Brown) and of Hindi (Devdas), as plain text per language."""
    folder = tmp_path_factory.mktemp("texts")
    for lang, name in (("en", "en_brown.txt"), ("hi", "hi_devdas.txt")):
        lines = (CORPORA / name).read_text(encoding="utf-8").splitlines()[:200]
        (folder / f"{lang}.txt").write_text("\n".join(lines), encoding="utf-8")
    return folder


@pytest.mark.parametrize("style", ["repeated", "one option"])
def test_cli_tsr_keeps_every_text_given(style, two_texts, tmp_path, capsys):
    """Issue 29 item 1: `--text en=a --text hi=b` kept only the last --text (English vanished)."""
    pairs = [f"en={two_texts / 'en.txt'}", f"hi={two_texts / 'hi.txt'}"]
    texts = ["--text", pairs[0], "--text", pairs[1]] if style == "repeated" else ["--text", *pairs]
    out = tmp_path / "o"
    assert main(["tsr", str(VOCAB / "cl100k_base.tiktoken"), *texts, "-o", str(out), "--min-strings", "10",
                 "--no-plots", "--quiet"]) == 0
    rows = {r["language"]: r for r in json.loads((out / "report.json").read_text(encoding="utf-8"))["rows"]}
    assert set(rows) == {"en", "hi"}
    assert rows["en"]["script"] == "Latin" and rows["hi"]["script"] == "Devanagari"
    assert rows["hi"]["tax"] == pytest.approx(rows["hi"]["tokens_own"] / rows["en"]["tokens_own"])


def test_cli_tsr_refuses_a_language_given_twice(two_texts, tmp_path, capsys):
    """`--text en=a.txt --text en=hi.txt` reported the Hindi file as "en"."""
    out = tmp_path / "o"
    assert main(["tsr", str(VOCAB / "cl100k_base.tiktoken"), "--text", f"en={two_texts / 'en.txt'}",
                 "--text", f"en={two_texts / 'hi.txt'}", "-o", str(out), "--no-plots", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--text: language en given twice" in err
    assert not out.exists()


@pytest.mark.parametrize("n", [20, 24, 29, 60, 61, 300])
def test_every_script_gets_its_own_colour(n):
    """Issue 29 item 7: tab20's 20 colours were reused modulo 20, so with 24 scripts Latin and
    Malayalam were drawn alike."""
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from hf_greedtok.experiments.tsr_plots import distinct_colours, script_colours
    colours = distinct_colours(n)
    assert len(colours) == n and len({to_hex(c) for c in colours}) == n
    names = [f"Script{i}" for i in range(n)]
    assert len({to_hex(c) for c in script_colours(names).values()}) == n


def test_scripts_of_the_real_parallel_report_have_distinct_colours(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from hf_greedtok.experiments.tsr_plots import script_colours, write_tsr_plots
    report = tsr_report([load_vocabulary(VOCAB / "r50k_base.tiktoken")], read_parallel(PARALLEL))
    scripts = {r["script"] for r in report.rows}
    assert len(scripts) > 20 and {"Latin", "Malayalam"} <= scripts
    colours = {s: to_hex(c) for s, c in script_colours([r["script"] for r in report.rows]).items()}
    assert set(colours) == scripts and len(set(colours.values())) == len(scripts)
    assert colours["Latin"] != colours["Malayalam"]
    assert [p.name for p in write_tsr_plots(report, tmp_path)] == ["tsr_r50k_base.png", "tax_r50k_base.png"]
