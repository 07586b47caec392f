"""Your models on the density chart: evaluate them on a public protocol and place them against the headline
(:mod:`densing.placement.measure`, ``densing measure``, ``densing.measure``)."""
