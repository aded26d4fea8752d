"""Alembic migrations of the competition server's database."""
