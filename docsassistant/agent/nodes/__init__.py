"""Graph nodes, one per file; each is a plain function `(state, runtime) -> update`."""
