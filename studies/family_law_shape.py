"""Which shape of the family law predicts a family's largest member better: the logistic in ln N or the paper's power form.

The two shapes of :func:`densing.laws.family.fit_family` (``shape=``), both fitted by the same binomial likelihood
with two free parameters (γ, l), d the benchmark's chance level and c + d = 1:

- ``logistic_ln_n``: S(N) = d + c·σ(γ·(ln N − l)) (Ruan et al. 2024, arXiv 2405.10938, eq. 3);
- ``power``: S(N) = d + c·σ(γ·(u − l)), u = −(N / N_unit)^−α: the paper's two steps at a fixed budget
  (Xiao et al. 2024, arXiv 2412.04315, eqs. 2 and 3: L = a·N^−α + b·D^−β, S = c·σ(−γ'·(L − l')) + d), with α fixed
  (Hoffmann et al. 2022, α = 0.34) and N_unit = 10⁹; it flattens toward an asymptote d + c·σ(−γ·l) below the ceiling.

**The criterion** (written, and committed alone, before the comparison was run):

*Rows.* Two tables: the public table (``results/public_models.csv``, candidate benchmarks
``densing.trend.tables.get("public").candidates``) and the Swallow table (``results/swallow/swallow_2025-06.csv``,
``tables.get("swallow").candidates``). A row is one family × benchmark of one table whose points
(:func:`densing.laws.family.family_points` with ``keep_floor=True``: dense members with a token count, any score)
have at least 3 distinct sizes, the benchmark having a chance level and an item count n in the registry.

*Held-out prediction.* In each row the largest member (the last point by size, as
:func:`densing.laws.family.held_out_test` takes it) is held out, and each shape is refitted on the others by
:func:`~densing.laws.family.held_out_test` with that shape and rule v3's dispersion floor for that shape (the
benchmark's pooled dispersion over the table's families, :func:`densing.laws.eligibility.pooled_dispersions`,
computed under that shape). The refit predicts p̂ at the held-out size.

*Score.* The held-out binomial log-likelihood with the family's dispersion, as a deviance (0 for a perfect
prediction):

    ℓ = (n / φ)·[S·ln(p̂ / S) + (1 − S)·ln((1 − p̂) / (1 − S))]

S the held-out member's score, φ the dispersion rule v3 gives the family under the shipped shape (logistic_ln_n:
max(1, the benchmark's pooled dispersion, the refit's own X²/(m − 2))), the same φ for both shapes, so that the two
are compared on one scale and a shape's worse fit does not lower its own penalty.

*Decision.* The shape with the larger Σ ℓ over every row of both tables becomes the default (the other stays a
labelled option); a tie keeps logistic_ln_n. Reported beside it, not deciding: the number of rows each shape wins
(larger ℓ), and the R5z pass rate of each shape (|z| ≤ 1.96, z of :func:`~densing.laws.family.held_out_test` under
that shape with its own pooled dispersion), over all rows and per table. A row where either shape's refit does not
converge or does not rise is listed with its reason and left out of the sums, counted per shape.

The output lists every row under both shapes (held-out model, S, p̂ and z per shape, ℓ per shape, the winner) and
the totals. The command, from the repository root:

    PYTHONPATH=src python studies/family_law_shape.py > studies/family_law_shape.results.txt
"""
