"""Normalizers: the optional Unicode normalization applied before pre-tokenization."""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Optional

FORMS = ("NFC", "NFKC", "NFD", "NFKD")


@dataclass(frozen=True)
class UnicodeNormalizer:
    """Unicode normalization form ``form`` (one of NFC, NFKC, NFD, NFKD), as in HF ``normalizers.NFC`` etc.

    Raises:
        ValueError: unknown form.
    """

    form: str

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"normalizer must be one of {', '.join(FORMS)}, got {self.form!r}")

    def __call__(self, text: str) -> str:
        return unicodedata.normalize(self.form, text)


def normalizer_from_name(name: Optional[str]) -> Optional[UnicodeNormalizer]:
    """``None``/"none" gives no normalizer (lossless round trips); otherwise a UnicodeNormalizer."""
    if name is None or name.lower() == "none":
        return None
    return UnicodeNormalizer(name.upper())
