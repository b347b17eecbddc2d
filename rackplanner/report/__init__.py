"""Exports of a plan: bill of materials as PDF and CSV."""
