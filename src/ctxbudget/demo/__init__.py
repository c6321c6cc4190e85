"""Data the demo ships: a small agent request the project wrote itself."""
