"""The demo's scripted agent session and its offline agent loop (written for the package)."""
