"""Writing ``{word: count}`` tables: TSV that ``train --counts --no-prefix-space`` reads back, and parquet.

The TSV format is the one :func:`hf_greedtok.word_counts.read_count_tables` reads: UTF-8, one
``word<TAB>count`` entry per line, ASCII digits. The reader pre-tokenizes every entry again, so a
counted word (already pre-tokenized) is written in the form that reading turns back into exactly
that word, with ``prefix_space=False`` (CLI: ``--no-prefix-space``):

* byte level: the word as it is (``" the"``, with its space);
* Metaspace: the word without its leading replacement character (reading prepends it).

Each written entry is checked by reading it back through the same pre-tokenizer (with special
tokens and normalizer, as :func:`hf_greedtok.special_tokens.counting_pipeline` builds it). A word
the format cannot hold is left out and counted in the returned :class:`TableSummary`: one
containing a tab, CR, LF or NUL (the separators and the reader's line ends; at byte level these
are whitespace words such as ``"\\n"`` or ``" \\n\\n"``), the lone ``"▁"`` of Metaspace (a run
of spaces; reading prepends one to every entry), or one that the reader would split differently.
The parquet table (columns ``word``: string, ``count``: int64) holds every word exactly, as
counted (a Metaspace word with its leading "▁"); ``train --counts --no-prefix-space`` reads it
back word for word (:func:`hf_greedtok.word_counts.iter_count_tables`), as do
``ray.data.read_parquet`` and pyarrow.

Rows are sorted by descending count, then by word (code point order), so identical counts give
byte-identical files. Both writers write a temporary file beside the target and rename it into
place (:func:`hf_greedtok.atomic.atomic_write`): a killed run leaves no partial table under the
final name, and the temporary it leaves is removed by the next write of the same table.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from ..atomic import atomic_write, atomic_write_text

_UNWRITABLE = ("\t", "\n", "\r", "\0")


@dataclass(frozen=True)
class TableSummary:
    """What a table writer wrote: ``words``/``occurrences`` written, and the words (and their
    summed counts) left out because the TSV format cannot hold them (always 0 for parquet)."""

    path: Path
    words: int
    occurrences: int
    omitted_words: int = 0
    omitted_occurrences: int = 0


def sorted_items(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """(word, count) pairs by descending count, then word: the order of every written table."""
    return sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))


def table_form(word: str, pre_tokenizer: Any) -> Optional[str]:
    """The TSV entry that reads back as exactly ``word`` (``prefix_space=False``), or None.

    ``pre_tokenizer`` is the counting pre-tokenizer (a :class:`SpecialSplitPreTokenizer` when
    special tokens were cut out; its normalizer is applied on reading too, which is idempotent)."""
    if not word or any(c in word for c in _UNWRITABLE):
        return None
    replacement = getattr(pre_tokenizer, "replacement", None)    # Metaspace (or a wrapper of it)
    form = word[len(replacement):] if replacement and word.startswith(replacement) else word
    if not form:
        return None
    return form if pre_tokenizer.count_table_word(form, False) == [word] else None


def _format(path: Union[str, os.PathLike], format: Optional[str]) -> str:
    fmt = format or ("parquet" if str(path).endswith(".parquet") else "tsv")
    if fmt not in ("tsv", "parquet"):
        raise ValueError(f"count table format must be 'tsv' or 'parquet', got {fmt!r}")
    return fmt


def write_count_table(counts: Mapping[str, int], path: Union[str, os.PathLike], pre_tokenizer: Any = None,
                      *, format: Optional[str] = None) -> TableSummary:
    """Write ``counts`` to ``path`` atomically as TSV (default) or parquet (``format="parquet"`` or a
    ``.parquet`` suffix).

    Args:
        counts: {word: count >= 1}, words as the counters give them (pre-tokenized).
        path: the table file; its folder is created.
        pre_tokenizer: the counting pre-tokenizer (TSV only; required there): each entry is
            checked to read back as its word.

    Returns:
        TableSummary; for TSV, the words left out (see the module docstring).

    Raises:
        ValueError: a TSV table without ``pre_tokenizer``, or an unknown format.
        ImportError: parquet without pyarrow (``pip install "hf-greedtok[ray]"``).
        OSError: the file cannot be written (no partial file is left).
    """
    target = Path(path)
    items = sorted_items(counts)
    total = sum(c for _, c in items)
    if _format(target, format) == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("writing parquet count tables needs pyarrow: pip install 'hf-greedtok[ray]'") from None
        table = pa.table({"word": pa.array([w for w, _ in items], pa.string()),
                          "count": pa.array([c for _, c in items], pa.int64())})
        atomic_write(target, lambda fd, tmp: pq.write_table(table, tmp))
        return TableSummary(target, len(items), total)
    if pre_tokenizer is None:
        raise ValueError("a TSV count table needs the counting pre_tokenizer (to check each entry reads back)")
    lines, omitted, omitted_occ = [], 0, 0
    for word, count in items:
        form = table_form(word, pre_tokenizer)
        if form is None:
            omitted += 1
            omitted_occ += count
        else:
            lines.append(f"{form}\t{count}\n")
    atomic_write_text(target, "".join(lines))
    return TableSummary(target, len(lines), total - omitted_occ, omitted, omitted_occ)
