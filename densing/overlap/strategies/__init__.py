"""Overlap strategies, one module each, and their registry (:mod:`densing.overlap.strategies.registry`)."""
