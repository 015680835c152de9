"""File formats: the ranked token file, the folder manifest, and foreign vocabularies (tiktoken, HF BPE)."""
