"""The builder of the shipped table of public base models (``results/public_models.csv``): its inputs' readers
(:mod:`tools.public_table.read`), the join and corrections (:mod:`tools.public_table.build`) and the checks of the
result (:mod:`tools.public_table.checks`). ``python tools/build_tables.py public`` runs it; densing reads the table
it writes as any results table."""
