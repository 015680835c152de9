"""hf-greedtok: GreedTok partition-cover tokenization and optimal segmentation, HF style.

Components follow HF ``tokenizers``' layout: :mod:`.normalizers`, :mod:`.pre_tokenizers`,
:mod:`.models` (the ranked vocabulary and its cover/optimal encoders), :mod:`.trainers`;
:class:`Tokenizer` (in :mod:`.core`) chains them natively. :mod:`.hf_pipeline` builds the same
pipeline as a ``tokenizers.Tokenizer``, and :class:`GreedTokTokenizerFast` (in
:mod:`.tokenization_greedtok`) is the transformers tokenizer.

Importing this package is cheap: every name below is imported on first use (PEP 562), so
``import hf_greedtok`` loads neither transformers nor datasets, matplotlib or tiktoken. The
transformers classes register with ``AutoTokenizer`` as soon as transformers is imported, in
either order (a post-import hook), so ``AutoTokenizer.from_pretrained`` finds them.
"""
from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import TYPE_CHECKING, Any

from ._import_hooks import importing, register_post_import_hook

if TYPE_CHECKING:      # the names as type checkers see them; at run time __getattr__ imports them
    from ._auto import GreedTokConfig, register_auto_classes  # noqa: F401  (public, outside __all__)
    from .cbpe import CBPETrainer
    from .core import Tokenizer
    from .file_format import GreedTokFileError
    from .hf_pipeline import export_optimal_tokenizer_json
    from .lookup import MorphLookup
    from .models import GreedTokModel
    from .normalizers import UnicodeNormalizer
    from .pre_tokenizers import ByteLevel, Metaspace
    from .tokenization_greedtok import GreedTokTokenizerFast, MorphLookupTokenizerFast
    from .trainers import GreedTokTrainer, GreedWMCTrainer
    from .units import UnitSplitter
    from .word_counts import CorpusError, count_words, count_words_in_files, read_count_tables

__version__ = "0.1.0"

# public name -> submodule defining it
_EXPORTS = {
    "Tokenizer": "core",
    "GreedTokFileError": "file_format",
    "GreedTokModel": "models",
    "UnicodeNormalizer": "normalizers",
    "ByteLevel": "pre_tokenizers", "Metaspace": "pre_tokenizers",
    "GreedTokTrainer": "trainers", "GreedWMCTrainer": "trainers",
    "CorpusError": "word_counts", "count_words": "word_counts", "count_words_in_files": "word_counts",
    "read_count_tables": "word_counts",
    "export_optimal_tokenizer_json": "hf_pipeline",
    "GreedTokTokenizerFast": "tokenization_greedtok", "MorphLookupTokenizerFast": "tokenization_greedtok",
    "MorphLookup": "lookup",
    "CBPETrainer": "cbpe",
    "UnitSplitter": "units",
    "GreedTokConfig": "_auto", "register_auto_classes": "_auto",
}

__all__ = [
    "ByteLevel", "CorpusError", "GreedTokConfig", "GreedTokFileError", "GreedTokModel",
    "CBPETrainer", "GreedTokTokenizerFast", "GreedTokTrainer", "GreedWMCTrainer", "Metaspace", "MorphLookup",
    "MorphLookupTokenizerFast", "Tokenizer", "UnicodeNormalizer", "UnitSplitter",
    "count_words", "count_words_in_files", "export_optimal_tokenizer_json", "read_count_tables",
]


def _check_compiled() -> None:
    """Raise ImportError if the compiled core is missing, before any submodule needs it.

    The usual cause is a source checkout on ``sys.path`` (the working directory of
    ``python -c``) shadowing the installed package; looking the modules up imports nothing.
    """
    missing = [name for name in ("_encoder", "_trainer") if importlib.util.find_spec(f"{__name__}.{name}") is None]
    if missing:
        raise ImportError(f"{__name__} at {__path__[0]} has no compiled core ({', '.join(missing)} missing): this "
                          "is an unbuilt source checkout. Build it in place with `pip install -e .`, or run "
                          "from outside the checkout to use the installed package.", name=f"{__name__}.{missing[0]}")


def __getattr__(name: str) -> Any:
    """The public names (and submodules) of the package, imported on first access."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f"{__name__}.{name}")     # `hf_greedtok.metrics` without importing it
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _register(trigger: str) -> None:
    """Import :mod:`._auto`, which registers the transformers classes with AutoTokenizer.

    Runs right after ``trigger`` (transformers, or our transformers module) is imported. Our
    modules that import transformers at their top are half-built when that import fires the
    hook; then the hook on the module itself (or ``_auto``'s own end) registers instead.
    Failures become a warning: they must not break ``import transformers`` for the user.
    """
    if trigger == "transformers" and any(importing(f"{__name__}.{m}") for m in ("tokenization_greedtok", "_auto")):
        return
    try:
        importlib.import_module(f"{__name__}._auto")
    except Exception as e:       # noqa: BLE001 - reported, not raised: see above
        warnings.warn(f"hf_greedtok could not register GreedTokTokenizerFast with AutoTokenizer: {e!r}",
                      RuntimeWarning, stacklevel=2)


_check_compiled()
for _trigger in ("transformers", f"{__name__}.tokenization_greedtok"):
    register_post_import_hook(lambda _module, _trigger=_trigger: _register(_trigger), _trigger)
del _trigger
