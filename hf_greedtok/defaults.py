"""Option values shared by the library and the command line. This module imports nothing, so
``hf-greedtok --help`` can build its parser without loading the trainer or the encoders."""

DEFAULT_MAX_TOKEN_LENGTH = 24                       # GreedTok's longest candidate token, in units
CACHE_WORDS = 1 << 14       # most frequent training words saved to warm a loaded tokenizer's word cache
ENCODING_ERRORS = ("strict", "replace", "ignore")   # policies for invalid UTF-8 in corpora
SANDHI_POLICIES = ("skip", "error")                 # lookup entries whose segments do not spell the word
