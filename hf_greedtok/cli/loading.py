"""How ``evaluate`` and ``encode`` open what DIR names: a folder ``train`` writes, or a
vocabulary file (.tiktoken, byte-level BPE tokenizer.json)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional


def check_exists(path: Path) -> None:
    """GreedTokFileError "no such file or directory" for a DIR that is not there, before it is
    opened as a folder or a vocabulary file (whose own errors would say what it is not)."""
    from ..errors import GreedTokFileError

    if not path.exists():
        raise GreedTokFileError(path, "no such file or directory")


def is_vocabulary_file(path: Path) -> bool:
    """Whether ``path`` names a vocabulary file (.tiktoken, tokenizer.json) rather than a folder."""
    return path.is_file() or path.suffix in (".tiktoken", ".json")


def refuse_pattern_for_folder(pattern: Optional[str]) -> None:
    """--pattern names the split of a vocabulary file: a folder's tokenizer has its own (ValueError)."""
    if pattern is not None:
        raise ValueError("--pattern applies to .tiktoken files; a folder's tokenizer has its own split")

