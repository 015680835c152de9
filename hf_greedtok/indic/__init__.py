"""Indic scripts: script-aware units (a base character with its combining marks,
:mod:`.units`) and the morphology lookup that splits known words into segments (MorphTok
Section 3.1.1, :mod:`.lookup`). Constrained BPE (MorphTok Section 3.2), a trainer over these
units, is :mod:`hf_greedtok.trainers.cbpe`.

Importing this package imports none of them.
"""
