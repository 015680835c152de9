"""hf-greedtok: GreedTok partition-cover tokenization and optimal segmentation, HF style.

The product tier, in data-flow order (``__all__``): a :class:`UnicodeNormalizer`, a
pre-tokenizer (:class:`ByteLevel`, :class:`Metaspace`), the word counter
(:func:`count_words`, :func:`count_words_in_files`, :func:`read_count_tables`), the trainers
(:class:`GreedTokTrainer`, :class:`GreedWMCTrainer`, :class:`GreedTokSuperwordTrainer` for tokens
that span words; their room, :mod:`.trainers`, also holds CBPE
and hierarchical GreedTok), the ranked vocabulary with its cover and optimal encoders
(:class:`GreedTokModel`), the pipeline that chains them (:class:`Tokenizer`),
the transformers tokenizer (:class:`GreedTokTokenizerFast`) with
:func:`export_optimal_tokenizer_json`, and the errors (:class:`GreedTokError` and its
subclasses). Each component kind has its own module, as in HF ``tokenizers``; the rooms beside
them: :mod:`.hf` (the transformers integration), :mod:`.indic` (script-aware units, the
morphology lookup), :mod:`.formats` (greedtok.json, manifests, tiktoken and HF BPE
files), :mod:`.experiments` (evaluation, the papers' comparisons) and :mod:`.cli`.

Importing this package is cheap: every name is imported on first use (PEP 562), so
``import hf_greedtok`` loads neither transformers nor datasets, matplotlib or tiktoken, and
never the experiments. The transformers classes register with ``AutoTokenizer`` as soon as
transformers is imported, in either order (a post-import hook), so
``AutoTokenizer.from_pretrained`` finds them.

Example:
    >>> import hf_greedtok as hg
    >>> trainer = hg.GreedTokTrainer(k=5, show_progress=False)
    >>> tok = trainer.train_from_iterator(["the cat sat on the mat"] * 4, num_proc=1)
    >>> tok.decode(tok.encode("the cat"))
    'the cat'
"""
from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import TYPE_CHECKING, Any

from ._import_hooks import importing, register_post_import_hook

if TYPE_CHECKING:      # the names as type checkers see them; at run time __getattr__ imports them
    from .core import Tokenizer
    from .errors import AddedTokensWarning, CorpusError, GreedTokError, GreedTokFileError, VocabularySizeWarning
    from .hf.auto import GreedTokConfig, register_auto_classes  # noqa: F401
    from .hf.pipeline import export_optimal_tokenizer_json
    from .hf.tokenization_greedtok import GreedTokTokenizerFast, MorphLookupTokenizerFast  # noqa: F401
    from .indic.lookup import MorphLookup  # noqa: F401
    from .indic.units import UnitSplitter  # noqa: F401
    from .models import GreedTokModel
    from .normalizers import UnicodeNormalizer
    from .pre_tokenizers import ByteLevel, Metaspace
    from .trainers import GreedTokSuperwordTrainer, GreedTokTrainer, GreedWMCTrainer
    from .trainers.cbpe import CBPETrainer  # noqa: F401
    from .word_counts import count_words, count_words_in_files, read_count_tables

__version__ = "0.1.0"

# public name -> submodule defining it
_EXPORTS = {
    "UnicodeNormalizer": "normalizers",
    "ByteLevel": "pre_tokenizers", "Metaspace": "pre_tokenizers",
    "count_words": "word_counts", "count_words_in_files": "word_counts", "read_count_tables": "word_counts",
    "GreedTokTrainer": "trainers", "GreedWMCTrainer": "trainers", "GreedTokSuperwordTrainer": "trainers",
    "GreedTokModel": "models",
    "Tokenizer": "core",
    "GreedTokTokenizerFast": "hf.tokenization_greedtok",
    "export_optimal_tokenizer_json": "hf.pipeline",
    "GreedTokError": "errors", "CorpusError": "errors", "GreedTokFileError": "errors",
    "VocabularySizeWarning": "errors",
    "AddedTokensWarning": "errors",
}
__all__ = [
    "UnicodeNormalizer", "ByteLevel", "Metaspace", "count_words", "count_words_in_files", "read_count_tables",
    "GreedTokTrainer", "GreedWMCTrainer", "GreedTokSuperwordTrainer", "GreedTokModel", "Tokenizer", "GreedTokTokenizerFast",
    "export_optimal_tokenizer_json", "GreedTokError", "CorpusError", "GreedTokFileError", "VocabularySizeWarning",
    "AddedTokensWarning",
]

# Importable from here as in 0.1, but they live in their rooms (not in __all__).
_EXPORTS.update({
    "MorphLookupTokenizerFast": "hf.tokenization_greedtok",
    "GreedTokConfig": "hf.auto", "register_auto_classes": "hf.auto",
    "CBPETrainer": "trainers.cbpe", "MorphLookup": "indic.lookup", "UnitSplitter": "indic.units",
})


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
        value = importlib.import_module(f"{__name__}.{name}")     # `hf_greedtok.indic` without importing it
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _register(trigger: str) -> None:
    """Import :mod:`.hf.auto`, which registers the transformers classes with AutoTokenizer.

    Runs right after ``trigger`` (transformers, or our transformers module) is imported. Our
    modules that import transformers at their top are half-built when that import fires the
    hook; then the hook on the last of them to finish (or ``hf.auto``'s own end) registers instead.
    Failures become a warning: they must not break ``import transformers`` for the user.
    """
    if any(importing(f"{__name__}.hf.{m}") for m in _IMPORTS_TRANSFORMERS if f"{__name__}.hf.{m}" != trigger):
        return      # the last of our modules to finish importing registers
    try:
        importlib.import_module(f"{__name__}.hf.auto")
    except Exception as e:       # noqa: BLE001 - reported, not raised: see above
        warnings.warn(f"hf_greedtok could not register GreedTokTokenizerFast with AutoTokenizer: {e!r}",
                      RuntimeWarning, stacklevel=2)


_check_compiled()
from .compat import install as _install_old_paths  # noqa: E402 - a checkout without its core stops above

_install_old_paths()     # hf-greedtok 0.1's module paths, for the folders it saved (.compat)
# our modules that import transformers at their top (each registers when it is done importing)
_IMPORTS_TRANSFORMERS = ("fast_path", "tokenization_greedtok", "auto")
for _trigger in ("transformers", f"{__name__}.hf.fast_path", f"{__name__}.hf.tokenization_greedtok"):
    register_post_import_hook(lambda _module, _trigger=_trigger: _register(_trigger), _trigger)
del _trigger
