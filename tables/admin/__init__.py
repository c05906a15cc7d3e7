"""The game in the Django admin, one module per concern (docs/admin.md).

- ``model_admins``: ``TableAdmin``, ``HandAdmin``, ``EventAdmin``, ``DisputeAdmin`` (registered with the site);
- ``views``: the hand page (replay, timeline, ledger, verification);
- ``present``: what the admin draws of a state or an event, through the core's hiding rule;
- ``forms``: table creation, rename, dispute resolution;
- ``filters``: the list filters;
- ``roles``: the ``auditor`` and ``operator`` groups;
- ``log``: ``log_action``, a ``LogEntry`` for every operator action.

Django's admin autodiscovery imports ``tables.admin``; importing ``model_admins`` here is what registers the
ModelAdmins.
"""

from tables.admin import table_admin

__all__ = ["table_admin"]
