"""Certified randomness and audited play (issue #48; docs/certification.md).

- The RNG battery (:mod:`certify.battery`): the shuffle's keystream through Debian's ``dieharder`` and NIST SP
  800-22 (``nistrng``), a card-by-position chi-square over shuffled decks, first-card and first-pair frequencies;
  one report with every p-value and the verdict rule stated before the run (``manage.py rng_battery``).
- The game-output audit (:mod:`certify.audit`): for a period and a set of tables, from the event store, what the
  tables paid against the exact expected return, and outcome frequencies against their exact values, each with
  its interval and a flag; the admin's page, the monthly report in the laboratories' format
  (``manage.py game_audit``), a metric and an alert on a flagged table.
"""
