"""Encoders over vocabularies trained elsewhere, to measure what `optimal` saves on them.

* tiktoken files (``base64-token rank`` per line, read with tiktoken's own loader): priority =
  rank and id = rank, as the GreedTok paper does with cl100k_base.
* HF BPE ``tokenizer.json`` (byte-level, e.g. GPT-2/RoBERTa style): priority = the index of
  the merge that creates the token, ids unchanged; the file's own normalizer and
  pre-tokenizer are run by the ``tokenizers`` library, so words are split exactly as HF does.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

from ..errors import GreedTokFileError
from ..models import GreedTokModel
from ..pre_tokenizers import HFPreTokenizer, unicode_to_bytes
from ..pre_tokenizers.patterns import vocabulary_split

# OpenAI's published files, by SHA-256 (the expected_hash values of tiktoken_ext.openai_public)
_OPENAI_FILES = {
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "cl100k_base",
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k_base",
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": "r50k_base",
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": "p50k_base",
}
#: SHA-256 -> (name, the split its vocabulary was made with: the registry's, hf_greedtok.pre_tokenizers.patterns)
KNOWN_TIKTOKEN_FILES = {digest: (name, vocabulary_split(name)) for digest, name in _OPENAI_FILES.items()}


def known_tiktoken_file(path: Path) -> Optional[tuple[str, str]]:
    """(name, split pattern name) of one of OpenAI's tiktoken files (cl100k_base, o200k_base,
    r50k_base, p50k_base), recognised by the SHA-256 of its bytes whatever it is called; None
    for any other file.

    Raises:
        GreedTokFileError: the file cannot be read.
    """
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise GreedTokFileError(path, f"cannot be read ({e.strerror or e})") from None
    return KNOWN_TIKTOKEN_FILES.get(digest)


def tiktoken_model(path: Path) -> GreedTokModel:
    """The model of a ``.tiktoken`` file: ranked tokens in rank order, ids = tiktoken's ranks
    (the split pattern is not in the file; :meth:`hf_greedtok.Tokenizer.from_tiktoken` adds it).

    Raises:
        GreedTokFileError: unreadable or malformed file, or a vocabulary without all 256 bytes.
        ImportError: tiktoken is not installed (``pip install hf-greedtok[foreign]``).
    """
    try:
        from tiktoken.load import load_tiktoken_bpe
    except ImportError as e:
        raise ImportError("reading .tiktoken files needs tiktoken: pip install 'hf-greedtok[foreign]'") from e
    if not path.is_file():
        raise GreedTokFileError(path, "no such file")
    try:
        ranks = load_tiktoken_bpe(str(path))
    except Exception as e:  # tiktoken raises bare ValueError/binascii.Error on bad lines
        raise GreedTokFileError(path, f"not a valid tiktoken file ({type(e).__name__}: {e})") from None
    singles = {tok[0]: rank for tok, rank in ranks.items() if len(tok) == 1}
    if len(singles) != 256:
        raise GreedTokFileError(path, f"has {len(singles)} single-byte tokens; all 256 are needed "
                                      "so that every text is encodable")
    ranked = sorted((rank, tok) for tok, rank in ranks.items() if len(tok) >= 2)
    ids = {"specials": {}, "singletons": singles, "bytes": [singles[b] for b in range(256)],
           "ranked": [r for r, _ in ranked]}
    return GreedTokModel([t for _, t in ranked], unit_kind="bytes", ids=ids)


def hf_bpe_model(path: Path) -> tuple[GreedTokModel, HFPreTokenizer]:
    """The model of a byte-level HF BPE ``tokenizer.json`` (priority = the index of the merge
    creating a token, ids unchanged) and the file's own normalizer + pre-tokenizer.

    Raises:
        GreedTokFileError: not JSON, not a BPE model, not byte-level (a token outside the
            256-symbol byte alphabet), or a byte missing from the vocabulary.
    """
    if not path.is_file():
        raise GreedTokFileError(path, "no such file")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GreedTokFileError(path, f"not a JSON tokenizer file ({e})") from None
    model = spec.get("model") or {}
    if model.get("type") != "BPE":
        raise GreedTokFileError(path, f"model type is {model.get('type')!r}, expected 'BPE'")
    table = unicode_to_bytes()
    vocab: dict[str, int] = model["vocab"]
    specials = {t["content"]: t["id"] for t in spec.get("added_tokens", []) if t.get("special")}
    to_bytes = {}
    for tok, i in vocab.items():
        if tok in specials:
            continue
        try:
            to_bytes[tok] = bytes(table[c] for c in tok)
        except KeyError:
            raise GreedTokFileError(path, f"token {tok!r} is not byte-level; only byte-level BPE "
                                          "vocabularies are supported") from None
    singles = {b[0]: vocab[t] for t, b in to_bytes.items() if len(b) == 1}
    if len(singles) != 256:
        raise GreedTokFileError(path, f"has {len(singles)} of the 256 byte tokens; byte fallback needs all")
    # Priority of a token = index of the merge producing it; tokens no merge produces go last.
    priority: dict[str, int] = {}
    for m, merge in enumerate(model.get("merges", [])):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        priority.setdefault(left + right, m)
    multi = [t for t, b in to_bytes.items() if len(b) >= 2]
    multi.sort(key=lambda t: (priority.get(t, len(priority) + vocab[t]), vocab[t]))
    ids = {"specials": specials, "singletons": singles, "bytes": [singles[b] for b in range(256)],
           "ranked": [vocab[t] for t in multi]}
    gm = GreedTokModel([to_bytes[t] for t in multi], unit_kind="bytes", special_tokens=list(specials), ids=ids)
    return gm, HFPreTokenizer(path.read_text(encoding="utf-8"))
