"""The Open LLM Leaderboard v2's official pretrained base models as a target table (:mod:`.build`)."""
