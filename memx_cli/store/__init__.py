"""The store: memory records, their YAML files, ids, the repository and the queries over
them. The files are the only source of truth (SPEC 2); everything else is derived."""
