"""Helm release records: the JSON model Helm stores, its storage drivers and the per-release lease."""
