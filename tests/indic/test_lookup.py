"""MorphLookup: the MorphTok (Section 3.1.1, Algorithm 1) word -> morpheme table as boundary-only splits."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
import regex
from corpora import CORPORA

from hf_greedtok.indic.lookup import SANDHI_POLICIES, STAT_KEYS, MorphLookup
from hf_greedtok.word_counts import CorpusError

CORE = regex.compile(r"[\p{L}\p{M}\u200c\u200d]+")
REAL_TABLE = CORPORA / "hi_morph_segments.tsv"


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def assert_rows_accounted(t: MorphLookup) -> None:
    s = t.stats
    assert s["rows"] == (s["entries"] + s["sandhi_skipped"] + s["conflicting_duplicates"]
                         + s["repeated_rows"] + s["filtered_language"])


@pytest.fixture(scope="module")
def real() -> MorphLookup:
    return MorphLookup.load(REAL_TABLE)


# ---------------------------------------------------------------------- loading

def test_load_tsv_segments_boundaries_and_identity_entries(tmp_path):
    path = write(tmp_path / "t.tsv", "लड़के\tलड़क|े\n\nघरों\tघर|ों\nघर\tघर\nपढ़ाइयों\tपढ़|ा|इयों\n")
    t = MorphLookup.load(path)
    assert t.entries == {"लड़के": ("लड़क", "े"), "घरों": ("घर", "ों"), "घर": ("घर",),
                         "पढ़ाइयों": ("पढ़", "ा", "इयों")}
    assert len(t) == 4 and "घर" in t and "घरो" not in t
    assert t.segments("लड़के") == ["लड़क", "े"]
    assert t.segments("अज्ञात") == ["अज्ञात"]            # absent: the word itself
    assert t.segments("घर") == ["घर"]                    # identity entry: present, unsplit
    assert t.boundaries("लड़के") == (len("लड़क"),)
    assert t.boundaries("पढ़ाइयों") == (len("पढ़"), len("पढ़") + 1)
    assert t.boundaries("घर") == ()                      # known, no internal boundary
    assert t.boundaries("अज्ञात") is None                 # unknown
    assert t.stats == {"rows": 4, "entries": 4, "split_entries": 3, "sandhi_skipped": 0,
                       "conflicting_duplicates": 0, "repeated_rows": 0, "filtered_language": 0}
    assert set(t.stats) == set(STAT_KEYS)


def test_segments_returns_a_copy():
    t = MorphLookup({"घरों": ["घर", "ों"]})
    t.segments("घरों").append("x")
    assert t.segments("घरों") == ["घर", "ों"]


def test_load_txt_and_crlf(tmp_path):
    t = MorphLookup.load(write(tmp_path / "t.TXT", "\ufeffघरों\tघर|ों\r\nघर\tघर\r\n"))
    assert t.entries == {"घरों": ("घर", "ों"), "घर": ("घर",)}


def test_load_csv_header_plus_and_language_filter(tmp_path):
    path = write(tmp_path / "m.csv",
                 "Word,Segmentation,Language\n"
                 "लड़कों,लड़क+ों,hindi\n"
                 "घरांना,घर+ांना,marathi\n"
                 "\n"
                 "\"घरों\",\"घर+ों\",Hindi\n")
    all_rows = MorphLookup.load(path)
    assert all_rows.entries == {"लड़कों": ("लड़क", "ों"), "घरांना": ("घर", "ांना"), "घरों": ("घर", "ों")}
    assert all_rows.stats["rows"] == 3 and all_rows.stats["filtered_language"] == 0

    hindi = MorphLookup.load(path, language="HINDI")
    assert hindi.entries == {"लड़कों": ("लड़क", "ों"), "घरों": ("घर", "ों")}
    assert hindi.stats["rows"] == 3 and hindi.stats["filtered_language"] == 1
    assert_rows_accounted(hindi)


def test_csv_without_header_keeps_first_row(tmp_path):
    t = MorphLookup.load(write(tmp_path / "m.csv", "घरों,घर+ों,hindi\nघर,घर,hindi\n"))
    assert t.entries == {"घरों": ("घर", "ों"), "घर": ("घर",)}
    assert t.stats["rows"] == 2


def test_normalizer_applied_to_word_and_segments(tmp_path):
    # U+0958 (क़) is a composition exclusion: NFC gives क + nukta, NFKC likewise; None keeps it.
    path = write(tmp_path / "t.tsv", "\u0958ानून\t\u0958ानून\nफ़िल्में\tफ़िल्म|ें\n")
    assert "\u0915\u093cानून" in MorphLookup.load(path)
    assert "\u0958ानून" in MorphLookup.load(path, normalizer=None)
    nfd = MorphLookup.load(path, normalizer="NFD")
    assert all(unicodedata.is_normalized("NFD", w) for w in nfd.entries)
    assert nfd.segments("\u092b\u093cिल्में") == ["\u092b\u093cिल्म", "ें"]


def test_bad_arguments(tmp_path):
    path = write(tmp_path / "t.tsv", "घर\tघर\n")
    with pytest.raises(ValueError, match="sandhi must be one of"):
        MorphLookup.load(path, sandhi="merge")
    with pytest.raises(ValueError, match="sandhi must be one of"):
        MorphLookup({}, sandhi="merge")
    with pytest.raises(ValueError, match="normalizer"):
        MorphLookup.load(path, normalizer="nfc")
    with pytest.raises(ValueError, match="language"):
        MorphLookup.load(path, language="hindi")
    other = write(tmp_path / "t.json", "{}")
    with pytest.raises(ValueError, match=r"t\.json.*\.tsv, \.txt, \.csv"):
        MorphLookup.load(other)
    assert SANDHI_POLICIES == ("skip", "error")


def test_missing_file(tmp_path):
    path = tmp_path / "absent.tsv"
    with pytest.raises(CorpusError, match="no such file") as e:
        MorphLookup.load(path)
    assert e.value.line is None and e.value.source == str(path)


def test_constructor_validates_entries():
    with pytest.raises(TypeError, match="sequence of strings"):
        MorphLookup({"घरों": "घरों"})
    with pytest.raises(ValueError, match="non-empty"):
        MorphLookup({"घरों": ["घर", ""]})
    with pytest.raises(ValueError, match="non-empty"):
        MorphLookup({"": ["x"]})
    with pytest.raises(ValueError, match="sandhi"):
        MorphLookup({"विद्यालय": ["विद्या", "आलय"]}, sandhi="error")
    t = MorphLookup({"विद्यालय": ["विद्या", "आलय"], "घरों": ("घर", "ों")})
    assert t.entries == {"घरों": ("घर", "ों")}
    assert t.stats["rows"] == 2 and t.stats["sandhi_skipped"] == 1 and t.stats["split_entries"] == 1


# ---------------------------------------------------------------------- malformed input

GOOD = "घरों\tघर|ों\n"


@pytest.mark.parametrize("bad_line, problem", [
    ("घरों\tघर\tों\n", "expected 2 tab-separated fields"),
    ("घरों\n", "expected 2 tab-separated fields"),
    ("\tघर|ों\n", "empty word"),
    ("घरों\tघर||ों\n", "empty segment"),
    ("घरों\tघर|ों|\n", "empty segment"),
    ("घरों\t|घर|ों\n", "empty segment"),
    ("घरों\t\n", "empty segment"),
    ("घ\x00रों\tघर|ों\n", "NUL"),
])
def test_malformed_tsv_line_reports_file_and_line(tmp_path, bad_line, problem):
    path = write(tmp_path / "bad.tsv", GOOD + "\n" + bad_line + GOOD)
    with pytest.raises(CorpusError, match=problem) as e:
        MorphLookup.load(path)
    assert e.value.line == 3                        # line 2 is blank and still counted
    assert "bad.tsv" in str(e.value) and "line 3" in str(e.value)


def test_invalid_utf8_reports_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_bytes(GOOD.encode() * 2 + b"\xff\xfe\tx\n" + GOOD.encode())
    with pytest.raises(CorpusError, match="invalid UTF-8") as e:
        MorphLookup.load(path)
    assert e.value.line == 3 and "bad.tsv" in str(e.value)


@pytest.mark.parametrize("bad_line, problem", [
    ("घरों,घर+ों\n", "expected 3 comma-separated fields"),
    ("घरों,घर+ों,hindi,extra\n", "expected 3 comma-separated fields"),
    (",घर+ों,hindi\n", "empty word"),
    ("घरों,घर++ों,hindi\n", "empty segment"),
    ("घरों,घर+ों+,hindi\n", "empty segment"),
    ("घरों,घर+ों,hi\x00ndi\n", "NUL"),
])
def test_malformed_csv_line_reports_file_and_line(tmp_path, bad_line, problem):
    path = write(tmp_path / "bad.csv", "word,segmentation,language\nघरों,घर+ों,hindi\n" + bad_line)
    with pytest.raises(CorpusError, match=problem) as e:
        MorphLookup.load(path)
    assert e.value.line == 3 and "bad.csv" in str(e.value)


def test_malformed_row_in_filtered_language_still_reported(tmp_path):
    # The language filter selects rows; it does not hide a broken file.
    path = write(tmp_path / "bad.csv", "घरों,घर+ों,hindi\nघरांना,घर++ांना,marathi\n")
    with pytest.raises(CorpusError) as e:
        MorphLookup.load(path, language="hindi")
    assert e.value.line == 2


def test_csv_line_numbers_after_multiline_quoted_field(tmp_path):
    # A quoted field spanning two physical lines: later lines keep their physical numbers.
    path = write(tmp_path / "q.csv", "घरों,\"घ\n+रों\",hindi\nघरों,घर++ों,hindi\n")
    with pytest.raises(CorpusError) as e:
        MorphLookup.load(path)
    assert e.value.line == 3


# ---------------------------------------------------------------------- sandhi

MORPHTOK_CSV = ("word,segmentation,language\n"
                "विद्यालय,विद्या+आलय,hindi\n"        # MorphTok's own sandhi example
                "लड़कों,लड़क+ों,hindi\n")


def test_sandhi_skip_counts(tmp_path):
    t = MorphLookup.load(write(tmp_path / "m.csv", MORPHTOK_CSV))
    assert "विद्यालय" not in t
    assert t.segments("विद्यालय") == ["विद्यालय"]
    assert t.entries == {"लड़कों": ("लड़क", "ों")}
    assert t.stats["sandhi_skipped"] == 1 and t.stats["rows"] == 2
    assert_rows_accounted(t)


def test_sandhi_error_names_file_and_line(tmp_path):
    with pytest.raises(CorpusError, match="sandhi") as e:
        MorphLookup.load(write(tmp_path / "m.csv", MORPHTOK_CSV), sandhi="error")
    assert e.value.line == 2 and "m.csv" in str(e.value) and "विद्यालय" in str(e.value)


def test_sandhi_row_does_not_block_later_applicable_row(tmp_path):
    t = MorphLookup.load(write(tmp_path / "t.tsv", "विद्यालय\tविद्या|आलय\nविद्यालय\tविद्या|लय\n"))
    assert t.entries == {"विद्यालय": ("विद्या", "लय")}
    assert t.stats["sandhi_skipped"] == 1 and t.stats["conflicting_duplicates"] == 0


# ---------------------------------------------------------------------- duplicates

def test_duplicates_first_wins_and_counters(tmp_path):
    path = write(tmp_path / "t.tsv",
                 "अकेला\tअकेल|ा\n"
                 "अकेला\tअकेला\n"           # conflicting
                 "अकेला\tअकेल|ा\n"          # identical repeat
                 "घरों\tघर|ों\n"
                 "घरों\tघर|ों\n")           # identical repeat
    t = MorphLookup.load(path)
    assert t.entries == {"अकेला": ("अकेल", "ा"), "घरों": ("घर", "ों")}
    assert t.stats["conflicting_duplicates"] == 1
    assert t.stats["repeated_rows"] == 2
    assert t.stats["rows"] == 5 and t.stats["entries"] == 2
    assert_rows_accounted(t)


def test_duplicates_compared_after_normalization(tmp_path):
    # Composed U+0958 and decomposed क + nukta are the same word after NFC: a repeat, not a conflict.
    t = MorphLookup.load(write(tmp_path / "t.tsv", "\u0958लम\t\u0958लम\n\u0915\u093cलम\t\u0915\u093cलम\n"))
    assert t.stats["repeated_rows"] == 1 and len(t) == 1
    raw = MorphLookup.load(write(tmp_path / "t.tsv", "\u0958लम\t\u0958लम\n\u0915\u093cलम\t\u0915\u093cलम\n"),
                           normalizer=None)
    assert raw.stats["repeated_rows"] == 0 and len(raw) == 2


# ---------------------------------------------------------------------- split_word

@pytest.fixture()
def small() -> MorphLookup:
    return MorphLookup({"लड़के": ["लड़क", "े"], "घरों": ["घर", "ों"], "घर": ["घर"],
                        "पढ़ाइयों": ["पढ़", "ा", "इयों"]})


def test_split_word_prefix_and_tail(small):
    assert small.split_word("▁घरों") == ["▁घर", "ों"]
    assert small.split_word("घरों") == ["घर", "ों"]                       # no prefix
    assert small.split_word("▁घरों।") == ["▁घर", "ों।"]                   # tail joins the last piece
    assert small.split_word("▁घरों,\"") == ["▁घर", "ों,\""]
    assert small.split_word("▁घरों2024") == ["▁घर", "ों2024"]
    assert small.split_word("▁पढ़ाइयों।") == ["▁पढ़", "ा", "इयों।"]
    assert small.split_word("##घरों", prefix="##") == ["##घर", "ों"]       # custom prefix
    assert small.split_word("▁घरों", prefix="") == ["▁घरों"]              # "▁" is not a letter: no core


def test_split_word_leaves_unknown_and_unsplit_words(small):
    assert small.split_word("▁मकान।") == ["▁मकान।"]        # not in the table
    assert small.split_word("▁घर।") == ["▁घर।"]            # identity entry
    assert small.split_word("▁घरोंमें") == ["▁घरोंमें"]      # core is the whole letter run
    assert small.split_word("▁") == ["▁"]                  # no core at all
    assert small.split_word("।") == ["।"]
    assert small.split_word("(घरों") == ["(घरों"]          # core must follow the prefix directly


def test_split_word_units_rule(small):
    # े attaches to क as one unit in "marks" mode, so the boundary inside के is dropped.
    assert small.split_word("▁लड़के", units="chars") == ["▁लड़क", "े"]
    assert small.split_word("▁लड़के", units="marks") == ["▁लड़के"]
    assert small.split_word("▁लड़के", units="vowels") == ["▁लड़के"]
    # पढ़|ा|इयों: "marks" drops the boundary before ा (it attaches to ढ़) but keeps the one before इ.
    assert small.split_word("▁पढ़ाइयों", units="marks") == ["▁पढ़ा", "इयों"]
    # "vowels": ा joins the nukta unit ़ (units.py's paper-faithful rule), the boundary is dropped too.
    assert small.split_word("▁पढ़ाइयों", units="vowels") == ["▁पढ़ा", "इयों"]
    assert small.split_word("▁घरों", units="marks") == ["▁घरों"]
    with pytest.raises(ValueError, match="units"):
        small.split_word("▁घरों", units="bytes")


def test_split_word_is_deterministic_with_cache(small):
    first = [small.split_word(w, units=u) for u in ("chars", "marks") for w in ("▁लड़के", "लड़के।")]
    again = [small.split_word(w, units=u) for u in ("chars", "marks") for w in ("▁लड़के", "लड़के।")]
    assert first == again == [["▁लड़क", "े"], ["लड़क", "े।"], ["▁लड़के"], ["लड़के।"]]


@pytest.mark.parametrize("units", ["chars", "marks"])
def test_split_word_concatenation_invariant_on_real_table(real, units):
    split = 0
    for word, segs in real.entries.items():
        for pre_token in ("▁" + word, "▁" + word + "।", word):
            pieces = real.split_word(pre_token, units=units)
            assert "".join(pieces) == pre_token
            assert all(pieces)
        pieces = real.split_word("▁" + word + "।", units=units)
        if units == "chars" and len(segs) > 1 and CORE.fullmatch(word):
            # With char units every table boundary is used; prefix and tail ride on the ends.
            assert pieces == ["▁" + segs[0], *segs[1:-1], segs[-1] + "।"]
        split += len(pieces) > 1
    # Some words are split in both modes, and "marks" never splits more words than "chars".
    assert 0 < split <= real.stats["split_entries"]


def test_marks_splits_fewer_words_than_chars_on_real_table(real):
    def n_split(units):
        return sum(len(real.split_word("▁" + w, units=units)) > 1 for w in real.entries)
    chars, marks = n_split("chars"), n_split("marks")
    assert 0 < marks < chars <= real.stats["split_entries"]


# ---------------------------------------------------------------------- real file

def test_real_table_stats(real):
    # Measured on hi_morph_segments.tsv (66,687 rows) with the default NFC normalizer. The 26
    # repeated rows are pairs that differ only in composed vs decomposed nukta letters.
    assert real.stats == {"rows": 66687, "entries": 66133, "split_entries": 45118, "sandhi_skipped": 0,
                          "conflicting_duplicates": 528, "repeated_rows": 26, "filtered_language": 0}
    assert_rows_accounted(real)
    assert len(real) == 66133
    # NFC was applied: no key or segment changes under NFC again.
    assert all(unicodedata.is_normalized("NFC", w) for w in real.entries)
    assert all(unicodedata.is_normalized("NFC", s) for segs in real.entries.values() for s in segs)
    # The first row wins: अकेला is listed as अकेल|ा before अकेला.
    assert real.segments("अकेला") == ["अकेल", "ा"]


def test_real_table_without_normalizer_keeps_raw_rows():
    t = MorphLookup.load(REAL_TABLE, normalizer=None)
    # Measured: without NFC the 240 non-NFC rows stay distinct, so no row is an identical repeat.
    assert t.stats["rows"] == 66687 and t.stats["repeated_rows"] == 0
    assert t.stats["conflicting_duplicates"] == 526 and t.stats["sandhi_skipped"] == 0
    assert sum(not unicodedata.is_normalized("NFC", w) for w in t.entries) > 0


def test_real_table_sandhi_error_policy_accepts_it():
    # The file has no sandhi rows, so the strict policy loads it with the same entries.
    assert MorphLookup.load(REAL_TABLE, sandhi="error") == MorphLookup.load(REAL_TABLE)


# ---------------------------------------------------------------------- persistence

def test_dict_round_trip_through_json(small, tmp_path):
    t = MorphLookup.load(write(tmp_path / "m.csv", MORPHTOK_CSV + "लड़कों,लड़कों,hindi\n"))
    d = json.loads(json.dumps(t.to_dict(), ensure_ascii=False))
    back = MorphLookup.from_dict(d)
    assert back == t and back.entries == t.entries and back.stats == t.stats
    assert list(back.entries) == list(t.entries)
    assert back.stats["sandhi_skipped"] == 1 and back.stats["conflicting_duplicates"] == 1
    assert MorphLookup.from_dict(small.to_dict()) == small
    with pytest.raises(ValueError, match="not a"):
        MorphLookup.from_dict({"entries": {}})
    bad = small.to_dict() | {"version": 99}
    with pytest.raises(ValueError, match="version"):
        MorphLookup.from_dict(bad)


def test_real_dict_round_trip(real):
    back = MorphLookup.from_dict(json.loads(json.dumps(real.to_dict())))
    assert back == real and back.stats == real.stats


def test_save_tsv_round_trip(small, tmp_path):
    out = small.save_tsv(tmp_path / "sub" / "saved.tsv")
    assert out == tmp_path / "sub" / "saved.tsv"
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines) and lines[0].split("\t")[0] == min(small.entries)
    assert "घरों\tघर|ों" in lines
    assert MorphLookup.load(out) == small
    assert list(tmp_path.joinpath("sub").iterdir()) == [out]     # no temporary file left behind


def test_save_tsv_rejects_unrepresentable(tmp_path):
    with pytest.raises(ValueError, match="save_tsv writes"):
        MorphLookup({"घर": ["घर"]}).save_tsv(tmp_path / "x.csv")
    with pytest.raises(ValueError, match="cannot write"):
        MorphLookup({"a|b": ["a|", "b"]}).save_tsv(tmp_path / "x.tsv")
    assert not (tmp_path / "x.tsv").exists()


def test_real_save_tsv_round_trip(real, tmp_path):
    out = real.save_tsv(tmp_path / "hi.tsv")
    back = MorphLookup.load(out)
    assert back == real
    assert back.stats["rows"] == len(real) and back.stats["conflicting_duplicates"] == 0
