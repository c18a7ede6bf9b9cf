"""Git integration (SPEC 6): hook shims, what each hook does, and ``memx diff`` for review."""
