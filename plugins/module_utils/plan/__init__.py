"""The planner: compares previous revision, live objects and the new manifest into one Plan."""
