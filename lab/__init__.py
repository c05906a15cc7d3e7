"""The house-edge lab (docs/house-edge.md): plays rule sets through the rules core on every core, outside any
transaction: a command line (``python -m lab``), a report, and one Celery task behind the admin's figure."""
