"""hf-greedtok: GreedTok partition-cover tokenization and optimal segmentation, HF style.

Components follow HF ``tokenizers``' layout: :mod:`.normalizers`, :mod:`.pre_tokenizers`,
:mod:`.models` (the ranked vocabulary and its cover/optimal encoders), :mod:`.trainers`;
:class:`Tokenizer` (in :mod:`.core`) chains them.
"""
from .core import Tokenizer
from .file_format import GreedTokFileError
from .models import GreedTokModel
from .normalizers import UnicodeNormalizer
from .pre_tokenizers import ByteLevel, Metaspace
from .trainers import GreedTokTrainer
from .word_counts import CorpusError, count_words, count_words_in_files, read_count_tables

__version__ = "0.1.0"

__all__ = [
    "ByteLevel", "CorpusError", "GreedTokFileError", "GreedTokModel", "GreedTokTrainer", "Metaspace",
    "Tokenizer", "UnicodeNormalizer", "count_words", "count_words_in_files", "read_count_tables",
]
