"""Developer utilities: the import graph, checkout-to-checkout output comparisons, synthetic traces (see README.md)."""
