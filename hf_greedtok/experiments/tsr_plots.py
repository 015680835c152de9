"""PNG plots of a :class:`hf_greedtok.experiments.tsr.TsrReport` (matplotlib, the ``plot`` extra).

* per vocabulary, TSR and tax per language: bars sorted within script groups, one colour per
  script, different for every script however many appear (:func:`distinct_colours`; the
  optimal-segmentation paper's per-language view, without its map);
* with several vocabularies, TSR against vocabulary size: the median over languages and each
  script's median (the paper's second axis).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .plots import _pyplot
from .tsr import file_part

if TYPE_CHECKING:
    from .tsr import TsrReport


_GOLDEN = 0.6180339887498949    # hue step of the colours beyond the qualitative maps: never repeats


def distinct_colours(n: int) -> list[tuple[float, float, float]]:
    """``n`` pairwise different RGB colours (different as 8-bit hex too): matplotlib's qualitative
    maps tab20, tab20b and tab20c in turn (60 colours), then hues stepped by the golden ratio at
    three brightness levels, skipping any that would repeat one already given.

    Raises:
        ImportError: matplotlib is not installed.
    """
    from matplotlib import colormaps
    from matplotlib.colors import hsv_to_rgb, to_hex
    colours: list[tuple[float, float, float]] = []
    seen: set[str] = set()

    def add(colour) -> None:
        key = to_hex(colour)
        if key not in seen and len(colours) < n:
            seen.add(key)
            colours.append(tuple(float(c) for c in colour[:3]))

    for name in ("tab20", "tab20b", "tab20c"):
        for colour in colormaps[name].colors:
            add(colour)
    k = 0
    while len(colours) < n:
        add(hsv_to_rgb(((k * _GOLDEN) % 1.0, 0.65, (0.95, 0.75, 0.55)[k % 3])))
        k += 1
    return colours


def script_colours(scripts: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """{script: colour} for the scripts of a report's rows (one entry per row, repeats allowed),
    the most frequent script first (tab20's first colours, as before), each its own colour."""
    order = [s for s, _ in Counter(scripts).most_common()]
    return dict(zip(order, distinct_colours(len(order))))


def write_tsr_plots(report: "TsrReport", folder: Path) -> list[Path]:
    """Write ``tsr_<vocabulary>.png`` and ``tax_<vocabulary>.png`` for each vocabulary (tax only
    where it was measured) and, with two or more vocabularies, ``tsr_by_size.png``; returns
    their paths.

    Raises:
        ImportError: matplotlib is not installed.
    """
    plt = _pyplot()
    # one colour per script for the whole report, so that a script looks the same in every plot
    colour = script_colours([r["script"] for r in report.rows])
    written: list[Path] = []
    for v in report.vocabularies:
        rows = report.of(v["name"])
        by_script = Counter(r["script"] for r in rows)
        order = {s: i for i, (s, _) in enumerate(by_script.most_common())}
        for key, label, scale in (("tsr", "token-saving ratio of optimal segmentation (%)", 100.0),
                                  ("tax", "tax: tokens / tokens of the English originals", 1.0)):
            shown = [r for r in rows if r[key] is not None]
            if not shown:
                continue
            shown.sort(key=lambda r: (order[r["script"]], -r[key], r["language"]))
            fig, ax = plt.subplots(figsize=(7, 1.2 + 0.17 * len(shown)))
            y = range(len(shown))
            ax.barh(list(y), [scale * r[key] for r in shown], color=[colour[r["script"]] for r in shown])
            ax.set_yticks(list(y), [r["language"] for r in shown], fontsize=6)
            ax.invert_yaxis()
            ax.set_xlabel(label)
            ax.set_title(f"{v['name']} ({v['size']:,} ids): {key.upper() if key == 'tsr' else 'tax'} per language",
                         fontsize=9)
            handles = [plt.Rectangle((0, 0), 1, 1, color=colour[s]) for s in order]
            ax.legend(handles, list(order), fontsize=6, loc="lower right", title="script", title_fontsize=6)
            fig.tight_layout()
            path = folder / f"{key}_{file_part(v['name'])}.png"
            fig.savefig(path, dpi=120)
            plt.close(fig)
            written.append(path)
    if len(report.vocabularies) >= 2:
        written.append(_tsr_by_size(plt, report, folder))
    return written


def _tsr_by_size(plt, report: "TsrReport", folder: Path) -> Path:
    import statistics
    vocabs = sorted(report.vocabularies, key=lambda v: v["size"])
    sizes = [v["size"] for v in vocabs]
    fig, ax = plt.subplots(figsize=(6, 4))
    medians = [100 * statistics.median(r["tsr"] for r in report.of(v["name"])) for v in vocabs]
    ax.plot(sizes, medians, "k-o", label="all languages (median)", linewidth=2)
    scripts = Counter(r["script"] for r in report.rows).most_common(6)
    for script, _ in scripts:
        values = [[r["tsr"] for r in report.of(v["name"]) if r["script"] == script] for v in vocabs]
        if all(values):
            ax.plot(sizes, [100 * statistics.median(x) for x in values], "--.", label=f"{script} (median)")
    for v, m in zip(vocabs, medians):
        ax.annotate(v["name"], (v["size"], m), fontsize=6, textcoords="offset points", xytext=(3, 3))
    ax.set_xscale("log")
    ax.set_xlabel("vocabulary size (ids)")
    ax.set_ylabel("token-saving ratio (%)")
    ax.set_title("TSR against vocabulary size", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = folder / "tsr_by_size.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
