"""Studies: coverage and validation studies, and the builders of shipped result tables (see README.md)."""
