"""``evaluate``'s headline figures are those of the encoder the folder uses: on a folder saved
with mode optimal (train's default) or cover, ``tokens_per_word`` is the number of ids that
``hf-greedtok encode``, ``AutoTokenizer`` and ``FolderEncoder`` give on the same text, divided
by its words; both encoders' figures stay under explicit keys."""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from corpora import EXAMPLE_TEXT

from hf_greedtok import Tokenizer
from hf_greedtok.cli import main

# Dictionary-like lines: words the tokenizer splits where cover and optimal differ.
TEXT = ("The cynic is a blackguard whose faulty vision sees things as they are, not as they ought to be.\n"
        "Abnormal, adj. Not conforming to standard; unconventionally misunderstood.\n"
        "Accordion, n. An instrument in harmony with the sentiments of an assassin.\n"
        "Bore, n. A person who talks when you wish him to listen — naïve café.\n")


def _run(argv: list[str]) -> str:
    """main(argv)'s stdout; fails unless it exits 0."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The folders `train` saves with each encoder (named by it; "optimal" without --mode, the
    default), and the summary line train printed for the optimal one."""
    base = tmp_path_factory.mktemp("headline")
    printed = _run(["train", str(EXAMPLE_TEXT), "-k", "400", "-o", str(base / "optimal"), "--quiet"])
    _run(["train", str(EXAMPLE_TEXT), "-k", "400", "-o", str(base / "cover"), "--mode", "cover", "--quiet"])
    return base, printed


@pytest.mark.parametrize("mode", ["optimal", "cover"])
def test_the_headline_is_what_the_folder_encodes_per_word(folders, mode, tmp_path):
    """The folder's own ids, through every entry point, over its pre-tokenized words."""
    from transformers import AutoTokenizer

    from hf_greedtok.hf.folder_encoder import FolderEncoder
    folder = folders[0] / mode
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    r = json.loads(_run(["evaluate", str(folder), str(text), "--json", "--quiet"]))

    lines = TEXT.splitlines(keepends=True)
    encoded = [json.loads(_run(["encode", str(folder), line]))["ids"] for line in lines]
    assert AutoTokenizer.from_pretrained(str(folder))(lines, add_special_tokens=False)["input_ids"] == encoded
    assert FolderEncoder(folder, add_special_tokens=False).encode_table(lines).column("input_ids").to_pylist() \
        == encoded
    ids = sum(map(len, encoded))
    words = sum(len(Tokenizer.load(folder).pre_tokenize(line)) for line in lines)
    assert r["mode"] == mode and r["words"] == words
    assert r["tokens_per_word"] == r[f"tokens_per_word_{mode}"] == ids / words
    assert r[f"tokens_{mode}"] == ids
    assert r["chars_per_token"] == r[f"chars_per_token_{mode}"] == r["characters"] / ids
    # the text has words where the two encoders differ: the headline could not be the other one
    assert r["tokens_optimal"] < r["tokens_cover"]
    assert r["tokens_per_word_cover"] == r["tokens_cover"] / words
    assert r["tokens_per_word_optimal"] == r["tokens_optimal"] / words


def test_on_the_training_text_the_headline_is_what_train_printed(folders):
    base, printed = folders
    r = json.loads(_run(["evaluate", str(base / "optimal"), str(EXAMPLE_TEXT), "--json", "--quiet"]))
    assert r["mode"] == "optimal" and r["tokens_per_word"] == r["tokens_per_word_optimal"]
    assert f"{r['tokens_per_word']:.4f} tokens per word on the training words (optimal, the saved encoder; " \
           f"cover {r['tokens_per_word_cover']:.4f})" in printed


def test_evaluate_word_counts_takes_a_mode_and_refuses_an_unknown_one(folders):
    from hf_greedtok.experiments.evaluation import evaluate_word_counts
    tok = Tokenizer.load(folders[0] / "optimal")
    counts = {" cynic": 3, " blackguard": 2, " assassin": 1, " unconventionally": 1}
    own, cover = evaluate_word_counts(tok, counts), evaluate_word_counts(tok, counts, mode="cover")
    assert own["mode"] == "optimal" and cover["mode"] == "cover"
    assert own["tokens_per_word"] == cover["tokens_per_word_optimal"] == own["tokens_optimal"] / 7
    assert cover["tokens_per_word"] == own["tokens_per_word_cover"] == own["tokens_cover"] / 7
    with pytest.raises(ValueError, match="mode must be 'cover' or 'optimal', got 'fast'"):
        evaluate_word_counts(tok, counts, mode="fast")
