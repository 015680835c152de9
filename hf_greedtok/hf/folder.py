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
from ..errors import GreedTokFileError
from ..formats import folder_files
from ..formats.folder_files import (CONFIG_FILE, GREEDTOK_CLASS, LOOKUP_FILE, TOKENIZER_FILE, check_tokenizer_folder,
                                    config_class, read_folder_json)
from ..formats.greedtok_json import FILE_NAME
from ..formats.manifest import write_save_manifest
from .pipeline import (attach, backend_from_folder_json, build_backend, folder_json, template_post_processor,
                          unigram_vocab)
from ..models import MODES

__all__ = ["CONFIG_FILE", "GREEDTOK_CLASS", "LOOKUP_FILE", "NO_MAX_LENGTH", "REMOTE_CODE_FILE", "TOKENIZER_FILE",
           "TokenizerFolder", "check_same_vocab", "check_tokenizer_folder", "is_greedtok_config",
           "read_folder_json", "save_greedtok_folder"]

REMOTE_CODE_FILE = "tokenization_greedtok.py"      # the folder's auto_map code, a copy of ours
# transformers' VERY_LARGE_INTEGER, its model_max_length for "no limit"
NO_MAX_LENGTH = int(1e30)


def is_greedtok_config(config: Optional[dict]) -> bool:
    """Whether a tokenizer_config.json (None: a ``Tokenizer.save`` folder without one) is a
    GreedTok folder's, which :func:`load_greedtok_backend` reads."""
    return config_class(config) == GREEDTOK_CLASS


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
    atomic_write_text(files[2], tok.to_json(mode=mode))    # the config's mode, so the files agree
    shutil.copy(Path(__file__).with_name(REMOTE_CODE_FILE), files[3])    # as transformers' custom_object_save
    return files + [write_save_manifest(directory, files)]


def check_same_vocab(vocab: list, greedtok: Tokenizer, source: str) -> None:
    """tokenizer.json's Unigram vocabulary (its ``model.vocab``) must be the ranked token
    file's, id for id (:func:`hf_greedtok.formats.folder_files.check_same_vocab`; this signature
    is what the remote code of folders saved by 0.1 calls).

    Raises:
        GreedTokFileError (a ValueError): naming the first id that differs (or the two sizes).
    """
    folder_files.check_same_vocab(vocab, [piece for piece, _ in unigram_vocab(greedtok)], source)


class TokenizerFolder:
    """A tokenizer folder opened once: its files checked, its manifest verified, its
    tokenizer_config.json read and (a GreedTok folder) its model loaded when it is opened; then
    handed to whatever loads or encodes with it (:class:`~hf_greedtok.hf.folder_encoder.FolderEncoder`,
    the CLI's ``encode``, ``evaluate`` and ``tokenize``, ``GreedTokTokenizerFast.from_pretrained``
    and so ``AutoTokenizer``), which read it from here instead of checking it again.
    :meth:`hf_greedtok.Tokenizer.load` of a folder runs the same checks
    (:mod:`hf_greedtok.formats.folder_files`): every entry point reads one mode, the config's,
    and refuses a folder whose tokenizer.json and greedtok.json are two tokenizers'.

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
        """Check ``path`` (files present, JSON readable, manifest), read its config and load its
        GreedTok model.

        Raises:
            GreedTokFileError: not a folder, a missing or damaged file, a file the manifest
                lists that is missing or changed (not tokenizer_config.json, which users edit), a
                config without ``tokenizer_class``, with a class that cannot read tokenizer.json,
                an unknown mode or another mode than the files were saved for, or a
                tokenizer.json whose vocabulary is not greedtok.json's; the message names the
                file.
        """
        path = Path(path)
        config, text, content, tok = Tokenizer._open_folder(path)     # as Tokenizer.load(path) opens it
        folder = cls(path, config, text, content)
        # a Tokenizer.save folder: greedtok.json parsed before its manifest is checked, as
        # Tokenizer.load does (a damaged file's message says more than "changed since it was saved")
        folder._greedtok = Tokenizer.load(path) if config is None else tok
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
        return config_class(self.config)

    @property
    def is_greedtok(self) -> bool:
        """Whether a GreedTok model (cover or optimal) encodes it, readable without transformers."""
        return is_greedtok_config(self.config)

    @property
    def mode(self) -> Optional[str]:
        """The encoder the folder records, "cover" or "optimal" (tokenizer_config.json's
        ``"mode"``; greedtok.json's in a ``Tokenizer.save`` folder); None for a folder of
        another tokenizer class."""
        return self._greedtok.mode if self._greedtok is not None else None

    def tokenizer_json(self) -> dict:
        """tokenizer.json's content as parsed when the folder was opened ({} for a
        ``Tokenizer.save`` folder, which has none); shared, not to be changed."""
        return {} if self._tokenizer_json is None else self._tokenizer_json

    def greedtok(self) -> Tokenizer:
        """The folder's GreedTok model (greedtok.json, its ``mode`` the folder's), loaded when
        the folder was opened.

        Raises:
            ValueError: not a GreedTok folder.
        """
        if self._greedtok is None:
            raise ValueError(f"{self.path} is a {self.tokenizer_class} folder, not a GreedTok one")
        return self._greedtok

    def greedtok_backend(self, mode: Optional[str] = None) -> tuple[Tokenizer, str, HFTokenizer]:
        """(native tokenizer, mode, ``tokenizers`` backend) of a GreedTok folder.

        The backend is the folder's tokenizer.json (added tokens, post-processor, padding and
        truncation as saved) with the GreedTok step of ``mode`` attached, and the config's
        ``split_special_tokens``: it encodes as the ``AutoTokenizer.from_pretrained(folder)``
        backend does. A ``Tokenizer.save`` folder gets
        :func:`~hf_greedtok.hf.pipeline.build_backend`'s.

        Args:
            mode: "cover" or "optimal"; default: the folder's (:attr:`mode`).

        Raises:
            ValueError: not a GreedTok folder, or an unknown mode.
        """
        tok = self.greedtok()
        if mode is not None and mode not in MODES:
            raise ValueError(f"mode: mode must be 'cover' or 'optimal', got {mode!r}")
        mode = mode or tok.mode
        if self.config is None:
            return tok, mode, build_backend(tok, mode)
        backend = attach(backend_from_folder_json(self._tokenizer_text), tok, mode)
        # as transformers sets it from the config: special tokens in text encoded as text
        backend.encode_special_tokens = bool(self.config.get("split_special_tokens", False))
        return tok, mode, backend
