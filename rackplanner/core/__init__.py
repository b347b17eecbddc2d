"""Everything rackplanner computes, in pure Python: no Qt import anywhere below here."""
