"""GreedTok transformers folders written and read without importing transformers.

:func:`save_greedtok_folder` writes, byte for byte, what
``GreedTokTokenizerFast.from_greedtok(tok, ...).save_pretrained(directory)`` writes
(tests/hf/test_folder.py compares the two), and :func:`load_greedtok_backend` builds the
``tokenizers`` backend such a folder loads into. The CLI's ``train``, ``encode`` and
``evaluate`` use them, so a GreedTok run never pays for importing transformers (1-2 s).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Optional, Union

from tokenizers import Tokenizer as HFTokenizer

from ..atomic import atomic_write_text
from ..core import Tokenizer
from ..formats.greedtok_json import FILE_NAME
from ..errors import GreedTokFileError
from ..formats.manifest import verify_manifest, write_save_manifest
from .pipeline import (attach, backend_from_folder_json, build_backend, folder_json, template_post_processor,
                          unigram_vocab)
from ..models import MODES

TOKENIZER_FILE = "tokenizer.json"
LOOKUP_FILE = "morph_lookup.tsv"
CONFIG_FILE = "tokenizer_config.json"
REMOTE_CODE_FILE = "tokenization_greedtok.py"      # the folder's auto_map code, a copy of ours
# transformers' VERY_LARGE_INTEGER, its model_max_length for "no limit"
NO_MAX_LENGTH = int(1e30)
# tokenizer_config.json's "tokenizer_class": transformers drops the "Fast"
GREEDTOK_CLASS = "GreedTokTokenizer"


def is_greedtok_config(config: Optional[dict]) -> bool:
    """Whether a tokenizer_config.json (None: a ``Tokenizer.save`` folder without one) is a
    GreedTok folder's, which :func:`load_greedtok_backend` reads."""
    return config is None or str(config.get("tokenizer_class") or "").removesuffix("Fast") == GREEDTOK_CLASS


def save_greedtok_folder(tok: Tokenizer, directory: Union[str, Path], *, mode: Optional[str] = None,
                         bos_token: Optional[str] = None, eos_token: Optional[str] = None,
                         pad_token: Optional[str] = None, add_bos_token: bool = False,
                         add_eos_token: bool = False) -> list[Path]:
    """Write the folder that ``GreedTokTokenizerFast.from_greedtok(tok, mode=mode, ...)
    .save_pretrained(directory)`` writes: tokenizer_config.json, tokenizer.json,
    greedtok.json, tokenization_greedtok.py, then the manifest. Returns the files written.

    Args:
        mode: "cover" or "optimal" (default ``tok.mode``).
        bos_token, eos_token, pad_token: special tokens of ``tok`` (its ``special_tokens``).
        add_bos_token, add_eos_token: the post-processor adds BOS/EOS (needs the token).

    Raises:
        ValueError: unknown mode; a named token that is not one of ``tok``'s special tokens;
            ``add_*_token`` without the token.
    """
    mode = mode or tok.mode
    if mode not in MODES:
        raise ValueError(f"mode must be 'cover' or 'optimal', got {mode!r}")
    named = {"bos_token": bos_token, "eos_token": eos_token, "pad_token": pad_token}
    for key, token in named.items():
        if token is not None and token not in tok.model.special_tokens:
            raise ValueError(f"{key} {token!r} is not a special token of the tokenizer "
                             f"({tok.model.special_tokens}); train with it")
    for flag, wanted, token in (("add_bos_token", add_bos_token, bos_token), ("add_eos_token", add_eos_token, eos_token)):
        if wanted and token is None:
            raise ValueError(f"{flag} needs {flag.removeprefix('add_')}")
    backend = build_backend(tok, mode)
    backend.post_processor = template_post_processor(
        (bos_token, backend.token_to_id(bos_token)) if add_bos_token else None,
        (eos_token, backend.token_to_id(eos_token)) if add_eos_token else None)
    config = {
        "auto_map": {"AutoTokenizer": [None, f"{Path(REMOTE_CODE_FILE).stem}.GreedTokTokenizerFast"]},
        "backend": "tokenizers", "mode": mode, "model_max_length": NO_MAX_LENGTH,
        "tokenizer_class": GREEDTOK_CLASS, **{k: v for k, v in named.items() if v is not None},
    }
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    files = [directory / name for name in (CONFIG_FILE, TOKENIZER_FILE, FILE_NAME, REMOTE_CODE_FILE)]
    # the formatting of transformers' save_pretrained
    atomic_write_text(files[0], json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    atomic_write_text(files[1], folder_json(backend))
    atomic_write_text(files[2], tok.to_json())
    shutil.copy(Path(__file__).with_name(REMOTE_CODE_FILE), files[3])    # as transformers' custom_object_save
    return files + [write_save_manifest(directory, files)]


def check_same_vocab(vocab: list, greedtok: Tokenizer, source: str) -> None:
    """tokenizer.json's Unigram vocabulary (its ``model.vocab``) must be the ranked token
    file's, id for id.

    Raises:
        ValueError: naming the first id that differs (or the two sizes).
    """
    theirs = [piece[0] if isinstance(piece, (list, tuple)) else piece for piece in vocab]
    ours = [piece for piece, _ in unigram_vocab(greedtok)]
    if theirs == ours:
        return
    if len(theirs) != len(ours):
        problem = f"has {len(theirs)} tokens, the ranked token file {len(ours)}"
    else:
        i = next(i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b)
        problem = f"has {theirs[i]!r} at id {i}, the ranked token file {ours[i]!r}"
    raise ValueError(f"{source}: {TOKENIZER_FILE} does not match {FILE_NAME}: its vocabulary {problem}. "
                     "One of the two files was replaced or edited; re-save the tokenizer.")


def read_folder_json(path: Path, data: Optional[bytes] = None) -> dict:
    """A folder's JSON file (tokenizer.json, tokenizer_config.json), or ``data`` read from it;
    GreedTokFileError naming it when unreadable."""
    try:
        return json.loads((path.read_bytes() if data is None else data).decode("utf-8"))
    except UnicodeDecodeError as e:
        raise GreedTokFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise GreedTokFileError(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                                      "the file is truncated or corrupted") from None


def check_tokenizer_folder(folder: Path) -> tuple[Optional[dict], Optional[str], Optional[dict]]:
    """Check that ``folder`` is a complete tokenizer folder before anything parses it
    (:meth:`TokenizerFolder.open`).

    Returns (tokenizer_config.json's content, tokenizer.json's text and content), or (None,
    None, None) for a ``Tokenizer.save`` folder (only greedtok.json, whose manifest :meth:`Tokenizer.load`
    checks). Raises GreedTokFileError naming the missing or damaged file.
    """
    if not folder.is_dir():
        raise GreedTokFileError(folder, "not a folder written by hf-greedtok train or save_pretrained")
    has = {name: (folder / name).is_file() for name in (FILE_NAME, TOKENIZER_FILE, CONFIG_FILE)}
    if not has[CONFIG_FILE]:
        if has[TOKENIZER_FILE]:
            # AutoTokenizer would load tokenizer.json alone as a plain tokenizer: other ids
            raise GreedTokFileError(folder / CONFIG_FILE, "no such file: the folder is incomplete (it has "
                                                          f"{TOKENIZER_FILE} but not {CONFIG_FILE})")
        if has[FILE_NAME]:
            return None, None, None          # Tokenizer.load checks the manifest
        raise GreedTokFileError(folder, f"not a tokenizer folder: no {CONFIG_FILE} and no {FILE_NAME}")
    config = read_folder_json(folder / CONFIG_FILE)
    # transformers saves "GreedTokTokenizer" for GreedTokTokenizerFast
    required = {"GreedTokTokenizer": FILE_NAME, "MorphLookupTokenizer": LOOKUP_FILE}
    kind = str(config.get("tokenizer_class") or "").removesuffix("Fast")
    needed = [TOKENIZER_FILE] + [f for f in (required.get(kind),) if f]
    if has[FILE_NAME]:
        needed.append(FILE_NAME)
    for name in dict.fromkeys(needed):
        if not (folder / name).is_file():
            raise GreedTokFileError(folder / name, f"no such file: the folder is incomplete (it has {CONFIG_FILE} "
                                                   f"but not {name})")
    text = (folder / TOKENIZER_FILE).read_bytes()
    content = read_folder_json(folder / TOKENIZER_FILE, text)
    verify_manifest(folder)         # after the checks above, whose messages say more
    return config, text.decode("utf-8"), content


class TokenizerFolder:
    """A tokenizer folder opened once: its files checked, its manifest verified and its
    tokenizer_config.json read when it is opened; then handed to whatever loads or encodes with
    it (:class:`~hf_greedtok.hf.folder_encoder.FolderEncoder`, the CLI's ``encode``, ``evaluate``
    and ``tokenize``), which read it from here instead of checking it again.

    Any folder ``hf-greedtok train`` writes (GreedTok, BPE, CBPE, lookup) or
    ``GreedTokTokenizerFast.save_pretrained`` writes, or a ``Tokenizer.save`` folder
    (greedtok.json and its manifest only).

    Example (a folder ``hf-greedtok train`` wrote)::

        folder = TokenizerFolder.open("devil-tokenizer")    # GreedTokFileError if damaged
        folder.is_greedtok, folder.mode                      # (True, 'optimal')
        tok, mode, backend = folder.greedtok_backend()       # no transformers import
        encoder = FolderEncoder(folder)                      # not checked again

    Attributes:
        path: the folder.
        config: tokenizer_config.json's content; None for a ``Tokenizer.save`` folder.
    """

    __slots__ = ("path", "config", "_tokenizer_text", "_tokenizer_json", "_greedtok")

    def __init__(self, path: Path, config: Optional[dict], tokenizer_text: Optional[str] = None,
                 tokenizer_json: Optional[dict] = None) -> None:
        self.path = path
        self.config = config
        self._tokenizer_text = tokenizer_text       # what a backend is built from, as open() read it
        self._tokenizer_json = tokenizer_json
        self._greedtok: Optional[Tokenizer] = None

    @classmethod
    def open(cls, path: Union[str, Path]) -> "TokenizerFolder":
        """Check ``path`` (files present, JSON readable, manifest) and read its config.

        Raises:
            GreedTokFileError: not a folder, a missing or damaged file, or a file the manifest
                lists that is missing or changed; the message names the file.
        """
        path = Path(path)
        folder = cls(path, *check_tokenizer_folder(path))
        if folder.config is None:
            # parsed before its manifest is checked, as Tokenizer.load does: a damaged file's
            # message says more than "changed since it was saved"
            folder._greedtok = Tokenizer.load(path)
        return folder

    @classmethod
    def of(cls, folder: Union[str, Path, "TokenizerFolder"]) -> "TokenizerFolder":
        """``folder`` itself if it is opened, else :meth:`open` of the path (same errors)."""
        return folder if isinstance(folder, cls) else cls.open(folder)

    def __repr__(self) -> str:
        return f"TokenizerFolder({str(self.path)!r}, {self.tokenizer_class})"

    @property
    def tokenizer_class(self) -> str:
        """tokenizer_config.json's class without "Fast" ("GreedTokTokenizer" for a
        ``Tokenizer.save`` folder)."""
        if self.config is None:
            return GREEDTOK_CLASS
        return str(self.config.get("tokenizer_class") or "").removesuffix("Fast")

    @property
    def is_greedtok(self) -> bool:
        """Whether a GreedTok model (cover or optimal) encodes it, readable without transformers."""
        return is_greedtok_config(self.config)

    @property
    def mode(self) -> Optional[str]:
        """The saved mode ("cover" or "optimal"; None when the folder does not say)."""
        return None if self.config is None else self.config.get("mode")

    def tokenizer_json(self) -> dict:
        """tokenizer.json's content as parsed when the folder was opened ({} for a
        ``Tokenizer.save`` folder, which has none); shared, not to be changed."""
        return {} if self._tokenizer_json is None else self._tokenizer_json

    def greedtok(self) -> Tokenizer:
        """The folder's ranked token file (greedtok.json), loaded once.

        Raises:
            GreedTokFileError: a damaged greedtok.json, or none (not a GreedTok folder).
        """
        if self._greedtok is None:
            self._greedtok = Tokenizer.load(self.path / FILE_NAME, verify_folder=False)   # open() verified it
        return self._greedtok

    def greedtok_backend(self, mode: Optional[str] = None) -> tuple[Tokenizer, str, HFTokenizer]:
        """(native tokenizer, mode, ``tokenizers`` backend) of a GreedTok folder.

        The backend is the folder's tokenizer.json (added tokens, post-processor, padding and
        truncation as saved) with the GreedTok step of ``mode`` attached: it encodes as the
        ``AutoTokenizer.from_pretrained(folder)`` backend does. A ``Tokenizer.save`` folder gets
        :func:`~hf_greedtok.hf.pipeline.build_backend`'s.

        Args:
            mode: "cover" or "optimal"; default: the saved mode, else the ranked token file's.

        Raises:
            GreedTokFileError: a damaged greedtok.json. ValueError: not a GreedTok folder, an
                unknown mode, or a tokenizer.json whose vocabulary differs from greedtok.json.
        """
        if not self.is_greedtok:
            raise ValueError(f"{self.path} is a {self.tokenizer_class} folder, not a GreedTok one")
        tok = self.greedtok()
        source = "mode" if mode else str(self.path / CONFIG_FILE)
        mode = mode or self.mode or tok.mode
        if mode not in MODES:
            raise ValueError(f"{source}: mode must be 'cover' or 'optimal', got {mode!r}")
        if self.config is None:
            return tok, mode, build_backend(tok, mode)
        vocab = self.tokenizer_json().get("model", {}).get("vocab")
        if vocab is not None:
            check_same_vocab(vocab, tok, str(self.path))
        return tok, mode, attach(backend_from_folder_json(self._tokenizer_text), tok, mode)
