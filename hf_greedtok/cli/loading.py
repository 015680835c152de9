"""How ``evaluate`` and ``encode`` open what DIR names: a folder ``train`` writes, or a
vocabulary file (.tiktoken, byte-level BPE tokenizer.json)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence


def check_exists(path: Path) -> None:
    """GreedTokFileError "no such file or directory" for a DIR that is not there, before it is
    opened as a folder or a vocabulary file (whose own errors would say what it is not)."""
    from ..errors import GreedTokFileError

    if not path.exists():
        raise GreedTokFileError(path, "no such file or directory")


def is_vocabulary_file(path: Path) -> bool:
    """Whether ``path`` names a vocabulary file (.tiktoken, tokenizer.json) rather than a folder."""
    return path.is_file() or path.suffix in (".tiktoken", ".json")


def check_pattern_applies(pattern: Optional[str], paths: Sequence[Path]) -> None:
    """--pattern names the split of a tiktoken file (any vocabulary file but a .json one, as
    :func:`hf_greedtok.vocabularies.load_vocabulary` reads them): ValueError when it is given and
    none of ``paths`` is one, since a folder's tokenizer and a tokenizer.json have their own split."""
    if pattern is not None and not any(p.is_file() and p.suffix != ".json" for p in paths):
        raise ValueError(f"--pattern applies to .tiktoken files; {', '.join(map(str, paths))}: a folder or a "
                         "tokenizer.json has its own split")

