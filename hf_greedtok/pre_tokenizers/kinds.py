"""The registry of pre-tokenizer kinds: the saved "type" -> class, and the checks and constructors
that read it. A new kind registers here, once (see :mod:`.base`)."""
from __future__ import annotations

from typing import Any

from ..errors import InvalidSpec
from .base import PreTokenizer
from .byte_level import ByteLevel
from .hf import HFPreTokenizer
from .metaspace import Metaspace

#: Every kind, by the "type" its ``to_dict()`` records.
KINDS: dict[str, type[PreTokenizer]] = {cls.kind: cls for cls in (ByteLevel, Metaspace, HFPreTokenizer)}


def pre_tokenizer_from_dict(spec: dict[str, Any]) -> PreTokenizer:
    """Rebuild a pre-tokenizer from its ``to_dict()``.

    Raises:
        InvalidSpec: an unknown "type" or a split pattern that does not compile.
        KeyError: a required field is missing.
    """
    kind = KINDS.get(spec.get("type"))  # type: ignore[arg-type]
    if kind is None:
        raise InvalidSpec(f"unknown pre-tokenizer type {spec.get('type')!r}")
    return kind.from_dict(spec)


def type_name(value: object) -> str:
    """``module.Class`` of ``value``'s type, as errors name it (builtins without the module)."""
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def check_pre_tokenizer(value: object, owner: str) -> PreTokenizer:
    """``value`` if it is a pre-tokenizer of a registered kind (:class:`ByteLevel`,
    :class:`Metaspace`, or a foreign vocabulary's); ``owner`` names the class checking it.

    Raises:
        TypeError: anything else, e.g. a ``tokenizers.pre_tokenizers.ByteLevel()``, naming the
            class to use instead.
    """
    if isinstance(value, tuple(KINDS.values())):
        return value  # type: ignore[return-value]
    name = type(value).__name__
    use = f"hf_greedtok.{name}()" if name in ("ByteLevel", "Metaspace") else \
        "hf_greedtok.ByteLevel() (byte-level units) or hf_greedtok.Metaspace() (character units)"
    rust = " (a tokenizers pre-tokenizer runs in Rust and cannot drive GreedTok's encoders)" \
        if type(value).__module__.startswith("tokenizers") else ""
    raise TypeError(f"{owner}: pre_tokenizer must be hf_greedtok.ByteLevel or hf_greedtok.Metaspace, got "
                    f"{type_name(value)}{rust}; use {use}")


def pre_tokenizer_from_name(name: str) -> PreTokenizer:
    """"byte-level" (or "bytes") or "metaspace" (or "chars")."""
    key = name.lower().replace("_", "-")
    if key in ("byte-level", "bytelevel", "bytes"):
        return ByteLevel()
    if key in ("metaspace", "chars"):
        return Metaspace()
    raise ValueError(f"pre-tokenizer must be 'byte-level' or 'metaspace', got {name!r}")
