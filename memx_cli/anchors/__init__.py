"""Source anchors (SPEC 3.5): tie a memory to code, and re-verify it at every retrieval."""
