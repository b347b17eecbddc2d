"""rackplanner: plan ML hardware from one workstation to a colo rack."""

__version__ = "0.1.0"
