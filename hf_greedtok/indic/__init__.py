"""Indic scripts: script-aware units (a base character with its combining marks,
:mod:`.units`), the morphology lookup that splits known words into segments (MorphTok
Section 3.1.1, :mod:`.lookup`), and Constrained BPE (MorphTok Section 3.2, :mod:`.cbpe`).

Importing this package imports none of them.
"""
