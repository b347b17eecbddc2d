"""Dialogs the window opens: a new feed, exporting the bill of materials or a rack's elevation."""
