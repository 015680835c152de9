"""hf-greedtok: GreedTok partition-cover tokenization and optimal segmentation, HF style.

Components follow HF ``tokenizers``' layout: :mod:`.normalizers`, :mod:`.pre_tokenizers`,
:mod:`.models` (the ranked vocabulary and its cover/optimal encoders), :mod:`.trainers`;
:class:`Tokenizer` (in :mod:`.core`) chains them natively. :mod:`.hf_pipeline` builds the same
pipeline as a ``tokenizers.Tokenizer``, and :class:`GreedTokTokenizerFast` (in
:mod:`.tokenization_greedtok`) is the transformers tokenizer. Importing this package registers
it with ``AutoTokenizer``.
"""
try:
    from . import _encoder, _trainer  # noqa: F401  (the compiled core, built by setup.py from src_ext/)
except ModuleNotFoundError as _e:
    if _e.name not in (f"{__name__}._encoder", f"{__name__}._trainer"):
        raise
    # the usual cause: a source checkout on sys.path (the working directory of `python -c`)
    # shadows the installed package
    raise ImportError(f"{__name__} at {__path__[0]} has no compiled core ({_e.name} is missing): this is an "
                      "unbuilt source checkout. Build it in place with `pip install -e .`, or run from "
                      "outside the checkout to use the installed package.", name=_e.name) from None

from .core import Tokenizer
from .file_format import GreedTokFileError
from .models import GreedTokModel
from .normalizers import UnicodeNormalizer
from .pre_tokenizers import ByteLevel, Metaspace
from .trainers import GreedTokTrainer, GreedWMCTrainer
from .word_counts import CorpusError, count_words, count_words_in_files, read_count_tables
from .hf_pipeline import export_optimal_tokenizer_json
from .tokenization_greedtok import GreedTokTokenizerFast, MorphLookupTokenizerFast
from .lookup import MorphLookup
from .cbpe import CBPETrainer
from .units import UnitSplitter
from ._auto import GreedTokConfig, register_auto_classes

__version__ = "0.1.0"

register_auto_classes()

__all__ = [
    "ByteLevel", "CorpusError", "GreedTokConfig", "GreedTokFileError", "GreedTokModel",
    "CBPETrainer", "GreedTokTokenizerFast", "GreedTokTrainer", "GreedWMCTrainer", "Metaspace", "MorphLookup",
    "MorphLookupTokenizerFast", "Tokenizer", "UnicodeNormalizer", "UnitSplitter",
    "count_words", "count_words_in_files", "export_optimal_tokenizer_json", "read_count_tables",
]
