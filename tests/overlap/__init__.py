"""Tests of densing.overlap (a package, so that their basenames may equal other folders' test files)."""
