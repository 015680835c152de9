"""File formats, read and written: the ranked token file (:mod:`.greedtok_json`), the folder manifest
(:mod:`.manifest`), foreign vocabularies (tiktoken, HF BPE: :mod:`.foreign`), count tables
(:mod:`.count_table`), input files and their documents (:mod:`.sources`) and the tokenized dataset
folder (:mod:`.dataset`)."""
