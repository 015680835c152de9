"""``hf-greedtok tsr``: the token-saving ratio of optimal segmentation and the tokenization tax per
language, for any vocabulary (report.md, report.json, charts by script, world maps)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..options import local_path, size_int

HELP = ("token-saving ratio of optimal segmentation and the tokenization tax per language, for any vocabulary "
        "(report.md, report.json, plots)")


def add_arguments(r: argparse.ArgumentParser) -> None:
    """tsr's arguments, in the order ``--help`` lists them."""
    r.add_argument("vocabularies", nargs="+", type=local_path, metavar="VOCAB",
                   help="a .tiktoken file, a byte-level BPE tokenizer.json, or any folder `train` writes")
    source = r.add_mutually_exclusive_group(required=True)
    source.add_argument("--parallel", type=local_path, metavar="FILE",
                        help="lang<TAB>domain<TAB>english<TAB>translation table with that header "
                             "(e.g. multi_isocodes_parallel.tsv)")
    # extend, not the default store: a repeated --text must add its languages, not replace the earlier ones
    source.add_argument("--text", nargs="+", action="extend", metavar="LANG=FILE",
                        help="plain text per language (one string a line), repeatable (--text en=a.txt --text "
                             "hi=b.txt or --text en=a.txt hi=b.txt); each language once; the tax is measured "
                             "against en=FILE if given")
    r.add_argument("--output", "-o", type=local_path, required=True, help="the report folder to create")
    r.add_argument("--pattern", default=None,
                   help="split of a .tiktoken file that is not one of OpenAI's (gpt4, gpt2, o200k or a regex); "
                        "OpenAI's files are recognised by checksum")
    r.add_argument("--min-strings", type=size_int, default=300,
                   help="leave out languages with fewer strings (default %(default)s)")
    r.add_argument("--no-plots", action="store_true", help="skip the plots (no matplotlib needed)")
    r.add_argument("--overwrite", action="store_true", help="replace --output (only a report hf-greedtok tsr wrote)")
    r.add_argument("--quiet", action="store_true",
                   help="accepted as by every command; tsr shows no progress bars, so it changes nothing")


def run(args: argparse.Namespace) -> int:
    """Token-saving ratio and tokenization tax per language for each vocabulary
    (:func:`hf_greedtok.experiments.tsr.tsr_report`), written as report.md, report.json and
    plots to ``--output``; returns 0. Vocabularies and texts are read before anything is
    written (GreedTokFileError, CorpusError, ValueError: exit 2)."""
    from ...experiments.tsr import read_parallel, read_texts, tsr_report
    from ...vocabularies import load_vocabulary
    from ...formats.manifest import TSR
    from ..loading import check_pattern_applies
    from ..output import refuse_existing, write_output

    named = _named_texts(args.text or ())
    args.inputs = [*map(str, args.vocabularies), *([str(args.parallel)] if args.parallel else named.values())]
    refuse_existing(args, TSR)
    if not args.no_plots:
        from ...experiments.plots import check_plotting_available
        check_plotting_available()
    text = read_parallel(args.parallel) if args.parallel else read_texts(named)
    vocabularies = [load_vocabulary(v, pattern=args.pattern) for v in args.vocabularies]
    check_pattern_applies(args.pattern, args.vocabularies)       # each one found: not a missing one's message
    names = [v.name for v in vocabularies]
    if len(set(names)) != len(names):
        raise ValueError(f"two vocabularies have the same name: {names}; rename a file or folder")
    report = tsr_report(vocabularies, text, min_strings=args.min_strings)
    write_output(args, TSR, lambda folder: _write_report(args, report, folder))
    for v in report.vocabularies:
        s = report.summary(v["name"])
        tax = (f"; tax {s['lowest_tax'][1]:.2f}x ({s['lowest_tax'][0]}) .. {s['highest_tax'][1]:.2f}x "
               f"({s['highest_tax'][0]})" if s["lowest_tax"] else "")
        print(f"{v['name']}: {s['languages']} languages, median TSR {100 * s['median_tsr']:.2f}%, highest "
              f"{s['highest_tsr'][0][0]} {100 * s['highest_tsr'][0][1]:.2f}%{tax}")
    print(f"saved report.md, report.json{'' if args.no_plots else ' and plots'} to {args.output}")
    return 0


def _named_texts(items) -> dict[str, str]:
    """--text's LANG=FILE items as {language: file}; ValueError for a malformed item or a
    language given twice."""
    named: dict[str, str] = {}
    for item in items:
        lang, sep, path = item.partition("=")
        if not sep or not lang or not path:
            raise ValueError(f"--text {item!r}: expected LANG=FILE")
        if lang in named:
            raise ValueError(f"--text: language {lang} given twice ({named[lang]} and {path})")
        named[lang] = path
    return named


def _write_report(args: argparse.Namespace, report, folder: Path) -> None:
    """The plots (charts by script, and world maps where their data is installed), report.md
    showing them, and report.json, into ``folder``."""
    files = []
    if not args.no_plots:
        from ...experiments.tsr_map import maps_available, write_tsr_maps
        from ...experiments.tsr_plots import write_tsr_plots
        files = [p.name for p in write_tsr_plots(report, folder)]
        missing = maps_available()
        if missing is None:
            files += [p.name for p in write_tsr_maps(report, folder)]
        else:
            report.settings["world_map"] = f"not drawn: {missing}"
    markdown = report.to_markdown() + "\n" + "\n".join(f"![{n}]({n})" for n in files) + "\n"
    (folder / "report.md").write_text(markdown, encoding="utf-8")
    (folder / "report.json").write_text(report.to_json(), encoding="utf-8")
