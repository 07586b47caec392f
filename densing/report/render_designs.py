"""The report's design sections and its footer as HTML: ``densing measure``'s models and the provenance line (a second
design's section is its folder's, :mod:`densing.designs`) (layout only: the numbers are the model's, :mod:`densing.report.model`)."""
from __future__ import annotations

import math

from densing import paths
from densing.numbers import format_number
from densing.display import BOUND_SIGNS, NO_READING, density_reading
from densing.report import model as m
from densing.report.html import Section, cards_html, esc, table_html
from densing.report.render_parts import details


def provenance_footer(inputs: m.Inputs) -> str:
    """The footer a screenshot can be cited by: densing's version and commit, the date, the command, the seed and
    draws (said once: apart only where the command does not give them), and the input table's SHA-256 (HTML, escaped)."""
    import datetime
    import hashlib

    from densing import __version__

    seed, n_boot = inputs.seed, inputs.n_boot
    digest = hashlib.sha256(inputs.results.read_bytes()).hexdigest()[:16]
    command = inputs.command or (f"densing.report.build.build_report(results={str(inputs.results)!r}, seed={seed}, "
                                 f"n_boot={n_boot})")
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    drawn = "" if f"--seed {seed}" in command and f"--n-boot {n_boot}" in command else f" · seed {seed}, {n_boot} draws"
    return (f"densing {esc(__version__)} · commit {esc(paths.source_commit())} · {today} · <code>{esc(command)}</code>"
            f"{drawn} · {esc(inputs.results.name)} sha256 {digest}… · method: Xiao et al. 2024, arXiv 2412.04315")


def _g(value) -> str:
    return format_number(value, ".3g")


def _your_place(row: dict) -> str:
    """One model's place against the frontier line, in a few words (the first line a reader sees)."""
    if row.get("reading") == "none":
        return f"{row['model']}: not inverted, so not placed"
    if row.get("frontier") in ("above", "below"):
        return f"{row['model']} lies {row['frontier']} the frontier line"
    return f"{row['model']}: undetermined against the frontier line (a bound on the line's far side)"


def _your_density(row: dict) -> str:
    """ρ as the one bound rule reads it (:func:`densing.display.density_reading`): a number, ≤ / ≥ a bound, or —."""
    reading, number, _ = density_reading(row.get("density"), row.get("bound", ""), row.get("density_ci_low", math.nan),
                                         row.get("density_ci_high", math.nan), row.get("near_chance", False))
    if reading == NO_READING:
        return "—"
    return BOUND_SIGNS.get(reading, "") + _g(number)


def _frontier_at(row: dict) -> str:
    """The frontier line's ρmax at the model's date with the band of the slope's 95% interval there."""
    low, high = row.get("frontier_density_ci_low", math.nan), row.get("frontier_density_ci_high", math.nan)
    band = f" [{_g(low)}–{_g(high)}]" if not (math.isnan(float(low)) or math.isnan(float(high))) else ""
    return _g(row["frontier_density"]) + band


def _your_cards(r: dict, interval: str, suite: str | None, reference: str) -> str:
    cards = [("density ρ" + ("" if r.get("reading") == "value" else f" ({r.get('reading')})"), _your_density(r)),
             ("95% interval", interval),
             (f"frontier line's ρmax at {r['release_date']}", _frontier_at(r)),
             ("against the frontier line", str(r["frontier"]))]
    cards += [("suite", suite)] if suite else []
    cards += [("reference", str(r.get("reference") or reference))]
    return (f'<p class="verdict"><strong>{esc(_your_place(r))}</strong></p>' + cards_html(cards)
            + f'<p class="sub">{esc(r["words"])}.</p>')


def _yours(s: m.YoursSection) -> Section:
    """Your models (``densing measure``), the report's first section: for each model its density (or bound), the 95%
    interval, the frontier line's ρmax at its release date and where it lies against the line, the suite and the
    reference in cards, the verdict in words; then every model in one table."""
    yours, measured, suite = s.yours, s.measurement, s.suite
    # a censored density (a bound) has no interval to show: its draws are bounds too
    intervals = ["— (a bound)" if isinstance(b, str) and b else f"{_g(lo)}–{_g(hi)}"
                 for b, lo, hi in zip(yours["bound"].fillna(""), yours["density_ci_low"], yours["density_ci_high"])]
    table = yours.assign(**{"95% interval": intervals, "density": [_your_density(r) for r in yours.to_dict("records")],
                            "frontier_density": [_frontier_at(r) for r in yours.to_dict("records")]})
    leads = [_your_cards(r, interval, suite, measured.inversion.name)
             for r, interval in zip(yours.to_dict("records"), intervals)]
    table = table.rename(columns={"frontier": "frontier line", "frontier_density": "line's ρmax at the date",
                                  "inverted": "inverted on"})
    columns = ["model", "release_date", "inverted on", "density", "95% interval", "reading", "line's ρmax at the date",
               "frontier line", "words"]
    evaluated = f"Evaluated with densing measure ({suite})" if suite else "Evaluated with densing measure"
    how = (f"{evaluated}, inverted by the headline's own reference ({measured.inversion.name}) as the public models are; "
           f"the frontier line is the headline rule's ({measured.headline_rule}), ln ρmax = A·t + B, at each model's "
           "release date. A reading other than 'value' is a bound: the score is too close to chance (or beyond the "
           "reference) for a number. The models are the stars on the density figure below (Capacity density over time); "
           "the public trend they are placed on follows.")
    return Section(s.title, "", [*leads, f'<p class="sub">{esc(how)}</p>',
                                 details("your models in one table",
                                         table_html(table[[c for c in columns if c in table.columns]], scroll=False))])


DESIGN_RENDERERS = {m.YoursSection: _yours}
