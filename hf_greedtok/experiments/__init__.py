"""Evaluation and the papers' experiments: tokens per word, fertility and Rényi efficiency
(:mod:`.metrics`, :mod:`.evaluation`), GreedTok vs BPE and GreedWMC at equal vocabulary
(:mod:`.compare`, the GreedTok paper's Table 3 and Figure 3), the same in and out of sample
against more peers (:mod:`.line_split` holds lines out, :mod:`.peers` wraps HF, GreedTok and
SentencePiece tokenizers, :mod:`.heldout` trains and measures them; :mod:`.superbpe` is a
SuperBPE-style two-stage BPE peer built from stock ``tokenizers``), hierarchical training
against a direct run (:mod:`.hierarchical_vs_direct`, Section 5.4) and their plots
(:mod:`.plots`); the token-saving ratio and tokenization tax per language for any vocabulary
(:mod:`.tsr`, over :mod:`hf_greedtok.vocabularies`, with :mod:`.tsr_plots` and :mod:`.tsr_map`;
the optimal-segmentation paper's TSR).

``import hf_greedtok`` never imports this package; the CLI imports it for ``train`` (tokens per
word of the saved encoder), ``evaluate``, ``compare``, ``hierarchical`` and ``tsr``.
"""
