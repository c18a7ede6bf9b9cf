"""Git's front end (SPEC 6): the hook shims and their installation, and what each hook does.
The verbs the hooks call (the pre-commit check, `memx diff`, the merge driver) are in
operations/."""
