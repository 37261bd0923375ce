"""playground_trajectories dataset (RLDS episodes of the Playground)."""
