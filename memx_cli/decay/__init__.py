"""Decay (SPEC 3.3): the forgetting curve and the sweep that archives what it lets go."""
