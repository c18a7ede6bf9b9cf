"""Privacy: the one sanitizer every writer passes text through (SPEC 3.1, SPEC 10)."""
