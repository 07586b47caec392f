"""Regenerate the shipped tables and fits that are built from source data, one subcommand each.

    python tools/build_tables.py public --obsscaling results/obsscaling --dates results/release_dates.csv \\
        --corrections results/corrections.csv --active-params results/active_params.csv --out results/public_models.csv
    python tools/build_tables.py swallow --source ../shared/data/swallow --curated results/swallow \\
        --dates results/release_dates.csv --out results/swallow
    python tools/build_tables.py openllm-v2 --out results/openllm_v2
    python tools/build_tables.py openllm-v2-trend --out results/openllm_v2/trend.json
    python tools/build_tables.py openllm-v2-sensitivity --out results/openllm_v2/curation_sensitivity.csv
    python tools/build_tables.py openllm-v2-draws --out results/openllm_v2/draw_counts.json
    python tools/build_tables.py candidates --results results/public_models.csv --fits-dir reference_fits
    python tools/build_tables.py protocol --out results/swallow/trend
    python tools/build_tables.py mc-reference --data ../shared/data/olmo_ladder --fits-dir reference_fits \\
        --results-dir results/olmes --n-boot 200 --seed 0
    python tools/build_tables.py olmes --fits-dir reference_fits --results-dir results/olmes --n-boot 600 --seed 0 \\
        --out results/olmes/trend.csv
    python tools/build_tables.py fixed-size --n-boot 1000 --seed 0 --out results/fixed_size.csv

Each writes its files atomically and byte-identically for the same inputs; the computation is the package's
(:mod:`tools.public_table.build`, :mod:`tools.swallow_table.build`, :mod:`densing.laws.eligibility`,
:mod:`densing.trend.protocol`, :mod:`densing.designs.olmes.mc_reference`, :mod:`densing.designs.olmes.trend`,
:mod:`densing.trend.fixed_size`), but for the candidate table's rules v1 and v2 (:func:`earlier_candidate_table`,
labelled variants the package does not compute); otherwise this script only reads the arguments, writes and prints. An error of the package (:class:`densing.errors.DensingError`) is
one line ``error: …`` on stderr and exit status 2; Ctrl-C is ``error: interrupted`` and exit status 130.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if (ROOT / "densing").is_dir() and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the checkout's package, installed or not (as cli.py)

#: Ctrl-C's line and exit status (128 + SIGINT), at any moment: an output is written atomically, so none is half-written.
INTERRUPTED, INTERRUPTED_EXIT = "error: interrupted", 130

try:
    from densing import paths
    from densing.errors import DensingError
    from densing.io import atomic_write_text
except KeyboardInterrupt:  # Ctrl-C while the package loads
    print(INTERRUPTED, file=sys.stderr)
    raise SystemExit(INTERRUPTED_EXIT) from None


def public(args) -> int:
    """The shipped table of public base models (:mod:`tools.public_table.build`): build, write, and print the
    remaining validation issues to stderr."""
    from tools.public_table.build import build_public_models, write_public_models
    from tools.public_table.checks import validate_public_models

    frame = build_public_models(args.obsscaling, args.dates, args.corrections, args.active_params)
    write_public_models(frame, args.out)
    issues = validate_public_models(frame)
    dated = int((frame["release_date"] != "").sum())
    print(f"wrote {args.out}: {len(frame)} models, {dated} dated, {len(issues)} validation issues", file=sys.stderr)
    for issue in issues.itertuples(index=False):
        print(
            f"  {issue.model} {issue.field}={issue.value}: {issue.reason} (expected {issue.expected})", file=sys.stderr
        )
    return 0


def swallow(args) -> int:
    """The Swallow LLM Leaderboard's target tables (:mod:`tools.swallow_table.build`): build and write every output; one
    line per file on stderr."""
    from tools.swallow_table.build import build_swallow, write_swallow

    outputs = build_swallow(args.source, args.curated, args.dates)
    written = write_swallow(outputs, args.out)
    for path, (_, frame) in zip(written, outputs.items()):
        print(f"wrote {path}: {len(frame)} rows", file=sys.stderr)
    return 0


def openllm_v2(args) -> int:
    """The Open LLM Leaderboard v2's official pretrained base models (:mod:`tools.openllm_v2_table.build`): with --raw,
    the shipped extract made anew from the whole contents file first; build and write every output; one line per
    file on stderr."""
    from tools.openllm_v2_table.build import EXTRACT, build_openllm_v2, extract, write_openllm_v2

    source = Path(args.out) / EXTRACT
    if args.raw:
        print(f"wrote {source}: {extract(args.raw, source)} official rows", file=sys.stderr)
    outputs = build_openllm_v2(source, Path(args.out) / "curated.csv", args.public, args.obsscaling_v2)
    for path, (_, frame) in zip(write_openllm_v2(outputs, args.out), outputs.items()):
        print(f"wrote {path}: {len(frame)} rows", file=sys.stderr)
    return 0


def openllm_v2_contents(args) -> int:
    """The whole Open LLM Leaderboard v2 as a user's target table (:mod:`tools.openllm_v2_table.contents`): the
    table at --out, the rows it cannot hold beside it (``<out>.refused.csv``), one line per file on stderr."""
    from densing.io import atomic_write_text
    from tools.openllm_v2_table.contents import contents_table

    table, refused = contents_table(args.raw, args.public)
    out = Path(args.out)
    atomic_write_text(out, table.to_csv(index=False))
    beside = out.with_name(out.stem + ".refused.csv")
    atomic_write_text(beside, refused.to_csv(index=False))
    print(f"wrote {out}: {len(table)} models; {beside}: {len(refused)} rows refused", file=sys.stderr)
    return 0


def openllm_v2_trend(args) -> int:
    """The Open LLM Leaderboard v2 table's trend record (:data:`densing.designs.openllm_v2.record.RECORD`):
    :func:`densing.trend.protocol.measure_table` with every row's leave-one-family-out table, as JSON."""
    from densing import registry
    from densing.data import read_results
    from densing.numbers import json_tree
    from densing.present.records import table_record
    from densing.trend.protocol import measure_table

    found = measure_table(read_results(registry.table("openllm_v2").path), "openllm_v2")
    record = table_record(found)
    record["influence"] = json_tree(found.measured.influence())
    atomic_write_text(Path(args.out), json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {args.out}: {record['verdict']}")
    return 0


def openllm_v2_draws(args) -> int:
    """The Open LLM Leaderboard v2 table's declared row and forecast check at each starting draw count (``densing
    trend --table openllm_v2 --by benchmark --format json --n-boot N``, seed 0), as JSON: the row's point moves with
    the draws, because its references' pooling weights come from them."""
    from densing import registry
    from densing.data import read_results
    from densing.numbers import json_tree
    from densing.present.records import table_record
    from densing.trend.protocol import measure_table

    targets = read_results(registry.table("openllm_v2").path)
    found = []
    for n_boot in args.n_boot:
        measurement = measure_table(targets, "openllm_v2", n_boot=n_boot, seed=0)
        measured, record = measurement.measured, table_record(measurement)
        row = next(r for r in record["rows"] if r["row"] == record["forecast"]["row"])
        found.append(
            {
                "n_boot": n_boot,
                "row": {k: row[k] for k in ("row", "months", "ci_low", "ci_high", "n_draws", "state", "status")},
                "lab_weights": measured.labs()[row["row"]]["lab_weights"],
                "forecast": record["forecast"]["declared"],
            }
        )
        print(f"--n-boot {n_boot}: {row['months']:.3f} months on {row['n_draws']} draws", file=sys.stderr)
    atomic_write_text(
        Path(args.out), json.dumps(json_tree({"runs": found}), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    )
    return 0


def openllm_v2_sensitivity(args) -> int:
    """The Open LLM Leaderboard v2 table's curation sensitivity (:mod:`tools.openllm_v2_table.sensitivity`): the
    v2-native row under each contested curation choice, as CSV; one line per choice on stderr."""
    from tools.openllm_v2_table.sensitivity import curation_sensitivity

    frame = curation_sensitivity(args.table, n_boot=args.n_boot, seed=args.seed)
    atomic_write_text(Path(args.out), frame.to_csv(index=False, lineterminator="\n"))
    for row in frame.itertuples(index=False):
        print(f"{row.choice}: {row.months} months [{row.ci_low}, {row.ci_high}], {row.state}", file=sys.stderr)
    return 0


def candidates(args) -> int:
    """The shipped candidate table of the trend's references: the reference rule (:mod:`densing.laws.eligibility`,
    its rows labelled ``v3``), then the earlier rules v2 and v1 (:func:`earlier_candidate_table`, labelled variants
    the package does not compute)."""
    import pandas as pd

    from densing.data import read_results
    from densing.laws import eligibility
    from densing.trend.measure import CANDIDATES_FILE
    from densing.trend.targets import with_stderr

    targets, composed = with_stderr(read_results(args.results)), eligibility.composed_fits(args.fits_dir)
    # the reference rule (the references of every row) first, the earlier rules (labelled variants) after it; the rule
    # column says which
    table = pd.concat(
        [
            eligibility.candidate_table(targets, composed=composed),
            *(
                earlier_candidate_table(targets, since=args.since, composed=composed, rule=rule)
                for rule in ("v2", "v1")
            ),
        ],
        ignore_index=True,
    )
    out = Path(args.fits_dir) / CANDIDATES_FILE
    atomic_write_text(out, table.to_csv(index=False, float_format="%.6g"))
    print(
        eligible_families(table[table["rule"] == eligibility.RULE_LABEL])
        .drop(columns="headline")
        .to_string(index=False)
    )
    print(f"wrote {out}")
    return 0


# -- rules v1 and v2 ------------------------------------------------------------------------------------------------
# The candidate table's labelled variants (docs/method.md, "The rules"): least squares on logits, a relative held-out
# error, a size span; v2 with the saturation and conditioning of the top-decile targets, v1 with the dated reach
# quantile on the leaderboard-v1 benchmarks. The trend reads the reference rule only; these rows are the shipped table's
# record.

#: Rule v1's benchmarks: the leaderboard-v1 columns (tidy names of ``read_results``); rule v2's are the package's
#: :data:`densing.laws.eligibility.CANDIDATE_BENCHMARKS`.
LEADERBOARD_V1_BENCHMARKS: tuple[str, ...] = ("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval")
MIN_SIZE_SPAN = 20.0
REACH_QUANTILE = 0.90
MAX_HELD_OUT_ERROR = 0.05
#: A family heads the candidates with at least this many eligible benchmarks (:func:`eligible_families`).
MIN_BENCHMARKS = 2
#: R4c: the largest median κ allowed over the top-decile targets (the trend's conditioning threshold).
MAX_TOP_CONDITIONING = 2.0


def earlier_candidate_table(targets, *, since: str | None, composed: dict | None = None, rule: str = "v2"):
    """One row per candidate (family × benchmark, and each composed fit) under rule ``rule`` (``v1``: R1–R5 over
    :data:`LEADERBOARD_V1_BENCHMARKS`; ``v2``: R1–R3, R4s, R4c, R5 over ``CANDIDATE_BENCHMARKS``, with the columns
    ``top_saturated`` and ``top_kappa`` and no reach, ``reach_score`` NaN: v2 reads no release date); the columns of
    :func:`densing.laws.eligibility.candidate_table`, ``eligible`` and ``why`` (the first rule it fails)."""
    import math

    import numpy as np
    import pandas as pd

    from densing.data.benchmarks import CHANCE_LEVELS, item_counts
    from densing.laws.eligibility import CANDIDATE_BENCHMARKS, MIN_FAMILY_MODELS
    from densing.laws.family import metric_for

    if rule not in ("v1", "v2"):
        raise DensingError(f"rule: expected v1 or v2, got {rule!r}")
    benchmarks = LEADERBOARD_V1_BENCHMARKS if rule == "v1" else CANDIDATE_BENCHMARKS
    rows = []
    counts = (
        targets.drop_duplicates("model").groupby("family")["model"].count()
        if "family" in targets.columns
        else pd.Series(dtype=int)
    )
    keep = [
        c
        for c in (
            "model",
            "family",
            "benchmark",
            "metric",
            "value",
            "params",
            "train_tokens",
            "active_params",
            "release_date",
            "stderr",
        )
        if c in targets.columns
    ]
    targets = targets[keep].astype({c: object for c in ("model", "family", "benchmark", "metric") if c in keep})
    present = set(targets["benchmark"].astype(str))
    metrics = {b: metric_for(targets, b, None) for b in benchmarks if b in present}
    reach_cache: dict = {}
    top_cache: dict = {}
    counted = set(item_counts()["benchmark"])
    for family in sorted(str(f) for f in counts[counts >= MIN_FAMILY_MODELS].index):
        own = targets[targets["family"] == family]  # one family's rows: the per-benchmark steps read only these
        for benchmark in benchmarks:
            if benchmark not in present:
                continue
            row = {
                "reference": f"{family}:{benchmark}",
                "family": family,
                "benchmark": benchmark,
                "kind": "family",
                "n_fitted": 0,
                "sizes": 0,
                "size_span": math.nan,
                "token_ratio": math.nan,
                "d0": math.nan,
                "largest_member": "",
                "largest_score": math.nan,
                "reach_score": _target_reach(targets, benchmark, family, since, reach_cache)
                if rule == "v1"
                else math.nan,
                "top_saturated": math.nan,
                "top_kappa": math.nan,
                "held_out_model": "",
                "held_out_measured": math.nan,
                "held_out_predicted": math.nan,
                "held_out_error": math.nan,
                "eligible": False,
                "code": "",
                "why": "",
            }
            rows.append(row)
            if benchmark not in CHANCE_LEVELS or benchmark not in counted:
                row["code"], row["why"] = (
                    "R2",
                    (
                        f"R2: {benchmark} has no {'chance level' if benchmark not in CHANCE_LEVELS else 'item count'} "
                        "in the registry (densing/data), so neither a floor nor a standard error"
                    ),
                )
                continue
            points, dropped = family_points(own, family, benchmark, metric=metrics[benchmark])
            row["n_fitted"] = len(points)
            sizes = np.unique(points["params"].to_numpy(float))
            row["sizes"] = int(sizes.size)
            if sizes.size:
                row["size_span"] = float(sizes.max() / sizes.min())
                tokens = points["train_tokens"].to_numpy(float)
                row["token_ratio"] = float(tokens.max() / tokens.min())
                row["d0"] = float(np.exp(np.mean(np.log(tokens))))
                row["largest_member"] = str(points["model"].iloc[-1])
                row["largest_score"] = float(points["score"].iloc[-1])
            notes = [f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in dropped.items() if v and k != "no_score"]
            _earlier_rules(row, rule, own, targets, family, benchmark, metrics[benchmark], int(sizes.size), top_cache)
            if notes:
                row["why"] = "; ".join(
                    ([row["why"]] if row["why"] else []) + [f"R1/R3 not fitted — {n}" for n in notes]
                )
    rows += [_composed_row(name, fit, targets, since, reach_cache) for name, fit in sorted((composed or {}).items())]
    out = pd.DataFrame(rows)
    out.insert(0, "rule", rule)
    return out


def _composed_row(name: str, fit, targets, since: str | None, reach_cache: dict) -> dict:
    """A shipped composed fit's row of rules v1 and v2: judged by the reach rule R4 alone, never eligible."""
    import math

    points = fit.points_frame()
    families = str(fit.provenance.get("families", ""))
    benchmark = fit.benchmarks[0] if len(fit.benchmarks) == 1 else fit.benchmark
    reach = _target_reach(targets, benchmark, "", since, reach_cache) if len(fit.benchmarks) == 1 else math.nan
    top = points.sort_values("params").iloc[-1]
    return {
        "reference": name.removesuffix(".json"),
        "family": families,
        "benchmark": fit.benchmark,
        "kind": fit.kind,
        "n_fitted": len(points),
        "sizes": int(points["params"].nunique()),
        "size_span": float(points["params"].max() / points["params"].min()),
        "token_ratio": float(points["train_tokens"].max() / points["train_tokens"].min()),
        "d0": fit.d0,
        "largest_member": str(top["model"]),
        "largest_score": float(top["score"]),
        "reach_score": reach,
        "held_out_model": "",
        "held_out_measured": math.nan,
        "held_out_predicted": math.nan,
        "held_out_error": math.nan,
        "top_saturated": math.nan,
        "top_kappa": math.nan,
        "eligible": False,
        "code": "R4" if len(fit.benchmarks) == 1 else "",
        "why": (
            "R4: largest member scores "
            f"{float(top['score']):.3f}, below the targets' {REACH_QUANTILE:.0%} quantile {reach:.3f}"
            if len(fit.benchmarks) == 1
            else "a mean of benchmarks: the joint inversion replaces it"
        )
        + (" (also several recipes)" if "," in families else ""),
    }


def _target_reach(targets, benchmark: str, family: str, since: str | None, cache: dict) -> float:
    """Rule v1's R4: the :data:`REACH_QUANTILE` quantile of ``benchmark``'s scores over the trend's targets released
    since ``since`` (not of the family); ``cache`` keeps each benchmark's dated scores and families."""
    import math

    import numpy as np
    import pandas as pd

    if benchmark not in cache:
        rows = targets[targets["benchmark"] == benchmark]
        if since is not None and "release_date" in rows.columns:
            dates = pd.to_datetime(rows["release_date"])
            rows = rows[dates.notna() & (dates >= pd.Timestamp(since))]
        fam = rows["family"].fillna("").astype(str).to_numpy() if "family" in rows.columns else np.full(len(rows), "")
        cache[benchmark] = (rows["value"].to_numpy(float), fam)
    values, fam = cache[benchmark]
    values = values[(fam != family) & ~np.isnan(values)]
    return float(np.quantile(values, REACH_QUANTILE)) if values.size else math.nan


def _top_decile_reasons(
    row: dict, own, targets, family: str, benchmark: str, metric: str, cache: dict
) -> tuple[str, str] | None:
    """Rule v2's R4s and R4c for one candidate: the (code, reason) it fails, or None; fills ``top_saturated`` and ``top_kappa``."""
    import numpy as np

    from densing.laws.eligibility import SATURATION_STDERRS, top_targets
    from densing.laws.inversion import conditioning

    _, scores, stderr = top_targets(targets, benchmark, family, cache)
    if not scores.size or np.isnan(stderr).all():
        return (
            "R4c",
            f"R4c: no target of {benchmark} has a standard error (no item count), so conditioning cannot be judged",
        )
    try:
        fit = ols_family_fit(own, family, benchmark, metric=metric)
    except DensingError as exc:
        return "R4c", f"R4c: the family law cannot be fitted: {exc}"
    cap = float(fit.params["c"]) + float(fit.params["d"])
    saturated = int(np.sum(scores >= cap - SATURATION_STDERRS * np.nan_to_num(stderr)))
    kappa = conditioning(fit, scores, stderr)
    kappa = np.where(np.isnan(kappa), np.inf, kappa)
    row["top_saturated"], row["top_kappa"] = saturated, float(np.median(kappa))
    if saturated:
        return "R4s", (
            f"R4s: {saturated} of the {scores.size} top-decile targets score within {SATURATION_STDERRS:g} standard errors "
            f"of the law's ceiling {cap:.3g}"
        )
    if not row["top_kappa"] <= MAX_TOP_CONDITIONING:
        return "R4c", (
            f"R4c: one standard error of a top-decile target's score moves N̂ {row['top_kappa']:.3g}-fold (median; "
            f"allowed {MAX_TOP_CONDITIONING:g})"
        )
    return None


def _earlier_rules(
    row: dict, rule: str, own, targets, family: str, benchmark: str, metric: str, sizes: int, top_cache: dict
) -> None:
    """Rules v1's and v2's R2 to R5 on one family candidate, in order: ``row``'s ``why`` says the first it fails,
    or ``eligible`` is set; the held-out columns are filled where R5 is reached."""
    from densing.laws.eligibility import MAX_TOKEN_RATIO, MIN_SIZES

    if sizes < MIN_SIZES:
        row["code"], row["why"] = (
            "R2",
            f"R2: {sizes} sizes with a token count and a score above chance (need {MIN_SIZES})",
        )
    elif row["size_span"] < MIN_SIZE_SPAN:
        row["code"], row["why"] = "R2", f"R2: sizes span {row['size_span']:.3g}× (need {MIN_SIZE_SPAN:g}×)"
    elif row["token_ratio"] > MAX_TOKEN_RATIO:
        row["code"], row["why"] = (
            "R3",
            f"R3: token counts differ {row['token_ratio']:.3g}× (allowed {MAX_TOKEN_RATIO:g}×)",
        )
    elif rule == "v2" and (reason := _top_decile_reasons(row, own, targets, family, benchmark, metric, top_cache)):
        row["code"], row["why"] = reason
    elif rule == "v1" and not row["largest_score"] >= row["reach_score"]:
        row["code"], row["why"] = (
            "R4",
            (
                f"R4: largest member scores {row['largest_score']:.3f}, below the targets' "
                f"{REACH_QUANTILE:.0%} quantile {row['reach_score']:.3f}"
            ),
        )
    else:
        try:
            held = held_out_error(own, family, benchmark, metric=metric)
            row |= dict(
                held_out_model=held["held_out"],
                held_out_measured=held["measured"],
                held_out_predicted=held["predicted"],
                held_out_error=held["relative_error"],
            )
            if row["held_out_error"] > MAX_HELD_OUT_ERROR:
                row["code"], row["why"] = (
                    "R5",
                    f"R5: held-out error {row['held_out_error']:.1%} (allowed {MAX_HELD_OUT_ERROR:.0%})",
                )
            else:
                row["eligible"] = True
        except DensingError as exc:
            row["code"], row["why"] = "R5", f"R5: held-out refit impossible: {exc}"


def family_points(table, family: str, benchmark: str, *, metric: str | None = None, keep_floor: bool = False):
    """The family's members usable for a fit of ``benchmark`` as a frame of ``POINT_COLUMNS`` (the arrays of
    :func:`densing.laws.family_rows.family_arrays`, the same members in the same order), and the dropped lists; unless
    ``keep_floor``, less the members scoring at or below chance (listed under ``at_chance``)."""
    import numpy as np
    import pandas as pd

    from densing.data.benchmarks import CHANCE_LEVELS
    from densing.laws.family_rows import family_arrays
    from densing.laws.fit_schema import POINT_COLUMNS

    members, dropped = family_arrays(table, family, benchmark, metric=metric)
    if not keep_floor:  # least squares on logits: a score at or below chance has no logit
        floor = members["score"] <= CHANCE_LEVELS[benchmark]
        dropped["at_chance"] = sorted(members["model"][floor])
        members = {k: v[~floor] for k, v in members.items()}
    points = pd.DataFrame(
        {
            "model": members["model"],
            "params": members["params"],
            "train_tokens": members["train_tokens"],
            "score": members["score"],
            "loss": np.full(members["model"].size, np.nan),
            "run": members["model"],
        },
        columns=list(POINT_COLUMNS),
    )
    return points, dropped


def ols_family_fit(table, family: str, benchmark: str, *, metric: str | None = None, exclude: tuple[str, ...] = ()):
    """Rules v1's and v2's family law, a point fit: S(N) = d + c·σ(γ·(ln N − l)) (d the chance level, c + d = 1) by
    ordinary least squares on logits, logit((S − d)/c) = γ·ln N − γ·l over the members above chance
    (:func:`family_points`, less the ``exclude``d), as a :class:`densing.laws.reference_fit.ReferenceFit` of kind
    ``family`` at the members' geometric-mean budget."""
    import math

    import numpy as np

    from densing.data.benchmarks import CHANCE_LEVELS
    from densing.errors import FitError
    from densing.laws.family_rows import metric_for
    from densing.laws.reference_fit import ReferenceFit

    metric = metric_for(table, benchmark, metric)
    points, _ = family_points(table, family, benchmark, metric=metric)
    points = points[~points["model"].isin(exclude)]
    log_n, chance = np.log(points["params"].to_numpy(float)), CHANCE_LEVELS[benchmark]
    if np.unique(log_n).size < 2:
        raise FitError(
            f"family {family!r}, {benchmark}: {np.unique(log_n).size} distinct size(s) above chance; "
            "a family law needs 2"
        )
    u = (points["score"].to_numpy(float) - chance) / (1.0 - chance)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where((u > 0) & (u < 1), np.log(u / (1 - u)), np.nan)
    slope, intercept = np.polyfit(log_n, z, 1)
    gamma, level = float(slope), float(-intercept / slope) if slope > 0 else math.nan
    if not (gamma > 0 and math.isfinite(level)):
        raise FitError(f"family {family!r}, {benchmark}: the score does not rise with size (logit slope {gamma:.3g})")
    return ReferenceFit(
        kind="family",
        benchmark=benchmark,
        metric=metric,
        params={"c": 1.0 - chance, "gamma": gamma, "l": level, "d": chance},
        stages=(),
        d0=float(np.exp(np.mean(np.log(points["train_tokens"].to_numpy(float))))),
        data_hash="",
        benchmarks=(benchmark,),
    )


def held_out_error(table, family: str, benchmark: str, *, metric: str | None = None) -> dict:
    """Refit without the largest member, predict its score (rule R5 of rules v1 and v2, with their fit by least
    squares on logits, shape logistic_ln_n).

    Returns ``held_out`` (model), ``measured``, ``predicted`` and ``relative_error`` |Ŝ − S| / S.
    """
    from densing.errors import FitError

    points, _ = family_points(table, family, benchmark, metric=metric)
    if len(points) < 3:
        raise FitError(f"family {family!r}, {benchmark}: {len(points)} member(s); holding one out needs 3")
    largest = points.iloc[-1]
    fit = ols_family_fit(table, family, benchmark, metric=metric, exclude=(str(largest["model"]),))
    predicted = float(fit.predict_score(float(largest["params"]), float(largest["train_tokens"])))
    measured = float(largest["score"])
    return {
        "held_out": str(largest["model"]),
        "measured": measured,
        "predicted": predicted,
        "relative_error": abs(predicted - measured) / measured,
    }


def eligible_families(candidates):
    """Families with ≥ :data:`MIN_BENCHMARKS` eligible benchmarks of one rule's candidate table: ``family``,
    ``benchmarks``, ``mean_held_out_error`` (the mean |z| under the reference rule, the mean relative error under rules v1 and
    v2), ``headline`` (the lowest)."""
    import pandas as pd

    ok = candidates[candidates["eligible"].astype(bool) & (candidates["kind"] == "family")]
    rows = []
    for family, group in ok.groupby("family", sort=True):
        if len(group) >= MIN_BENCHMARKS:
            ordered = list(dict.fromkeys(b for b in candidates["benchmark"] if b in set(group["benchmark"])))
            error = group["held_out_z"].abs() if "held_out_z" in group.columns else group["held_out_error"]
            rows.append({"family": family, "benchmarks": tuple(ordered), "mean_held_out_error": float(error.mean())})
    table = pd.DataFrame(rows, columns=["family", "benchmarks", "mean_held_out_error"])
    table = table.sort_values(["mean_held_out_error", "family"]).reset_index(drop=True)
    table["headline"] = table.index == 0
    return table


def protocol(args) -> int:
    """The Swallow tables' trend records (:data:`densing.designs.swallow.records.VARIANTS`, one JSON file each) into
    ``--out``."""
    from densing import registry
    from densing.data import read_results
    from densing.designs.swallow.records import VARIANTS
    from densing.present.records import table_record
    from densing.trend.protocol import measure_table

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for stem, table, drop in VARIANTS:
        record = table_record(measure_table(read_results(registry.table(table).path), table, continual=not drop))
        atomic_write_text(out / f"{stem}.json", json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"wrote {out / (stem + '.json')}: {record['verdict']}")
    return 0


def mc_reference(args) -> int:
    """The MC references of the four OLMES tasks (:mod:`tools.olmes_mc_reference`): fit and write them, write the
    offsets and the held-out chain, print them."""
    import pandas as pd

    from densing.data.olmo import read_olmo_mc_runs
    from densing.designs.olmes import mc_reference as mc
    from densing.laws.reference_fit import ReferenceFit
    from tools import olmes_mc_reference as build

    runs = read_olmo_mc_runs(args.data)
    targets = mc.read_olmes_table(args.results_dir)
    offsets, held, lines = [], [], []
    for task in mc.MC_CHANCE:
        loss_fit = ReferenceFit.load(Path(args.fits_dir) / mc.LADDER_FIT.format(task=task))
        fit = build.fit_mc_reference(loss_fit, runs, task, n_boot=args.n_boot, seed=args.seed)
        out = fit.save(Path(args.fits_dir) / mc.MC_FIT.format(task=task))
        fixed = build.fit_mc_reference(loss_fit, runs, task, n_boot=args.n_boot, seed=args.seed, ceiling=1.0)
        fixed.save(Path(args.fits_dir) / mc.MC_FIT_CEILING_ONE.format(task=task))
        offset = mc.measure_offset(fit, targets)
        offsets.append(offset.frame())
        held.append(build.held_out(fit, offset, targets))
        stage = fit.stages[-1]
        p = fit.params
        lines.append(
            f"{task}: S_MC(L) = {p['c']:.4f}/(1 + e^(−({p['gamma']:.3f})(L − {p['l']:.4f}))) + {p['d']:g}, "
            f"ceiling {'free' if fit.provenance['ceiling'] is None else fit.provenance['ceiling']}, "
            f"R² {stage.r_squared:.3f}, RMSE {stage.rmse:.4f}, {stage.n_points} checkpoints; "
            f"Δ = {offset.delta:+.4f} ± {offset.stderr:.4f}  -> {out}"
        )
    results = Path(args.results_dir)
    atomic_write_text(results / "mc_offsets.csv", pd.concat(offsets).to_csv(index=False, float_format="%.6g"))
    atomic_write_text(results / "mc_held_out.csv", pd.concat(held).to_csv(index=False, float_format="%.6g"))
    print("\n".join(lines))
    print(
        pd.concat(held)[
            ["task", "model", "scale", "measured_score", "predicted_score", "ci_low", "ci_high", "error"]
        ].to_string(index=False, float_format=lambda v: f"{v:.4f}")
    )
    print(f"wrote {results / 'mc_offsets.csv'} and {results / 'mc_held_out.csv'}")
    return 0


def olmes(args) -> int:
    """The OLMES trend (:func:`densing.designs.olmes.trend.measure_olmes`): print its rows and checks; with --out, write the
    rows as CSV and the checks beside them."""
    from densing.designs.olmes.trend import measure_olmes
    from densing.present.olmes import checks_frame, rows_frame
    from densing.present.words import left_out_frame, not_measured

    result = measure_olmes(args.fits_dir, args.results_dir, d0=args.d0, n_boot=args.n_boot, seed=args.seed)
    shown = rows_frame(result)
    checks = checks_frame(result)
    rows = shown.assign(
        error=[not_measured(e) if e else "" for e in shown["error"].fillna("")],
        failed_checks=[", ".join(names) for names in shown["failed_checks"]],
    )
    columns = [
        "benchmark",
        "months",
        "ci_low",
        "ci_high",
        "n_models",
        "n_exact",
        "n_lower",
        "n_upper",
        *[c for c in rows.columns if c.startswith("months_d0_") and not c.endswith("_ci")],
        "score_r2",
        "offset",
        "failed_checks",
    ]
    notes = [f"{r.benchmark}: {r.error}" for r in rows.itertuples() if r.error]
    print("\n".join([rows[columns].to_string(index=False, float_format=lambda v: f"{v:.3g}"), *notes]))
    print()
    print(checks[["benchmark", "name", "status", "detail"]].to_string(index=False))
    print()
    print(
        "left out:",
        "; ".join(
            f"{m} ({r})"
            for m, r in left_out_frame(result.left_out.drop_duplicates("model"))[["model", "reason"]].itertuples(
                index=False
            )
        ),
    )
    if args.out:
        out = Path(args.out)
        atomic_write_text(out, rows.to_csv(index=False, float_format="%.6g"))
        atomic_write_text(
            out.with_name(out.stem + "_checks.csv"),
            checks.drop(columns="fired").to_csv(index=False, float_format="%.6g"),
        )
        print(f"wrote {out} and {out.with_name(out.stem + '_checks.csv')}")
    return 0


def fixed_size(args) -> int:
    """The fixed-size time regression's rows (:func:`densing.trend.fixed_size.fixed_size_rows`) on every registered
    target table: print them; with --out, write them as one CSV."""
    import pandas as pd

    from densing import registry
    from densing.data import read_results
    from densing.present.records import fixed_size_frame
    from densing.trend.fixed_size import fixed_size_rows

    found = []
    for name, table in registry.tables().items():
        rows = fixed_size_frame(fixed_size_rows(read_results(table.path), name, n_boot=args.n_boot, seed=args.seed))
        found.append(rows.assign(benchmarks=rows["benchmarks"].map(" ".join)).assign(table=name))
    frame = pd.concat(found, ignore_index=True)
    frame = frame[["table", *[c for c in frame.columns if c != "table"]]]
    shown = [
        "table",
        "row",
        "n_scores",
        "n_families",
        "doubling_time_months",
        "doubling_time_months_ci_low",
        "doubling_time_months_ci_high",
        "delta_doubling_time_months_ci_low",
        "delta_doubling_time_months_ci_high",
        "status",
    ]
    print(frame[shown].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if args.out:
        atomic_write_text(Path(args.out), frame.to_csv(index=False, float_format="%.6g"))
        print(f"wrote {args.out}")
    return 0


def file_out(default_name: str):
    """An argparse ``type`` for a file output: ``DIR/`` (a path ending in a separator) is ``DIR/<default_name>``, as
    densing's commands read ``--out DIR/`` (:func:`densing.io.output_file`), never a file named ``DIR``."""
    from densing.io import output_file

    def as_file(value: str) -> str:
        return output_file(value, default_name)

    as_file.__name__ = "file"  # argparse names the type in its own errors
    return as_file


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand a table or record, each declared with the others of its kind."""
    top = argparse.ArgumentParser(prog="python tools/build_tables.py", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="table", required=True)
    _table_commands(sub)
    _record_commands(sub)
    _design_commands(sub)
    return top


def _command(sub, name: str, run) -> argparse.ArgumentParser:
    """Subcommand ``name`` running ``run``, its help the first clause of ``run``'s docstring."""
    words = " ".join(run.__doc__.split())
    found = sub.add_parser(name, help=words.split(" (")[0].split(":")[0], description=words)
    found.set_defaults(run=run)
    return found


def _table_commands(sub) -> None:
    """The target tables built from their sources: the public table, Swallow's, the Open LLM Leaderboard v2's."""
    p = _command(sub, "public", public)
    p.add_argument("--obsscaling", required=True, help="folder with the ObsScaling CSVs and SOURCE_COMMIT")
    p.add_argument("--dates", required=True, help="release_dates.csv")
    p.add_argument("--corrections", required=True, help="corrections.csv")
    p.add_argument("--active-params", default=None, help="active_params.csv (mixture-of-experts models)")
    p.add_argument(
        "--out",
        required=True,
        type=file_out("public_models.csv"),
        help="output CSV (written atomically; DIR/: DIR/public_models.csv)",
    )

    p = _command(sub, "swallow", swallow)
    p.add_argument(
        "--source", required=True, help="folder with the leaderboard's model_2025-06.yml and model_2026-05.yml"
    )
    p.add_argument("--curated", required=True, help="folder with lineage.csv, params.csv, tokens.csv")
    p.add_argument("--dates", required=True, help="the house's release_dates.csv")
    p.add_argument("--out", required=True, help="output folder (files written atomically)")

    p = _command(sub, "openllm-v2", openllm_v2)
    p.add_argument(
        "--out",
        default=str(paths.RESULTS / "openllm_v2"),
        help="the table's folder: curated.csv and the extract are read there, the outputs written there",
    )
    p.add_argument(
        "--raw",
        default=None,
        help="the whole csv/huggingface_v2.csv (checked by its SHA-256): make the extract anew from it",
    )
    p.add_argument("--public", default=str(paths.RESULTS / "public_models.csv"))
    p.add_argument("--obsscaling-v2", default=str(paths.RESULTS / "obsscaling" / "base_llm_leaderboard_v2_eval.csv"))

    p = _command(sub, "openllm-v2-contents", openllm_v2_contents)
    p.add_argument("--raw", required=True, help="the whole csv/huggingface_v2.csv (checked by its SHA-256)")
    p.add_argument("--public", default=str(paths.RESULTS / "public_models.csv"))
    p.add_argument(
        "--out",
        required=True,
        type=file_out("openllm_v2_contents.csv"),
        help="the table's CSV (its refusals beside it, <out>.refused.csv; DIR/: DIR/openllm_v2_contents.csv)",
    )


def _record_commands(sub) -> None:
    """The records computed on the tables: the second table's trend, draws and curation sensitivity, the reference
    candidates, Swallow's protocol rows."""
    from densing.constants import DEFAULT_EPOCH

    p = _command(sub, "openllm-v2-trend", openllm_v2_trend)
    p.add_argument(
        "--out",
        default=str(paths.RESULTS / "openllm_v2" / "trend.json"),
        type=file_out("trend.json"),
        help="the trend record (JSON; DIR/: DIR/trend.json)",
    )

    p = _command(sub, "openllm-v2-draws", openllm_v2_draws)
    p.add_argument("--n-boot", type=int, nargs="+", default=[200, 600, 2400], help="the starting draw counts")
    p.add_argument("--out", default=str(paths.RESULTS / "openllm_v2" / "draw_counts.json"))

    p = _command(sub, "openllm-v2-sensitivity", openllm_v2_sensitivity)
    p.add_argument("--table", default=str(paths.RESULTS / "openllm_v2"), help="the table's folder (with curated.csv)")
    p.add_argument("--n-boot", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--out",
        default=str(paths.RESULTS / "openllm_v2" / "curation_sensitivity.csv"),
        type=file_out("curation_sensitivity.csv"),
        help="the rows (CSV; DIR/: DIR/curation_sensitivity.csv)",
    )

    p = _command(sub, "candidates", candidates)
    p.add_argument("--results", default=str(paths.RESULTS / "public_models.csv"))
    p.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS))
    p.add_argument("--since", default=DEFAULT_EPOCH)

    p = _command(sub, "protocol", protocol)
    p.add_argument("--out", required=True)


def _design_commands(sub) -> None:
    """The OLMES design's MC references and trend, and the fixed-size regression of every table."""
    from densing.designs.olmes.trend import D0

    p = _command(sub, "mc-reference", mc_reference)
    p.add_argument("--data", default=str(paths.SHARED_DATA / "olmo_ladder"), help="the OLMo ladder folder")
    p.add_argument(
        "--fits-dir", default=str(paths.REFERENCE_FITS), help="where the ladder's fits are and the MC fits go"
    )
    p.add_argument(
        "--results-dir",
        default=str(paths.RESULTS / "olmes"),
        help="the OLMES table; mc_offsets.csv and mc_held_out.csv go here",
    )
    p.add_argument("--n-boot", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)

    p = _command(sub, "olmes", olmes)
    p.add_argument("--fits-dir", default=str(paths.REFERENCE_FITS))
    p.add_argument("--results-dir", default=str(paths.RESULTS / "olmes"))
    p.add_argument("--d0", type=float, default=D0)
    p.add_argument("--n-boot", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--out",
        default=None,
        type=file_out("trend.csv"),
        help="write the rows here (CSV) and the checks beside it (<stem>_checks.csv; DIR/: DIR/trend.csv)",
    )

    p = _command(sub, "fixed-size", fixed_size)
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--out",
        default=None,
        type=file_out("fixed_size.csv"),
        help="write the rows of every table here (CSV; DIR/: DIR/fixed_size.csv)",
    )


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        return args.run(args)
    except (DensingError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return INTERRUPTED_EXIT


if __name__ == "__main__":
    raise SystemExit(main())
