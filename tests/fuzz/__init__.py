"""Seeded mutation fuzz tests of the parsers (issue #16)."""
