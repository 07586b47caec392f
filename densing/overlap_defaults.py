"""Defaults shared by the trainer and the what-if models of densing.overlap (one place, so that they
agree). A top-level module: the command line reads it without importing densing.overlap (numpy)."""

#: DDP's bucket size (MiB, torch's ``bucket_cap_mb``): what ``densing overlap run`` trains with and
#: what ``densing overlap whatif`` assumes unless ``--bucket-mb`` says otherwise. (torch's own
#: default is 25 MiB; the trained GPT has ≈ 3.4 M parameters, 13 MB of gradients, so 25 MiB would
#: be one bucket: no overlap at all.)
DEFAULT_BUCKET_MB = 4.0

#: The largest DDP bucket (MiB) either accepts: 1 TiB, more than the gradients of any model the trainer builds or the
#: what-if models calibrate on; a larger one is a unit slip.
MAX_BUCKET_MB = 2.0**20
