"""PNG plots of a :class:`hf_greedtok.experiments.compare.Comparison` (matplotlib, the ``plot`` extra).

* tokens per word against k for GreedTok and BPE (the comparison behind the paper's Table 3),
  in sample at every k and, with held-out text, out of sample at the grid's k;
* d_inst = GreedTok / GreedWMC objective against k (the paper's Figure 3);
* with held-out text (``heldout.png``): each peer's tokens relative to HF BPE on the training
  text and on each out-of-sample text, one bar group per text.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .compare import Comparison

PLOT_FILES = ("tokens_per_word.png", "d_inst.png")
HELDOUT_PLOT = "heldout.png"


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("plots need matplotlib: pip install 'hf-greedtok[plot]' (or pass --no-plots)") from e
    matplotlib.use("Agg")      # files only; never open a window
    import matplotlib.pyplot as plt
    return plt


def check_plotting_available() -> None:
    """Load matplotlib's file backend now, so that a command that draws plots at its end fails
    at its start when it cannot.

    Raises:
        ImportError: matplotlib is not installed (the message names the ``plot`` extra and ``--no-plots``).
    """
    _pyplot()


def write_plots(result: "Comparison", folder: Path, title: str) -> list[Path]:
    """Write ``tokens_per_word.png`` and ``d_inst.png`` (and ``heldout.png`` if the result has a
    held-out comparison) into ``folder``; returns their paths.

    Raises:
        ImportError: matplotlib is not installed.
    """
    plt = _pyplot()
    k = result.k

    def save(fig, ax, name: str) -> Path:
        ax.set_xscale("log")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3, which="both")
        fig.tight_layout()
        fig.savefig(folder / name)
        plt.close(fig)
        return folder / name

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    start = 1 if len(k) > 1 else 0
    ax.plot(k[start:], result.tokens_per_word_bpe[start:], label="BPE (HF tokenizers)", color="tab:orange")
    ax.plot(k[start:], result.tokens_per_word_greedtok[start:], label="GreedTok", color="tab:blue")
    texts = list(dict.fromkeys(g["text"] for g in result.heldout_grid))
    for i, text in enumerate(texts):          # out of sample: the grid's k only
        rows = [g for g in result.heldout_grid if g["text"] == text]
        ks = [g["k"] for g in rows]
        shade = 0.35 + 0.5 * i / max(1, len(texts))
        ax.plot(ks, [g["tokens_per_word_bpe"] for g in rows], "o--", color="tab:orange", alpha=shade,
                label=f"BPE on {text} (out of sample)")
        ax.plot(ks, [g["tokens_per_word_greedtok"] for g in rows], "x--", color="tab:blue", alpha=shade,
                label=f"GreedTok on {text} (out of sample)")
    for row in result.table:
        if row["k_g"] is not None:
            ax.axhline(row["target"], color="0.85", linewidth=0.6, zorder=0)
    ax.set_xlabel("k (learned tokens; vocabulary = 256 + k)")
    ax.set_ylabel("tokens per word")
    ax.legend(fontsize=7 if texts else None)
    paths = [save(fig, ax, PLOT_FILES[0])]

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    d = result.d_inst
    ax.plot(np.arange(1, len(d) + 1), d, color="tab:green", label="d_inst = GreedTok / GreedWMC")
    ax.axhline(0.9, color="tab:red", linestyle="--", linewidth=0.8, label="0.9 (paper, large k)")
    ax.set_xlabel("k (learned tokens)")
    ax.set_ylabel("d_inst")
    ax.set_ylim(min(0.8, float(d.min()) - 0.02), max(1.01, float(d.max()) + 0.01))
    ax.legend(loc="lower right")
    paths.append(save(fig, ax, PLOT_FILES[1]))
    if result.heldout is not None:
        paths.append(_heldout_plot(plt, result.heldout, folder, title))
    return paths


def _heldout_plot(plt, heldout, folder: Path, title: str) -> Path:
    """Bars: tokens / HF BPE's tokens - 1, in percent, per peer (main table), one group per text."""
    peers = [p["name"] for p in heldout.peers["main"]]
    texts = heldout.texts
    fig, ax = plt.subplots(figsize=(7.2, 4.4), dpi=120)
    width = 0.8 / len(texts)
    x = np.arange(len(peers))
    for i, t in enumerate(texts):
        values = [100 * (heldout.row("main", p, t["name"])["ratio_to_reference"] - 1) for p in peers]
        ax.bar(x + (i - (len(texts) - 1) / 2) * width, values, width, label=f"{t['name']} ({t['kind']})",
               hatch=None if t["kind"] == "in sample" else "//")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, peers, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("tokens vs HF BPE (%)")
    ax.set_title(f"{title}: total vocabulary {heldout.settings['vocab_size']:,}", fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(folder / HELDOUT_PLOT)
    plt.close(fig)
    return folder / HELDOUT_PLOT
