"""The Hugging Face integration: the ``tokenizers`` backend that runs a GreedTok model
(:mod:`.pipeline`), the folders ``save_pretrained`` writes (:mod:`.folder`), the
``transformers`` classes (:mod:`.tokenization_greedtok`, also every saved folder's remote
code) and their ``AutoTokenizer`` registration (:mod:`.auto`); any saved folder's batch encoder
into Arrow columns (:mod:`.folder_encoder`) and ``hf-greedtok tokenize --engine local``
(:mod:`.tokenize_local`).

Importing this package imports none of them (nor ``tokenizers`` or ``transformers``).
"""
