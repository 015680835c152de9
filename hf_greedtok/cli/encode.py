"""``hf-greedtok encode``: a text's tokens and ids as JSON, and whether decoding gives it back."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Optional

from .options import MODES, TIKTOKEN_PATTERN, TOKENIZER_OR_VOCABULARY, local_path

if TYPE_CHECKING:
    from ..hf.folder import TokenizerFolder

HELP = "encode a text, show tokens, and check that decoding restores it"


def add_arguments(c: argparse.ArgumentParser) -> None:
    """encode's arguments, in the order ``--help`` lists them."""
    c.add_argument("tokenizer", type=local_path, metavar="DIR", help=TOKENIZER_OR_VOCABULARY)
    c.add_argument("text", help="the text to encode (one argument: quote it)")
    c.add_argument("--mode", choices=MODES, default=None,
                   help="GreedTok folders and vocabulary files: cover or optimal (a vocabulary file's default: "
                        "its own BPE encoder)")
    c.add_argument("--pattern", default=None, help=TIKTOKEN_PATTERN)
    c.add_argument("--no-special-tokens", action="store_true",
                   help="a folder: leave out the BOS/EOS its post-processor adds (add_special_tokens=False)")


def run(args: argparse.Namespace) -> int:
    """Print a text's tokens and ids as JSON; returns 0 when decoding gives the text back
    (normalized, if the tokenizer normalizes), else 1.

    A folder encodes as ``AutoTokenizer.from_pretrained(DIR)(text)["input_ids"]`` does: its
    added tokens matched, its post-processor's BOS/EOS around the text (unless
    ``--no-special-tokens``); "decoded" is the decoding of the text's own tokens, without those.
    A vocabulary file (.tiktoken, byte-level BPE tokenizer.json) encodes with its own BPE, or
    with ``--mode``."""
    from ..hf.folder import TokenizerFolder
    from ..hf.folder_encoder import load_folder_tokenizer
    from ..normalizers import replace_surrogates
    from .loading import check_exists, check_pattern_applies, is_vocabulary_file

    check_exists(args.tokenizer)
    check_pattern_applies(args.pattern, [args.tokenizer])
    if is_vocabulary_file(args.tokenizer):
        if args.no_special_tokens:
            raise ValueError("--no-special-tokens: a vocabulary file has no post-processor; it applies to folders")
        from ..vocabularies import load_vocabulary
        vocab = load_vocabulary(args.tokenizer, pattern=args.pattern)
        tok = vocab.native
        ids = vocab.own_encode(args.text) if args.mode is None else tok.encode(args.text, mode=args.mode,
                                                                              allow_special=False)
        tokens, decoded = [tok.id_to_token(i) for i in ids], tok.decode(ids)
        form = tok.normalizer.form if tok.normalizer else None
        return _print_encoding(args.text, tokens, ids, decoded, form)
    folder = TokenizerFolder.open(args.tokenizer)
    if folder.is_greedtok:
        tok, _, backend = folder.greedtok_backend(args.mode)   # its mode is the folder's, as every reader's
        form = tok.normalizer.form if tok.normalizer else None
    else:
        if args.mode is not None:
            raise ValueError(f"--mode: {args.tokenizer} is a {folder.tokenizer_class} folder with one "
                             "encoder; --mode applies to GreedTok folders")
        backend = load_folder_tokenizer(folder).backend_tokenizer
        form = _unicode_form(folder)
    encoding = backend.encode(replace_surrogates(args.text), add_special_tokens=not args.no_special_tokens)
    ids = encoding.ids
    own = [i for i, sequence in zip(ids, encoding.sequence_ids) if sequence is not None]
    decoded = backend.decode(own, skip_special_tokens=False)
    return _print_encoding(args.text, [backend.id_to_token(i) for i in ids], ids, decoded, form)


def _unicode_form(folder: "TokenizerFolder") -> Optional[str]:
    """The Unicode normalization form (NFC, ...) of a folder's tokenizer.json normalizer, if any."""
    spec = folder.tokenizer_json().get("normalizer") or {}
    steps = spec.get("normalizers", [spec]) if spec.get("type") == "Sequence" else [spec]
    forms = [s.get("type") for s in steps if s.get("type") in ("NFC", "NFD", "NFKC", "NFKD")]
    return forms[-1] if forms else None


def _print_encoding(text: str, tokens: list, ids: list[int], decoded: str, form: Optional[str]) -> int:
    """Print the JSON line; 0 if ``decoded`` is ``text`` as the tokenizer normalizes it (``form``), else 1."""
    from ..normalizers import UnicodeNormalizer, replace_surrogates

    expected = replace_surrogates(text)
    expected = UnicodeNormalizer(form)(expected) if form else expected
    print(json.dumps({"tokens": tokens, "ids": ids, "decoded": decoded, "round_trip": decoded == text},
                     ensure_ascii=False))
    return 0 if decoded == expected else 1
