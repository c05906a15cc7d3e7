"""The game in the Django admin, one module per concern (docs/admin.md).

- ``table_admin``, ``hand_admin``, ``event_admin``, ``dispute_admin``: ``TableAdmin``, ``HandAdmin``,
  ``EventAdmin``, ``DisputeAdmin``, each registered with the site by its module;
- ``views``: the hand page (replay, timeline, ledger, verification);
- ``present``: what the admin draws of a state or an event, through the core's hiding rule;
- ``forms``: table creation, rename, dispute resolution;
- ``filters``: the list filters;
- ``links``: the admin pages of a hand and of a player, which the other pages link to;
- ``roles``: the ``auditor`` and ``operator`` groups;
- ``log``: ``log_action``, a ``LogEntry`` for every operator action.

Django's admin autodiscovery imports ``tables.admin``; importing the four ModelAdmin modules here is what
registers them.
"""

from tables.admin import dispute_admin, event_admin, hand_admin, table_admin

__all__ = ["dispute_admin", "event_admin", "hand_admin", "table_admin"]
