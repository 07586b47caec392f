"""lm-eval task configs shipped with densing (loaded through ``TaskManager(include_path=...)``)."""
