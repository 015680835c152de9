"""The commands that run the papers' experiments and write a report folder: ``compare``
(GreedTok vs BPE vs GreedWMC, Table 3 and Figure 3), ``hierarchical`` (Section 5.4) and ``tsr``
(token-saving ratio and tokenization tax per language). Each module has ``add_arguments`` and
``run``, as the product's commands in :mod:`hf_greedtok.cli`."""
