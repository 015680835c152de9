"""Option values shared by the library and the command line. This module imports nothing, so
``hf-greedtok --help`` can build its parser without loading the trainer or the encoders. The split
patterns, their names and the command line's default split live in their registry,
:mod:`hf_greedtok.pre_tokenizers.patterns` (which imports nothing either)."""

# GreedTok's longest candidate token, in units. Measured (benchmarks/bench_max_len.py, RESULTS.md,
# issue 15): on the shared corpora at 32,768 ids, 16 -> 24 gains 0.2% bytes/token held out and
# 24 -> 32 0.04%, at about the same training time (candidates are built on demand).
DEFAULT_MAX_TOKEN_LENGTH = 24
# The longest token a trainer may learn, in units. HF tokenizers' Unigram model (the pure
# tokenizer.json and the optimal backend) frees its trie recursively, one stack frame per byte of
# a token's string (a byte-level token's string takes up to 2 UTF-8 bytes a byte): a token of
# 65,535 bytes crashed the process when freed (segfault, 8 MB stack; found by the CLI fuzz
# campaign, issue 40), and threads have smaller stacks. 1,024 stays far below that anywhere and
# far above what pays (16 -> 24 -> 32: 0.2% and 0.04%).
MAX_TOKEN_LENGTH = 1024
# The encoder a tokenizer saved by ``hf-greedtok train`` uses unless told (``--mode``): the
# minimum-token segmentation of each word, never more tokens than cover (Algorithm 4). Measured
# (benchmarks/RESULTS.md, issue 17): 0.3-0.9 points fewer tokens than cover against HF BPE, on
# held-out lines and on other domains alike, at about the same encoding speed.
DEFAULT_MODE = "optimal"
CACHE_WORDS = 1 << 14       # most frequent training words saved to warm a loaded tokenizer's word cache
ENCODING_ERRORS = ("strict", "replace", "ignore")   # policies for invalid UTF-8 in corpora
SANDHI_POLICIES = ("skip", "error")                 # lookup entries whose segments do not spell the word


def default_normalizer(units: str, lookup: bool = False) -> str:
    """The normalizer ``count`` and ``train`` use without ``--normalizer``: "NFC" for script-aware
    units ("marks", "vowels") or with a morphology lookup (their units and entries are defined on
    composed text), else "none" (text round-trips unchanged). One default for both commands, so a
    table ``count`` wrote records the normalizer ``train`` uses with the same flags."""
    return "NFC" if units in ("marks", "vowels") or lookup else "none"


#: Ray engines: reruns of a task whose worker process or node died (Ray Core's own default for
#: tasks). Retrying forever (Ray Data's default) turns a worker that dies on every attempt (a
#: crash or out-of-memory kill on some input) into a run that never ends; bounded, the run fails
#: with :class:`~hf_greedtok.errors.WorkerLostError`.
DEFAULT_MAX_RETRIES = 3
# Superword GreedTok (issue 31; benchmarks/RESULTS.md, "Superwords"): the share of the learned
# tokens the word-level stage takes (SuperBPE's transition point t, as a fraction of k), and the
# chunk stage's frequency floor.
DEFAULT_WORD_TOKEN_SHARE = 0.25
DEFAULT_SUPERWORD_MIN_FREQUENCY = 32
# The distinct chunk text superword GreedTok's chunk stage trains on, in MB (10**6 bytes of UTF-8),
# before it takes a sample (issue 41, hf_greedtok.trainers.chunk_sample). Issue 53 measured the
# sample against the exact trainer on 250 MB of real English (203.9 MB of distinct chunks, held-out
# tokens, benchmarks/RESULTS.md "What the chunk sample costs on real English"): +1.03% at 10 MB,
# +0.38% at 20, +0.33% at 25, +0.26% at 30, -0.07% at 35, -0.13% at 45, +0.14% at 60. 35 MB is the
# smallest of those within 0.15%, and its peak (about 3.8 GB at 1 and 10 GB of text) stays within 4 GB.
DEFAULT_CHUNK_BUDGET_MB = 35.0
# The distinct words superword GreedTok's word stage trains on, in MB of UTF-8, before it takes a
# sample of them as the chunk stage does (issue 53): distinct words grow with the corpus too (the
# generated scale corpus meets new words at ~1.9K per MB), and the word stage indexes every
# substring of every distinct word (about 60 bytes of memory per byte: 40 MB of words peaked at
# 3.5 GB on 10 GB of text). 25 MB holds every word of 1 GB of the scale corpus (13 MB) and keeps
# the word stage below the chunk stage's peak.
DEFAULT_WORD_BUDGET_MB = 25.0
# The memory superword chunks are counted in before the counts spill to disk, in GB (10**9 bytes;
# issue 53, hf_greedtok.chunk_spill): the chunks of about 0.6 GB of English text. With
# --max-memory / max_memory_gb, half of that limit instead (trainers.memory_estimate).
DEFAULT_COUNTING_TABLE_GB = 1.0
