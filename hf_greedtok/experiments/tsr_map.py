"""World maps of a :class:`hf_greedtok.experiments.tsr.TsrReport` (the ``map`` extra).

Each country is coloured by the TSR (or tax) of its main language: the language CLDR gives the
largest population share in that territory (``babel``'s territory data), measured under the
country's own variant when the report has one (``pt_BR`` for Brazil, ``zh_TW`` for Taiwan).
Countries whose main language the report did not measure stay blank and are listed. The map
shapes come with ``pygal_maps_world`` (SVG, no download at run time).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from .tsr import file_part

if TYPE_CHECKING:
    from .tsr import TsrReport


def _packages():
    try:
        from babel.core import get_global
        from pygal_maps_world.maps import World
    except ImportError as e:
        raise ImportError("world maps need babel, pygal and pygal_maps_world: pip install 'hf-greedtok[map]' "
                          "(or pass --no-plots)") from e
    return get_global, World


def main_languages(measured: set[str]) -> tuple[dict[str, str], list[str]]:
    """(ISO 3166 alpha-2 code in lower case -> the measured language code of its main language,
    territories whose main language was not measured).

    Raises:
        ImportError: babel is not installed.
    """
    get_global, _ = _packages()
    mapped: dict[str, str] = {}
    unmeasured = []
    for territory, languages in get_global("territory_languages").items():
        if not re.fullmatch(r"[A-Z]{2}", territory) or not languages:
            continue
        main = max(languages, key=lambda lang: languages[lang]["population_percent"])
        base = main.split("_")[0]
        code = next((c for c in (f"{base}_{territory}", main, base) if c in measured), None)
        if code is None:
            unmeasured.append(territory.lower())
        else:
            mapped[territory.lower()] = code
    return mapped, sorted(unmeasured)


def write_tsr_maps(report: "TsrReport", folder: Path) -> list[Path]:
    """Write ``world_tsr_<vocabulary>.svg`` (and ``world_tax_<vocabulary>.svg`` where tax was
    measured) for each vocabulary; returns their paths.

    Raises:
        ImportError: babel, pygal or pygal_maps_world is not installed.
    """
    _, World = _packages()
    written = []
    for v in report.vocabularies:
        rows = {r["language"]: r for r in report.of(v["name"])}
        countries, unmeasured = main_languages(set(rows))
        report.settings.setdefault("map_countries_without_a_measured_main_language", unmeasured)
        for key, title, scale in (("tsr", "TSR of optimal segmentation (%)", 100.0),
                                  ("tax", "tokenization tax (x English)", 1.0)):
            values = {country: round(scale * rows[lang][key], 3) for country, lang in countries.items()
                      if rows[lang][key] is not None}
            if not values:
                continue
            world = World(title=f"{v['name']}: {title} of each country's main language", legend_at_bottom=True)
            world.add(title, values)
            path = folder / f"world_{key}_{file_part(v['name'])}.svg"
            path.write_bytes(world.render())
            written.append(path)
    return written


def maps_available() -> Optional[str]:
    """None if the map packages import, else the reason they do not."""
    try:
        _packages()
    except ImportError as e:
        return str(e)
    return None
