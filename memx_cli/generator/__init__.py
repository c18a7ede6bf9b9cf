"""The Generator (SPEC 3.4): hybrid retrieval over a store's derived indexes."""
