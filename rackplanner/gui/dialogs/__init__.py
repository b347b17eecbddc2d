"""Dialogs the window opens: a new feed, exporting the bill of materials."""
